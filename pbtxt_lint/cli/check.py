"""`pbtxt-lint check`: builds settings, runs the engine, formats, picks the exit code.

Everything the user can get wrong (a flag, a configuration file, a baseline) is a
usage error with exit code 2 and one clear line, never a traceback.

What is printed follows ruff's and shellcheck's habits: every finding in full in the
text format, one line each in `concise`, counts per rule with `--statistics`; a
severity threshold (`--min-severity`, shellcheck's `--severity`: the same three levels,
named apart from the configuration file's `[severity]` table of per-rule overrides)
whose default hides info in the two human formats, where the summary counts them and
names the flag that shows them. Machine formats get everything unless told otherwise.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pbtxt_lint.cli.check_fixes import show_diff, write_fixes
from pbtxt_lint.cli.check_output import (
    apply_threshold,
    emit,
    print_settings,
    report_problems,
    report_remote,
)
from pbtxt_lint.cli.errors import internal_error, usage_error
from pbtxt_lint.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE
from pbtxt_lint.cli.urls import LOCAL_ONLY, RepositoryPath
from pbtxt_lint.storage import is_remote

FORMATS = ("text", "concise", "json", "sarif", "github", "gitlab")
HUMAN_FORMATS = ("text", "concise")
"""Formats a person reads line by line: info findings are counted, not shown, unless
--min-severity info asks for them."""
SEVERITIES = ("error", "warning", "info")
STDIN = Path("-")

if TYPE_CHECKING:
    from pbtxt_lint.baseline import Baseline
    from pbtxt_lint.cli.progress import Progress
    from pbtxt_lint.linter import CheckOptions, LintResult
    from pbtxt_lint.repository.layout import Overlay


@click.command()
@click.argument("paths", nargs=-1, type=RepositoryPath())
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format: text (findings with code frames and hints), concise (one line "
    "each), or a machine format [default: github when GITHUB_ACTIONS=true, else text].",
)
@click.option(
    "--min-severity",
    type=click.Choice(SEVERITIES),
    default=None,
    help="Report findings of this severity and above [default: warning in the text and "
    "concise formats, whose summary counts the info left out; info elsewhere].",
)
@click.option(
    "--statistics",
    is_flag=True,
    help="Print how many findings each rule has, instead of the findings.",
)
@click.option(
    "--exit-zero",
    is_flag=True,
    help="Exit 0 even when errors are found (2 still means a path or the run failed).",
)
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="With the PATH '-': the config file standard input stands for (its model folder "
    "and repository are read from disk).",
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
    "--deep",
    is_flag=True,
    default=None,
    help="Run ONNX models on synthetic batches of 1 and 2 (needs onnxruntime) to confirm "
    "what their batch axis is.",
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
    min_severity: str | None,
    statistics: bool,
    exit_zero: bool,
    stdin_filename: str | None,
    output_file: Path | None,
    disable_auto_complete_config: bool | None,
    model_config_name: str | None,
    config_only: bool | None,
    deep: bool | None,
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
    disk or in a bucket (s3://, gs://, as://); `-` reads a config from standard input
    (with --stdin-filename)."""
    if model_config_name is not None and not model_config_name:
        raise click.BadParameter("empty argument", param_hint="--model-config-name")
    if unsafe_fixes and not (fix or diff):
        raise click.UsageError("--unsafe-fixes needs --fix or --diff")
    if statistics and output_format not in (None, *HUMAN_FORMATS):
        raise click.UsageError(f"--statistics prints a table; it has no {output_format} form")
    paths, overlay = _standard_input(paths, stdin_filename, fix or diff)
    remote = [str(p) for p in paths if is_remote(p)]
    if fix and remote:
        usage_error(f"{remote[0]}: " + LOCAL_ONLY.format(command="--fix"))
    options = check_options(click.get_current_context().params)
    if overlay is not None:
        options = dataclasses.replace(options, overlay=overlay)
    if show_settings:
        print_settings(paths, options)
        sys.exit(EXIT_OK)
    baseline = _load_baseline(baseline_file) if baseline_file is not None else None
    progress = _progress()
    try:
        result = _run(
            paths,
            dataclasses.replace(options, progress=progress),
            baseline if write_baseline is None else None,
            debug,
        )
    finally:
        if progress is not None:
            progress.close()
    report_problems(result)
    if verbose:
        report_remote(result)
    failed = bool(result.path_problems or result.internal_errors)
    if write_baseline is not None:
        _write_baseline(write_baseline, result)
        sys.exit(EXIT_USAGE if failed else EXIT_OK)
    if diff:
        fixable = show_diff(result, unsafe_fixes, debug)
        sys.exit(EXIT_USAGE if failed else EXIT_ERRORS if fixable else EXIT_OK)
    if fix and write_fixes(result, unsafe_fixes, debug):
        result = _run(paths, options, baseline, debug)  # what remains
    chosen = output_format or ("github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text")
    from pbtxt_lint.diagnostics import Severity

    errors = result.count(Severity.ERROR)
    if min_severity is None:
        threshold = (
            Severity.WARNING if chosen in HUMAN_FORMATS and not statistics else Severity.INFO
        )
    else:
        threshold = Severity(min_severity)
    not_shown = apply_threshold(result, threshold)
    if statistics:
        chosen = "statistics"
    emit(result, chosen, output_file, color, not_shown)
    if failed:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_ERRORS if errors and not exit_zero else EXIT_OK)


