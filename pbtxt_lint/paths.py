"""How paths are shown: relative to the working folder when inside it."""

from __future__ import annotations

import os
from pathlib import Path


def display_path(path: Path) -> str:
    """`models/x/config.pbtxt` rather than an absolute path, when possible."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative
