"""`pbtxt-lint lsp`: run the language server (needs the optional `lsp` extra)."""

from __future__ import annotations

import sys

import click

from pbtxt_lint.cli.exit_codes import EXIT_USAGE

MISSING = (
    "pbtxt-lint: error: the language server needs pygls, which the 'lsp' extra installs: "
    "pip install 'pbtxt-lint[lsp]'"
)


@click.command("lsp")
@click.option("--stdio", is_flag=True, help="Talk over standard input/output (the default).")
def lsp(stdio: bool) -> None:
    """Run the language server for editors (LSP over standard input/output).

    Editors start it themselves; see "In your editor" in the README.
    """
    try:
        import pygls  # noqa: F401
    except ImportError:
        click.echo(MISSING, err=True)
        sys.exit(EXIT_USAGE)
    from pbtxt_lint.lsp.server import run

    run()
