"""Model configurations written as JSON, checked by the same rules as config.pbtxt.

Triton accepts JSON configs in two places: the `config` of the model-load API (alone,
or inside the whole request body `{"parameters": {"config": "<json>"}}`) and the
answer of `GET /v2/models/<m>/config`. `parse_json_config` turns such a file into the
same `ParsedConfig` as `parse_config` does for text format: the ModelConfig, a source
map from field paths to positions in the JSON text, and every problem, with the same
problem kinds (so an unknown field is PL002 in JSON too).

Python's `json` module forgets positions, so a small strict parser reads the text
here; the JSON Schema (`schema/json_schema.py`) decides what is valid, and protobuf's
`json_format` builds the message, as Triton's `JsonToModelConfig` does.
"""

from __future__ import annotations

import bisect
import importlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from pbtxt_lint.diagnostics import Edit, Fix, Span
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR, ModelConfig
from pbtxt_lint.textproto.binder import (
    FIELD_ALIASES,
    Problem,
    ProblemKind,
    is_map,
    is_repeated,
    message_type,
)
from pbtxt_lint.textproto.checks import (
    INT_RANGES,
    message_label,
    out_of_range,
    suggest,
    unknown_enum,
)
from pbtxt_lint.textproto.parse import ParsedConfig, decode, find_placeholders
from pbtxt_lint.textproto.sourcemap import Key, Located, PathElement, SourceMap
from pbtxt_lint.textproto.tokenizer import Token, TokenKind
from pbtxt_lint.textproto.tree import Block, Document, Field, ListValue, Scalar

_WHITESPACE = " \t\n\r"
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_MAX_DEPTH = 200
_BOM = "\ufeff"
_64_BIT = (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)


# -- a JSON reader that keeps positions ---------------------------------------------


@dataclass
class JsonValue:
    """A JSON value and where it is: `start`/`end` are offsets into the text."""

    kind: str  # object, array, string, number, true, false, null
    start: int
    end: int
    value: Any = None  # the Python value of a scalar
    members: list[JsonMember] = field(default_factory=list)
    items: list[JsonValue] = field(default_factory=list)

    def to_python(self) -> Any:
        """The value as `json.loads` gives it (for duplicate keys, the last one wins)."""
        if self.kind == "object":
            return {member.key: member.value.to_python() for member in self.members}
        if self.kind == "array":
            return [item.to_python() for item in self.items]
        return self.value

    def member(self, key: str) -> JsonMember | None:
        """The (last) member named `key` of an object."""
        found = None
        for member in self.members:
            if member.key == key:
                found = member
        return found


@dataclass
class JsonMember:
    key: str
    key_start: int
    key_end: int
    colon: int
    value: JsonValue


