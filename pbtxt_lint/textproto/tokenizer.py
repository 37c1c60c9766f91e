"""A position-keeping tokenizer for protobuf text format.

It splits text the way protobuf's own text tokenizer does (identifiers may contain
`+`/`-`, a number token includes its sign) so that our tree lines up token for token
with what `text_format` parses, while also keeping comments and exact positions for
diagnostics, fixes and the formatter.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass


class TokenKind(enum.Enum):
    IDENTIFIER = "identifier"
    NUMBER = "number"
    STRING = "string"
    SYMBOL = "symbol"
    COMMENT = "comment"
    EOF = "end of file"


@dataclass(frozen=True)
class Token:
    kind: TokenKind
    text: str
    start: int  # 0-based offset into the text
    line: int  # 1-based
    column: int  # 1-based, in characters

    @property
    def end(self) -> int:
        return self.start + len(self.text)

    @property
    def end_column(self) -> int:
        """Exclusive end column (tokens never span lines)."""
        return self.column + len(self.text)

    def describe(self) -> str:
        """How to name this token in a message."""
        if self.kind is TokenKind.EOF:
            return "the end of the file"
        return f"'{self.text}'"


_IDENTIFIER = r"[A-Za-z_][0-9A-Za-z_+-]*"
_NUMBER = r"(?:[0-9+-]|\.[0-9])[0-9A-Za-z_.+-]*"
_STRING = "|".join(
    rf"{quote}[^{quote}\n\\]*(?:\\.[^{quote}\n\\]*)*(?:{quote}|\\?$)" for quote in "\"'"
)
_TOKEN_RE = re.compile(
    rf"(?P<ws>[ \t\r\f\v]+)|(?P<nl>\n)|(?P<comment>#[^\n]*)"
    rf"|(?P<ident>{_IDENTIFIER})|(?P<number>{_NUMBER})|(?P<string>{_STRING})",
    re.MULTILINE,
)


def tokenize(text: str) -> Iterator[Token]:
    """Yield every token including comments, ending with one EOF token."""
    line = 1
    line_start = 0
    pos = 0
    length = len(text)
    while pos < length:
        match = _TOKEN_RE.match(text, pos)
        column = pos - line_start + 1
        if match is None:
            yield Token(TokenKind.SYMBOL, text[pos], pos, line, column)
            pos += 1
            continue
        group = match.lastgroup
        end = match.end()
        if group == "nl":
            line += 1
            line_start = end
        elif group == "comment":
            yield Token(TokenKind.COMMENT, match.group(), pos, line, column)
        elif group == "ident":
            yield Token(TokenKind.IDENTIFIER, match.group(), pos, line, column)
        elif group == "number":
            yield Token(TokenKind.NUMBER, match.group(), pos, line, column)
        elif group == "string":
            yield Token(TokenKind.STRING, match.group(), pos, line, column)
        pos = end
    yield Token(TokenKind.EOF, "", length, line, length - line_start + 1)


_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}


def string_value(token_text: str) -> str | None:
    """Decode a quoted string token; None if it is unterminated or badly escaped."""
    if len(token_text) < 2 or token_text[-1] != token_text[0]:
        return None
    body = token_text[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        if i + 1 >= len(body):
            return None
        nxt = body[i + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            i += 2
        elif nxt in "01234567":
            digits = re.match(r"[0-7]{1,3}", body[i + 1 :])
            assert digits is not None
            out.append(chr(int(digits.group(), 8)))
            i += 1 + len(digits.group())
        elif nxt in "xX":
            digits = re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2 :])
            if digits is None:
                return None
            out.append(chr(int(digits.group(), 16)))
            i += 2 + len(digits.group())
        else:
            return None
    return "".join(out)
