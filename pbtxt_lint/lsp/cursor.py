"""What the cursor is on, in terms of the schema: which block (message type) it is in,
which field's name or value it touches.

Works on the recovering syntax tree, so a half-typed file still has a context: a block
that is not closed yet extends to the end of the file.
"""

from __future__ import annotations

from dataclasses import dataclass

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from pbtxt_lint.lsp.core import (
    MODEL_CONFIG_DESCRIPTOR,
    Block,
    Document,
    Field,
    ListValue,
    Scalar,
    TokenKind,
    string_value,
)


@dataclass(frozen=True)
class Frame:
    """A block around the cursor: its message type and the field that holds it."""

    descriptor: Descriptor
    block: Block | None  # None: the document itself
    field: Field | None
    fd: FieldDescriptor | None


@dataclass(frozen=True)
class Cursor:
    frames: tuple[Frame, ...]
    field: Field | None = None  # the field whose name or value the cursor is on
    fd: FieldDescriptor | None = None
    on_name: bool = False
    scalar: Scalar | None = None  # the scalar value under the cursor

    @property
    def message(self) -> Descriptor:
        """The message type of the innermost block around the cursor."""
        return self.frames[-1].descriptor

    def enclosing(self, full_name: str) -> Frame | None:
        """The innermost block of message type `full_name` around the cursor."""
        for frame in reversed(self.frames):
            if frame.descriptor.full_name == full_name:
                return frame
        return None


def _inside(node: Block | ListValue, offset: int) -> bool:
    """Between the opener and the closer (to the end of the file if unclosed)."""
    return node.open.end <= offset and (node.close is None or offset <= node.close.start)


def locate(document: Document, offset: int) -> Cursor:
    """The context of `offset` in `document`."""
    frames = [Frame(MODEL_CONFIG_DESCRIPTOR, None, None, None)]
    fields = document.fields
    descriptor = MODEL_CONFIG_DESCRIPTOR
    while True:
        descended = False
        for node in fields:
            fd = descriptor.fields_by_name.get(node.name.text)
            if node.name.start <= offset <= node.name.end:
                return Cursor(tuple(frames), node, fd, on_name=True)
            value = node.value
            if isinstance(value, Scalar):
                if value.first.start <= offset <= value.last.end:
                    return Cursor(tuple(frames), node, fd, scalar=value)
            elif isinstance(value, Block) and _inside(value, offset):
                if fd is None or fd.message_type is None:
                    return Cursor(tuple(frames), node, fd)
                frames.append(Frame(fd.message_type, value, node, fd))
                fields, descriptor, descended = value.fields, fd.message_type, True
                break
            elif isinstance(value, ListValue) and _inside(value, offset):
                for item in value.items:
                    if isinstance(item, Block) and _inside(item, offset):
                        if fd is None or fd.message_type is None:
                            return Cursor(tuple(frames), node, fd)
                        frames.append(Frame(fd.message_type, item, node, fd))
                        fields, descriptor, descended = item.fields, fd.message_type, True
                        break
                    if isinstance(item, Scalar) and item.first.start <= offset <= item.last.end:
                        return Cursor(tuple(frames), node, fd, scalar=item)
                if not descended:
                    return Cursor(tuple(frames), node, fd)
                break
        if not descended:
            return Cursor(tuple(frames))


def field_value(fields: list[Field], name: str) -> Scalar | None:
    """The scalar value of field `name` among `fields` (of one block)."""
    for node in fields:
        if node.name.text == name and isinstance(node.value, Scalar):
            return node.value
    return None


def string_of(scalar: Scalar | None) -> str | None:
    """The text of a quoted string value (adjacent strings joined), else None."""
    if scalar is None:
        return None
    parts = []
    for token in scalar.tokens:
        value = string_value(token.text) if token.kind is TokenKind.STRING else None
        if value is None:
            return None
        parts.append(value)
    return "".join(parts)


def blocks_of(node: Field) -> list[Block]:
    """The block values of a field: `f { }`, or each block of `f [ { }, { } ]`."""
    value = node.value
    if isinstance(value, Block):
        return [value]
    if isinstance(value, ListValue):
        return [item for item in value.items if isinstance(item, Block)]
    return []


def io_names(document: Document) -> tuple[list[str], list[str]]:
    """The names of the inputs and outputs written in a config (parsed or not)."""
    found: dict[str, list[str]] = {"input": [], "output": []}
    for node in document.fields:
        if node.name.text in found:
            for block in blocks_of(node):
                name = string_of(field_value(block.fields, "name"))
                if name:
                    found[node.name.text].append(name)
    return found["input"], found["output"]
