"""GitHub Actions workflow commands: each finding becomes an annotation on its line.

`::error file=models/m/config.pbtxt,line=3,col=17,endLine=3,endColumn=19,title=PL301::...`
GitHub shows these on the pull request's diff. Values are escaped as the runner
expects (`%`, CR and LF everywhere; also `:` and `,` inside properties), since a
message with a newline or a path with a comma would otherwise cut the command short.
"""

from __future__ import annotations

from typing import TextIO

from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.linter import LintResult
from pbtxt_lint.paths import shown_path
from pbtxt_lint.report.text import summary_line, wants_summary

COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(diagnostic: Diagnostic) -> str:
    properties = [("file", shown_path(diagnostic.path))]  # a control character escaped
    span = diagnostic.span
    if span is not None:
        properties += [
            ("line", str(span.line)),
            ("col", str(span.column)),
            ("endLine", str(span.end_line)),
            ("endColumn", str(span.end_column)),
        ]
    properties.append(("title", diagnostic.code))
    message = diagnostic.message + (f" (hint: {diagnostic.hint})" if diagnostic.hint else "")
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{COMMANDS[diagnostic.severity]} {joined}::{escape_data(message)}"


def render_github(result: LintResult, stream: TextIO) -> None:
    for diagnostic in result.diagnostics:
        stream.write(annotation(diagnostic) + "\n")
    if wants_summary(result):
        stream.write(summary_line(result) + "\n")
