"""SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers.

One run with the full rule registry as `tool.driver.rules` (summary, documentation
with examples, Triton's log line, default level), one result per diagnostic with its
region, and each fix as a SARIF fix (character offsets), so viewers can show or apply
it. Paths are relative to the working folder (`%SRCROOT%`), which in CI is the
repository root code scanning expects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pbtxt_lint import __version__
from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.docs import doc_markdown
from pbtxt_lint.linter import LintResult
from pbtxt_lint.paths import display_path
from pbtxt_lint.report.fingerprint import fingerprint
from pbtxt_lint.rules.base import Rule
from pbtxt_lint.rules.registry import ALL_RULES
from pbtxt_lint.storage import is_remote

SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SRCROOT = "%SRCROOT%"


def _rule(rule: Rule) -> dict[str, Any]:
    full = rule.summary + (f" Triton reports: {rule.triton}" if rule.triton else "")
    help_text = rule.doc + (
        f"\n\nTriton reports ({rule.stage.value}): {rule.triton}" if rule.triton else ""
    )
    help_markdown = doc_markdown(rule) + (
        f"\n\nTriton reports ({rule.stage.value}): `{rule.triton}`" if rule.triton else ""
    )
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {"text": help_text, "markdown": help_markdown},
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": [rule.family, rule.stage.value]},
    }


def _location(path: Path) -> dict[str, Any]:
    if is_remote(path):  # an object in a bucket: its URL
        return {"uri": str(path) + ("/" if path.is_dir() else "")}
    shown = display_path(path)
    if Path(shown).is_absolute():
        return {"uri": path.absolute().as_uri()}
    # The bytes of a name that is not UTF-8 are percent-encoded as they are on disk.
    uri = quote(Path(shown).as_posix(), errors="surrogateescape") + ("/" if path.is_dir() else "")
    return {"uri": uri, "uriBaseId": SRCROOT}


def _result(diagnostic: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    text = diagnostic.message + (f" Hint: {diagnostic.hint}" if diagnostic.hint else "")
    physical: dict[str, Any] = {"artifactLocation": _location(diagnostic.path)}
    span = diagnostic.span
    if span is not None:
        physical["region"] = {
            "startLine": span.line,
            "startColumn": span.column,
            "endLine": span.end_line,
            "endColumn": span.end_column,
        }
    result: dict[str, Any] = {
        "ruleId": diagnostic.code,
        "level": LEVELS[diagnostic.severity],
        "message": {"text": text},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {"pbtxtLint/v1": fingerprint(diagnostic)},
    }
    if diagnostic.code in index:
        result["ruleIndex"] = index[diagnostic.code]
    if diagnostic.model:
        result["properties"] = {"model": diagnostic.model}
    fix = diagnostic.fix
    if fix is not None and fix.edits:
        replacements = [
            {
                "deletedRegion": {"charOffset": edit.start, "charLength": edit.end - edit.start},
                "insertedContent": {"text": edit.text},
            }
            for edit in fix.edits
        ]
        result["fixes"] = [
            {
                "description": {"text": fix.description},
                "artifactChanges": [
                    {"artifactLocation": _location(diagnostic.path), "replacements": replacements}
                ],
            }
        ]
    return result


def render_sarif(result: LintResult) -> str:
    rules = ALL_RULES
    index = {rule.code: position for position, rule in enumerate(rules)}
    run = {
        "tool": {
            "driver": {
                "name": "pbtxt-lint",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule(rule) for rule in rules],
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().absolute().as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [
            {"executionSuccessful": not (result.path_problems or result.internal_errors)}
        ],
        "results": [_result(d, index) for d in result.diagnostics],
    }
    document = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(document, indent=2)
