"""The one way every command ends on a bug, and `check`'s on a usage mistake: a line on
stderr and exit 2, never a traceback (unless asked for with --debug or
PBTXT_LINT_DEBUG=1)."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import click

from pbtxt_lint.cli.exit_codes import EXIT_USAGE
from pbtxt_lint.echo import bound_message

DEBUG_VARIABLE = "PBTXT_LINT_DEBUG"


def usage_error(message: str) -> NoReturn:
    """A flag, file or path the user got wrong: one line on stderr, exit 2."""
    click.echo(f"pbtxt-lint: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def internal_error(error: BaseException, debug: bool = False) -> NoReturn:
    """Report an unexpected exception in one line (bounded and escaped: its text may
    quote the input) and exit 2; with `debug` or PBTXT_LINT_DEBUG=1, the traceback too."""
    if debug or os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
        import traceback  # deferred: only a failing run with --debug pays for it

        traceback.print_exception(error)
    line = bound_message(repr(error))
    print(
        f"pbtxt-lint: internal error: {line} (please report this bug; --debug or "
        f"{DEBUG_VARIABLE}=1 shows where)",
        file=sys.stderr,
    )
    sys.exit(EXIT_USAGE)
