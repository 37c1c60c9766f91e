"""The short outputs: one line per finding (`--format concise`, as ruff's) and one line
per rule (`--statistics`), each closed by the summary line."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TextIO

from pbtxt_lint.linter import LintResult
from pbtxt_lint.report.text import NotShown, location, summary_line, wants_summary


def render_concise(result: LintResult, stream: TextIO, not_shown: NotShown | None = None) -> None:
    """`path:line:col: severity CODE message`, nothing else: for grep, editors and logs."""
    lines = [f"{location(d)}: {d.severity.value} {d.code} {d.message}" for d in result.diagnostics]
    _write(result, stream, lines, not_shown)


def render_statistics(
    result: LintResult,
    stream: TextIO,
    names: Mapping[str, str],
    not_shown: NotShown | None = None,
) -> None:
    """How many findings each rule has, most first: `  12  PL686  info     <name>`.
    A rule whose findings differ in severity (some lowered to info) has a line each."""
    counts = Counter((d.code, d.severity) for d in result.diagnostics)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0][0], -item[0][1].rank))
    width = len(f"{max(counts.values(), default=0):,}")
    lines = [
        f"{count:>{width},}  {code}  {severity.value:<7}  {names.get(code, '')}".rstrip()
        for (code, severity), count in ranked
    ]
    _write(result, stream, lines, not_shown)


def _write(
    result: LintResult, stream: TextIO, lines: list[str], not_shown: NotShown | None
) -> None:
    if wants_summary(result):
        if lines:
            lines.append("")
        lines.append(summary_line(result, not_shown))
    if lines:
        stream.write("\n".join(lines) + "\n")
