"""The command line. Each command lives in its own module and is imported only when
it runs, so `pbtxt-lint --help` and every command start fast.

To add a command, add one entry to COMMANDS: name -> "module:function".
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import os
import sys

import click

from pbtxt_lint import __version__

COMMANDS: dict[str, str] = {
    "check": "pbtxt_lint.cli.check:check",
    "rules": "pbtxt_lint.cli.rules:list_rules",
    "explain": "pbtxt_lint.cli.rules:explain",
    "complete": "pbtxt_lint.cli.complete:complete",
    "init": "pbtxt_lint.cli.complete:init",
    "graph": "pbtxt_lint.cli.graph:graph",
    "fmt": "pbtxt_lint.cli.fmt:fmt",
    "schema": "pbtxt_lint.cli.schema:schema",
    "convert": "pbtxt_lint.cli.convert:convert",
    "request": "pbtxt_lint.cli.request:request",
    "lsp": "pbtxt_lint.cli.lsp:lsp",
}


class LazyGroup(click.Group):
    """A click group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pbtxt-lint")
def cli() -> None:
    """Lint NVIDIA Triton Inference Server model repositories before you deploy them."""


def main() -> None:
    """Console-script entry point: click's own usage errors exit with 2."""
    # A run allocates mostly objects that live until it ends (modules, rules, the
    # schema); at the default thresholds the collector walks them some 50 times, 10 ms
    # of a one-config run. Young cycles are still collected, in larger batches.
    gc.set_threshold(50_000, 50, 50)
    _escape_what_cannot_be_encoded()
    try:
        try:
            cli.main(prog_name="pbtxt-lint")
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception as error:  # any command, any input: one line, never a traceback
            from pbtxt_lint.cli.errors import internal_error

            internal_error(error)
    except KeyboardInterrupt:
        _exit(130)
    except SystemExit as stop:
        _exit(stop.code)


def _escape_what_cannot_be_encoded() -> None:
    """A name that is not valid UTF-8 (kept as surrogates) or a character the terminal's
    encoding lacks (an ASCII-only locale) is written as a backslash escape, not raised
    as UnicodeEncodeError halfway through a report."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def _exit(code: object) -> None:
    """End the process without tearing down every module and object one by one.

    That teardown (freeing the protobuf descriptors, the rules, the parsed trees)
    costs about 20 ms, a sixth of a one-config run, and does nothing a finished run
    needs; mypy ends the same way. Exit handlers still run and the streams are
    flushed first, so nothing written is lost.
    """
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`| head`)
            stream.flush()
    os._exit(code or 0)
