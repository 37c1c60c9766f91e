"""The JSON output: a stable contract for scripts and editors (version 1)."""

from __future__ import annotations

import json
from typing import Any

from pbtxt_lint import __version__
from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.linter import LintResult
from pbtxt_lint.paths import display_path


def diagnostic_to_dict(diagnostic: Diagnostic) -> dict[str, Any]:
    span = diagnostic.span
    return {
        "path": display_path(diagnostic.path),
        "line": span.line if span else None,
        "column": span.column if span else None,
        "end_line": span.end_line if span else None,
        "end_column": span.end_column if span else None,
        "code": diagnostic.code,
        "severity": diagnostic.severity.value,
        "message": diagnostic.message,
        "model": diagnostic.model,
        "hint": diagnostic.hint,
    }


def render_json(result: LintResult) -> str:
    document: dict[str, Any] = {
        "version": 1,
        "tool": {"name": "pbtxt-lint", "version": __version__},
        "diagnostics": [diagnostic_to_dict(d) for d in result.diagnostics],
        "summary": {
            "models": result.models,
            "files": result.files,
            "errors": result.count(Severity.ERROR),
            "warnings": result.count(Severity.WARNING),
        },
    }
    if result.remote:  # a repository in a bucket: what reading it cost
        document["remote"] = result.remote
    return json.dumps(document, indent=2)
