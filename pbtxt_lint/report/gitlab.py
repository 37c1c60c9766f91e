"""GitLab Code Quality report (the JSON GitLab reads from `artifacts:reports:codequality`).

GitLab shows these findings in the merge request widget and on the diff. Severities
map onto GitLab's scale: error -> major, warning -> minor, info -> info.
"""

from __future__ import annotations

import json
from typing import Any

from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.linter import LintResult
from pbtxt_lint.paths import display_path
from pbtxt_lint.report.fingerprint import fingerprint

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def _issue(diagnostic: Diagnostic) -> dict[str, Any]:
    span = diagnostic.span
    description = diagnostic.message + (f" (hint: {diagnostic.hint})" if diagnostic.hint else "")
    return {
        "type": "issue",
        "check_name": diagnostic.code,
        "description": f"{diagnostic.code} {description}",
        "categories": ["Bug Risk"],
        "severity": SEVERITIES[diagnostic.severity],
        "fingerprint": fingerprint(diagnostic),
        "location": {
            "path": display_path(diagnostic.path),
            "lines": {"begin": span.line if span else 1, "end": span.end_line if span else 1},
        },
    }


def render_gitlab(result: LintResult) -> str:
    return json.dumps([_issue(d) for d in result.diagnostics], indent=2)
