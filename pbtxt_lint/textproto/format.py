"""The one canonical layout of a config.pbtxt, as Triton's documentation writes it.

```
name: "text_encoder"
max_batch_size: 8
input [
  {
    name: "input_ids"  # trailing comments stay on their line
    data_type: TYPE_INT64
    dims: [ -1 ]
  }
]
dynamic_batching {
  preferred_batch_size: [ 4, 8 ]
}
parameters {
  key: "EXECUTION_ENV_PATH"
  value {
    string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz"
  }
}
```

- two spaces per level, one field per line inside every block;
- `key: value` for scalars; `name {` for a message, without a colon: protobuf's own
  printers write it so, and so do the blocks of Triton's model-configuration guide
  (`dynamic_batching {`, `sequence_batching {`, `rate_limiter {`);
- a repeated message is one list, `input [ {`...`}, {`...`} ]` as in Triton's guide
  (adjacent `input { }` occurrences are merged into it); map entries (`parameters`,
  `input_map`, ...) stay one block per key, as Triton's backend docs write them;
- a repeated scalar is a list, on one line `dims: [ 1, 2 ]` when it fits in 100
  columns and carries no comments, else one element per line;
- comments stay attached: a comment on its own line goes before the field that
  follows it, a comment after a value stays at the end of that value's line; blank
  lines between fields are kept (at most one);
- a block or list written on one line that a `# pbtxt-lint: disable=...` comment
  silences stays on that line as written: spread over several lines, its findings
  would move to lines the comment does not cover.

Field order, values and their spelling (quotes, hex numbers, `True`) are left as
written: the formatter changes layout only. It refuses files that do not parse, and
checks its own output: the parsed ModelConfig and the comments must be unchanged.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR
from pbtxt_lint.textproto.binder import is_map, is_repeated, message_type
from pbtxt_lint.textproto.directives import silenced_lines
from pbtxt_lint.textproto.parse import ParsedConfig, parse_config
from pbtxt_lint.textproto.tokenizer import Token, TokenKind
from pbtxt_lint.textproto.tree import Block, Document, Field, ListValue, Scalar

INDENT = "  "
MAX_WIDTH = 100
_BOM = "\ufeff"


class FormatError(Exception):
    """The file cannot be formatted; the message says why, for the user."""


def format_config(data: bytes) -> bytes:
    """The canonical layout of a config file's bytes.

    Line endings (LF or CRLF) are kept, and so are bytes that are not UTF-8 (a Latin-1
    comment): they travel through as surrogate escapes.
    """
    return format_text(decode_text(data)).encode("utf-8", errors="surrogateescape")


def decode_text(data: bytes) -> str:
    """A config file's text, bytes that are not UTF-8 kept as surrogate escapes.

    Raises FormatError when they cannot be kept that way.
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data.decode("utf-8", errors="surrogateescape")
        # The parser counts one U+FFFD per bad byte; offsets must line up with `text`.
        if len(text) != len(data.decode("utf-8", errors="replace")):
            raise FormatError(
                f"not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start}); "
                "save it as UTF-8 first"
            ) from None
        return text


def format_text(text: str) -> str:
    """The canonical layout of config text; raises FormatError when it does not parse.

    `text` may carry surrogate escapes (bytes that were not UTF-8); they are kept.
    """
    if text.startswith(_BOM):
        raise FormatError(
            "starts with a byte-order mark, which Triton cannot read; "
            "`pbtxt-lint check --fix` removes it"
        )
    parsed = parse_config(text.encode("utf-8", errors="surrogateescape"))
    _require_clean(parsed)
    crlf = text.count("\r\n") * 2 > text.count("\n")
    formatted = _Printer(parsed.document, text).render()
    again = parse_config(formatted.encode("utf-8", errors="surrogateescape"))
    if again.config != parsed.config or _comments(again.document) != _comments(parsed.document):
        raise FormatError(
            "internal error: the formatted text would not mean the same; the file was "
            "left unchanged (please report this bug)"
        )
    return formatted.replace("\n", "\r\n") if crlf else formatted


def _require_clean(parsed: ParsedConfig) -> None:
    if parsed.config is None:
        problem = parsed.problems[0] if parsed.problems else None
        where = f" (line {problem.span.line}: {problem.message})" if problem else ""
        raise FormatError(f"does not parse{where}; `pbtxt-lint check` explains how to fix it")
    issues = parsed.document.issues
    if issues:
        raise FormatError(
            f"uses syntax pbtxt-lint does not lay out (line {issues[0].span.line}: "
            f"{issues[0].message})"
        )