class JsonSyntaxError(Exception):
    """Not JSON; `offset` is where the reader stopped."""

    def __init__(self, message: str, offset: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.hint = hint


def read_json(text: str) -> JsonValue:
    """Parse strict JSON (RFC 8259) keeping every value's position."""
    reader = _Reader(text)
    reader.skip_whitespace()
    value = reader.value()
    reader.skip_whitespace()
    if reader.pos < len(text):
        raise JsonSyntaxError(
            f"unexpected {reader.describe()} after the end of the JSON value",
            reader.pos,
            "a file holds one JSON object; delete what follows it",
        )
    return value


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.depth = 0

    def describe(self) -> str:
        if self.pos >= len(self.text):
            return "end of the file"
        return f"'{self.text[self.pos]}'"

    def skip_whitespace(self) -> None:
        text, pos = self.text, self.pos
        while pos < len(text) and text[pos] in _WHITESPACE:
            pos += 1
        self.pos = pos

    def expect(self, char: str, context: str) -> int:
        self.skip_whitespace()
        if self.pos < len(self.text) and self.text[self.pos] == char:
            self.pos += 1
            return self.pos - 1
        raise self.unexpected(f"expected '{char}' {context}")

    def unexpected(self, expectation: str) -> JsonSyntaxError:
        """A syntax error at the current position, with a hint for the usual slips."""
        rest = self.text[self.pos : self.pos + 10]
        hint = None
        if rest.startswith(("//", "/*", "#")):
            hint = "JSON has no comments; delete the comment"
        elif rest.startswith("'"):
            hint = "JSON strings are written in double quotes"
        elif rest.startswith(("True", "False", "None")):
            hint = "JSON writes true, false and null in lower case"
        elif rest.startswith(("NaN", "Infinity", "-Infinity")):
            hint = 'write "NaN", "Infinity" or "-Infinity" in quotes'
        elif rest[:1].isalpha() or rest[:1] == "_":
            hint = "names and string values are written in double quotes"
        return JsonSyntaxError(f"{expectation}, found {self.describe()}", self.pos, hint)

    def value(self) -> JsonValue:
        self.skip_whitespace()
        text, start = self.text, self.pos
        char = text[start] if start < len(text) else ""
        if char in ("{", "["):
            self.depth += 1
            if self.depth > _MAX_DEPTH:
                raise JsonSyntaxError(f"nested deeper than {_MAX_DEPTH} levels", start)
            value = self.object() if char == "{" else self.array()
            self.depth -= 1
            return value
        if char == '"':
            decoded, end = self.string()
            return JsonValue("string", start, end, decoded)
        match = _NUMBER.match(text, start)
        if match and match.end() > start:
            self.pos = match.end()
            number = match.group()
            is_int = not any(c in number for c in ".eE")
            return JsonValue("number", start, self.pos, int(number) if is_int else float(number))
        for word, python in (("true", True), ("false", False), ("null", None)):
            if text.startswith(word, start):
                self.pos = start + len(word)
                return JsonValue(word, start, self.pos, python)
        raise self.unexpected("expected a value")

    def string(self) -> tuple[str, int]:
        start = self.pos
        match = _STRING.match(self.text, start)
        if match is None:
            end = start + 1
            while end < len(self.text) and self.text[end] not in '"\n':
                end += 2 if self.text[end] == "\\" else 1
            if end < len(self.text) and self.text[end] == '"':
                control = next(i for i in range(start + 1, end) if self.text[i] < " ")
                raise JsonSyntaxError(
                    "a control character (such as a tab) inside a string",
                    control,
                    "write it as an escape: \\t, \\n",
                )
            raise JsonSyntaxError("string is not closed on its line", start, "add the closing '\"'")
        try:
            decoded = json.loads(match.group())
        except json.JSONDecodeError as error:
            raise JsonSyntaxError(
                f"bad escape in string ({error.msg})", start + error.pos
            ) from None
        self.pos = match.end()
        return decoded, self.pos

    def object(self) -> JsonValue:
        start = self.pos
        self.pos += 1
        value = JsonValue("object", start, start)
        self.skip_whitespace()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            value.end = self.pos
            return value
        while True:
            self.skip_whitespace()
            if not self.text.startswith('"', self.pos):
                if self.text.startswith("}", self.pos) and value.members:
                    raise JsonSyntaxError(
                        "trailing ',' before '}'", self.pos - 1, "delete the last ','"
                    )
                raise self.unexpected("expected a name in double quotes")
            key_start = self.pos
            key, key_end = self.string()
            colon = self.expect(":", f'after the name "{key}"')
            member_value = self.value()
            value.members.append(JsonMember(key, key_start, key_end, colon, member_value))
            self.skip_whitespace()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("}", self.pos):
                self.pos += 1
                value.end = self.pos
                return value
            raise self.unexpected("expected ',' or '}' after a member of an object")

    def array(self) -> JsonValue:
        start = self.pos
        self.pos += 1
        value = JsonValue("array", start, start)
        self.skip_whitespace()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            value.end = self.pos
            return value
        while True:
            self.skip_whitespace()
            if self.text.startswith("]", self.pos):
                raise JsonSyntaxError(
                    "trailing ',' before ']'", self.pos - 1, "delete the last ','"
                )
            value.items.append(self.value())
            self.skip_whitespace()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith("]", self.pos):
                self.pos += 1
                value.end = self.pos
                return value
            raise self.unexpected("expected ',' or ']' after an element of a list")


# -- positions ----------------------------------------------------------------------


class JsonPositions:
    """Offsets of a (possibly embedded) JSON text -> tokens and spans in the file."""

    def __init__(self, file_text: str, to_file: Callable[[int], int] | None = None) -> None:
        self.file_text = file_text
        self.line_starts = [0] + [i + 1 for i, c in enumerate(file_text) if c == "\n"]
        self.to_file = to_file or (lambda offset: offset)
        self.tokens: list[Token] = []

    def line_column(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def token(self, kind: TokenKind, start: int, end: int) -> Token:
        """A token over [start, end) of the JSON text, with its text as in the file."""
        file_start, file_end = self.to_file(start), self.to_file(end)
        line, column = self.line_column(file_start)
        token = Token(kind, self.file_text[file_start:file_end], file_start, line, column)
        self.tokens.append(token)
        return token

    def span(self, start: int, end: int) -> Span:
        file_start, file_end = self.to_file(start), self.to_file(max(end, start + 1))
        line, column = self.line_column(file_start)
        end_line, end_column = self.line_column(file_end)
        if end_line != line:
            end_line, end_column = line, column + 1
        return Span(line, column, end_line, max(end_column, column + 1))

    def brackets(self, value: JsonValue) -> tuple[Token, Token]:
        """The opening and closing token of an object or array."""
        return (
            self.token(TokenKind.SYMBOL, value.start, value.start + 1),
            self.token(TokenKind.SYMBOL, value.end - 1, value.end),
        )

    def colon(self, member: JsonMember) -> Token:
        return self.token(TokenKind.SYMBOL, member.colon, member.colon + 1)

    def scalar(self, value: JsonValue) -> Scalar:
        kinds = {"string": TokenKind.STRING, "number": TokenKind.NUMBER}
        return Scalar(
            [self.token(kinds.get(value.kind, TokenKind.IDENTIFIER), value.start, value.end)]
        )


def _escape_offsets(file_text: str, literal: JsonValue) -> list[int]:
    """For a JSON string literal: file offset of each character of its decoded text
    (and of its end), so positions inside an embedded JSON text map to the file."""
    offsets = []
    raw = literal.start + 1
    decoded: str = literal.value
    index = 0
    while index < len(decoded):
        offsets.append(raw)
        if file_text[raw] != "\\":
            raw += 1
        elif file_text[raw + 1] != "u":
            raw += 2
        else:
            raw += 6
            code = int(file_text[raw - 4 : raw], 16)
            if 0xD800 <= code < 0xDC00 and file_text.startswith("\\u", raw):
                raw += 6  # a surrogate pair is one character
        index += 1
    offsets.append(raw)
    return offsets


# -- binding JSON to the schema -----------------------------------------------------


@cache
def _validator() -> Any:
    """The JSON Schema validator, built once (jsonschema is imported only when needed)."""
    from pbtxt_lint.schema.json_schema import model_config_schema  # deferred: built on first use

    jsonschema = importlib.import_module("jsonschema")
    return jsonschema.Draft202012Validator(model_config_schema())


def _field_named(descriptor: Descriptor, key: str) -> FieldDescriptor | None:
    """A field by JSON name or proto name, as protobuf's JSON parser looks it up."""
    for fd in descriptor.fields:
        if fd.json_name == key:
            return fd
    return descriptor.fields_by_name.get(key)


def _map_key(key_fd: FieldDescriptor, text: str) -> object:
    if key_fd.cpp_type in INT_RANGES:
        try:
            return int(text)
        except ValueError:
            return text
    if key_fd.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        return text == "true"
    return text


class _Binder:
    """Walks the JSON with the descriptors: source map, syntax tree, structural problems."""

    def __init__(self, positions: JsonPositions) -> None:
        self.positions = positions
        self.source_map = SourceMap()
        self.problems: list[Problem] = []

    def key_token(self, member: JsonMember) -> Token:
        return self.positions.token(TokenKind.STRING, member.key_start, member.key_end)

    def generic(self, value: JsonValue) -> Block | ListValue | Scalar:
        """A node for a value the schema rejects: positions only, no source map."""
        p = self.positions
        if value.kind == "object":
            fields = [
                Field(self.key_token(m), p.colon(m), self.generic(m.value)) for m in value.members
            ]
            open_token, close_token = p.brackets(value)
            return Block(open_token, fields, close_token)
        if value.kind == "array":
            items: list[Scalar | Block] = []
            for item in value.items:
                node = self.generic(item)
                # Text format has no list of lists; the inner list's `[` stands for it.
                items.append(node if not isinstance(node, ListValue) else Scalar([node.open]))
            open_token, close_token = p.brackets(value)
            return ListValue(open_token, items, close_token)
        return p.scalar(value)

    def message(
        self, value: JsonValue, descriptor: Descriptor, path: tuple[PathElement, ...]
    ) -> Block:
        p = self.positions
        fields: list[Field] = []
        seen_keys: dict[str, JsonMember] = {}
        seen_fields: dict[str, JsonMember] = {}
        seen_oneofs: dict[str, tuple[FieldDescriptor, JsonMember]] = {}
        for member in value.members:
            key_span = p.span(member.key_start, member.key_end)
            first = seen_keys.get(member.key)
            fd = _field_named(descriptor, member.key)
            if first is not None:
                line, _ = p.line_column(p.to_file(first.key_start))
                self.problems.append(
                    Problem(
                        ProblemKind.DUPLICATE_FIELD,
                        f'"{member.key}" appears twice in this object (first at line {line}); '
                        "JSON parsers keep only one of them",
                        key_span,
                        "keep one of the two",
                    )
                )
            seen_keys[member.key] = member
            if fd is None:
                generic = Field(self.key_token(member), p.colon(member), self.generic(member.value))
                fields.append(generic)
                continue  # reported through the schema, with a suggestion
            other = seen_fields.get(fd.name)
            if other is not None and other.key != member.key:
                self.problems.append(
                    Problem(
                        ProblemKind.DUPLICATE_FIELD,
                        f'"{member.key}" and "{other.key}" are the same field ({fd.name}); '
                        "protobuf refuses a field given twice",
                        key_span,
                        "keep one of the two",
                    )
                )
            seen_fields[fd.name] = member
            oneof = fd.containing_oneof
            if oneof is not None and not oneof.name.startswith("_") and member.value.kind != "null":
                previous = seen_oneofs.get(oneof.name)
                if previous is not None and previous[0].name != fd.name:
                    self.problems.append(
                        Problem(
                            ProblemKind.ONEOF_CONFLICT,
                            f'"{member.key}" and "{previous[1].key}" cannot both be set: they are '
                            f"alternatives of '{oneof.name}'",
                            key_span,
                            f'keep either "{member.key}" or "{previous[1].key}"',
                        )
                    )
                seen_oneofs.setdefault(oneof.name, (fd, member))
            fields.append(self.field(member, fd, path + (fd.name,)))
        open_token, close_token = p.brackets(value)
        return Block(open_token, fields, close_token)

    def field(
        self, member: JsonMember, fd: FieldDescriptor, path: tuple[PathElement, ...]
    ) -> Field:
        p = self.positions
        name = self.key_token(member)
        colon = p.colon(member)
        value = member.value
        if value.kind == "null":
            return Field(name, colon, p.scalar(value))
        if is_map(fd) and value.kind == "object":
            node = Field(name, colon, self.map(value, fd, path))
        elif is_repeated(fd) and not is_map(fd) and value.kind == "array":
            items = [self.element(item, fd, path + (i,)) for i, item in enumerate(value.items)]
            open_token, close_token = p.brackets(value)
            node = Field(name, colon, ListValue(open_token, items, close_token))
        elif not is_repeated(fd):
            element = self.element(value, fd, path, record=False)
            node = Field(name, colon, element)
        else:
            node = Field(name, colon, self.generic(value))
        value_node = node.value
        assert value_node is not None
        located_value = (
            value_node if isinstance(value_node, (Block, Scalar)) and not is_repeated(fd) else node
        )
        self.source_map.add(path, Located(name, located_value, node))
        return node

    def element(
        self,
        value: JsonValue,
        fd: FieldDescriptor,
        path: tuple[PathElement, ...],
        record: bool = True,
    ) -> Scalar | Block:
        """One value of the field's type (a list element when `record`)."""
        if fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE and value.kind == "object":
            node: Scalar | Block = self.message(value, message_type(fd), path)
        elif fd.cpp_type != FieldDescriptor.CPPTYPE_MESSAGE and value.kind not in (
            "object",
            "array",
        ):
            node = self.positions.scalar(value)
            self.check_scalar(value, fd)
        else:
            generic = self.generic(value)
            node = generic if not isinstance(generic, ListValue) else Scalar([generic.open])
        if record:
            self.source_map.add(path, Located(None, node, node))
        return node

    def map(self, value: JsonValue, fd: FieldDescriptor, path: tuple[PathElement, ...]) -> Block:
        p = self.positions
        entry = message_type(fd)
        key_fd, value_fd = entry.fields_by_name["key"], entry.fields_by_name["value"]
        fields: list[Field] = []
        seen: dict[object, JsonMember] = {}
        for member in value.members:
            key = _map_key(key_fd, member.key)
            name = self.key_token(member)
            if key in seen:
                line, _ = p.line_column(p.to_file(seen[key].key_start))
                self.problems.append(
                    Problem(
                        ProblemKind.DUPLICATE_MAP_KEY,
                        f"'{fd.name}' has key {key!r} twice (first at line {line}); "
                        "only the last one is kept",
                        p.span(member.key_start, member.key_end),
                        "delete or merge one of the two entries",
                    )
                )
            seen[key] = member
            entry_path = path + (Key(key),)
            node = self.element(member.value, value_fd, entry_path + ("value",), record=False)
            key_node = Scalar([name])
            self.source_map.add(entry_path, Located(name, node, node))
            self.source_map.add(entry_path + ("key",), Located(None, key_node, key_node))
            value_field = Field(name, p.colon(member), node)
            self.source_map.add(entry_path + ("value",), Located(name, node, value_field))
            fields.append(value_field)
        open_token, close_token = p.brackets(value)
        return Block(open_token, fields, close_token)

    def check_scalar(self, value: JsonValue, fd: FieldDescriptor) -> None:
        """What the schema cannot say: integers written as strings must fit too."""
        if (
            fd.cpp_type in INT_RANGES
            and value.kind == "string"
            and re.fullmatch(r"-?[0-9]+", value.value)
        ):
            low, high = INT_RANGES[fd.cpp_type]
            if not low <= int(value.value) <= high:
                self.problems.append(
                    Problem(
                        ProblemKind.OUT_OF_RANGE,
                        out_of_range(value.value, fd),
                        self.positions.span(value.start, value.end),
                    )
                )


# -- schema errors in our words -----------------------------------------------------


def _locate(
    root: JsonValue, path: list[Any]
) -> tuple[JsonValue, Descriptor | None, FieldDescriptor | None, bool]:
    """The JSON value at a schema error's path; the message type of that value (when it
    is a message object); the field it is a value of; and whether it is one element of
    a repeated field or a map (rather than the whole list or map)."""
    value = root
    descriptor: Descriptor | None = MODEL_CONFIG_DESCRIPTOR
    fd: FieldDescriptor | None = None
    element = False
    for step in path:
        if value.kind == "object" and isinstance(step, str):
            member = value.member(step)
            if member is None:
                break
            value = member.value
            if fd is not None and is_map(fd) and not element:
                fd = message_type(fd).fields_by_name["value"]  # `step` is a map key
                element = True
            else:
                fd = _field_named(descriptor, step) if descriptor is not None else None
                element = False
        elif value.kind == "array" and isinstance(step, int) and 0 <= step < len(value.items):
            value = value.items[step]
            element = True
        else:
            break
        whole = fd is not None and (is_map(fd) or is_repeated(fd)) and not element
        descriptor = fd.message_type if fd is not None and not whole else None
    return value, descriptor, fd, element


def _type_words(fd: FieldDescriptor) -> str:
    cpp = fd.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        return "an object { ... }"
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        return "an enum name in quotes"
    if cpp in INT_RANGES:
        return "an integer"
    if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return "a number"
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return "true or false"
    return "a string in double quotes"


def _json_text(value: JsonValue) -> str:
    if value.kind in ("object", "array"):
        return "an object" if value.kind == "object" else "a list"
    return json.dumps(value.value)


class _Translator:
    """jsonschema errors -> Problems with positions, suggestions and fixes."""

    def __init__(self, root: JsonValue, positions: JsonPositions, editable: bool) -> None:
        self.root = root
        self.positions = positions
        self.editable = editable
        self.problems: list[Problem] = []
        self.seen: set[tuple[int, int, ProblemKind]] = set()

    def add(
        self,
        kind: ProblemKind,
        message: str,
        where: tuple[int, int],
        hint: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        """A problem at `where` (start and end offsets in the JSON text), once."""
        start, end = where
        if (start, end, kind) in self.seen:
            return
        self.seen.add((start, end, kind))
        fix = fix if self.editable else None
        self.problems.append(Problem(kind, message, self.positions.span(start, end), hint, fix))

    def replace(self, start: int, end: int, text: str, description: str) -> Fix:
        file_start, file_end = self.positions.to_file(start), self.positions.to_file(end)
        return Fix(description, (Edit(file_start, file_end, text),))

    def translate(self, error: Any) -> None:
        if error.validator == "not":
            return  # both names of a field, or two members of a oneof: the binder says so
        path = list(error.absolute_path)
        value, descriptor, fd, element = _locate(self.root, path)
        if (
            error.validator == "additionalProperties"
            and descriptor is not None
            and value.kind == "object"
        ):
            for member in value.members:
                if _field_named(descriptor, member.key) is None:
                    self.unknown_field(member, descriptor)
            return
        if error.validator == "propertyNames" and fd is not None:
            self.add(
                ProblemKind.WRONG_TYPE,
                f"the keys of '{fd.name}' are numbers written as strings",
                (value.start, value.end),
            )
            return
        if fd is None:
            if not path:
                self.add(
                    ProblemKind.WRONG_TYPE,
                    f"a model configuration is a JSON object {{ ... }}, not {_json_text(value)}",
                    (value.start, value.end),
                )
            return
        if not element and is_map(fd):
            self.add(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' is a map: write an object {{\"<key>\": ...}}, "
                f"not {_json_text(value)}",
                (value.start, value.end),
            )
        elif not element and is_repeated(fd):
            self.add(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' is repeated: write a list [ ... ] of {_type_words(fd)}, "
                f"not {_json_text(value)}",
                (value.start, value.end),
                f'write "{fd.json_name}": [ ... ]',
            )
        elif fd.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
            self.enum(value, fd)
        elif (
            fd.cpp_type in INT_RANGES
            and value.kind == "number"
            and isinstance(value.value, int | float)
            and float(value.value).is_integer()
        ):
            self.add(
                ProblemKind.OUT_OF_RANGE,
                out_of_range(str(value.value), fd),
                (value.start, value.end),
            )
        else:
            hint, fix = None, None
            if (
                fd.cpp_type == FieldDescriptor.CPPTYPE_BOOL
                and value.kind == "string"
                and value.value in ("true", "false")
            ):
                hint = f"write {value.value} without quotes"
                fix = self.replace(value.start, value.end, value.value, "remove the quotes")
            self.add(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {_type_words(fd)}, not {_json_text(value)}",
                (value.start, value.end),
                hint,
                fix,
            )

    def unknown_field(self, member: JsonMember, descriptor: Descriptor) -> None:
        key = member.key
        names = [fd.name for fd in descriptor.fields]
        target = FIELD_ALIASES.get(key)
        if target not in descriptor.fields_by_name:
            target = suggest(key, names + [fd.json_name for fd in descriptor.fields])
        label = message_label(descriptor)
        message = f'{label} has no field named "{key}"'
        if target is None:
            self.add(
                ProblemKind.UNKNOWN_FIELD,
                message,
                (member.key_start, member.key_end),
                f"the fields of {label} are: {', '.join(sorted(names))}",
            )
            return
        fd = _field_named(descriptor, target)
        assert fd is not None
        camel = any(c.isupper() for c in key) and "_" not in key
        spelled = fd.json_name if camel else fd.name
        self.add(
            ProblemKind.UNKNOWN_FIELD,
            message,
            (member.key_start, member.key_end),
            f'did you mean "{spelled}"?',
            self.replace(
                member.key_start,
                member.key_end,
                json.dumps(spelled),
                f'rename "{key}" to "{spelled}"',
            ),
        )

    def enum(self, value: JsonValue, fd: FieldDescriptor) -> None:
        enum_type = fd.enum_type
        assert enum_type is not None
        names = list(enum_type.values_by_name)
        if value.kind != "string":
            self.add(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects an enum name, not {_json_text(value)}",
                (value.start, value.end),
                f"use one of: {', '.join(names)}",
            )
            return
        message, hint, target = unknown_enum(value.value, fd)
        fix = (
            self.replace(value.start, value.end, json.dumps(target), f"replace with {target}")
            if target
            else None
        )
        self.add(ProblemKind.UNKNOWN_ENUM, message, (value.start, value.end), hint, fix)


# -- the entry point ----------------------------------------------------------------


def _load_request_config(root: JsonValue) -> JsonValue | None:
    """The `config` string of a model-load request body, if `root` is one."""
    if root.kind != "object" or {m.key for m in root.members} != {"parameters"}:
        return None
    parameters = root.member("parameters")
    if parameters is None or parameters.value.kind != "object":
        return None
    config = parameters.value.member("config")
    if config is None or config.value.kind != "string":
        return None
    return config.value


def _upper_enums(data: Any, descriptor: Descriptor) -> Any:
    """Enum names in upper case: Triton parses them case-insensitively, Python does not."""
    if not isinstance(data, dict):
        return data
    out = {}
    for key, value in data.items():
        fd = _field_named(descriptor, key)
        if fd is None or value is None:
            out[key] = value
            continue
        if is_map(fd):
            value_fd = message_type(fd).fields_by_name["value"]
            if isinstance(value, dict):
                value = {k: _upper_value(v, value_fd) for k, v in value.items()}
        elif is_repeated(fd) and isinstance(value, list):
            value = [_upper_value(v, fd) for v in value]
        else:
            value = _upper_value(value, fd)
        out[key] = value
    return out


def _upper_value(value: Any, fd: FieldDescriptor) -> Any:
    if fd.cpp_type == FieldDescriptor.CPPTYPE_ENUM and isinstance(value, str):
        return value.upper()
    if fd.message_type is not None:
        return _upper_enums(value, fd.message_type)
    return value


def parse_json_config(data: bytes) -> ParsedConfig:
    """Parse a JSON model configuration into the same result `parse_config` gives."""
    text, problems = decode(data)
    has_bom = text.startswith(_BOM)
    body = " " + text[1:] if has_bom else text
    positions = JsonPositions(body)
    try:
        root = read_json(body)
    except JsonSyntaxError as error:
        placeholders = find_placeholders(body)
        if placeholders:
            return _failed(text, positions, problems + placeholders)
        span = positions.span(error.offset, error.offset + 1)
        problem = Problem(ProblemKind.SYNTAX, f"not valid JSON: {error.message}", span, error.hint)
        return _failed(text, positions, [*problems, problem])
    editable = True
    wrapped = _load_request_config(root)
    if wrapped is not None:
        # The model-load request body: check the config it carries, at its positions.
        offsets = _escape_offsets(body, wrapped)
        positions = JsonPositions(body, lambda offset: offsets[min(offset, len(offsets) - 1)])
        editable = False
        try:
            root = read_json(wrapped.value)
        except JsonSyntaxError as error:
            span = positions.span(error.offset, error.offset + 1)
            problem = Problem(
                ProblemKind.SYNTAX,
                f'the "config" string is not valid JSON: {error.message}',
                span,
                error.hint,
            )
            return _failed(text, positions, [*problems, problem])
    binder = _Binder(positions)
    if root.kind == "object":
        block = binder.message(root, MODEL_CONFIG_DESCRIPTOR, ())
        fields = block.fields
    else:
        fields = []
    translator = _Translator(root, positions, editable)
    python = root.to_python()
    for schema_error in sorted(
        _validator().iter_errors(python), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        translator.translate(schema_error)
    ours = binder.problems + translator.problems
    tokens = sorted(positions.tokens, key=lambda t: t.start)
    line, column = positions.line_column(len(body))
    tokens.append(Token(TokenKind.EOF, "", len(body), line, column))
    document = Document(fields, tokens, [])
    if any(p.kind not in (ProblemKind.DUPLICATE_MAP_KEY,) for p in ours) or has_bom:
        return ParsedConfig(text, None, document, binder.source_map, problems + ours)
    config = ModelConfig()
    try:
        json_format.ParseDict(_upper_enums(python, MODEL_CONFIG_DESCRIPTOR), config)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
        problem = Problem(
            ProblemKind.SYNTAX,
            f"protobuf rejects this: {error}",
            positions.span(root.start, root.start + 1),
        )
        return ParsedConfig(text, None, document, binder.source_map, [*problems, *ours, problem])
    return ParsedConfig(text, config, document, binder.source_map, problems + ours)


def _failed(text: str, positions: JsonPositions, problems: list[Problem]) -> ParsedConfig:
    return ParsedConfig(text, None, Document([], [], []), SourceMap(), problems)


# -- ModelConfig -> JSON --------------------------------------------------------------


def config_to_json(config: ModelConfig) -> str:
    """The config as Triton's `GET /v2/models/<m>/config` writes it: proto field names,
    64-bit integers as numbers (protobuf would quote them), two-space indentation."""
    data = json_format.MessageToDict(config, preserving_proto_field_name=True)
    return (
        json.dumps(_unquote_64_bit(data, MODEL_CONFIG_DESCRIPTOR), indent=2, ensure_ascii=False)
        + "\n"
    )


def _unquote_64_bit(data: Any, descriptor: Descriptor) -> Any:
    if not isinstance(data, dict):
        return data
    out = {}
    for key, value in data.items():
        fd = descriptor.fields_by_name.get(key)
        if fd is None:
            out[key] = value
            continue
        if is_map(fd):
            value_fd = message_type(fd).fields_by_name["value"]
            value = {k: _unquote_value(v, value_fd) for k, v in value.items()}
        elif is_repeated(fd):
            value = [_unquote_value(v, fd) for v in value]
        else:
            value = _unquote_value(value, fd)
        out[key] = value
    return out


def _unquote_value(value: Any, fd: FieldDescriptor) -> Any:
    if fd.cpp_type in _64_BIT and isinstance(value, str):
        return int(value)
    if fd.message_type is not None:
        return _unquote_64_bit(value, fd.message_type)
    return value
