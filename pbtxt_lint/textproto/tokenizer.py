"""A position-keeping tokenizer for protobuf text format, with the C++ parser's rules.

Triton reads config.pbtxt with protobuf's C++ tokenizer (`io/tokenizer.cc`), which is
stricter than Python's `text_format` in places and looser in others. This tokenizer
follows the C++ one character for character: identifiers are `[A-Za-z_][A-Za-z0-9_]*`,
`-` is a symbol of its own, numbers are decimal, `0x` hex or `0` octal integers or
decimal floats with an optional `f`, strings end on the line they start and know only
C's escapes, `#` starts a comment, and everything else outside a string (control
characters, non-ASCII characters) is an error. Where the C++ tokenizer records an
error, `scan` records a `LexError` with a position and plain words, so the caller
rejects the file exactly when Triton would.

Two conveniences keep the token stream easy to use: a `-` written right before a
number or a word is one NUMBER token (`-1`, `-inf`), as it was in Python's tokenizer,
and a number that runs into letters (`1_000`, `0.5ff`) stays one token, so the error is
reported once, on the whole spelling. Comments and exact positions are kept for
diagnostics, fixes and the formatter.
"""

from __future__ import annotations

import enum
import re
import unicodedata
from collections.abc import Callable, Iterator
from typing import NamedTuple


class TokenKind(enum.Enum):
    IDENTIFIER = "identifier"
    NUMBER = "number"
    STRING = "string"
    SYMBOL = "symbol"
    COMMENT = "comment"
    EOF = "end of file"


class Token(NamedTuple):
    """One token: its kind, its exact source text and where it starts.

    A named tuple rather than a dataclass: a config has hundreds of tokens and a
    repository thousands of configs, and tuples are the cheapest object to build.
    """

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
        if not self.text.isprintable():
            return " ".join(_describe_char(char) for char in self.text)
        return f"'{self.text}'"


class LexError(NamedTuple):
    """A spelling the C++ tokenizer refuses: `start`/`end` are offsets into the text."""

    message: str
    start: int
    end: int
    line: int
    column: int
    hint: str | None = None


_ErrorSink = Callable[[str, int, int, "str | None"], None]
"""The `error(message, start, end, hint)` callback `scan` hands to `_scan_string`."""


class Scan(NamedTuple):
    tokens: list[Token]  # every token, comments included, ending with EOF
    errors: list[LexError]
    bad_starts: frozenset[int]  # starts of tokens whose spelling is already an error
    truncated: bool = False  # more than MAX_TOKENS: the tokens stop there


MAX_TOKENS = 100_000
"""The most tokens of one file pbtxt-lint reads. Real configs hold a few hundred (the
largest of the evaluation set about 200); within the 8 MiB file cap, 4 million `1,` of
a dims list took 28 s and 2.9 GB to read token by token."""


