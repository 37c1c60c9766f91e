"""Bind a syntax tree to the ModelConfig schema: decide, locate, explain, and build.

This is where the verdict on a file is made, with the rules of protobuf's C++ text
parser (`text_format.cc`, which Triton uses), not Python's: which spellings each field
type takes (hex and octal integers, `-` apart from its number, `1` for true, enum
numbers, `inf` and `nan` for floats but `inff` not), when a field may not be given
twice (a scalar only once it holds a non-default value, a map entry's key always), and
which oneof members exclude each other. Every problem of an error kind is one the C++
parser rejects too; the `warning` kinds (duplicate map keys, undeclared enum numbers,
strings that are not UTF-8) are ones it accepts silently.

While checking, the binder fills the `ModelConfig` the text describes, so a file
needs no second parse by `text_format` (which decides differently, and is slow); a
test checks that both give the same message for every valid fixture. It also records
the position of every field for the source map, and says "did you mean" where
protobuf only says no.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from pbtxt_lint.diagnostics import Edit, Fix, Span
from pbtxt_lint.echo import bound_message
from pbtxt_lint.textproto.checks import (
    INT_RANGES,
    enum_suggestion,
    message_label,
    out_of_range,
    suggest,
    unknown_enum,
)
from pbtxt_lint.textproto.integers import integer
from pbtxt_lint.textproto.sourcemap import Key, Located, PathElement, SourceMap
from pbtxt_lint.textproto.tokenizer import Token, TokenKind, string_bytes, string_value
from pbtxt_lint.textproto.tree import Block, Document, Field, ListValue, Scalar, token_span


class ProblemKind(enum.Enum):
    """Kinds of problems the parser reports; `rules/syntax.py` gives each a code."""

    SYNTAX = "syntax"
    UNKNOWN_FIELD = "unknown-field"
    UNKNOWN_ENUM = "unknown-enum"
    QUOTED_ENUM = "quoted-enum"
    WRONG_TYPE = "wrong-type"
    OUT_OF_RANGE = "out-of-range"
    DUPLICATE_FIELD = "duplicate-field"
    ONEOF_CONFLICT = "oneof-conflict"
    PLACEHOLDER = "placeholder"  # where a value belongs: the file does not parse
    QUOTED_PLACEHOLDER = "quoted-placeholder"  # inside a string: parsed, kept literally
    ENCODING = "encoding"
    NOT_UTF8 = "not-utf8"
    DUPLICATE_MAP_KEY = "duplicate-map-key"
    UNDECLARED_ENUM_NUMBER = "undeclared-enum-number"
    NOT_TEXT = "not-text"  # the whole file: binary data, a binary ModelConfig, UTF-16
    TOO_LARGE = "too-large"  # the whole file: more tokens than pbtxt-lint reads


ACCEPTED_KINDS = frozenset(
    {
        ProblemKind.DUPLICATE_MAP_KEY,
        ProblemKind.UNDECLARED_ENUM_NUMBER,
        ProblemKind.NOT_UTF8,
        ProblemKind.QUOTED_PLACEHOLDER,
    }
)
"""Problems Triton's parser accepts silently: warnings, never a reason to reject."""


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    message: str
    span: Span
    hint: str | None = None
    fix: Fix | None = None

    def __post_init__(self) -> None:
        # Messages quote tokens of the file, which can be a megabyte long.
        object.__setattr__(self, "message", bound_message(self.message))
        if self.hint is not None:
            object.__setattr__(self, "hint", bound_message(self.hint))


def is_repeated(fd: FieldDescriptor) -> bool:
    """`is_repeated` is new in protobuf 6; older runtimes only have `label`."""
    known = _REPEATED.get(fd)
    if known is None:
        flag = getattr(fd, "is_repeated", None)
        if flag is not None:
            known = bool(flag)
        else:
            known = bool(getattr(fd, "label", None) == FieldDescriptor.LABEL_REPEATED)
        _REPEATED[fd] = known
    return known


_REPEATED: dict[FieldDescriptor, bool] = {}
"""Answers of `is_repeated` (the binder asks for every field it binds)."""


def message_type(fd: FieldDescriptor) -> Descriptor:
    """The message type of a message field (never None for one)."""
    assert fd.message_type is not None, fd.full_name
    return fd.message_type


