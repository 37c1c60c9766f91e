"""Human output: `path:line:col: severity CODE message`, a code frame, a hint, a summary.

rich adds colour on a terminal and stays plain when piped or when NO_COLOR is set. Piped
output (pre-commit, CI logs, editors) is written directly: importing rich costs a sixth of
a one-file run, for styles nobody would see.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.echo import frame_line, window
from pbtxt_lint.linter import LintResult
from pbtxt_lint.paths import display_path

_STYLES = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.INFO: "cyan"}


def _location(diagnostic: Diagnostic) -> str:
    where = display_path(diagnostic.path)
    if diagnostic.span is not None:
        where += f":{diagnostic.span.line}:{diagnostic.span.column}"
    return where


def code_frame(
    diagnostic: Diagnostic, read_lines: Callable[[Path], list[str] | None]
) -> str | None:
    """The offending line with the span underlined, or None if there is no text."""
    span = diagnostic.span
    if span is None:
        return None
    lines = read_lines(diagnostic.path)
    if not lines or span.line > len(lines):
        return None
    text = lines[span.line - 1].rstrip("\r\n")
    end = span.end_column if span.end_line == span.line else len(text) + 1
    end = max(min(end, len(text) + 1), span.column + 1)
    # A long line shows a window around the span, not the whole line.
    shown, start, stop = window(text, span.column - 1, end - 1)
    shown = frame_line(shown)
    gutter = f"{span.line:>4} | "
    underline = " " * (len(gutter) - 2) + "| " + " " * start + "^" * max(1, stop - start)
    return f"{gutter}{shown}\n{underline}"


def summary_line(result: LintResult) -> str:
    errors = result.count(Severity.ERROR)
    warnings = result.count(Severity.WARNING)
    infos = result.count(Severity.INFO)

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    checked = f"Checked {plural(result.models, 'model')} ({plural(result.files, 'config file')})"
    hidden = []
    if result.suppressed:
        hidden.append(f"{result.suppressed} suppressed")
    if result.baselined:
        hidden.append(f"{result.baselined} in the baseline")
    tail = f" ({', '.join(hidden)})" if hidden else ""
    if result.path_problems:  # said on stderr; the summary must not sound like success
        tail += f"; {plural(len(result.path_problems), 'path')} not checked"
    if not result.diagnostics:
        return f"{checked}: no problems found{tail}."
    counts = f"{plural(errors, 'error')}, {plural(warnings, 'warning')}, {infos} info"
    return f"{checked}: {counts}{tail}."


def wants_summary(result: LintResult) -> bool:
    """No summary when nothing was checked because every PATH failed: the error on
    stderr is the whole story ("Checked 0 models: no problems found" would read as
    success)."""
    return not (result.path_problems and not result.models)


def render_text(result: LintResult, stream: TextIO, *, color: bool | None = None) -> None:
    if color is False or (color is None and not _terminal(stream)):
        _render_plain(result, stream)
    else:
        _render_rich(result, stream, color)


def _terminal(stream: TextIO) -> bool:
    """Whether rich would treat `stream` as a terminal (and so might style it)."""
    if os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE") == "1":
        return True
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def _render_plain(result: LintResult, stream: TextIO) -> None:
    """The same lines as the rich renderer, without styles."""
    lines = result.sources.lines  # the text the checks read
    out: list[str] = []
    for diagnostic in result.diagnostics:
        out.append(
            f"{_location(diagnostic)}: {diagnostic.severity.value} {diagnostic.code} "
            f"{diagnostic.message}"
        )
        frame = code_frame(diagnostic, lines)
        if frame is not None:
            out.append(frame)
        if diagnostic.hint:
            out.append(f"  hint: {diagnostic.hint}")
    if wants_summary(result):
        if result.diagnostics:
            out.append("")
        out.append(summary_line(result))
    if out:
        stream.write("\n".join(out) + "\n")


def _render_rich(result: LintResult, stream: TextIO, color: bool | None) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(
        file=stream,
        highlight=False,
        soft_wrap=True,
        no_color=color is False,
        force_terminal=color or None,
    )
    lines = result.sources.lines  # the text the checks read
    for diagnostic in result.diagnostics:
        style = _STYLES[diagnostic.severity]
        console.print(
            f"[bold]{escape(_location(diagnostic))}[/bold]: "
            f"[{style}]{diagnostic.severity.value} {diagnostic.code}[/{style}] "
            f"{escape(diagnostic.message)}"
        )
        frame = code_frame(diagnostic, lines)
        if frame is not None:
            console.print(escape(frame), style="dim")
        if diagnostic.hint:
            console.print(f"  [green]hint:[/green] {escape(diagnostic.hint)}")
    if wants_summary(result):
        if result.diagnostics:
            console.print()
        console.print(summary_line(result), style="bold")