# Each match is optional whitespace (what C++ calls whitespace: space, \t, \n, \v, \f,
# \r) and one token; the frequent token kinds come first, the rare ones (all errors
# but the escaped string and '-word') after the end of the text.
_TOKEN_RE = re.compile(
    r"[ \t\r\f\v\n]*(?:"
    r"([A-Za-z_][A-Za-z0-9_]*)(?!\w)"  # 1 identifier (ASCII, not running into more)
    r"|([{}\[\]:,;<>])"  # 2 symbol
    r"|([-+]?(?:[0-9]|\.[0-9])(?:[0-9A-Za-z_.]|(?<=[eE])[+-])*)"  # 3 number spelling
    r"|(\"[^\"\\\n\x00]*\"|'[^'\\\n\x00]*')"  # 4 string without escapes
    r"|(#[^\n\x00]*)"  # 5 comment
    r"|(\Z)"  # 6 end of the text
    r"|(\"[^\"\\\n\x00]*(?:\\[^\n\x00][^\"\\\n\x00]*)*\""
    r"|'[^'\\\n\x00]*(?:\\[^\n\x00][^'\\\n\x00]*)*')"  # 7 string with escapes
    r"|([-+][^\W\d]\w*)"  # 8 signed word (-inf)
    r"|([^\W\d]\w*)"  # 9 word with non-ASCII letters
    r"|(//[^\n\x00]*|/\*.*?(?:\*/|\Z))"  # 10 C++-style comment
    r"|([\"'])"  # 11 a quote that starts no complete string
    r"|([\x00-\x08\x0e-\x1f]+)"  # 12 control characters
    r"|([^\x00-\x7f]+)"  # 13 other non-ASCII characters
    r"|(.)"  # 14 any other symbol
    r")",
    re.DOTALL,
)
_IDENTIFIER, _SYMBOL, _NUMBER, _PLAIN_STRING, _COMMENT, _END = 1, 2, 3, 4, 5, 6
# The fast path of `scan`: whitespace and one token of a frequent kind (groups 1-5 of
# `_TOKEN_RE`, in the same order), or nothing where a rare token or the end comes next.
# `findall` hands back plain (whitespace, token) pairs, with no match object to query
# per token; the first character of a token tells its kind.
_COMMON_RE = re.compile(
    r"([ \t\r\f\v\n]*)("
    r"[A-Za-z_][A-Za-z0-9_]*(?!\w)"
    r"|[{}\[\]:,;<>]"
    r"|[-+]?(?:[0-9]|\.[0-9])(?:[0-9A-Za-z_.]|(?<=[eE])[+-])*"
    r"|\"[^\"\\\n\x00]*\"|'[^'\\\n\x00]*'"
    r"|#[^\n\x00]*"
    r")?"
)
_WINDOW = 1 << 16
"""Characters `_common_pairs` matches at a time."""
_KIND_BY_FIRST_CHAR = {
    **dict.fromkeys("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_", TokenKind.IDENTIFIER),
    **dict.fromkeys("{}[]:,;<>", TokenKind.SYMBOL),
    **dict.fromkeys("0123456789.-+", TokenKind.NUMBER),
    **dict.fromkeys("\"'", TokenKind.STRING),
    "#": TokenKind.COMMENT,
}
_KINDS = {
    _IDENTIFIER: TokenKind.IDENTIFIER,
    _SYMBOL: TokenKind.SYMBOL,
    _NUMBER: TokenKind.NUMBER,
    _PLAIN_STRING: TokenKind.STRING,
    _COMMENT: TokenKind.COMMENT,
    7: TokenKind.STRING,
    8: TokenKind.NUMBER,
    9: TokenKind.IDENTIFIER,
    14: TokenKind.SYMBOL,
}
_INTEGER_RE = re.compile(r"0[xX][0-9A-Fa-f]+|0[0-7]*|[1-9][0-9]*")
_FLOAT_RE = re.compile(r"(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?")
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")
_SIMPLE_ESCAPES = frozenset("abfnrtv\\?'\"")
_ESCAPES_HINT = (
    "protobuf knows \\n \\t \\r \\\\ \\\" \\' \\a \\b \\f \\v \\?, octal \\NNN, hex \\xHH, "
    "\\uHHHH and \\U00HHHHHH; write \\\\ for a backslash"
)