def is_map(fd: FieldDescriptor) -> bool:
    return fd.message_type is not None and fd.message_type.GetOptions().map_entry


_FLOATS = (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE)
_TYPE_WORDS = {
    FieldDescriptor.CPPTYPE_INT32: "an integer",
    FieldDescriptor.CPPTYPE_INT64: "an integer",
    FieldDescriptor.CPPTYPE_UINT32: "a non-negative integer",
    FieldDescriptor.CPPTYPE_UINT64: "a non-negative integer",
    FieldDescriptor.CPPTYPE_FLOAT: "a number",
    FieldDescriptor.CPPTYPE_DOUBLE: "a number",
    FieldDescriptor.CPPTYPE_BOOL: "true or false",
    FieldDescriptor.CPPTYPE_STRING: "a quoted string",
    FieldDescriptor.CPPTYPE_ENUM: "an enum name",
    FieldDescriptor.CPPTYPE_MESSAGE: "a block { ... }",
}
_EXPLAINED = 100
"""Problems past this many are still found and counted, but not explained (no search for
a suggestion): a report shows the first 20 (parse.MAX_REPORTED), and 33,000 unknown
names each compared with every field name took half a minute."""
_BOOL_WORDS = {"true": True, "True": True, "t": True, "false": False, "False": False, "f": False}
_INTEGER_RE = re.compile(r"0[xX][0-9A-Fa-f]+|0[0-7]*|[1-9][0-9]*")
_FLOAT_RE = re.compile(r"(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?")
_FLOAT_WORDS = {"inf": math.inf, "infinity": math.inf, "nan": math.nan}

# Names people write for fields that are called something else in ModelConfig.
FIELD_ALIASES = {
    "dim": "dims",
    "shape": "dims",
    "dtype": "data_type",
    "datatype": "data_type",
    "type": "data_type",
    "max_batch": "max_batch_size",
    "batch_size": "max_batch_size",
    "instance_groups": "instance_group",
    "inputs": "input",
    "outputs": "output",
    "gpu": "gpus",
    "versions": "version_policy",
}


def _unsigned_int(body: str) -> int | None:
    """An integer token without sign (decimal, 0x hex, 0 octal), as C++ reads it."""
    if not _INTEGER_RE.fullmatch(body):
        return None
    if body[:2] in ("0x", "0X"):
        return integer(body[2:], 16)
    if len(body) > 1 and body[0] == "0":
        return integer(body, 8)
    return integer(body)


def parse_int(text: str) -> int | None:
    """Parse an integer spelling the way protobuf does (decimal, 0x hex, 0 octal, `-`)."""
    negative = text.startswith("-")
    value = _unsigned_int(text[1:] if negative else text)
    if value is None:
        return None
    return -value if negative else value


def parse_float(text: str) -> float | None:
    """Parse a float spelling the way protobuf does for float and double fields."""
    negative = text.startswith("-")
    body = text[1:] if negative else text
    value = _float_body(body)
    if value is None:
        return None
    return -value if negative else value


def _float_body(body: str) -> float | None:
    word = _FLOAT_WORDS.get(body.lower())
    if word is not None:
        return word
    if _INTEGER_RE.fullmatch(body):
        if _is_hex_or_octal(body):
            return None
        return float(body)
    if _FLOAT_RE.fullmatch(body):
        return float(body.rstrip("fF"))
    return None


def _is_hex_or_octal(body: str) -> bool:
    """C++ refuses these for float fields (`IsHexNumber` / `IsOctNumber`): 0x10, 017, 00."""
    return len(body) >= 2 and body[0] == "0" and (body[1] in "xX" or "0" <= body[1] < "8")


@functools.lru_cache(maxsize=1024)
def _suggest_field(name: str, descriptor: Descriptor) -> str | None:
    """`suggest` for a field name: a file of garbage repeats the same words."""
    return suggest(name, list(descriptor.fields_by_name))


def _replace(token: Token, text: str, description: str, safe: bool = True) -> Fix:
    return Fix(description, (Edit(token.start, token.end, text),), safe)


