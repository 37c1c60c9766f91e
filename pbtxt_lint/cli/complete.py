"""`pbtxt-lint complete` and `pbtxt-lint init`: Triton's auto-complete, previewed."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pbtxt_lint.cli.exit_codes import EXIT_ERRORS
from pbtxt_lint.cli.urls import RepositoryPath
from pbtxt_lint.echo import inert


@click.command()
@click.argument(
    "model_dir", type=RepositoryPath(click.Path(exists=True, file_okay=False, path_type=Path))
)
@click.option(
    "--gpus",
    type=click.IntRange(min=0),
    metavar="N",
    help="GPUs on the target host, to resolve instance groups.",
)
def complete(model_dir: Path, gpus: int | None) -> None:
    """Print the config Triton would serve for MODEL_DIR (GET /v2/models/<m>/config)."""
    from pbtxt_lint.report.complete import CommandError, complete_command
    from pbtxt_lint.settings import Settings

    try:
        click.echo(complete_command(model_dir, Settings(gpus=gpus)), nl=False)
    except CommandError as error:
        click.echo(f"pbtxt-lint: {inert(str(error))}", err=True)
        sys.exit(EXIT_ERRORS)


@click.command()
@click.argument(
    "model_dir",
    type=RepositoryPath(
        click.Path(exists=True, file_okay=False, path_type=Path), remote=False, command="init"
    ),
)
@click.option("--force", is_flag=True, help="Overwrite an existing config.pbtxt.")
def init(model_dir: Path, force: bool) -> None:
    """Write a starter config.pbtxt for MODEL_DIR from its model file."""
    from pbtxt_lint.report.complete import CommandError, init_command

    try:
        written = init_command(model_dir, force)
    except CommandError as error:
        click.echo(f"pbtxt-lint: {inert(str(error))}", err=True)
        sys.exit(EXIT_ERRORS)
    click.echo(f"wrote {written}")
