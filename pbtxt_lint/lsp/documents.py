"""Positions and paths: the engine's (1-based lines, code-point columns, offsets) and the
editor's (0-based lines, columns in the negotiated encoding, URIs).

Lines end at "\\n" only, as the engine counts them (a "\\r" before it is part of the
line's text, which no position ever points into).
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

from pbtxt_lint.lsp.core import CONFIG_NAME, CONFIGS_FOLDER, Span


def uri_to_path(uri: str) -> Path | None:
    """The absolute file path of a `file:` URI; None for other schemes (untitled, git)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return Path(os.path.abspath(path))


def path_to_uri(path: Path) -> str:
    return Path(os.path.abspath(path)).as_uri()


def is_model_config(path: Path) -> bool:
    """A file Triton reads as a model configuration: `<model>/config.pbtxt` or
    `<model>/configs/<name>.pbtxt`. Other .pbtxt files (TensorFlow's, say) are left alone."""
    if path.name == CONFIG_NAME:
        return True
    return path.suffix == ".pbtxt" and path.parent.name == CONFIGS_FOLDER


def same_file(a: Path, b: Path) -> bool:
    return a == b or os.path.realpath(a) == os.path.realpath(b)


@dataclass(frozen=True)
class Position:
    """0-based line and character in the client's units."""

    line: int
    character: int


class LineIndex:
    """Converts between offsets, engine spans and client positions for one text."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0]
        index = text.find("\n")
        while index >= 0:
            self.starts.append(index + 1)
            index = text.find("\n", index + 1)

    def line_text(self, line: int) -> str:
        """Line `line` (0-based) without its end of line."""
        if not 0 <= line < len(self.starts):
            return ""
        start = self.starts[line]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    def _units(self, text: str) -> int:
        if self.encoding == "utf-32":
            return len(text)
        if self.encoding == "utf-8":
            return len(text.encode("utf-8", errors="surrogatepass"))
        return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)

    def position(self, offset: int) -> Position:
        """The client position of a 0-based offset."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self.starts, offset) - 1
        return Position(line, self._units(self.text[self.starts[line] : offset]))

    def offset(self, position: Position) -> int:
        """The offset of a client position (clamped to its line)."""
        if position.line >= len(self.starts):
            return len(self.text)
        start = self.starts[max(position.line, 0)]
        line = self.line_text(position.line)
        if self.encoding == "utf-32":
            return start + min(position.character, len(line))
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return start + index
            units += self._units(char)
        return start + len(line)

    def span_offsets(self, span: Span) -> tuple[int, int]:
        """Offsets of an engine span (1-based line and code-point column)."""
        return self._engine_offset(span.line, span.column), self._engine_offset(
            span.end_line, span.end_column
        )

    def _engine_offset(self, line: int, column: int) -> int:
        if line - 1 >= len(self.starts):
            return len(self.text)
        start = self.starts[max(line - 1, 0)]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        return min(start + max(column - 1, 0), end)