class _Seen:
    """Per-block bookkeeping: where fields were set, oneof members, map keys."""

    __slots__ = ("fresh", "map_keys", "oneofs", "present", "repeated_counts", "singular")

    def __init__(self, present: set[str] | None = None, fresh: bool = True) -> None:
        self.singular: dict[str, Token] = {}
        self.oneofs: dict[str, Token] = {}
        self.repeated_counts: dict[str, int] = {}
        self.map_keys: dict[str, dict[object, Token]] = {}
        self.present = present
        """For a map entry: the fields given so far (its key and value have presence)."""
        self.fresh = fresh
        """Whether the message had no field set when the block began (it is new, not a
        second block for the same field): then only a field named earlier in the block
        can be set already."""


class _Number(NamedTuple):
    """A scalar's sign and number spelling: `-1`, `- 0x1F`, `-inf` (body without '-')."""

    negative: bool
    body: str
    token: Token


@functools.cache
def _message_class(descriptor: Descriptor) -> type[Message]:
    return GetMessageClass(descriptor)


class _FieldInfo:
    """What binding needs to know about one field of the schema, worked out once.

    Descriptor attributes of the upb backend (`containing_oneof`, `GetOptions()`...)
    each cost a call, and the binder needs them for every field of every config.
    """

    __slots__ = (
        "cpp_type",
        "enum_numbers",
        "fd",
        "has_presence",
        "int_range",
        "is_float",
        "is_map",
        "message_type",
        "name",
        "oneof",
        "repeated",
    )

    def __init__(self, fd: FieldDescriptor) -> None:
        self.fd = fd
        self.name: str = fd.name
        self.cpp_type: int = fd.cpp_type
        self.repeated = is_repeated(fd)
        self.message_type: Descriptor | None = fd.message_type
        self.is_map = is_map(fd)
        self.is_float = fd.cpp_type in _FLOATS
        self.int_range = INT_RANGES.get(fd.cpp_type)
        oneof = fd.containing_oneof
        # C++ `HasField` is presence for messages and oneof members (synthetic ones of
        # `optional` fields too); only a real oneof excludes its other members.
        self.has_presence = fd.message_type is not None or oneof is not None
        self.oneof: str | None = None
        if oneof is not None and not oneof.name.startswith("_"):
            self.oneof = oneof.name
        self.enum_numbers: dict[str, int] = {}
        if fd.enum_type is not None:
            self.enum_numbers = {v.name: int(v.number) for v in fd.enum_type.values}


@functools.cache
def _field_table(descriptor: Descriptor) -> dict[str, _FieldInfo]:
    """Field name -> what binding needs about it, for one message type."""
    return {fd.name: _FieldInfo(fd) for fd in descriptor.fields}


_new_located = tuple.__new__
"""`_new_located(Located, (name, value, node))` builds a `Located` without the named
tuple's Python-level `__new__`: the binder records one for every field and value."""


