"""How paths are shown: relative to the working folder when inside it."""

from __future__ import annotations

import os
from pathlib import Path

from pbtxt_lint.echo import inert
from pbtxt_lint.storage import is_remote


def display_path(path: Path) -> str:
    """`models/x/config.pbtxt` rather than an absolute path, when possible; an object in
    a bucket is shown as its URL."""
    if is_remote(path):
        return str(path)
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def shown_path(path: Path) -> str:
    """`display_path` as a terminal or a text report shows it: a folder name holding
    ESC, a carriage return or a newline (which would set the terminal's title or forge a
    finding line), or bytes that are not UTF-8, comes out as escapes (`\\x1b`, `\\xff`).
    Reports in JSON keep `display_path`: JSON escapes what it must itself."""
    return inert(display_path(path))