def scan(text: str, limit: int = MAX_TOKENS) -> Scan:
    """Split `text` into tokens and record every spelling the C++ tokenizer refuses; past
    `limit` tokens, stop (`Scan.truncated`)."""
    tokens: list[Token] = []
    errors: list[LexError] = []
    bad: set[int] = set()
    append = tokens.append
    count = text.count
    line = 1
    line_start = 0
    pos = 0
    finditer = _TOKEN_RE.finditer
    new = tuple.__new__  # Token(...) without the named tuple's Python-level __new__
    kinds = _KINDS

    def error(message: str, start: int, end: int, hint: str | None = None) -> None:
        errors.append(LexError(message, start, end, line, start - line_start + 1, hint))

    # Fast path: the frequent tokens, up to the end or to the first rare token; from
    # there the general loop below (match objects, every token kind) takes over.
    kind_by_first_char = _KIND_BY_FIRST_CHAR
    number = TokenKind.NUMBER
    for space, word in _common_pairs(text):
        if not word or len(tokens) >= limit:
            break  # the end of the text, or a rare token: the general loop decides
        if space:
            if "\n" in space:
                line += space.count("\n")
                line_start = pos + space.rfind("\n") + 1
            pos += len(space)
        kind = kind_by_first_char[word[0]]
        if kind is number:
            digits = word[1:] if word[0] == "-" else word
            if not digits.isdigit() or (digits[0] == "0" and len(digits) > 1):
                _check_number(word, pos, tokens, bad, error)  # not a plain decimal
        append(new(Token, (kind, word, pos, line, pos - line_start + 1)))
        pos += len(word)

    while pos >= 0 and len(tokens) < limit:
        restart = -1
        for match in finditer(text, pos):
            if len(tokens) >= limit:
                break
            group = match.lastindex or _END
            start = match.start(group)
            before = match.start()
            if start > before:
                newlines = count("\n", before, start)
                if newlines:
                    line += newlines
                    line_start = text.rfind("\n", 0, start) + 1
            if group <= _PLAIN_STRING or group == _COMMENT:
                word = match.group(group)
                if group == _NUMBER:
                    _check_number(word, start, tokens, bad, error)
                append(new(Token, (kinds[group], word, start, line, start - line_start + 1)))
                continue
            if group == _END:
                break
            end, line, line_start = _rare_token(
                text, match, group, tokens, bad, error, line, line_start
            )
            if end != match.end():  # it read past the pattern's match: scan on from there
                restart = end
                break
        pos = restart
    truncated = len(tokens) >= limit
    if truncated:
        del tokens[limit:]
    tokens.append(Token(TokenKind.EOF, "", len(text), line, len(text) - line_start + 1))
    return Scan(tokens, errors, frozenset(bad), truncated)


def _common_pairs(text: str) -> Iterator[tuple[str, str]]:
    """`_COMMON_RE.findall(text)`, a window at a time, so that a scan that stops early
    (a rare token, too many tokens) has not paid for the rest of the text. A pair that
    reaches a window's end may be cut by it: it is read again with the next window."""
    pos, size = 0, len(text)
    while pos + _WINDOW < size:
        end = pos + _WINDOW
        pairs = _COMMON_RE.findall(text, pos, end)
        whole = []
        for space, word in pairs:
            if pos + len(space) + len(word) >= end:
                break
            whole.append((space, word))
            pos += len(space) + len(word)
            if not word:
                break
        if not whole:  # one token longer than the window: match it whole
            match = _COMMON_RE.match(text, pos)
            assert match is not None  # the pattern matches the empty string
            space, word = match.group(1), match.group(2) or ""
            whole.append((space, word))
            pos += len(space) + len(word)
        yield from whole
        if not whole[-1][1]:
            return  # a rare token or the end: the caller takes over
    yield from _COMMON_RE.findall(text, pos)


def _check_number(
    word: str, start: int, tokens: list[Token], bad: set[int], error: _ErrorSink
) -> None:
    if word.isdigit() and (word[0] != "0" or len(word) == 1):
        return  # the usual plain decimal integer
    problem = number_error(word)
    if problem is not None:
        bad.add(start)
        error(problem[0], start, start + len(word), problem[1])
    elif word[0] == "." and tokens and _touches_identifier(tokens[-1], start):
        error(
            f"'{tokens[-1].text}{word}': a name cannot run into a decimal point",
            start,
            start + len(word),
            "put a space (or ':') between the name and the number",
        )


