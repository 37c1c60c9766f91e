"""Bind a syntax tree to the ModelConfig schema: type-check it and map every field to
its position.

This is where "did you mean" lives: protobuf says `has no field named "dim"`, we say
which field was meant, or where a field that exists elsewhere belongs. Every problem
found here is one protobuf's parser would also reject, except the `warning` kinds
(duplicate map keys, undeclared enum numbers) which protobuf accepts silently.
"""

from __future__ import annotations

import difflib
import functools
import enum
import math
import re
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from pbtxt_lint.diagnostics import Edit, Fix, Span
from pbtxt_lint.textproto.sourcemap import Key, Located, PathElement, SourceMap
from pbtxt_lint.textproto.tokenizer import Token, TokenKind, string_value
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
    PLACEHOLDER = "placeholder"
    ENCODING = "encoding"
    NOT_UTF8 = "not-utf8"
    DUPLICATE_MAP_KEY = "duplicate-map-key"
    UNDECLARED_ENUM_NUMBER = "undeclared-enum-number"


@dataclass(frozen=True)
class Problem:
    kind: ProblemKind
    message: str
    span: Span
    hint: str | None = None
    fix: Fix | None = None


def is_repeated(fd: FieldDescriptor) -> bool:
    """`is_repeated` is new in protobuf 6; older runtimes only have `label`."""
    flag = getattr(fd, "is_repeated", None)
    if flag is not None:
        return bool(flag)
    return bool(getattr(fd, "label", None) == FieldDescriptor.LABEL_REPEATED)


def message_type(fd: FieldDescriptor) -> Descriptor:
    """The message type of a message field (never None for one)."""
    assert fd.message_type is not None, fd.full_name
    return fd.message_type


def is_map(fd: FieldDescriptor) -> bool:
    return fd.message_type is not None and fd.message_type.GetOptions().map_entry


_INT_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}
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
_BOOL_WORDS = {"true", "True", "t", "false", "False", "f"}
_INT_RE = re.compile(r"-?(0[xX][0-9A-Fa-f]+|0[0-7]*|[1-9][0-9]*)")
_FLOAT_RE = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fF]?")
_FLOAT_WORDS = {"inf", "infinity", "nan"}

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


def parse_int(text: str) -> int | None:
    """Parse an integer token the way protobuf does (decimal, 0x hex, 0 octal)."""
    if not _INT_RE.fullmatch(text):
        return None
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if body[:2] in ("0x", "0X"):
        value = int(body, 16)
    elif len(body) > 1 and body.startswith("0"):
        value = int(body, 8)
    else:
        value = int(body)
    return -value if negative else value


def parse_float(text: str) -> float | None:
    lowered = text.lower().lstrip("-")
    if lowered in _FLOAT_WORDS or lowered.rstrip("f") in _FLOAT_WORDS:
        value = math.inf if lowered.startswith("inf") else math.nan
        return -value if text.startswith("-") else value
    if _FLOAT_RE.fullmatch(text) or _INT_RE.fullmatch(text):
        number = parse_int(text)
        return float(number) if number is not None else float(text.rstrip("fF"))
    return None