def _comments(document: Document) -> list[str]:
    return [comment.text.rstrip() for comment in document.comments]


def _fields_of(value: Scalar | Block) -> list[Field]:
    return value.fields if isinstance(value, Block) else []


def _is_separator(token: Token) -> bool:
    return token.kind is TokenKind.SYMBOL and token.text in (",", ";")


class _Printer:
    """Walks the syntax tree in source order, emitting lines and every comment once."""

    def __init__(self, document: Document, source: str) -> None:
        self.document = document
        self.source = source
        self.comments = document.comments
        self.next_comment = 0
        self.token_starts = [token.start for token in document.tokens]
        self.lines: list[str] = []
        self.last_line = 0  # source line of the last token or comment emitted
        self.trailing_line = 0  # line of a trailing comment taken for the next line
        self.after_opener = False
        self.silenced = silenced_lines(document)
        self.line_starts: dict[int, int] = {}  # line -> offset of its first token
        for token in document.tokens:
            self.line_starts.setdefault(token.line, token.start)

    def render(self) -> str:
        self.fields(self.document.fields, MODEL_CONFIG_DESCRIPTOR, 0)
        self.leading(float("inf"), 0)
        return "\n".join(self.lines) + "\n" if self.lines else ""

    def source_of(self, token: Token) -> str:
        """A token as written (bytes that are not UTF-8 included, as surrogate escapes)."""
        return self.source[token.start : token.end]

    def scalar_text(self, value: Scalar) -> str:
        return " ".join(self.source_of(token) for token in value.tokens)

    # -- lines and comments ------------------------------------------------------

    def emit(self, depth: int, text: str, first: int, last: int, *, blank: bool = False) -> None:
        """One output line; `first`/`last` are its source lines (for blank lines)."""
        if (
            blank
            and self.lines
            and self.lines[-1]
            and not self.after_opener
            and first - self.last_line >= 2
        ):
            self.lines.append("")
        self.lines.append(INDENT * depth + text)
        self.last_line = max(last, self.trailing_line)
        self.trailing_line = 0
        self.after_opener = False

    def opener(self, depth: int, text: str, token: Token, *, blank: bool = False) -> None:
        """A line that opens a block or list; its trailing comment stays on it."""
        line = token.line
        self.emit(depth, text + self.trailing(token), line, line, blank=blank)
        self.after_opener = True

    def leading(self, before: float, depth: int, *, blank: bool = True) -> None:
        """Emit, one per line, every comment not yet emitted that starts before `before`."""
        while self.next_comment < len(self.comments):
            comment = self.comments[self.next_comment]
            if comment.start >= before:
                return
            self.next_comment += 1
            self.emit(
                depth, self.source_of(comment).rstrip(), comment.line, comment.line, blank=blank
            )

    def trailing(self, after: Token) -> str:
        """`  # comment` if the next comment follows `after` on its line, else ""."""
        if self.next_comment >= len(self.comments):
            return ""
        comment = self.comments[self.next_comment]
        if comment.line != after.line or comment.start < after.end:
            return ""
        low = bisect.bisect_left(self.token_starts, after.end)
        high = bisect.bisect_left(self.token_starts, comment.start)
        if not all(_is_separator(t) for t in self.document.tokens[low:high]):
            return ""
        self.next_comment += 1
        self.trailing_line = comment.line
        return "  " + self.source_of(comment).rstrip()

    def has_comment(self, start: int, end: int) -> bool:
        """Is a not-yet-emitted comment inside [start, end)?"""
        index = self.next_comment
        return (
            index < len(self.comments)
            and self.comments[index].start < end
            and any(start <= c.start < end for c in self.comments[index:])
        )

    # -- fields ------------------------------------------------------------------

    def fields(self, fields: Sequence[Field], descriptor: Descriptor, depth: int) -> None:
        """Fields in order; adjacent occurrences of a repeated field become one list."""
        index = 0
        while index < len(fields):
            node = fields[index]
            fd = descriptor.fields_by_name[node.name.text]
            group = [node]
            index += 1
            if self.as_written(node, fd):
                self.leading(node.name.start, depth)
                self.verbatim(node, depth)
                continue
            if is_repeated(fd) and not is_map(fd):
                while (
                    index < len(fields)
                    and fields[index].name.text == node.name.text
                    and not self.as_written(fields[index], fd)
                ):
                    group.append(fields[index])
                    index += 1
            if fd.cpp_type != FieldDescriptor.CPPTYPE_MESSAGE:
                if is_repeated(fd):
                    self.scalar_list(group, depth)
                else:
                    self.scalar_field(node, depth)
            elif is_map(fd):
                self.map_entries(node, message_type(fd), depth)
            elif is_repeated(fd):
                self.message_list(group, message_type(fd), depth)
            else:
                value = node.value
                assert isinstance(value, Block)
                self.leading(value.open.start, depth)
                self.block(f"{fd.name} ", value, message_type(fd), depth, node.last, blank=True)

    def kept_line(self, first: Token, last: Token) -> bool:
        """Does [first, last] fill a line that a suppression comment silences (from its
        first token, and on that line only)? Laid out over several lines, the findings
        on it would escape the comment, so it is written as it is."""
        line = first.line
        return line == last.line and line in self.silenced and self.line_starts[line] == first.start

    def as_written(self, node: Field, fd: FieldDescriptor) -> bool:
        """A non-empty block or list of messages on a kept line."""
        value = node.value
        return (
            fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE
            and value is not None
            and bool(value.items if isinstance(value, ListValue) else _fields_of(value))
            and self.kept_line(node.name, value.last)
        )

    def verbatim(self, node: Field, depth: int) -> None:
        assert node.value is not None
        text = self.source[node.name.start : node.value.last.end]
        line = node.name.line
        self.emit(depth, text + self.trailing(node.last), line, line, blank=True)

    def block(
        self,
        prefix: str,
        block: Block,
        descriptor: Descriptor,
        depth: int,
        last: Token,
        *,
        suffix: str = "",
        blank: bool = False,
    ) -> None:
        """`prefix{ ... }suffix`; `last` is the source token after which a trailing
        comment belongs to the closing line."""
        close = block.close
        assert close is not None
        if block.fields and self.kept_line(block.open, close):
            text = prefix + self.source[block.open.start : close.end] + suffix
            comment = self.trailing_after(close, last)
            self.emit(depth, text + comment, close.line, close.line, blank=blank)
            return
        if not block.fields and not self.has_comment(block.open.start, close.start):
            line = prefix + "{ }" + suffix
            self.emit(
                depth,
                line + self.trailing_after(close, last),
                block.open.line,
                close.line,
                blank=blank,
            )
            return
        self.opener(depth, prefix + "{", block.open, blank=blank)
        self.fields(block.fields, descriptor, depth + 1)
        self.leading(close.start, depth + 1)
        self.emit(depth, "}" + suffix + self.trailing_after(close, last), close.line, close.line)

    def trailing_after(self, token: Token, last: Token) -> str:
        """A trailing comment after `token`, or else after `last` (a `]` or separator)."""
        return self.trailing(token) or (self.trailing(last) if last is not token else "")

    def map_entries(self, node: Field, entry: Descriptor, depth: int) -> None:
        """Map entries: one `name { key: .. value .. }` block per entry."""
        value = node.value
        name = node.name.text
        if isinstance(value, ListValue) and not value.items:
            self.leading(value.open.start, depth)
            self.empty_list(f"{name} ", value, node, depth)
            return
        items = value.items if isinstance(value, ListValue) else [value]
        for position, item in enumerate(items):
            assert isinstance(item, Block)
            self.leading(item.open.start, depth)
            last = node.last if position == len(items) - 1 else item.last
            self.block(f"{name} ", item, entry, depth, last, blank=True)
        if isinstance(value, ListValue) and value.close is not None:
            self.leading(value.close.start, depth)

    def message_list(self, group: list[Field], element: Descriptor, depth: int) -> None:
        """`name [ {...}, {...} ]` for all the adjacent occurrences in `group`."""
        first, final, name = group[0], group[-1], group[0].name.text
        items: list[tuple[Block, Field]] = []
        for node in group:
            value = node.value
            blocks = value.items if isinstance(value, ListValue) else [value]
            items.extend((item, node) for item in blocks if isinstance(item, Block))
        self.leading(first.name.start, depth)
        if not items and isinstance(first.value, ListValue) and len(group) == 1:
            self.empty_list(f"{name} ", first.value, first, depth)
            return
        if isinstance(first.value, ListValue):
            self.leading(first.value.open.start, depth)
            self.opener(depth, f"{name} [", first.value.open, blank=True)
        else:
            self.opener(depth, f"{name} [", first.name, blank=True)
        for position, (item, node) in enumerate(items):
            self.leading(item.open.start, depth + 1, blank=False)
            is_last_of_field = position == len(items) - 1 or items[position + 1][1] is not node
            # A `]` that is written gets its own trailing comment; else the field's last token.
            closes = is_last_of_field and not (node is final and isinstance(node.value, ListValue))
            last = node.last if closes else item.last
            comma = "," if position < len(items) - 1 else ""
            self.block("", item, element, depth + 1, last, suffix=comma)
            if is_last_of_field and isinstance(node.value, ListValue) and node.value.close:
                self.leading(node.value.close.start, depth + 1, blank=False)
        self.close_list(depth, final)

    def close_list(self, depth: int, final: Field) -> None:
        """The `]` of a list; a comment after the last written `]` (or separator) stays."""
        value = final.value
        if isinstance(value, ListValue) and value.close is not None:
            self.leading(value.close.start, depth + 1, blank=False)
        end = value.last if isinstance(value, ListValue) else final.last
        comment = self.trailing_after(end, final.last)
        self.emit(depth, "]" + comment, end.line, final.last.line)

    def empty_list(self, prefix: str, value: ListValue, node: Field, depth: int) -> None:
        close = value.close
        assert close is not None
        if not self.has_comment(value.open.start, close.start):
            self.emit(
                depth,
                prefix + "[ ]" + self.trailing_after(close, node.last),
                value.open.line,
                close.line,
                blank=True,
            )
            return
        self.opener(depth, prefix + "[", value.open, blank=True)
        self.leading(close.start, depth + 1, blank=False)
        self.emit(depth, "]" + self.trailing_after(close, node.last), close.line, close.line)

    def scalar_field(self, node: Field, depth: int) -> None:
        value = node.value
        assert isinstance(value, Scalar)
        self.leading(value.first.start, depth)
        self.scalar(f"{node.name.text}: ", value, "", depth, node.last, blank=True)

    def scalar(
        self,
        prefix: str,
        value: Scalar,
        suffix: str,
        depth: int,
        last: Token,
        *,
        blank: bool = False,
    ) -> None:
        """One scalar; adjacent strings with comments between them keep one per line."""
        tokens = value.tokens
        if len(tokens) == 1 or not self.has_comment(value.first.start, value.last.end):
            text = prefix + " ".join(self.source_of(t) for t in tokens) + suffix
            self.emit(
                depth,
                text + self.trailing_after(value.last, last),
                value.first.line,
                value.last.line,
                blank=blank,
            )
            return
        for position, token in enumerate(tokens):
            if position:
                self.leading(token.start, depth + 1, blank=False)
            head = prefix if position == 0 else ""
            tail = suffix if position == len(tokens) - 1 else ""
            is_final = position == len(tokens) - 1
            comment = self.trailing_after(token, last) if is_final else self.trailing(token)
            self.emit(
                depth + (1 if position else 0),
                head + self.source_of(token) + tail + comment,
                token.line,
                token.line,
                blank=blank and not position,
            )

    def scalar_list(self, group: list[Field], depth: int) -> None:
        """`name: [ a, b ]` for all the adjacent occurrences in `group`."""
        first, final, name = group[0], group[-1], group[0].name.text
        items: list[tuple[Scalar, Field]] = []
        for node in group:
            value = node.value
            scalars = value.items if isinstance(value, ListValue) else [value]
            items.extend((item, node) for item in scalars if isinstance(item, Scalar))
        first_value = first.value
        assert first_value is not None
        self.leading(first_value.first.start, depth)
        one_line = f"{name}: [ " + ", ".join(self.scalar_text(item) for item, _ in items) + " ]"
        if not items:
            one_line = f"{name}: [ ]"
        fits = len(INDENT * depth + one_line) <= MAX_WIDTH
        final_value = final.value
        assert final_value is not None
        if fits and not self.has_comment(first_value.first.start, final_value.last.end):
            self.emit(
                depth,
                one_line + self.trailing_after(final_value.last, final.last),
                first.name.line,
                final.last.line,
                blank=True,
            )
            return
        opening = first_value.open if isinstance(first_value, ListValue) else first.name
        self.opener(depth, f"{name}: [", opening, blank=True)
        for position, (item, node) in enumerate(items):
            self.leading(item.first.start, depth + 1, blank=False)
            is_last_of_field = position == len(items) - 1 or items[position + 1][1] is not node
            # A `]` that is written gets its own trailing comment; else the field's last token.
            closes = is_last_of_field and not (node is final and isinstance(node.value, ListValue))
            last = node.last if closes else item.last
            comma = "," if position < len(items) - 1 else ""
            self.scalar("", item, comma, depth + 1, last)
            if is_last_of_field and isinstance(node.value, ListValue) and node.value.close:
                self.leading(node.value.close.start, depth + 1, blank=False)
        self.close_list(depth, final)