def _rare_token(
    text: str,
    match: re.Match[str],
    group: int,
    tokens: list[Token],
    bad: set[int],
    error: _ErrorSink,
    line: int,
    line_start: int,
) -> tuple[int, int, int]:
    """Handle a token of a rare kind (mostly errors); return (resume offset, line,
    line start), the offset past which the next token must start."""
    start = match.start(group)
    word = match.group(group)
    end = start + len(word)
    column = start - line_start + 1
    kind = _KINDS.get(group, TokenKind.SYMBOL)
    if group == 7:  # a string with escapes
        for message, at, stop, hint in _escape_errors(word):
            bad.add(start)
            error(message, start + at, start + stop, hint)
    elif group == 8 and word[0] == "+":
        bad.add(start)
        error(f"'{word}': protobuf accepts no '+' sign", start, end, f"write {word[1:]}")
    elif group in (8, 9) and not word.isascii():
        bad.add(start)
        char = next(c for c in word if not c.isascii())
        error(
            f"'{word}' contains the non-ASCII character {_describe_char(char)}; "
            "protobuf names and values outside strings are ASCII only",
            start,
            end,
            "retype the word with plain ASCII letters",
        )
    elif group == 10:  # '//' or '/* */'
        error(
            f"'{word[:2]}' does not start a comment in protobuf text format",
            start,
            start + 2,
            "comments start with '#'",
        )
        tokens.append(Token(TokenKind.COMMENT, word, start, line, column))
        newlines = word.count("\n")
        if newlines:
            line += newlines
            line_start = start + word.rfind("\n") + 1
        return end, line, line_start
    elif group == 11:  # a quote the string patterns could not close
        end = _scan_string(text, start, error)
        bad.add(start)
        tokens.append(Token(TokenKind.STRING, text[start:end], start, line, column))
        return end, line, line_start
    elif group == 12:
        char = word[0]
        if char == "\x00" and tokens and tokens[-1].kind is TokenKind.COMMENT:
            if tokens[-1].end == start:  # C++ ends the comment at the NUL byte
                error(
                    "a NUL byte inside a comment ends the comment for protobuf's "
                    "parser, and the rest of the line is read as configuration",
                    start,
                    start + 1,
                    "delete the NUL byte",
                )
                newline = text.find("\n", start)
                return (len(text) if newline < 0 else newline), line, line_start
        error(
            f"control character {_describe_char(char)} outside a string; protobuf's "
            "parser refuses the file",
            start,
            end,
            "delete it (an editor or a copy-paste put it there)",
        )
        return end, line, line_start
    elif group == 13:
        if all(_is_invisible(char) for char in word):
            error(
                f"{_describe_char(word[0])} outside a string; protobuf's parser "
                "accepts only ASCII there",
                start,
                end,
                "replace it with a plain space (or delete it)",
            )
            return end, line, line_start
        bad.add(start)
        error(
            f"non-ASCII character {_describe_char(word[0])} outside a string; "
            "protobuf's parser accepts only ASCII there",
            start,
            end,
            "replace it with its ASCII equivalent, or put the text in quotes",
        )
    tokens.append(Token(kind, word, start, line, column))
    return end, line, line_start


def tokenize(text: str) -> Iterator[Token]:
    """Yield every token including comments, ending with one EOF token."""
    yield from scan(text).tokens


def _touches_identifier(previous: Token, pos: int) -> bool:
    return previous.kind is TokenKind.IDENTIFIER and previous.end == pos


def _is_invisible(char: str) -> bool:
    """Non-ASCII spaces and format characters (NBSP, zero-width space, BOM...)."""
    return char.isspace() or unicodedata.category(char) == "Cf"


_CONTROL_NAMES = {"\x00": "NUL", "\x1b": "ESC", "\x7f": "DEL"}


def _describe_char(char: str) -> str:
    name = unicodedata.name(char, "") or _CONTROL_NAMES.get(char, "")
    code = f"U+{ord(char):04X}"
    return f"{code} ({name.lower()})" if name else code


