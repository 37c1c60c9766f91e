"""`pbtxt-lint check`: builds settings, runs the engine, formats, picks the exit code."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterable
from pathlib import Path

import click

from pbtxt_lint.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE


def _codes(values: Iterable[str]) -> frozenset[str]:
    """`--select PL2,PL301 --select PL4` -> {"PL2", "PL301", "PL4"}, validated."""
    from pbtxt_lint.rules import ALL_RULES, RULES_BY_NAME

    codes = set()
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                continue
            if item in RULES_BY_NAME:
                item = RULES_BY_NAME[item].code
            item = item.upper()
            if not any(r.code.startswith(item) for r in ALL_RULES):
                raise click.BadParameter(f"no rule code starts with '{item}'")
            codes.add(item)
    return frozenset(codes)


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--disable-auto-complete-config",
    is_flag=True,
    help="Check as Triton does with this flag: backends fill nothing in.",
)
@click.option(
    "--model-config-name",
    metavar="NAME",
    help="Use <model>/configs/NAME.pbtxt where it exists (Triton's flag).",
)
@click.option(
    "--config-only", is_flag=True, help="Skip every check that needs the model artifacts."
)
@click.option(
    "--gpus",
    type=click.IntRange(min=0),
    metavar="N",
    help="GPUs on the target host (0 = CPU-only); GPU placement is a warning when unknown.",
)
@click.option(
    "--select",
    multiple=True,
    metavar="CODES",
    help="Only these codes or prefixes (comma-separated, repeatable).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="CODES",
    help="Skip these codes or prefixes (comma-separated, repeatable).",
)
@click.option("--color/--no-color", default=None, help="Force colour on or off.")
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def check(
    paths: tuple[Path, ...],
    output_format: str,
    disable_auto_complete_config: bool,
    model_config_name: str | None,
    config_only: bool,
    gpus: int | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    color: bool | None,
    debug: bool,
) -> None:
    """Check model repositories, model folders or config.pbtxt files (default: .)."""
    from pbtxt_lint.diagnostics import Severity
    from pbtxt_lint.linter import lint
    from pbtxt_lint.settings import Settings

    if model_config_name is not None and not model_config_name:
        raise click.BadParameter("empty argument", param_hint="--model-config-name")
    settings = Settings(
        auto_complete=not disable_auto_complete_config,
        model_config_name=model_config_name,
        config_only=config_only,
        gpus=gpus,
        select=_codes(select),
        ignore=_codes(ignore),
    )
    try:
        result = lint(paths or (Path("."),), settings)
    except Exception as error:  # never a traceback for the user unless asked
        _internal_error(error, debug)
    for problem in result.path_problems:
        click.echo(f"pbtxt-lint: {problem.path}: {problem.message}", err=True)
    if output_format == "json":
        from pbtxt_lint.report.json_report import render_json

        click.echo(render_json(result))
    else:
        from pbtxt_lint.report.text import render_text

        render_text(result, sys.stdout, color=color)
    for internal in result.internal_errors:
        click.echo(
            f"pbtxt-lint: internal error in rule {internal.rule} on model "
            f"'{internal.model}': {internal.error} (please report this bug)",
            err=True,
        )
    if result.path_problems or result.internal_errors:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_ERRORS if result.count(Severity.ERROR) else EXIT_OK)


def _internal_error(error: BaseException, debug: bool) -> None:
    if debug:
        traceback.print_exc()
    click.echo(f"pbtxt-lint: internal error: {error!r} (run with --debug for details)", err=True)
    sys.exit(EXIT_USAGE)
