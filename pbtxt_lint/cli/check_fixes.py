"""`pbtxt-lint check --fix` and `--diff`: the safe (and, when asked, unsafe) fixes of a
run's findings, written or shown as a diff, with what was refused and why on stderr.

Apart from the command (`check.py`): the fixer loads only for runs that fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from pbtxt_lint.cli.errors import internal_error

if TYPE_CHECKING:
    from pbtxt_lint.fixes import FixOutcome
    from pbtxt_lint.linter import LintResult


def _outcomes(result: LintResult, unsafe: bool, write: bool, debug: bool) -> list[FixOutcome]:
    from pbtxt_lint.fixes import apply_fixes

    try:
        outcomes = apply_fixes(result.diagnostics, unsafe=unsafe, write=write)
    except Exception as error:
        internal_error(error, debug)
    for outcome in outcomes:
        if outcome.refused:
            click.echo(f"pbtxt-lint: not fixing {outcome.path}: {outcome.refused}", err=True)
    return outcomes


def show_diff(result: LintResult, unsafe: bool, debug: bool) -> int:
    """`--diff`: print what `--fix` would change; returns how many fixes that is."""
    outcomes = [o for o in _outcomes(result, unsafe, False, debug) if o.applied]
    for outcome in outcomes:
        click.echo(outcome.diff, nl=False)
    fixed = sum(o.applied for o in outcomes)
    if fixed:
        click.echo(f"Would fix {fixed} problem(s) in {len(outcomes)} file(s).", err=True)
    else:
        click.echo("Nothing to fix.", err=True)
    return fixed


def write_fixes(result: LintResult, unsafe: bool, debug: bool) -> bool:
    """`--fix`: write the fixes; whether any file was written (then check again for what
    remains)."""
    written = [o for o in _outcomes(result, unsafe, True, debug) if o.written]
    fixed = sum(o.applied for o in written)
    click.echo(f"Fixed {fixed} problem(s) in {len(written)} file(s).", err=True)
    return bool(written)
