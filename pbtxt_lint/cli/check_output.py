"""What `pbtxt-lint check` prints: the report in the chosen format (to standard output
or --output-file), the findings a severity threshold hides (counted, not shown), the
paths and crashed rules on standard error apart from findings, and --show-settings.

Apart from the command (`check.py`) so the flow reads as a flow; every report module
loads only when its format is asked for.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from pbtxt_lint.cli.errors import usage_error
from pbtxt_lint.echo import inert

if TYPE_CHECKING:
    from pbtxt_lint.diagnostics import Severity
    from pbtxt_lint.linter import CheckOptions, LintResult
    from pbtxt_lint.report.text import NotShown
    from pbtxt_lint.settings_files import Resolved


def apply_threshold(result: LintResult, threshold: Severity) -> NotShown:
    """Drop the findings below `threshold` from `result`; how many, by severity."""
    from collections import Counter

    below = [d for d in result.diagnostics if d.severity.rank < threshold.rank]
    if below:
        result.diagnostics = [d for d in result.diagnostics if d.severity.rank >= threshold.rank]
    return Counter(d.severity for d in below)


def report_problems(result: LintResult) -> None:
    """Paths that do not exist, files that belong to no model and rules that crashed:
    on stderr, apart from findings."""
    for problem in [*result.path_problems, *result.skipped]:
        click.echo(f"pbtxt-lint: {inert(str(problem.path))}: {problem.message}", err=True)
    for internal in result.internal_errors:
        where = f" in rule {internal.rule}" if internal.rule else ""
        click.echo(
            f"pbtxt-lint: internal error{where} on model '{inert(internal.model)}': "
            f"{internal.error} (please report this bug)",
            err=True,
        )


def report_remote(result: LintResult) -> None:
    """--verbose: what each cloud repository cost to read, on stderr."""
    from pbtxt_lint.storage.report import describe

    for entry in result.remote:
        for line in describe(entry):
            click.echo(f"pbtxt-lint: {line}", err=True)


def emit(
    result: LintResult,
    output_format: str,
    output_file: Path | None,
    color: bool | None,
    not_shown: NotShown,
) -> None:
    """Write the report in `output_format`, to `output_file` or standard output."""
    if output_file is None:
        _render(result, output_format, sys.stdout, color, not_shown)
        return
    try:
        with output_file.open("w", encoding="utf-8") as stream:
            _render(result, output_format, stream, False, not_shown)
    except OSError as error:
        usage_error(f"{output_file}: cannot write the report: {error.strerror or error}")


def _render(
    result: LintResult,
    output_format: str,
    stream: TextIO,
    color: bool | None,
    not_shown: NotShown,
) -> None:
    if output_format == "text":
        from pbtxt_lint.report.text import render_text

        render_text(result, stream, color=color, not_shown=not_shown)
    elif output_format == "concise":
        from pbtxt_lint.report.concise import render_concise

        render_concise(result, stream, not_shown)
    elif output_format == "statistics":
        from pbtxt_lint.report.concise import render_statistics
        from pbtxt_lint.settings_files import known_rules

        names = {rule.code: rule.name for rule in known_rules()}
        render_statistics(result, stream, names, not_shown)
    elif output_format == "github":
        from pbtxt_lint.report.github import render_github

        render_github(result, stream)
    else:
        stream.write(_render_document(result, output_format) + "\n")


def _render_document(result: LintResult, output_format: str) -> str:
    if output_format == "json":
        from pbtxt_lint.report.json_report import render_json

        return render_json(result)
    if output_format == "sarif":
        from pbtxt_lint.report.sarif import render_sarif

        return render_sarif(result)
    from pbtxt_lint.report.gitlab import render_gitlab

    return render_gitlab(result)


def print_settings(paths: Sequence[Path], options: CheckOptions) -> None:
    """The effective settings of each group of paths, with where each value came from."""
    from pbtxt_lint.settings_files import SettingsError, resolve_settings

    try:
        groups: list[Resolved] = resolve_settings(
            list(paths) or [Path(".")], options, options.config_file
        )
    except SettingsError as error:
        usage_error(str(error))
    for number, group in enumerate(groups):
        if number:
            click.echo()
        checked = ", ".join(str(p) for p in group.paths)
        click.echo(f"paths: {checked}")
        click.echo(f"configuration file: {group.settings_file or 'none found'}")
        width = max(len(key) for key in group.origins)
        for key, origin in group.origins.items():
            click.echo(f"  {key:<{width}}  {origin.value}  ({origin.source})")