def number_error(word: str) -> tuple[str, str] | None:
    """Why the C++ tokenizer refuses this number spelling (None if it is one token).

    `word` may start with `-` (a separate symbol in C++, harmless here) or `+` (a
    symbol no value may start with).
    """
    body = word[1:] if word[0] in "-+" else word
    if word[0] == "+":
        return f"'{word}': protobuf accepts no '+' sign", f"write {body}"
    if _INTEGER_RE.fullmatch(body) or _FLOAT_RE.fullmatch(body):
        return None
    shown = f"'{word}'"
    if body[:2] in ("0x", "0X"):
        digits = body[2:]
        if not digits or digits[0] not in _HEX:
            return f"{shown}: '0x' must be followed by hex digits", "write a number like 0x1F"
        if "." in digits:
            return f"{shown}: a hex number cannot have a fraction", "write it in decimal"
        return (
            f"{shown} is not a number: a hex number runs into other letters",
            "separate it from the next word with a space",
        )
    if len(body) > 1 and body[0] == "0" and body[1].isdigit():
        octal = body[1:].split(".")[0]
        if any(c in "89" for c in octal):
            plain = body.lstrip("0") or "0"
            return (
                f"{shown}: a number starting with 0 is octal, and 8 and 9 are not octal digits",
                f"drop the leading zero: write {plain}" if plain.isdigit() else "drop the 0",
            )
        if "." in body:
            return f"{shown}: an octal number cannot have a fraction", "drop the leading zero"
    body_lower = body.lower()
    if "_" in body and body.replace("_", "").isdigit():
        return (
            f"{shown}: protobuf numbers have no '_' digit separators",
            f"write {word.replace('_', '')}",
        )
    # one way to match a run of digits: `[0-9]+\.?[0-9]*` splits it every way (quadratic)
    if re.fullmatch(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)e[+-]?", body_lower):
        return f"{shown}: the exponent after 'e' has no digits", "write a number like 1e3"
    if body.count(".") > 1 or re.search(r"e[+-]?[0-9]*\.", body_lower):
        return f"{shown} has a second decimal point", "write one number, like 1.5"
    if re.fullmatch(r"[0-9.]+(?:e[+-]?[0-9]+)?f+", body_lower):
        return f"{shown}: only one 'f' may follow a number", f"write {word.rstrip('fF')}f"
    return (
        f"{shown} is not a number: a number cannot run into letters",
        "put a space between the number and the word after it",
    )


def _escape_errors(token_text: str) -> Iterator[tuple[str, int, int, str]]:
    """Invalid escapes in a complete string token: (message, start, end, hint)."""
    i = 1
    last = len(token_text) - 1
    while i < last:
        if token_text[i] != "\\":
            i += 1
            continue
        end, message, hint = _check_escape(token_text, i, last)
        if message:
            yield message, i, max(end, i + 2), hint
        i = end


def _check_escape(text: str, i: int, stop: int) -> tuple[int, str, str]:
    """Check the escape at `text[i] == '\\'`; return (next index, error or '', hint).

    Like the C++ tokenizer, a refused escape consumes only the backslash: the
    character after it is read again as part of the string.
    """
    j = i + 1
    char = text[j] if j < stop else ""
    if char and (char in _SIMPLE_ESCAPES or char in _OCTAL):
        return j + 1, "", ""
    if char == "x":
        if j + 1 < stop and text[j + 1] in _HEX:
            return j + 2, "", ""
        return j + 1, "'\\x' must be followed by hex digits", "write \\x41 for 'A'"
    if char in ("u", "U") and char:
        wanted = 4 if char == "u" else 8
        k = j + 1
        for index in range(wanted):
            allowed: frozenset[str] | str = _HEX
            if char == "U" and index < 2:
                allowed = "0"
            elif char == "U" and index == 2:
                allowed = "01"
            if k < stop and text[k] in allowed:
                k += 1
                continue
            if char == "u":
                return k, "'\\u' must be followed by four hex digits", "write \\u00e9 for 'é'"
            return (
                k,
                "'\\U' must be followed by eight hex digits, up to 0010ffff",
                "write \\U0001f600, or use \\u for code points up to ffff",
            )
        return k, "", ""
    shown = repr(char)[1:-1] if char else ""
    if char == "\n" or not char:
        return (
            j,
            "a '\\' at the end of a line does not continue a string in protobuf",
            'close the string and start another on the next line: "a" "b" concatenate',
        )
    if char == "X":
        hint = "protobuf's hex escape is lowercase: write \\x41"
    elif char in ("8", "9"):
        hint = "octal escapes use the digits 0-7; write \\\\" + char + " for a backslash"
    else:
        hint = _ESCAPES_HINT
    return j, f"'\\{shown}' is not an escape sequence protobuf knows", hint


def _scan_string(text: str, start: int, error: _ErrorSink) -> int:
    """The end of a string token that the fast pattern could not match, with errors.

    It ends at its closing quote, or (an error) before a newline or the end of the
    file, like the C++ tokenizer's string. A NUL byte is an error too; C++ ends the
    string there, this reads on to the quote so the rest does not cascade.
    """
    quote = text[start]
    i = start + 1
    length = len(text)
    while True:
        if i >= length or text[i] == "\n":
            where = "the end of the file" if i >= length else "the end of the line"
            error(
                f"this string is not closed before {where}",
                start,
                i,
                f"add the closing {quote} (a string cannot span lines; write \\n for a line break)",
            )
            return i
        char = text[i]
        if char == "\x00":
            error(
                "a NUL byte inside a string ends it for protobuf's parser",
                i,
                i + 1,
                "delete the NUL byte, or write it as \\0",
            )
            i += 1  # read on to the closing quote, so that one mistake is one error
            continue
        if char == "\\":
            end, message, hint = _check_escape(text, i, length)
            if message:
                error(message, i, max(end, i + 1), hint)
            i = end
            continue
        if char == quote:
            return i + 1
        i += 1


_SIMPLE_VALUES = {
    "a": 7,
    "b": 8,
    "f": 12,
    "n": 10,
    "r": 13,
    "t": 9,
    "v": 11,
    "\\": 92,
    "?": 63,
    "'": 39,
    '"': 34,
}


def string_bytes(token_text: str) -> bytes | None:
    """The bytes a string token stands for, as C++ decodes them; None if it is invalid.

    Octal and hex escapes give raw bytes (`\\777` is 0xff, like C++'s char cast), \\u and
    \\U give UTF-8 (a lone surrogate too, which is not valid UTF-8, as in C++).
    """
    if len(token_text) < 2 or token_text[-1] != token_text[0]:
        return None
    body = token_text[1:-1]
    if "\\" not in body:
        if "\x00" in body or "\n" in body:
            return None
        return body.encode("utf-8", "surrogatepass")
    out = bytearray()
    i = 0
    stop = len(body)
    while i < stop:
        char = body[i]
        if char != "\\":
            if char in "\x00\n":
                return None
            out += char.encode("utf-8", "surrogatepass")
            i += 1
            continue
        end, message, _ = _check_escape(body, i, stop)
        if message:
            return None
        code = body[i + 1]
        if code in _SIMPLE_VALUES:
            out.append(_SIMPLE_VALUES[code])
            i = end
        elif code in _OCTAL:
            j = i + 1
            while j < stop and j < i + 4 and body[j] in _OCTAL:
                j += 1
            out.append(int(body[i + 1 : j], 8) & 0xFF)
            i = j
        elif code == "x":
            j = i + 2
            while j < stop and j < i + 4 and body[j] in _HEX:
                j += 1
            out.append(int(body[i + 2 : j], 16))
            i = j
        else:
            i = _append_unicode(body, i, end, out)
    return bytes(out)


def _append_unicode(body: str, i: int, end: int, out: bytearray) -> int:
    """Append a \\u / \\U escape (joining a UTF-16 surrogate pair); return the next index."""
    point = int(body[i + 2 : end], 16)
    if 0xD800 <= point < 0xDC00 and body[end : end + 2] == "\\u":
        trail = body[end + 2 : end + 6]
        if len(trail) == 4 and all(c in _HEX for c in trail):
            low = int(trail, 16)
            if 0xDC00 <= low < 0xE000:
                point = 0x10000 + ((point - 0xD800) << 10 | (low - 0xDC00))
                end += 6
    if point > 0x10FFFF:
        out += f"\\U{point:08x}".encode()  # what C++ writes for an out-of-range point
    else:
        out += chr(point).encode("utf-8", "surrogatepass")
    return end


def string_value(token_text: str) -> str | None:
    """Decode a quoted string token; None if it is unterminated or badly escaped.

    Bytes that are not UTF-8 (from `\\xff` escapes, say) become U+FFFD.
    """
    data = string_bytes(token_text)
    return None if data is None else data.decode("utf-8", "replace")