class Binder:
    """Walks the tree once: checks types, records positions, builds the message."""

    def __init__(self, root: Descriptor) -> None:
        self.root = root
        self.problems: list[Problem] = []
        self.source_map = SourceMap()
        self.locations = self.source_map.entries
        self.message: Message = _message_class(root)()
        self.bad_starts: frozenset[int] = frozenset()

    def bind(self, document: Document) -> None:
        self.bad_starts = document.bad_starts
        fresh = not self.message.ListFields()
        self.bind_fields(document.fields, self.root, (), self.message, _Seen(fresh=fresh))

    def problem(
        self,
        kind: ProblemKind,
        message: str,
        span: Span,
        hint: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        self.problems.append(Problem(kind, message, span, hint, fix))

    @property
    def has_errors(self) -> bool:
        return any(p.kind not in ACCEPTED_KINDS for p in self.problems)

    def bind_fields(
        self,
        fields: list[Field],
        descriptor: Descriptor,
        path: tuple[PathElement, ...],
        message: Message,
        seen: _Seen,
    ) -> None:
        table = _field_table(descriptor)
        singular = seen.singular
        plain = seen.fresh and seen.present is None
        for node in fields:
            info = table.get(node.name.text)
            if info is None:
                self.unknown_field(node, descriptor)
                continue
            name = info.name
            if plain and info.oneof is None and name not in singular:
                singular[name] = node.name  # the first of its name: nothing to check
            else:
                self.check_multiplicity(node, info, seen, message)
            self.bind_field(node, info, path + (name,), seen, message)

    def unknown_field(self, node: Field, descriptor: Descriptor) -> None:
        name = node.name.text
        where = message_label(descriptor)
        if len(self.problems) >= _EXPLAINED:  # a file of thousands of unknown names
            self.problem(
                ProblemKind.UNKNOWN_FIELD, f"{where} has no field named '{name}'", node.name_span
            )
            return
        candidates = list(descriptor.fields_by_name)
        by_json = {fd.json_name: fd.name for fd in descriptor.fields}
        target = by_json.get(name) or FIELD_ALIASES.get(name)
        if target not in descriptor.fields_by_name:
            target = _suggest_field(name, descriptor)
        message = f"{where} has no field named '{name}'"
        if target is not None:
            self.problem(
                ProblemKind.UNKNOWN_FIELD,
                message,
                node.name_span,
                f"did you mean '{target}'?",
                _replace(node.name, target, f"rename '{name}' to '{target}'"),
            )
            return
        owners = _field_owners(self.root).get(name, [])
        if owners:
            places = " or ".join(f"'{owner}'" for owner in owners[:3])
            more = f" (or {len(owners) - 3} other places)" if len(owners) > 3 else ""
            hint = f"'{name}' belongs inside {places}{more}; move it into the right block"
        else:
            hint = f"the fields of {where} are: {', '.join(sorted(candidates))}"
        self.problem(ProblemKind.UNKNOWN_FIELD, message, node.name_span, hint)

    def check_multiplicity(
        self, node: Field, info: _FieldInfo, seen: _Seen, message: Message
    ) -> None:
        """C++ refuses a second value once the field is set (`HasField`), and a second
        member of a oneof. A scalar without presence counts as set only when it holds
        a non-default value: `max_batch_size: 0 max_batch_size: 8` is accepted."""
        name = info.name
        if not info.repeated and _is_set(message, info, seen.present):
            first = seen.singular.get(name, node.name)
            self.problem(
                ProblemKind.DUPLICATE_FIELD,
                f"'{name}' is set twice (first at line {first.line}); it is not a repeated field",
                node.name_span,
                "keep one of the two",
            )
        seen.singular.setdefault(name, node.name)
        oneof = info.oneof
        if oneof is not None:
            other = seen.oneofs.get(oneof)
            if other is not None and other.text != name:
                self.problem(
                    ProblemKind.ONEOF_CONFLICT,
                    f"'{name}' and '{other.text}' (line {other.line}) cannot both be set: "
                    f"they are alternatives of '{oneof}'",
                    node.name_span,
                    f"keep either '{name}' or '{other.text}'",
                )
            seen.oneofs.setdefault(oneof, node.name)
        if seen.present is not None:
            seen.present.add(name)

    def bind_field(
        self,
        node: Field,
        info: _FieldInfo,
        path: tuple[PathElement, ...],
        seen: _Seen,
        message: Message,
    ) -> None:
        value = node.value
        if value is None:
            return
        if info.message_type is not None:
            self.bind_message_field(node, value, info, path, seen, message)
            return
        fd = info.fd
        repeated = info.repeated
        if not repeated and type(value) is Scalar:  # the usual `name: value`
            # (bind_scalar records the path; its entry replaces the field's.)
            decoded = self.bind_scalar(value, info, path)
            if decoded is not None:
                setattr(message, info.name, decoded)
            return
        if node.colon is None and isinstance(value, ListValue):
            self.problem(
                ProblemKind.SYNTAX,
                f"expected ':' between field '{fd.name}' and its list",
                value.span,
                f"write `{fd.name}: [ ... ]`",
                Fix("insert ':'", (Edit(node.name.end, node.name.end, ":"),)),
            )
        if isinstance(value, ListValue):
            if not repeated:
                self.problem(
                    ProblemKind.WRONG_TYPE,
                    f"'{fd.name}' takes a single value, not a list",
                    value.span,
                    f"write `{fd.name}: <value>`",
                )
                return
            self.locations[path] = _new_located(Located, (node.name, value, node))
            start = seen.repeated_counts.get(fd.name, 0)
            target = getattr(message, fd.name)
            for offset, item in enumerate(value.items):
                decoded = self.bind_scalar(item, info, path + (start + offset,))
                if decoded is not None:
                    target.append(decoded)
            seen.repeated_counts[fd.name] = start + len(value.items)
            return
        if isinstance(value, Block):
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {_TYPE_WORDS[fd.cpp_type]}, not a block",
                value.span,
            )
            return
        # One element of a repeated field, written `name: value`.
        index = seen.repeated_counts.get(fd.name, 0)
        seen.repeated_counts[fd.name] = index + 1
        if path not in self.locations:
            self.locations[path] = _new_located(Located, (node.name, value, node))
        decoded = self.bind_scalar(value, info, path + (index,))
        if decoded is not None:
            getattr(message, fd.name).append(decoded)

    def bind_message_field(
        self,
        node: Field,
        value: Scalar | Block | ListValue,
        info: _FieldInfo,
        path: tuple[PathElement, ...],
        seen: _Seen,
        message: Message,
    ) -> None:
        fd = info.fd
        repeated = info.repeated
        locations = self.locations
        if path not in locations:
            locations[path] = _new_located(Located, (node.name, node, node))
        items: list[Scalar | Block]
        if isinstance(value, ListValue):
            if not repeated:
                self.problem(
                    ProblemKind.WRONG_TYPE,
                    f"'{fd.name}' takes one block, not a list",
                    value.span,
                    f"write `{fd.name} {{ ... }}`",
                )
                return
            items = value.items
        else:
            items = [value]
        for item in items:
            if not isinstance(item, Block):
                self.problem(
                    ProblemKind.WRONG_TYPE,
                    f"'{fd.name}' is a message: it takes a block {{ ... }}, not {item.text}",
                    item.span,
                    _message_value_hint(fd, item),
                )
                continue
            if info.is_map:
                self.bind_map_entry(item, fd, path, seen, message)
                continue
            if repeated:
                index = seen.repeated_counts.get(fd.name, 0)
                seen.repeated_counts[fd.name] = index + 1
                element_path = path + (index,)
                sub = getattr(message, fd.name).add()
                locations[element_path] = _new_located(Located, (None, item, item))
            else:
                element_path = path
                sub = getattr(message, fd.name)
                sub.SetInParent()
                locations[path] = _new_located(Located, (node.name, item, node))
            fresh = repeated or not sub.ListFields()
            self.bind_fields(item.fields, message_type(fd), element_path, sub, _Seen(fresh=fresh))

    def bind_map_entry(
        self,
        entry: Block,
        fd: FieldDescriptor,
        path: tuple[PathElement, ...],
        seen: _Seen,
        message: Message,
    ) -> None:
        """Map entries are `{ key: .. value: .. }`; the last duplicate key wins."""
        entry_type = message_type(fd)
        key_fd = entry_type.fields_by_name["key"]
        key_node = next((f for f in entry.fields if f.name.text == "key"), None)
        key: object = "" if key_fd.cpp_type == FieldDescriptor.CPPTYPE_STRING else 0
        if key_node is not None and isinstance(key_node.value, Scalar):
            decoded = _decode_key(key_node.value, key_fd)
            if decoded is not None:
                key = decoded
        keys = seen.map_keys.setdefault(fd.name, {})
        anchor = key_node.value.first if key_node and key_node.value else entry.open
        if key in keys:
            self.problem(
                ProblemKind.DUPLICATE_MAP_KEY,
                f"'{fd.name}' has key {key!r} twice (first at line {keys[key].line}); "
                "Triton silently keeps only the last one",
                token_span(anchor),
                "delete or merge one of the two entries",
            )
        keys[key] = anchor
        entry_path = path + (Key(key),)
        self.locations[entry_path] = _new_located(Located, (anchor, entry, entry))
        built = _message_class(entry_type)()
        self.bind_fields(entry.fields, entry_type, entry_path, built, _Seen(present=set()))
        target = getattr(message, fd.name)
        built_key = getattr(built, "key")  # noqa: B009 (a field of a generated class)
        built_value = getattr(built, "value")  # noqa: B009
        if entry_type.fields_by_name["value"].message_type is not None:
            target[built_key].CopyFrom(built_value)
        else:
            target[built_key] = built_value

    # -- scalars -------------------------------------------------------------------

    def bind_scalar(
        self, item: Scalar | Block, info: _FieldInfo, path: tuple[PathElement, ...]
    ) -> object | None:
        """Check one scalar against its field; return the value to store (None if bad)."""
        fd = info.fd
        if isinstance(item, Block):
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {_TYPE_WORDS[fd.cpp_type]}, not a block",
                item.span,
            )
            return None
        self.locations[path] = _new_located(Located, (None, item, item))
        tokens = item.tokens
        bad = self.bad_starts
        if bad and any(token.start in bad for token in tokens):
            return None  # the tokenizer already said what is wrong with the spelling
        if len(tokens) == 1:
            value = _plain_value(tokens[0], info)
            if value is not None:
                return value
        cpp = fd.cpp_type
        if cpp == FieldDescriptor.CPPTYPE_STRING:
            return self.check_string(item, fd)
        if cpp == FieldDescriptor.CPPTYPE_ENUM:
            return self.check_enum(item, fd)
        if cpp == FieldDescriptor.CPPTYPE_BOOL:
            return self.check_bool(item, fd)
        if cpp in INT_RANGES:
            return self.check_int(item, fd)
        return self.check_float(item, fd)

    def sign_and_number(self, item: Scalar, fd: FieldDescriptor) -> _Number | None:
        """Split `-1`, `- 1` or `1` into sign and spelling; report `- -1`."""
        first = item.first
        if first.kind is TokenKind.SYMBOL:  # '-' apart from its number
            token = item.tokens[1]
            if token.text.startswith("-"):
                self.problem(
                    ProblemKind.WRONG_TYPE,
                    f"'{fd.name}' has two minus signs in {item.text}",
                    item.span,
                    "keep one '-'",
                )
                return None
            return _Number(True, token.text, token)
        if first.kind is TokenKind.NUMBER and first.text.startswith("-"):
            return _Number(True, first.text[1:], first)
        return _Number(False, first.text, first)

    def check_string(self, item: Scalar, fd: FieldDescriptor) -> str | None:
        first = item.first
        if first.kind is not TokenKind.STRING:
            text = item.text
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' is a string: {text} must be quoted",
                item.span,
                f'write `{fd.name}: "{text}"`',
                Fix("add quotes", (Edit(first.start, item.last.end, f'"{text}"'),)),
            )
            return None
        parts = [string_bytes(token.text) for token in item.tokens]
        if any(part is None for part in parts):
            self.problem(
                ProblemKind.SYNTAX,
                "this string is not terminated or has an invalid escape",
                item.span,
                "close the quote on the same line; escape backslashes as \\\\",
            )
            return None
        data = b"".join(part or b"" for part in parts)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as error:
            self.problem(
                ProblemKind.NOT_UTF8,
                f"the value of '{fd.name}' is not valid UTF-8 (byte 0x{data[error.start]:02x}"
                f"); Triton keeps the raw bytes, which break its JSON and gRPC answers",
                item.span,
                "write the text as UTF-8 characters or \\u escapes, not \\x or octal bytes",
            )
            return data.decode("utf-8", "replace")

    def check_enum(self, item: Scalar, fd: FieldDescriptor) -> int | None:
        enum_type = fd.enum_type
        assert enum_type is not None
        names = list(enum_type.values_by_name)
        token = item.first
        if token.kind is TokenKind.IDENTIFIER:
            known = enum_type.values_by_name.get(token.text)
            if known is not None:
                return int(known.number)
            message, hint, target = unknown_enum(token.text, fd)
            fix = _replace(token, target, f"replace with {target}") if target else None
            self.problem(ProblemKind.UNKNOWN_ENUM, message, token_span(token), hint, fix)
            return None
        if token.kind is TokenKind.STRING:
            inner = string_value(token.text) or ""
            target = inner if inner in enum_type.values_by_name else None
            target = target or enum_suggestion(inner, enum_type)
            self.problem(
                ProblemKind.QUOTED_ENUM,
                f"'{fd.name}' is an enum: its value is written without quotes",
                token_span(token),
                f"write `{fd.name}: {target}`" if target else f"use one of: {', '.join(names)}",
                _replace(token, target, "remove the quotes") if target else None,
            )
            return None
        number = self.sign_and_number(item, fd)
        if number is None:
            return None
        magnitude = _unsigned_int(number.body)
        if magnitude is None:
            hint = f"use one of: {', '.join(names)}"
            if number.negative and number.body in enum_type.values_by_name:
                hint = f"drop the '-': write `{fd.name}: {number.body}`"
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects an enum name or an integer, not {item.text}",
                item.span,
                hint,
            )
            return None
        value = -magnitude if number.negative else magnitude
        if not -(2**31) <= value < 2**31:
            self.problem(
                ProblemKind.OUT_OF_RANGE,
                f"{item.text} is out of range for the enum field '{fd.name}' (a 32-bit integer)",
                item.span,
                f"use one of: {', '.join(names)}",
            )
            return None
        if value not in enum_type.values_by_number:
            self.problem(
                ProblemKind.UNDECLARED_ENUM_NUMBER,
                f"{value} is not a declared value of {enum_type.name} (field "
                f"'{fd.name}'); protobuf accepts it but Triton's behaviour is undefined",
                item.span,
                f"use one of: {', '.join(names)}",
            )
        return value

    def check_bool(self, item: Scalar, fd: FieldDescriptor) -> bool | None:
        token = item.first
        if len(item.tokens) == 1:
            if token.kind is TokenKind.IDENTIFIER and token.text in _BOOL_WORDS:
                return _BOOL_WORDS[token.text]
            if token.kind is TokenKind.NUMBER and not token.text.startswith("-"):
                number = _unsigned_int(token.text)
                if number is not None and number <= 1:
                    return bool(number)
        self.problem(
            ProblemKind.WRONG_TYPE,
            f"'{fd.name}' is a boolean; {item.text} is not true or false",
            item.span,
            f"write `{fd.name}: true` or `{fd.name}: false`",
            _bool_fix(token) if len(item.tokens) == 1 else None,
        )
        return None

    def check_int(self, item: Scalar, fd: FieldDescriptor) -> int | None:
        low, high = INT_RANGES[fd.cpp_type]
        words = _TYPE_WORDS[fd.cpp_type]
        token = item.first
        if token.kind is TokenKind.STRING:
            inner = string_value(token.text) or ""
            fixable = parse_int(inner) is not None and len(item.tokens) == 1
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {words}, not the string {token.text}",
                token_span(token),
                f"write `{fd.name}: {inner}` without quotes" if fixable else None,
                _replace(token, inner, "remove the quotes") if fixable else None,
            )
            return None
        number = self.sign_and_number(item, fd)
        if number is None:
            return None
        magnitude = _unsigned_int(number.body)
        if magnitude is None:
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {words}, not {item.text}",
                item.span,
                _int_hint(number.body),
            )
            return None
        if number.negative and low == 0:
            if magnitude == 0:
                self.problem(
                    ProblemKind.WRONG_TYPE,
                    f"'{fd.name}' is unsigned: protobuf refuses a '-' sign here, even on 0",
                    item.span,
                    f"write `{fd.name}: 0`",
                    Fix("write 0", (Edit(item.first.start, item.last.end, "0"),)),
                )
                return None
            self.problem(ProblemKind.OUT_OF_RANGE, out_of_range(item.text, fd), item.span)
            return None
        value = -magnitude if number.negative else magnitude
        if not low <= value <= high:
            self.problem(ProblemKind.OUT_OF_RANGE, out_of_range(item.text, fd), item.span)
            return None
        return value

    def check_float(self, item: Scalar, fd: FieldDescriptor) -> float | None:
        token = item.first
        if token.kind is TokenKind.STRING:
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects a number, not {token.text}",
                token_span(token),
            )
            return None
        number = self.sign_and_number(item, fd)
        if number is None:
            return None
        value = _float_body(number.body)
        if value is None:
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects a number, not {item.text}",
                item.span,
                _float_hint(number.body),
            )
            return None
        return -value if number.negative else value


