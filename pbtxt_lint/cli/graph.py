"""`pbtxt-lint graph`: an ensemble's pipeline as a tree, Mermaid or Graphviz."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pbtxt_lint.cli.exit_codes import EXIT_USAGE
from pbtxt_lint.cli.urls import RepositoryPath
from pbtxt_lint.echo import inert

if TYPE_CHECKING:
    from pbtxt_lint.report.graph import Drawing


@click.command()
@click.argument("ensemble")
@click.argument(
    "path",
    required=False,
    default=".",
    type=RepositoryPath(click.Path(exists=True, path_type=Path)),
)
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
        click.echo(f"pbtxt-lint: {inert(str(error))}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo(text, nl=not text.endswith("\n"))


class EnsembleNotFound(LookupError):
    """The named model is not an ensemble of the repository (or cannot be read)."""


def load_graph(
    path: Path,
    ensemble: str,
    *,
    auto_complete: bool = True,
    model_config_name: str | None = None,
) -> Drawing:
    """The drawing of `ensemble` in the repository at (or around) `path`."""
    from pbtxt_lint.analysis.context import Workspace
    from pbtxt_lint.analysis.ensemble import build_graph
    from pbtxt_lint.report.graph import drawing
    from pbtxt_lint.repository.layout import discover
    from pbtxt_lint.settings import Settings
    from pbtxt_lint.textproto.checks import suggest
    from pbtxt_lint.triton.autofill import is_ensemble

    targets, problems = discover([path], model_config_name)
    if problems or not targets:
        reason = problems[0].message if problems else "no such file or folder"
        raise EnsembleNotFound(f"{path}: {reason}")
    repository = targets[0].repository
    settings = Settings(auto_complete=auto_complete, model_config_name=model_config_name)
    workspace = Workspace(repository, settings)

    def ensembles() -> list[str]:
        found = []
        for name, folder in repository.models.items():
            config = workspace.context(folder).effective
            if config is not None and is_ensemble(config):
                found.append(name)
        return found

    context = workspace.model(ensemble)
    if context is None:
        known = ensembles()
        guess = suggest(ensemble, known or list(repository.models))
        near = f" (did you mean '{guess}'?)" if guess else ""
        raise EnsembleNotFound(
            f"no model '{ensemble}' in {repository.root}{near}; ensembles there: "
            f"{', '.join(known) or 'none'}"
        )
    if context.config is None:
        raise EnsembleNotFound(
            f"the config of '{ensemble}' is missing or does not parse; run pbtxt-lint check"
        )
    graph = context.shared(build_graph)
    if graph is None:
        raise EnsembleNotFound(
            f"'{ensemble}' is not an ensemble (no ensemble_scheduling); ensembles in "
            f"{repository.root}: {', '.join(ensembles()) or 'none'}"
        )
    return drawing(context, graph)


def graph_command(
    repository_or_model_path: Path,
    ensemble: str,
    fmt: str,
    *,
    color: bool = False,
    auto_complete: bool = True,
    model_config_name: str | None = None,
) -> str:
    """What `pbtxt-lint graph ENSEMBLE --format FMT` prints; raises EnsembleNotFound."""
    from pbtxt_lint.report.graph import FORMATS, graph_dot, graph_mermaid, tree_text

    if fmt not in FORMATS:
        raise ValueError(f"unknown graph format '{fmt}'; use one of {', '.join(FORMATS)}")
    marked = load_graph(
        repository_or_model_path,
        ensemble,
        auto_complete=auto_complete,
        model_config_name=model_config_name,
    )
    if fmt == "tree":
        return tree_text(marked, color=color)
    return graph_mermaid(marked) if fmt == "mermaid" else graph_dot(marked)