def _standard_input(
    paths: tuple[Path, ...], stdin_filename: str | None, fixing: bool
) -> tuple[tuple[Path, ...], Overlay | None]:
    """`check - --stdin-filename models/x/config.pbtxt`: the PATHs with `-` replaced by
    that path, and the text read from standard input, checked instead of the file's
    (which need not exist; its model folder and repository are read from disk)."""
    if STDIN not in paths:
        if stdin_filename is not None:
            usage_error(
                "--stdin-filename names the file standard input stands for: give '-' as a PATH"
            )
        return paths, None
    if stdin_filename is None:
        usage_error(
            "reading a config from standard input ('-') needs --stdin-filename PATH: its "
            "model folder and repository come from that path"
        )
    if fixing:
        usage_error("--fix and --diff change files on disk; they do not read standard input")
    from pbtxt_lint.repository.fs import MAX_CONFIG_BYTES
    from pbtxt_lint.repository.layout import is_config_file, overlay_key

    named = Path(stdin_filename)
    if not is_config_file(named):
        usage_error(
            f"--stdin-filename {stdin_filename}: standard input is read as a model "
            "configuration, so the path must name one (config.pbtxt, configs/<name>.pbtxt)"
        )
    data = sys.stdin.buffer.read(MAX_CONFIG_BYTES + 1)
    if len(data) > MAX_CONFIG_BYTES:
        usage_error(f"standard input holds more than {MAX_CONFIG_BYTES >> 20} MiB: not a config")
    text = data.decode("utf-8", errors="surrogateescape")
    return tuple(named if p == STDIN else p for p in paths), {overlay_key(named): text}


def _progress() -> Progress | None:
    """Progress on standard error, only for a person at a terminal."""
    try:
        interactive = sys.stderr.isatty()
    except ValueError:  # a closed stream
        return None
    if not interactive:
        return None
    from pbtxt_lint.cli.progress import Progress

    return Progress(sys.stderr)


def check_options(params: Mapping[str, Any]) -> CheckOptions:
    """The options of a run, from `check`'s parsed flags (the tests make theirs here).

    Results are kept between runs in --cache-dir, else (unless --no-cache or
    PBTXT_LINT_NO_CACHE) in PBTXT_LINT_CACHE_DIR, else in the user's cache folder."""
    import dataclasses

    from pbtxt_lint.linter import CheckOptions
    from pbtxt_lint.settings_files import Options

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
        from pbtxt_lint.settings_files import SettingsError

        if isinstance(error, (SettingsError, CacheError)):
            usage_error(str(error))
        internal_error(error, debug)
    if baseline is not None:
        result.diagnostics, result.baselined = baseline.split(result.diagnostics)
    return result


def _load_baseline(path: Path) -> Baseline:
    from pbtxt_lint.baseline import BaselineError, load

    try:
        return load(path)
    except BaselineError as error:
        usage_error(str(error))


def _write_baseline(path: Path, result: LintResult) -> None:
    from pbtxt_lint.baseline import write

    try:
        count = write(path, result.diagnostics)
    except OSError as error:
        usage_error(f"{path}: cannot write the baseline: {error.strerror or error}")
    click.echo(f"pbtxt-lint: recorded {count} finding(s) in {path}", err=True)