def _plain_value(token: Token, info: _FieldInfo) -> object | None:
    """The value of a one-token scalar written the usual way for its field (`8`, `-1`,
    `TYPE_FP32`, `true`, a string without bad bytes), or None: then the full check of
    `bind_scalar` decides, and explains."""
    kind = token.kind
    cpp = info.cpp_type
    if kind is TokenKind.IDENTIFIER:
        if cpp == FieldDescriptor.CPPTYPE_ENUM:
            return info.enum_numbers.get(token.text)
        if cpp == FieldDescriptor.CPPTYPE_BOOL:
            return _BOOL_WORDS.get(token.text)
    elif kind is TokenKind.STRING:
        if cpp == FieldDescriptor.CPPTYPE_STRING:
            data = string_bytes(token.text)
            if data is not None:
                try:
                    return data.decode("utf-8")
                except UnicodeDecodeError:
                    return None
    elif kind is TokenKind.NUMBER and info.int_range is not None:
        text = token.text
        digits = text[1:] if text[0] == "-" else text
        # A plain decimal (no hex, no octal, no leading zero) within the field's range.
        if digits.isdigit() and digits.isascii() and (digits[0] != "0" or len(digits) == 1):
            low, high = info.int_range
            value = int(text) if len(digits) <= 18 else integer(text)  # 18 digits: < 2**63
            if low <= value <= high and (low < 0 or text[0] != "-"):
                return value
    return None


