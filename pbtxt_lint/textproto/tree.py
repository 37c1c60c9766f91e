"""A lossless syntax tree over protobuf text format, with error recovery.

protobuf's parser stops at the first error and forgets positions; this one keeps every
token's position and carries on after a mistake, so one run reports every syntax error
and every later check can point at the exact token. The grammar is the C++ parser's
(`text_format.cc`): `name: value` or `name { ... }` / `name < ... >`, lists `[a, b]`
without a trailing comma, one optional `,` or `;` after a field, a `-` sign that may
stand apart from its number. Whether a value fits its field is the binder's business.

The parser is a loop over an explicit stack, not recursive functions: a file nesting
blocks 10,000 deep must not exhaust Python's stack.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pbtxt_lint.diagnostics import Span
from pbtxt_lint.textproto.tokenizer import Token, TokenKind, scan

_CLOSERS = {"{": "}", "<": ">"}
_IDENTIFIER = TokenKind.IDENTIFIER
_SYMBOL = TokenKind.SYMBOL
_NUMBER = TokenKind.NUMBER
_STRING = TokenKind.STRING
MAX_ISSUES = 100
"""Syntax issues kept per file: past this, a file is garbage and more only costs memory
(the rest are counted, and the report says how many it leaves out)."""


def token_span(first: Token, last: Token | None = None) -> Span:
    last = last or first
    return Span(first.line, first.column, last.line, max(last.end_column, last.column + 1))


@dataclass(slots=True)
class Scalar:
    """A scalar value: one token, a run of adjacent strings (they concatenate), or a
    `-` written apart from its number (`- 1`)."""

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


@dataclass(slots=True)
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
        return _last_token(self)

    @property
    def span(self) -> Span:
        return token_span(self.first, self.last)


@dataclass(slots=True)
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
        return _last_token(self)

    @property
    def span(self) -> Span:
        return token_span(self.first, self.last)


Value = Scalar | Block | ListValue


@dataclass(slots=True)
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
        return _last_token(self)

    @property
    def name_span(self) -> Span:
        return token_span(self.name)

    @property
    def span(self) -> Span:
        return token_span(self.first, self.value.last if self.value else self.last)


def _last_token(node: Field | Block | ListValue) -> Token:
    """The last token of a node, found by a loop (unclosed nests can be very deep)."""
    current: Field | Block | ListValue | Scalar = node
    while True:
        if isinstance(current, Field):
            if current.separator is not None:
                return current.separator
            if current.value is None:
                return current.colon or current.name
            current = current.value
        elif isinstance(current, Block):
            if current.close is not None or not current.fields:
                return current.close or current.open
            current = current.fields[-1]
        elif isinstance(current, ListValue):
            if current.close is not None or not current.items:
                return current.close or current.open
            current = current.items[-1]
        else:
            return current.tokens[-1]


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
    bad_starts: frozenset[int] = frozenset()
    """Starts of tokens whose spelling is a lexical error already in `issues`."""
    dropped_issues: int = 0
    """Syntax issues found past MAX_ISSUES, counted but not kept."""
    truncated: bool = False
    """More tokens than the tokenizer reads (MAX_TOKENS): no field was read."""


class _BlockFrame:
    """A block (or the document) being filled; `owner` receives it when it closes.

    The parser's own bookkeeping: plain classes, cheaper to import than dataclasses.
    """

    __slots__ = ("closer", "fields", "open", "owner")

    def __init__(
        self,
        open: Token | None,  # None for the document itself
        closer: str | None,
        fields: list[Field],
        owner: _Pending | _ListFrame | None,
    ) -> None:
        self.open = open
        self.closer = closer
        self.fields = fields
        self.owner = owner


class _ListFrame:
    """A list being filled: its elements so far, and whether one is due next."""

    __slots__ = ("expect_item", "items", "open", "owner")

    def __init__(self, open: Token, items: list[Scalar | Block], owner: _Pending) -> None:
        self.open = open
        self.items = items
        self.owner = owner
        self.expect_item = True


class _Pending:
    """A field whose block or list value is still being read."""

    __slots__ = ("colon", "name", "parent")

    def __init__(self, name: Token, colon: Token | None, parent: _BlockFrame) -> None:
        self.name = name
        self.colon = colon
        self.parent = parent


class _Parser:
    def __init__(self, text: str) -> None:
        scanned = scan(text)
        self.truncated = scanned.truncated
        if self.truncated:  # read none of it: a tree of its first part would mislead
            scanned = scanned._replace(tokens=scanned.tokens[-1:], errors=[])
        self.comments: list[Token] = []
        self.tokens = scanned.tokens
        # Every comment token starts with '#' (or '//', '/*', which are errors): without
        # those characters there is no comment to set apart, and no second list to build.
        if "#" in text or "/" in text:
            self.comments = [t for t in scanned.tokens if t.kind is TokenKind.COMMENT]
            if self.comments:
                self.tokens = [t for t in scanned.tokens if t.kind is not TokenKind.COMMENT]
        self.bad_starts = scanned.bad_starts
        self.pos = 0
        self.issues: list[SyntaxIssue] = []
        self.dropped = 0  # issues past MAX_ISSUES: counted, not kept
        for lex in scanned.errors:
            end = lex.column + max(1, lex.end - lex.start)
            self.add(SyntaxIssue(lex.message, Span(lex.line, lex.column, lex.line, end), lex.hint))

    @property
    def current(self) -> Token:
        return self.tokens[self.pos]

    def advance(self) -> Token:
        token = self.tokens[self.pos]
        if token.kind is not TokenKind.EOF:
            self.pos += 1
        return token

    def at_symbol(self, *symbols: str) -> bool:
        # Only a symbol token's text can be one of "{}[]<>:,;-" (strings keep quotes).
        return self.tokens[self.pos].text in symbols

    def at_field_start(self) -> bool:
        """An identifier followed by ':' or a block opener starts a new field."""
        following = self.tokens[min(self.pos + 1, len(self.tokens) - 1)]
        return (
            self.current.kind is TokenKind.IDENTIFIER
            and following.kind is TokenKind.SYMBOL
            and following.text in (":", "{", "<")
        )

    def at_scalar(self) -> bool:
        """A value token, or a `-` standing apart before a number or a word."""
        token = self.tokens[self.pos]
        if token.kind in (TokenKind.STRING, TokenKind.NUMBER, TokenKind.IDENTIFIER):
            return True
        if token.kind is TokenKind.SYMBOL and token.text == "-":
            following = self.tokens[self.pos + 1]
            return following.kind in (TokenKind.NUMBER, TokenKind.IDENTIFIER)
        return False

    def add(self, issue: SyntaxIssue) -> None:
        if len(self.issues) < MAX_ISSUES:
            self.issues.append(issue)
        else:
            self.dropped += 1

    def error(self, message: str, token: Token, hint: str | None = None) -> None:
        if len(self.issues) < MAX_ISSUES:
            self.add(SyntaxIssue(message, token_span(token), hint))
        else:
            self.dropped += 1

    def parse_document(self) -> Document:
        root = _BlockFrame(None, None, [], None)
        stack: list[_BlockFrame | _ListFrame] = [root]
        while stack:
            frame = stack[-1]
            if isinstance(frame, _ListFrame):
                self.read_items(frame, stack)
            else:
                self.read_fields(frame, stack)
        return Document(
            root.fields,
            self.tokens,
            self.comments,
            self.issues,
            self.bad_starts,
            self.dropped,
            self.truncated,
        )

    # -- blocks ----------------------------------------------------------------------

    def read_fields(self, frame: _BlockFrame, stack: list[_BlockFrame | _ListFrame]) -> None:
        """Read the fields of `frame`: the plain `name: value` ones (most of a config) in
        this loop, then the closer or one field with a block or list value, and whatever
        else comes (the end, a mistake) in `block_step`."""
        tokens = self.tokens
        append = frame.fields.append
        pos = self.pos
        while True:
            name = tokens[pos]
            if name.kind is not _IDENTIFIER:
                break
            colon = tokens[pos + 1]
            if colon.text != ":":
                break
            value = tokens[pos + 2]
            kind = value.kind
            if kind is not _NUMBER and kind is not _IDENTIFIER and kind is not _STRING:
                break  # a block, a list, a '-' apart from its number, or a mistake
            after = tokens[pos + 3]  # the colon and the value are not EOF: it exists
            if kind is _STRING and after.kind is _STRING:
                break  # adjacent strings concatenate: `parse_scalar` joins them
            pos += 3
            separator = None
            if after.text == "," or after.text == ";":
                separator = after
                pos += 1
            append(Field(name, colon, Scalar([value]), separator))
        self.pos = pos
        token = tokens[pos]
        if token.text == frame.closer and token.kind is _SYMBOL:
            self.pos = pos + 1
            self.finish_block(frame, token, stack)
        elif token.kind is _IDENTIFIER:
            self.start_field(frame, stack)
        else:
            self.block_step(frame, stack)

    def block_step(self, frame: _BlockFrame, stack: list[_BlockFrame | _ListFrame]) -> None:
        """Read one field of `frame` (or close it)."""
        token = self.current
        closer = frame.closer
        if token.kind is TokenKind.EOF:
            if frame.open is not None:
                self.error(
                    f"'{frame.open.text}' opened here is never closed",
                    frame.open,
                    f"add the missing '{closer}'",
                )
            self.finish_block(frame, None, stack)
            return
        if closer is not None and token.kind is TokenKind.SYMBOL and token.text == closer:
            self.finish_block(frame, self.advance(), stack)
            return
        if token.kind is TokenKind.IDENTIFIER:
            self.start_field(frame, stack)
            return
        if frame.open is not None and self.at_symbol("}", ">"):
            self.error(
                f"'{frame.open.text}' (line {frame.open.line}) is closed by '{token.text}'",
                token,
                f"close it with '{closer}'",
            )
            self.finish_block(frame, self.advance(), stack)
            return
        if closer is None and self.at_symbol("}", ">"):
            self.error(
                f"unmatched '{token.text}': no block is open here",
                token,
                f"delete this '{token.text}' or add the block it was meant to close",
            )
        elif self.at_symbol("["):
            self.error(
                "extension and Any fields ('[name]') are not part of a Triton model configuration",
                token,
            )
            self.skip_balanced()
            return
        else:
            self.error(
                f"expected a field name, found {token.describe()}",
                token,
                "every entry is `name: value` or `name { ... }`",
            )
        self.advance()

    def finish_block(
        self, frame: _BlockFrame, close: Token | None, stack: list[_BlockFrame | _ListFrame]
    ) -> None:
        stack.pop()
        if frame.open is None:
            return  # the document
        block = Block(frame.open, frame.fields, close)
        owner = frame.owner
        if isinstance(owner, _ListFrame):
            owner.items.append(block)
            self.after_item(owner, stack)
        elif owner is not None:
            self.finish_field(owner.parent, owner.name, owner.colon, block)

    def start_field(self, frame: _BlockFrame, stack: list[_BlockFrame | _ListFrame]) -> None:
        tokens = self.tokens
        name = tokens[self.pos]
        self.pos += 1
        colon = None
        if tokens[self.pos].text == ":":
            colon = tokens[self.pos]
            self.pos += 1
        text = tokens[self.pos].text
        if text == "{" or text == "<":
            opener = tokens[self.pos]
            self.pos += 1
            pending = _Pending(name, colon, frame)
            stack.append(_BlockFrame(opener, _CLOSERS[text], [], pending))
        elif text == "[":
            opener = tokens[self.pos]
            self.pos += 1
            stack.append(_ListFrame(opener, [], _Pending(name, colon, frame)))
        elif self.at_scalar():
            value = self.parse_scalar()
            if colon is None:
                self.error(
                    f"expected ':' between field '{name.text}' and its value",
                    value.first,
                    f"write `{name.text}: {value.text}`",
                )
            self.finish_field(frame, name, colon, value)
        else:
            self.error(
                f"field '{name.text}' has no value: found {self.current.describe()}",
                self.current if self.current.kind is not TokenKind.EOF else name,
                f"give it a value (`{name.text}: ...` or `{name.text} {{ ... }}`)",
            )
            self.finish_field(frame, name, colon, None)

    def finish_field(
        self, parent: _BlockFrame, name: Token, colon: Token | None, value: Value | None
    ) -> None:
        separator = None
        token = self.tokens[self.pos]
        if token.text == "," or token.text == ";":
            separator = token
            self.pos += 1
        parent.fields.append(Field(name, colon, value, separator))

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

    def parse_scalar(self) -> Scalar:
        tokens = [self.advance()]
        first = tokens[0]
        if first.kind is TokenKind.STRING:
            while self.current.kind is TokenKind.STRING:
                tokens.append(self.advance())
        elif first.kind is TokenKind.SYMBOL:  # a '-' apart from its number
            tokens.append(self.advance())
        return Scalar(tokens)

    # -- lists -----------------------------------------------------------------------

    def read_items(self, frame: _ListFrame, stack: list[_BlockFrame | _ListFrame]) -> None:
        """Read the elements of `frame`: the plain scalars followed by ',' or ']' (like
        `dims: [ -1, 16 ]`) in this loop, then the ']' or the '{' of a block element,
        and anything else in `list_step`."""
        tokens = self.tokens
        append = frame.items.append
        pos = self.pos
        while frame.expect_item:
            item = tokens[pos]
            kind = item.kind
            if kind is not _NUMBER and kind is not _IDENTIFIER and kind is not _STRING:
                break
            after = tokens[pos + 1].text  # the item is not EOF: a token follows it
            if after == ",":
                if tokens[pos + 2].text == "]":
                    break  # a trailing ',': `after_item` reports it
                pos += 2
            elif after == "]":
                pos += 1  # `list_step` closes the list
                append(Scalar([item]))
                break
            else:
                break
            append(Scalar([item]))
        self.pos = pos
        if frame.expect_item:
            token = tokens[pos]
            text = token.text
            if text == "]":
                self.pos = pos + 1
                self.finish_list(frame, token, stack)
                return
            if text == "{" or text == "<":
                self.pos = pos + 1
                frame.expect_item = False
                stack.append(_BlockFrame(token, _CLOSERS[text], [], frame))
                return
        self.list_step(frame, stack)

    def list_step(self, frame: _ListFrame, stack: list[_BlockFrame | _ListFrame]) -> None:
        """Read one element of a list, or the ',' / ']' after one."""
        if not frame.expect_item:
            self.after_item(frame, stack)
            return
        if self.at_symbol("]"):
            self.finish_list(frame, self.advance(), stack)
            return
        token = self.current
        if self.at_symbol("{", "<"):
            opener = self.advance()
            frame.expect_item = False
            stack.append(_BlockFrame(opener, _CLOSERS[opener.text], [], frame))
            return
        if self.at_scalar():
            frame.items.append(self.parse_scalar())
            frame.expect_item = False
            return
        where = token if token.kind is not TokenKind.EOF else frame.open
        self.error(
            f"expected a list element, found {token.describe()}",
            where,
            "close the list with ']'" if token.kind is TokenKind.EOF else None,
        )
        if token.kind is TokenKind.EOF or self.at_symbol("}", ">"):
            self.finish_list(frame, None, stack)
            return
        self.advance()

    def after_item(self, frame: _ListFrame, stack: list[_BlockFrame | _ListFrame]) -> None:
        """After an element: ',' (then another element), ']', or a recovery."""
        frame.expect_item = True
        if self.at_symbol(","):
            self.advance()
            if self.at_symbol("]"):
                self.error("trailing ',' before ']'", self.tokens[self.pos - 1], "delete the ','")
            return
        if self.at_symbol("]"):
            return
        nxt = self.current
        if nxt.kind is TokenKind.EOF or self.at_symbol("}", ">") or self.at_field_start():
            self.error("'[' opened here is never closed", frame.open, "add the missing ']'")
            self.finish_list(frame, None, stack)
            return
        self.error(
            f"expected ',' or ']' in list, found {nxt.describe()}",
            nxt,
            "separate list elements with ','",
        )

    def finish_list(
        self, frame: _ListFrame, close: Token | None, stack: list[_BlockFrame | _ListFrame]
    ) -> None:
        stack.pop()
        owner = frame.owner
        value = ListValue(frame.open, frame.items, close)
        self.finish_field(owner.parent, owner.name, owner.colon, value)


def parse_tree(text: str) -> Document:
    """Build the syntax tree of `text`, collecting structural and lexical issues."""
    return _Parser(text).parse_document()
