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
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()
