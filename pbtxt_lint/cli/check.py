"""`pbtxt-lint check`: builds settings, runs the engine, formats, picks the exit code.

Everything the user can get wrong (a flag, a configuration file, a baseline) is a
usage error with exit code 2 and one clear line, never a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import click

from pbtxt_lint.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE
from pbtxt_lint.cli.urls import LOCAL_ONLY, RepositoryPath
from pbtxt_lint.storage import is_remote

FORMATS = ("text", "json", "sarif", "github", "gitlab")

if TYPE_CHECKING:
    from pbtxt_lint.baseline import Baseline
    from pbtxt_lint.config import Resolved
    from pbtxt_lint.fixes import FixOutcome
    from pbtxt_lint.linter import CheckOptions, LintResult


def _usage_error(message: str) -> NoReturn:
    click.echo(f"pbtxt-lint: error: {message}", err=True)
    sys.exit(EXIT_USAGE)


@click.command()
@click.argument("paths", nargs=-1, type=RepositoryPath())
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format [default: github when GITHUB_ACTIONS=true, else text].",
)
@click.option(
    "-o",
    "--output-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the report to this file instead of standard output.",
)
@click.option(
    "--disable-auto-complete-config",
    is_flag=True,
    default=None,
    help="Check as Triton does with this flag: backends fill nothing in.",
)
@click.option(
    "--model-config-name",
    metavar="NAME",
    help="Use <model>/configs/NAME.pbtxt where it exists (Triton's flag).",
)
@click.option(
    "--config-only",
    is_flag=True,
    default=None,
    help="Skip every check that needs the model artifacts.",
)
@click.option(
    "--gpus",
    type=click.IntRange(min=0),
    metavar="N",
    help="GPUs on the target host (0 = CPU-only); unknown by default, so GPU placement "
    "is a fact (info), not a verdict.",
)
@click.option(
    "--container",
    metavar="IMAGE",
    help="The target host's tritonserver image: py3 (the standard one), pyt-python-py3, "
    "tf2-python-py3, vllm-python-py3, trtllm-python-py3 or custom; a backend it lacks is "
    "then an error.",
)
@click.option(
    "--backends",
    multiple=True,
    metavar="NAMES",
    help="Backends installed on the host beyond its image's own (comma-separated, "
    "repeatable); declares the host's backends like --container.",
)
@click.option(
    "--triton-version",
    metavar="VERSION",
    help="Target Triton release: container tag (24.10) or server version (2.51).",
)
@click.option(
    "--python-packages",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The serving image's Python packages (requirements or pip freeze output).",
)
@click.option(
    "--select",
    multiple=True,
    metavar="CODES",
    help="Only these codes, prefixes or names (comma-separated, repeatable).",
)
@click.option(
    "--extend-select",
    multiple=True,
    metavar="CODES",
    help="Add these to the selection (comma-separated, repeatable).",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="CODES",
    help="Skip these codes, prefixes or names (comma-separated, repeatable).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Use this configuration file instead of looking for one.",
)
@click.option(
    "--show-settings", is_flag=True, help="Print the effective settings and their origin."
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Report only findings that this baseline file does not record.",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Record today's findings in this file and exit 0.",
)
@click.option("--fix", is_flag=True, help="Apply safe fixes, then report what remains.")
@click.option("--diff", is_flag=True, help="Show the fixes as a diff; write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix/--diff: also unsafe fixes.")
@click.option(
    "--no-cache",
    is_flag=True,
    help="Lint every model again instead of reusing unchanged results (PBTXT_LINT_NO_CACHE=1).",
)
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Where results are kept between runs, outside every checked repository "
    "[default: PBTXT_LINT_CACHE_DIR, else the user's cache folder].",
)
@click.option("--color/--no-color", default=None, help="Force colour on or off.")
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also say what reading cloud repositories cost (requests, bytes, whole reads).",
)
@click.option("--debug", is_flag=True, help="Show tracebacks of internal errors.")
def check(
    paths: tuple[Path, ...],
    output_format: str | None,
    output_file: Path | None,
    disable_auto_complete_config: bool | None,
    model_config_name: str | None,
    config_only: bool | None,
    gpus: int | None,
    container: str | None,
    backends: tuple[str, ...],
    triton_version: str | None,
    python_packages: Path | None,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    config_file: Path | None,
    show_settings: bool,
    baseline_file: Path | None,
    write_baseline: Path | None,
    fix: bool,
    diff: bool,
    unsafe_fixes: bool,
    no_cache: bool,
    cache_dir: Path | None,
    color: bool | None,
    verbose: bool,
    debug: bool,
) -> None:
    """Check model repositories, model folders or config.pbtxt files (default: .), on
    disk or in a bucket (s3://, gs://, as://)."""
    if model_config_name is not None and not model_config_name:
        raise click.BadParameter("empty argument", param_hint="--model-config-name")
    if unsafe_fixes and not (fix or diff):
        raise click.UsageError("--unsafe-fixes needs --fix or --diff")
    remote = [str(p) for p in paths if is_remote(p)]
    if fix and remote:
        _usage_error(f"{remote[0]}: " + LOCAL_ONLY.format(command="--fix"))
    options = check_options(click.get_current_context().params)
    if show_settings:
        _show_settings(paths, options)
        sys.exit(EXIT_OK)
    baseline = _load_baseline(baseline_file) if baseline_file is not None else None
    result = _run(paths, options, baseline if write_baseline is None else None, debug)
    _report_problems(result)
    if verbose:
        _report_remote(result)
    failed = bool(result.path_problems or result.internal_errors)
    if write_baseline is not None:
        _write_baseline(write_baseline, result)
        sys.exit(EXIT_USAGE if failed else EXIT_OK)
    if diff:
        fixable = _show_diff(result, unsafe_fixes, debug)
        sys.exit(EXIT_USAGE if failed else EXIT_ERRORS if fixable else EXIT_OK)
    if fix:
        result = _fix(paths, options, baseline, result, unsafe_fixes, debug)
    chosen = output_format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    _emit(result, chosen, output_file, color)
    if failed:
        sys.exit(EXIT_USAGE)
    from pbtxt_lint.diagnostics import Severity

    sys.exit(EXIT_ERRORS if result.count(Severity.ERROR) else EXIT_OK)


def _report_problems(result: LintResult) -> None:
    """Paths that do not exist and rules that crashed: on stderr, apart from findings."""
    for problem in result.path_problems:
        click.echo(f"pbtxt-lint: {problem.path}: {problem.message}", err=True)
    for internal in result.internal_errors:
        click.echo(
            f"pbtxt-lint: internal error in rule {internal.rule} on model "
            f"'{internal.model}': {internal.error} (please report this bug)",
            err=True,
        )


def _report_remote(result: LintResult) -> None:
    """--verbose: what each cloud repository cost to read, on stderr."""
    from pbtxt_lint.storage.report import describe

    for entry in result.remote:
        for line in describe(entry):
            click.echo(f"pbtxt-lint: {line}", err=True)


def check_options(params: Mapping[str, Any]) -> CheckOptions:
    """The options of a run, from `check`'s parsed flags (the tests make theirs here).

    Results are kept between runs in --cache-dir, else (unless --no-cache or
    PBTXT_LINT_NO_CACHE) in PBTXT_LINT_CACHE_DIR, else in the user's cache folder."""
    import dataclasses

    from pbtxt_lint.config import Options
    from pbtxt_lint.linter import CheckOptions

    chosen = Options(**{f.name: params[f.name] for f in dataclasses.fields(Options)})
    cache_dir: Path | None = params["cache_dir"]
    off = params["no_cache"] or os.environ.get("PBTXT_LINT_NO_CACHE", "") not in ("", "0")
    if cache_dir is None and not off and os.environ.get("PBTXT_LINT_CACHE_DIR"):
        cache_dir = Path(os.environ["PBTXT_LINT_CACHE_DIR"])
    return CheckOptions.extending(
        chosen,
        config_file=params["config_file"],
        cache=cache_dir is not None or not off,
        cache_dir=cache_dir,
        fixes=params["fix"] or params["diff"],
    )


def _run(
    paths: Sequence[Path], options: CheckOptions, baseline: Baseline | None, debug: bool
) -> LintResult:
    """Check every path (`pbtxt_lint.check`); the baseline takes out what it records."""
    from pbtxt_lint import linter

    try:
        result = linter.check(paths, options)
    except Exception as error:  # never a traceback for the user unless asked
        from pbtxt_lint.cache import CacheError  # deferred: only runs that keep results load it
        from pbtxt_lint.config import ConfigError

        if isinstance(error, (ConfigError, CacheError)):
            _usage_error(str(error))
        _internal_error(error, debug)
    if baseline is not None:
        result.diagnostics, result.baselined = baseline.split(result.diagnostics)
    return result


def _load_baseline(path: Path) -> Baseline:
    from pbtxt_lint.baseline import BaselineError, load

    try:
        return load(path)
    except BaselineError as error:
        _usage_error(str(error))


def _write_baseline(path: Path, result: LintResult) -> None:
    from pbtxt_lint.baseline import write

    try:
        count = write(path, result.diagnostics)
    except OSError as error:
        _usage_error(f"{path}: cannot write the baseline: {error.strerror or error}")
    click.echo(f"pbtxt-lint: recorded {count} finding(s) in {path}", err=True)


def _outcomes(result: LintResult, unsafe: bool, write: bool, debug: bool) -> list[FixOutcome]:
    from pbtxt_lint.fixes import apply_fixes

    try:
        outcomes = apply_fixes(result.diagnostics, unsafe=unsafe, write=write)
    except Exception as error:
        _internal_error(error, debug)
    for outcome in outcomes:
        if outcome.refused:
            click.echo(f"pbtxt-lint: not fixing {outcome.path}: {outcome.refused}", err=True)
    return outcomes


def _show_diff(result: LintResult, unsafe: bool, debug: bool) -> int:
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


def _fix(
    paths: Sequence[Path],
    options: CheckOptions,
    baseline: Baseline | None,
    result: LintResult,
    unsafe: bool,
    debug: bool,
) -> LintResult:
    """`--fix`: write the fixes, then check again and return what remains."""
    written = [o for o in _outcomes(result, unsafe, True, debug) if o.written]
    fixed = sum(o.applied for o in written)
    click.echo(f"Fixed {fixed} problem(s) in {len(written)} file(s).", err=True)
    return _run(paths, options, baseline, debug) if written else result


def _emit(
    result: LintResult, output_format: str, output_file: Path | None, color: bool | None
) -> None:
    """Write the report in `output_format`, to `output_file` or standard output."""
    if output_file is None:
        _render(result, output_format, sys.stdout, color)
        return
    try:
        with output_file.open("w", encoding="utf-8") as stream:
            _render(result, output_format, stream, False)
    except OSError as error:
        _usage_error(f"{output_file}: cannot write the report: {error.strerror or error}")


def _render(result: LintResult, output_format: str, stream: TextIO, color: bool | None) -> None:
    if output_format == "text":
        from pbtxt_lint.report.text import render_text

        render_text(result, stream, color=color)
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


def _show_settings(paths: Sequence[Path], options: CheckOptions) -> None:
    """The effective settings of each group of paths, with where each value came from."""
    from pbtxt_lint.config import ConfigError, resolve_settings

    try:
        groups: list[Resolved] = resolve_settings(
            list(paths) or [Path(".")], options, options.config_file
        )
    except ConfigError as error:
        _usage_error(str(error))
    for number, group in enumerate(groups):
        if number:
            click.echo()
        checked = ", ".join(str(p) for p in group.paths)
        click.echo(f"paths: {checked}")
        click.echo(f"configuration file: {group.config_file or 'none found'}")
        width = max(len(key) for key in group.origins)
        for key, origin in group.origins.items():
            click.echo(f"  {key:<{width}}  {origin.value}  ({origin.source})")


def _internal_error(error: BaseException, debug: bool) -> NoReturn:
    if debug:
        import traceback

        traceback.print_exc()
    click.echo(f"pbtxt-lint: internal error: {error!r} (run with --debug for details)", err=True)
    sys.exit(EXIT_USAGE)
