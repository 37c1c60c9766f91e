"""Where each field of a parsed config is written: field path -> line:column span.

Rules talk about fields by path (`("input", 0, "dims", 1)`), never about text; the
source map turns such a path into the span a diagnostic points at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from pbtxt_lint.diagnostics import Span
from pbtxt_lint.textproto.tokenizer import Token
from pbtxt_lint.textproto.tree import Block, Field, ListValue, Scalar, token_span


@dataclass(frozen=True)
class Key:
    """A map entry in a path: `("parameters", Key("execution_mode"), "value")`."""

    value: object


PathElement = str | int | Key
FieldPath = tuple[PathElement, ...]


class Located(NamedTuple):
    """Where a path is written: the token naming it (None for list elements), the
    node holding its value, and the node that owns it (spans computed on demand).

    A named tuple: the binder records one for every field and value of every config.
    """

    name_token: Token | None
    value_node: Field | Block | Scalar | ListValue
    node: Field | Block | Scalar

    @property
    def name(self) -> Span | None:
        return token_span(self.name_token) if self.name_token is not None else None

    @property
    def value(self) -> Span:
        return self.value_node.span


class SourceMap:
    """Field paths to their positions; unknown paths fall back to their nearest parent."""

    def __init__(self) -> None:
        self._entries: dict[FieldPath, Located] = {}

    def __contains__(self, path: FieldPath) -> bool:
        return path in self._entries

    def add(self, path: FieldPath, located: Located) -> None:
        self._entries[path] = located

    @property
    def entries(self) -> dict[FieldPath, Located]:
        """The mapping itself, for the binder: it records dozens of entries per config,
        and a method call each costs more than the recording."""
        return self._entries

    def get(self, path: FieldPath) -> Located | None:
        return self._entries.get(path)

    def nearest(self, path: FieldPath) -> tuple[FieldPath, Located] | None:
        """The entry for `path`, or for its longest recorded prefix."""
        for length in range(len(path), 0, -1):
            located = self._entries.get(path[:length])
            if located is not None:
                return path[:length], located
        return None

    def span(self, path: FieldPath) -> Span | None:
        """Where to point for `path`: a scalar's value, a block's field name.

        A path that is not written (a missing field) points at its nearest written
        parent, so "input 'x' must specify 'dims'" lands on the input block.
        """
        found = self.nearest(path)
        if found is None:
            return None
        _, located = found
        if isinstance(located.node, Scalar):
            return located.value
        if isinstance(located.node, Field) and isinstance(located.node.value, Scalar):
            return located.value
        if located.name is not None:
            return located.name
        return Span(
            located.value.line, located.value.column, located.value.line, located.value.column + 1
        )
