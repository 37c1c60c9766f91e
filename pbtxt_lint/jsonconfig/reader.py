"""A strict JSON reader that keeps positions (Python's `json` forgets them): values
with their offsets, syntax errors in our words, and offsets turned into the lines and
columns of the file, for the JSON config reader and the `request` checker."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.descriptor import FieldDescriptor

from pbtxt_lint.diagnostics import Span
from pbtxt_lint.textproto.integers import integer
from pbtxt_lint.textproto.tokenizer import Token, TokenKind
from pbtxt_lint.textproto.tree import Scalar

_WHITESPACE = " \t\n\r"
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\.)*"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_MAX_DEPTH = 200
BOM = "\ufeff"
_64_BIT = (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)

# -- a JSON reader that keeps positions ---------------------------------------------


@dataclass(slots=True)
class JsonValue:
    """A JSON value and where it is: `start`/`end` are offsets into the text.

    A request body holds a value per tensor element: slots, and no lists of their own
    for scalars, keep each to some 80 bytes."""

    kind: str  # object, array, string, number, true, false, null
    start: int
    end: int
    value: Any = None  # the Python value of a scalar
    members: list[JsonMember] = field(default_factory=lambda: _NONE)  # an object's
    items: list[JsonValue] = field(default_factory=lambda: _NONE)  # an array's

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


_NONE: list[Any] = []  # the members and items of a scalar: shared, never appended to


@dataclass(slots=True)
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
            parsed = integer(number) if is_int else float(number)
            return JsonValue("number", start, self.pos, parsed)
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
        value = JsonValue("object", start, start, members=[])
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
        value = JsonValue("array", start, start, items=[])
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

    def written(self, start: int, end: int) -> str:
        """The text of [start, end) of the JSON text as the file spells it."""
        return self.file_text[self.to_file(start) : self.to_file(end)]

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


def escape_offsets(file_text: str, literal: JsonValue) -> list[int]:
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