def _is_set(message: Message, info: _FieldInfo, present: set[str] | None) -> bool:
    """C++ `HasField`: presence for messages, oneof members and map entry fields; for
    other scalars a value that is not the default (any bit set, so -0.0 and NaN too)."""
    if present is not None:
        return info.name in present
    if info.has_presence:
        return message.HasField(info.name)
    value = getattr(message, info.name)
    if info.is_float:
        return bool(value != 0 or math.copysign(1.0, value) < 0)
    return bool(value)


def _int_hint(body: str) -> str | None:
    if _FLOAT_RE.fullmatch(body):
        return "integer fields take whole numbers: no decimal point, exponent or 'f'"
    if body.lower() in _FLOAT_WORDS:
        return "integer fields cannot be inf or nan"
    return None


def _float_hint(body: str) -> str | None:
    if _is_hex_or_octal(body):
        return "float fields take decimal numbers only (no 0x hex, no leading 0)"
    lowered = body.lower()
    if lowered.endswith("f") and lowered[:-1] in _FLOAT_WORDS:
        return f"write {lowered[:-1]} (no 'f' after inf or nan)"
    return None


def _decode_key(item: Scalar, fd: FieldDescriptor) -> object | None:
    """A map key for the source map and duplicate check (leniently: errors come later)."""
    if fd.cpp_type == FieldDescriptor.CPPTYPE_STRING:
        parts = [string_value(t.text) for t in item.tokens if t.kind is TokenKind.STRING]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    return parse_int(item.first.text)