def suggest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The closest candidate, case-insensitively, or None."""
    by_lower = {c.lower(): c for c in candidates}
    match = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=cutoff)
    return by_lower[match[0]] if match else None


def _replace(token: Token, text: str, description: str, safe: bool = True) -> Fix:
    return Fix(description, (Edit(token.start, token.end, text),), safe)


@dataclass
class _Seen:
    """Per-block bookkeeping for duplicate and oneof checks."""

    singular: dict[str, Token] = field(default_factory=dict)
    oneofs: dict[str, Token] = field(default_factory=dict)
    repeated_counts: dict[str, int] = field(default_factory=dict)
    map_keys: dict[str, dict[object, Token]] = field(default_factory=dict)


class Binder:
    """Walks the tree once, checking types and recording positions."""

    def __init__(self, root: Descriptor) -> None:
        self.root = root
        self.problems: list[Problem] = []
        self.source_map = SourceMap()

    def bind(self, document: Document) -> None:
        self.bind_fields(document.fields, self.root, ())

    def problem(
        self,
        kind: ProblemKind,
        message: str,
        span: Span,
        hint: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        self.problems.append(Problem(kind, message, span, hint, fix))

    def bind_fields(
        self, fields: list[Field], descriptor: Descriptor, path: tuple[PathElement, ...]
    ) -> None:
        seen = _Seen()
        for node in fields:
            fd = descriptor.fields_by_name.get(node.name.text)
            if fd is None:
                self.unknown_field(node, descriptor)
                continue
            self.check_multiplicity(node, fd, seen)
            self.bind_field(node, fd, path + (fd.name,), seen)

    def unknown_field(self, node: Field, descriptor: Descriptor) -> None:
        name = node.name.text
        where = _message_label(descriptor)
        candidates = list(descriptor.fields_by_name)
        by_json = {fd.json_name: fd.name for fd in descriptor.fields}
        target = by_json.get(name) or FIELD_ALIASES.get(name)
        if target not in descriptor.fields_by_name:
            target = suggest(name, candidates)
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

    def check_multiplicity(self, node: Field, fd: FieldDescriptor, seen: _Seen) -> None:
        if not is_repeated(fd):
            first = seen.singular.get(fd.name)
            if first is not None:
                self.problem(
                    ProblemKind.DUPLICATE_FIELD,
                    f"'{fd.name}' is set twice (first at line {first.line}); "
                    "it is not a repeated field",
                    node.name_span,
                    "keep one of the two",
                )
            seen.singular.setdefault(fd.name, node.name)
        oneof = fd.containing_oneof
        if oneof is not None and not oneof.name.startswith("_"):
            other = seen.oneofs.get(oneof.name)
            if other is not None and other.text != fd.name:
                self.problem(
                    ProblemKind.ONEOF_CONFLICT,
                    f"'{fd.name}' and '{other.text}' (line {other.line}) cannot both be set: "
                    f"they are alternatives of '{oneof.name}'",
                    node.name_span,
                    f"keep either '{fd.name}' or '{other.text}'",
                )
            seen.oneofs.setdefault(oneof.name, node.name)

    def bind_field(
        self,
        node: Field,
        fd: FieldDescriptor,
        path: tuple[PathElement, ...],
        seen: _Seen,
    ) -> None:
        value = node.value
        if value is None:
            return
        repeated = is_repeated(fd)
        if fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            if path not in self.source_map:
                self.source_map.add(path, Located(node.name, node, node))
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
                if is_map(fd):
                    self.bind_map_entry(item, fd, path, seen)
                    continue
                if repeated:
                    index = seen.repeated_counts.get(fd.name, 0)
                    seen.repeated_counts[fd.name] = index + 1
                    element_path = path + (index,)
                else:
                    element_path = path
                    self.source_map.add(path, Located(node.name, item, node))
                if repeated:
                    self.source_map.add(element_path, Located(None, item, item))
                self.bind_fields(item.fields, message_type(fd), element_path)
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
            self.source_map.add(path, Located(node.name, value, node))
            start = seen.repeated_counts.get(fd.name, 0)
            for offset, item in enumerate(value.items):
                self.bind_scalar(item, fd, path + (start + offset,))
            seen.repeated_counts[fd.name] = start + len(value.items)
            return
        if isinstance(value, Block):
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {_TYPE_WORDS[fd.cpp_type]}, not a block",
                value.span,
            )
            return
        if repeated:
            index = seen.repeated_counts.get(fd.name, 0)
            seen.repeated_counts[fd.name] = index + 1
            if path not in self.source_map:
                self.source_map.add(path, Located(node.name, value, node))
            self.bind_scalar(value, fd, path + (index,))
        else:
            self.source_map.add(path, Located(node.name, value, node))
            self.bind_scalar(value, fd, path)

    def bind_map_entry(
        self, entry: Block, fd: FieldDescriptor, path: tuple[PathElement, ...], seen: _Seen
    ) -> None:
        """Map entries are `{ key: .. value: .. }`; the last duplicate key wins."""
        entry_type = message_type(fd)
        key_fd = entry_type.fields_by_name["key"]
        key_node = next((f for f in entry.fields if f.name.text == "key"), None)
        key: object = "" if key_fd.cpp_type == FieldDescriptor.CPPTYPE_STRING else 0
        if key_node is not None and isinstance(key_node.value, Scalar):
            decoded = _decode_scalar(key_node.value, key_fd)
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
        self.source_map.add(entry_path, Located(anchor, entry, entry))
        self.bind_fields(entry.fields, entry_type, entry_path)

    def bind_scalar(
        self, item: Scalar | Block, fd: FieldDescriptor, path: tuple[PathElement, ...]
    ) -> None:
        if isinstance(item, Block):
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {_TYPE_WORDS[fd.cpp_type]}, not a block",
                item.span,
            )
            return
        self.source_map.add(path, Located(None, item, item))
        token = item.first
        cpp = fd.cpp_type
        if cpp == FieldDescriptor.CPPTYPE_STRING:
            self.check_string(item, fd)
        elif cpp == FieldDescriptor.CPPTYPE_ENUM:
            self.check_enum(token, fd)
        elif cpp == FieldDescriptor.CPPTYPE_BOOL:
            if not (token.text in _BOOL_WORDS or token.text in ("0", "1")):
                self.problem(
                    ProblemKind.WRONG_TYPE,
                    f"'{fd.name}' is a boolean; {token.text} is not true or false",
                    token_span(token),
                    f"write `{fd.name}: true` or `{fd.name}: false`",
                    _bool_fix(token),
                )
        elif cpp in _INT_RANGES:
            self.check_int(token, fd)
        else:
            self.check_float(token, fd)

    def check_string(self, item: Scalar, fd: FieldDescriptor) -> None:
        for token in item.tokens:
            if token.kind is not TokenKind.STRING:
                self.problem(
                    ProblemKind.WRONG_TYPE,
                    f"'{fd.name}' is a string: {token.text} must be quoted",
                    token_span(token),
                    f'write `{fd.name}: "{token.text}"`',
                    _replace(token, f'"{token.text}"', "add quotes"),
                )
            elif string_value(token.text) is None:
                self.problem(
                    ProblemKind.SYNTAX,
                    "this string is not terminated or has an invalid escape",
                    token_span(token),
                    "close the quote on the same line; escape backslashes as \\\\",
                )

    def check_enum(self, token: Token, fd: FieldDescriptor) -> None:
        enum_type = fd.enum_type
        assert enum_type is not None
        names = list(enum_type.values_by_name)
        if token.kind is TokenKind.IDENTIFIER:
            if token.text in enum_type.values_by_name:
                return
            target = enum_suggestion(token.text, enum_type)
            self.problem(
                ProblemKind.UNKNOWN_ENUM,
                f"'{token.text}' is not a value of {enum_type.name} (field '{fd.name}')",
                token_span(token),
                f"did you mean {target}?" if target else f"use one of: {', '.join(names)}",
                _replace(token, target, f"replace with {target}") if target else None,
            )
        elif token.kind is TokenKind.STRING:
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
        else:
            number = parse_int(token.text)
            if number is None or not -(2**31) <= number < 2**31:
                self.problem(
                    ProblemKind.WRONG_TYPE,
                    f"'{fd.name}' expects an enum name, not {token.text}",
                    token_span(token),
                    f"use one of: {', '.join(names)}",
                )
            elif number not in enum_type.values_by_number:
                self.problem(
                    ProblemKind.UNDECLARED_ENUM_NUMBER,
                    f"{number} is not a declared value of {enum_type.name} (field "
                    f"'{fd.name}'); protobuf accepts it but Triton's behaviour is undefined",
                    token_span(token),
                    f"use one of: {', '.join(names)}",
                )

    def check_int(self, token: Token, fd: FieldDescriptor) -> None:
        low, high = _INT_RANGES[fd.cpp_type]
        words = _TYPE_WORDS[fd.cpp_type]
        if token.kind is TokenKind.STRING:
            inner = string_value(token.text) or ""
            fixable = parse_int(inner) is not None
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {words}, not the string {token.text}",
                token_span(token),
                f"write `{fd.name}: {inner}` without quotes" if fixable else None,
                _replace(token, inner, "remove the quotes") if fixable else None,
            )
            return
        number = parse_int(token.text)
        if number is None:
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {words}, not {token.text}",
                token_span(token),
            )
        elif not low <= number <= high:
            self.problem(
                ProblemKind.OUT_OF_RANGE,
                f"{token.text} is out of range for '{fd.name}' ({low} to {high})",
                token_span(token),
            )

    def check_float(self, token: Token, fd: FieldDescriptor) -> None:
        if token.kind is TokenKind.STRING or parse_float(token.text) is None:
            self.problem(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects a number, not {token.text}",
                token_span(token),
            )


def enum_suggestion(word: str, enum_type: EnumDescriptor) -> str | None:
    """Best guess at the enum value meant by `word` (TYPE_FLOAT32, GPU, fp32...)."""
    from pbtxt_lint.schema.datatypes import MISSPELLINGS

    names = list(enum_type.values_by_name)
    upper = word.upper()
    if upper in enum_type.values_by_name:
        return upper
    fixed = MISSPELLINGS.get(upper)
    if fixed in enum_type.values_by_name:
        return fixed
    prefixes = {name.split("_", 1)[0] + "_" for name in names if "_" in name}
    for prefix in sorted(prefixes):
        if prefix + upper in enum_type.values_by_name:
            return prefix + upper
        fixed = MISSPELLINGS.get(prefix + upper)
        if fixed in enum_type.values_by_name:
            return fixed
    return suggest(word, names)


def _decode_scalar(item: Scalar, fd: FieldDescriptor) -> object | None:
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
    return _replace(token, target, f"replace with {target}") if target else None


def _message_value_hint(fd: FieldDescriptor, item: Scalar) -> str:
    if message_type(fd).full_name == "inference.ModelParameter":
        return f"write `{fd.name} {{ string_value: {item.text} }}`"
    return f"write `{fd.name} {{ ... }}`"


def _message_label(descriptor: Descriptor) -> str:
    if descriptor.full_name == "inference.ModelConfig":
        return "the model configuration"
    return f"'{_short(descriptor.full_name)}'"


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
