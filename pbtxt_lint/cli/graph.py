"""`pbtxt-lint graph`: an ensemble's pipeline as a tree, Mermaid or Graphviz."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pbtxt_lint.cli.exit_codes import EXIT_USAGE


@click.command()
@click.argument("ensemble")
@click.argument("path", required=False, default=".", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["tree", "mermaid", "dot"]),
    default="tree",
    show_default=True,
    help="tree for the terminal; mermaid or dot to paste into docs.",
)
@click.option(
    "--disable-auto-complete-config",
    is_flag=True,
    help="Read composing models as Triton does with this flag.",
)
@click.option(
    "--model-config-name",
    metavar="NAME",
    help="Use <model>/configs/NAME.pbtxt where it exists (Triton's flag).",
)
@click.option("--color/--no-color", default=None, help="Force colour on or off (tree).")
def graph(
    ensemble: str,
    path: Path,
    output_format: str,
    disable_auto_complete_config: bool,
    model_config_name: str | None,
    color: bool | None,
) -> None:
    """Show ENSEMBLE's steps and tensors, with dtypes and shapes; broken edges marked.

    PATH is the repository (or a model folder in it); default: the current folder.
    """
    from pbtxt_lint.report.graph import EnsembleNotFound, graph_command

    use_color = sys.stdout.isatty() if color is None else color
    try:
        text = graph_command(
            path,
            ensemble,
            output_format,
            color=use_color,
            auto_complete=not disable_auto_complete_config,
            model_config_name=model_config_name,
        )
    except EnsembleNotFound as error:
        click.echo(f"pbtxt-lint: {error}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(text, nl=not text.endswith("\n"))