def _bool_fix(token: Token) -> Fix | None:
    mapping = {"yes": "true", "no": "false", "on": "true", "off": "false"}
    target = mapping.get(token.text.lower().strip("\"'"))
    if target is None and token.kind is TokenKind.STRING:
        inner = (string_value(token.text) or "").lower()
        target = inner if inner in ("true", "false") else None
    if target is None and token.kind is TokenKind.IDENTIFIER:
        lowered = token.text.lower()
        target = lowered if lowered in ("true", "false") else None
    return _replace(token, target, f"replace with {target}") if target else None


def _message_value_hint(fd: FieldDescriptor, item: Scalar) -> str:
    if message_type(fd).full_name == "inference.ModelParameter":
        return f"write `{fd.name} {{ string_value: {item.text} }}`"
    return f"write `{fd.name} {{ ... }}`"


def _short(full_name: str) -> str:
    return full_name.removeprefix("inference.")


@functools.cache
def _field_owners(root: Descriptor) -> dict[str, list[str]]:
    """Field name -> the blocks (as field paths from the root, nearest first) holding it."""
    owners: dict[str, list[str]] = {}
    queue: deque[tuple[Descriptor, str]] = deque([(root, "")])
    visited: set[str] = set()
    while queue:
        descriptor, where = queue.popleft()
        if descriptor.full_name in visited:
            continue
        visited.add(descriptor.full_name)
        for fd in descriptor.fields:
            owners.setdefault(fd.name, []).append(where or "the top level")
            if fd.message_type is not None:
                inner = fd.name if not where else f"{where}.{fd.name}"
                if is_map(fd):
                    inner += ".value"
                    value_type = fd.message_type.fields_by_name["value"].message_type
                    if value_type is not None:
                        queue.append((value_type, inner))
                    continue
                queue.append((fd.message_type, inner))
    return owners
