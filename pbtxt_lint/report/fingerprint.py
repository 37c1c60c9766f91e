"""A stable identity for a finding, for the code-scanning services that track alerts.

Built from what a finding is (path, code, model, message), not where it is, so an
alert survives edits above it, like the baseline's matching.
"""

from __future__ import annotations

import hashlib

from pbtxt_lint.diagnostics import Diagnostic
from pbtxt_lint.paths import display_path


def fingerprint(diagnostic: Diagnostic) -> str:
    parts = (
        display_path(diagnostic.path),
        diagnostic.code,
        diagnostic.model or "",
        diagnostic.message,
    )
    # The bytes of a name that is not UTF-8 are hashed as they are on disk.
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()
