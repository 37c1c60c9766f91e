"""A lossless syntax tree over protobuf text format, with error recovery.

protobuf's parser stops at the first error and forgets positions; this one keeps every
token's position and carries on after a mistake, so one run reports every syntax error
and every later check can point at the exact token. Whether the file is valid is still
decided by protobuf's `text_format` (see `parse.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from pbtxt_lint.diagnostics import Span
from pbtxt_lint.textproto.tokenizer import Token, TokenKind, tokenize

_CLOSERS = {"{": "}", "<": ">"}


def token_span(first: Token, last: Token | None = None) -> Span:
    last = last or first
    return Span(first.line, first.column, last.line, max(last.end_column, last.column + 1))


@dataclass
class Scalar:
    """A scalar value: one token, or a run of adjacent strings (they concatenate)."""

    tokens: list[Token]

    @property
    def first(self) -> Token:
        return self.tokens[0]

    @property
    def last(self) -> Token:
        return self.tokens[-1]

    @property
    def text(self) -> str:
        return " ".join(token.text for token in self.tokens)

    @property
    def span(self) -> Span:
        return token_span(self.first, self.last)


@dataclass
class Block:
    """A message value `{ ... }` (or `< ... >`)."""

    open: Token
    fields: list[Field]
    close: Token | None

    @property
    def first(self) -> Token:
        return self.open

    @property
    def last(self) -> Token:
        return self.close or (self.fields[-1].last if self.fields else self.open)

    @property
    def span(self) -> Span:
        return token_span(self.first, self.last)


@dataclass
class ListValue:
    """A bracketed list `[a, b]` of scalars or blocks."""

    open: Token
    items: list[Scalar | Block]
    close: Token | None

    @property
    def first(self) -> Token:
        return self.open

    @property
    def last(self) -> Token:
        return self.close or (self.items[-1].last if self.items else self.open)

    @property
    def span(self) -> Span:
        return token_span(self.first, self.last)


Value = Scalar | Block | ListValue


@dataclass
class Field:
    """`name: value`, with the optional colon and trailing separator kept."""

    name: Token
    colon: Token | None
    value: Value | None
    separator: Token | None = None

    @property
    def first(self) -> Token:
        return self.name

    @property
    def last(self) -> Token:
        if self.separator is not None:
            return self.separator
        if self.value is not None:
            return self.value.last
        return self.colon or self.name

    @property
    def name_span(self) -> Span:
        return token_span(self.name)

    @property
    def span(self) -> Span:
        return token_span(self.first, self.value.last if self.value else self.last)


@dataclass(frozen=True)
class SyntaxIssue:
    """A structural mistake found while building the tree."""

    message: str
    span: Span
    hint: str | None = None


@dataclass
class Document:
    fields: list[Field]
    tokens: list[Token]
    comments: list[Token]
    issues: list[SyntaxIssue] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str) -> None:
        all_tokens = list(tokenize(text))
        self.comments = [t for t in all_tokens if t.kind is TokenKind.COMMENT]
        self.tokens = [t for t in all_tokens if t.kind is not TokenKind.COMMENT]
        self.pos = 0
        self.issues: list[SyntaxIssue] = []

    @property
    def current(self) -> Token:
        return self.tokens[self.pos]

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind is not TokenKind.EOF:
            self.pos += 1
        return token

    def at_symbol(self, *symbols: str) -> bool:
        token = self.current
        return token.kind is TokenKind.SYMBOL and token.text in symbols

    def at_field_start(self) -> bool:
        """An identifier followed by ':' or a block opener starts a new field."""
        following = self.tokens[min(self.pos + 1, len(self.tokens) - 1)]
        return (
            self.current.kind is TokenKind.IDENTIFIER
            and following.kind is TokenKind.SYMBOL
            and following.text in (":", "{", "<")
        )

    def error(self, message: str, token: Token, hint: str | None = None) -> None:
        self.issues.append(SyntaxIssue(message, token_span(token), hint))

    def parse_document(self) -> Document:
        fields = list(self.parse_fields(closer=None))
        return Document(fields, self.tokens, self.comments, self.issues)

    def parse_fields(self, closer: str | None) -> Iterator[Field]:
        """Fields until `closer` (not consumed) or the end of the file."""
        while True:
            token = self.current
            if token.kind is TokenKind.EOF:
                return
            if closer is not None and self.at_symbol(closer):
                return
            if token.kind is TokenKind.IDENTIFIER:
                yield self.parse_field()
                continue
            if self.at_symbol("}", ">") and closer is None:
                self.error(
                    f"unmatched '{token.text}': no block is open here",
                    token,
                    f"delete this '{token.text}' or add the block it was meant to close",
                )
            elif self.at_symbol("["):
                self.error(
                    "extension and Any fields ('[name]') are not part of a Triton model "
                    "configuration",
                    token,
                )
                self.skip_balanced()
                continue
            else:
                self.error(
                    f"expected a field name, found {token.describe()}",
                    token,
                    "every entry is `name: value` or `name { ... }`",
                )
            self.advance()

    def skip_balanced(self) -> None:
        """Skip one bracketed group (used for constructs we do not model)."""
        depth = 0
        while self.current.kind is not TokenKind.EOF:
            token = self.advance()
            if token.kind is TokenKind.SYMBOL and token.text in "[{<":
                depth += 1
            elif token.kind is TokenKind.SYMBOL and token.text in "]}>":
                depth -= 1
                if depth <= 0:
                    return

    def parse_field(self) -> Field:
        name = self.advance()
        colon = self.advance() if self.at_symbol(":") else None
        value: Value | None
        if self.at_symbol("{", "<"):
            value = self.parse_block()
        elif self.at_symbol("["):
            value = self.parse_list()
        elif self.current.kind in (TokenKind.STRING, TokenKind.NUMBER, TokenKind.IDENTIFIER):
            value = self.parse_scalar()
            if colon is None:
                self.error(
                    f"expected ':' between field '{name.text}' and its value",
                    value.first,
                    f"write `{name.text}: {value.text}`",
                )
        else:
            value = None
            self.error(
                f"field '{name.text}' has no value: found {self.current.describe()}",
                self.current if self.current.kind is not TokenKind.EOF else name,
                f"give it a value (`{name.text}: ...` or `{name.text} {{ ... }}`)",
            )
        separator = self.advance() if self.at_symbol(",", ";") else None
        return Field(name, colon, value, separator)

    def parse_scalar(self) -> Scalar:
        tokens = [self.advance()]
        if tokens[0].kind is TokenKind.STRING:
            while self.current.kind is TokenKind.STRING:
                tokens.append(self.advance())
        return Scalar(tokens)

    def parse_block(self) -> Block:
        open_token = self.advance()
        closer = _CLOSERS[open_token.text]
        fields = list(self.parse_fields(closer))
        if self.at_symbol(closer):
            return Block(open_token, fields, self.advance())
        self.error(
            f"'{open_token.text}' opened here is never closed",
            open_token,
            f"add the missing '{closer}'",
        )
        return Block(open_token, fields, None)

    def parse_list(self) -> ListValue:
        open_token = self.advance()
        items: list[Scalar | Block] = []
        while True:
            if self.at_symbol("]"):
                return ListValue(open_token, items, self.advance())
            token = self.current
            if self.at_symbol("{", "<"):
                items.append(self.parse_block())
            elif token.kind in (TokenKind.STRING, TokenKind.NUMBER, TokenKind.IDENTIFIER):
                items.append(self.parse_scalar())
            else:
                where = token if token.kind is not TokenKind.EOF else open_token
                self.error(
                    f"expected a list element, found {token.describe()}",
                    where,
                    "close the list with ']'" if token.kind is TokenKind.EOF else None,
                )
                if token.kind is TokenKind.EOF or self.at_symbol("}", ">"):
                    return ListValue(open_token, items, None)
                self.advance()
                continue
            if self.at_symbol(","):
                self.advance()
                if self.at_symbol("]"):
                    self.error(
                        "trailing ',' before ']'", self.tokens[self.pos - 1], "delete the ','"
                    )
            elif not self.at_symbol("]"):
                nxt = self.current
                if nxt.kind is TokenKind.EOF or self.at_symbol("}", ">") or self.at_field_start():
                    self.error("'[' opened here is never closed", open_token, "add the missing ']'")
                    return ListValue(open_token, items, None)
                self.error(
                    f"expected ',' or ']' in list, found {nxt.describe()}",
                    nxt,
                    "separate list elements with ','",
                )


def parse_tree(text: str) -> Document:
    """Build the syntax tree of `text`, collecting structural issues as it goes."""
    return _Parser(text).parse_document()
