"""How paths are shown: relative to the working folder when inside it."""

from __future__ import annotations

import os
from pathlib import Path

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
