"""`pbtxt-lint request`: would the server accept this inference request?"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pbtxt_lint.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE
from pbtxt_lint.cli.urls import RepositoryPath
from pbtxt_lint.echo import inert

if TYPE_CHECKING:
    from pbtxt_lint.request import RequestProblem

MAX_REQUEST_BYTES = 8 << 20
"""The largest body `request` checks: reading JSON with every value's position costs
some 50 bytes of memory and a few microseconds per byte (a 4 MB body took 723 MB before
values lost their per-value lists; 80 MB ran out of memory)."""


@click.command("request")
@click.argument("model_dir", type=RepositoryPath(click.Path(path_type=Path)))
@click.argument("request_file", metavar="REQUEST.json", type=click.Path(path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
def request(model_dir: Path, request_file: Path, output_format: str) -> None:
    """Check a KServe v2 inference request body against a model's config.

    MODEL_DIR is the model's folder (or its config file); REQUEST.json is the body a
    client POSTs to /v2/models/<model>/infer ('-' reads it from standard input). Every
    problem is reported with the answer the server would give and what to send
    instead. Exit 1 if the server would refuse the request.
    """
    from pbtxt_lint.diagnostics import Severity
    from pbtxt_lint.paths import shown_path
    from pbtxt_lint.request import RequestSetupError, check_request, load_model

    try:
        loaded = load_model(model_dir)
        config, model = loaded.config, loaded.name
    except RequestSetupError as error:
        click.echo(f"pbtxt-lint: {inert(str(error))}", err=True)
        sys.exit(EXIT_USAGE)
    shown = "<stdin>" if str(request_file) == "-" else shown_path(request_file)
    text = _read_request(request_file, shown)
    problems = check_request(config, model, text, loaded.contract)
    errors = sum(1 for p in problems if p.severity is Severity.ERROR)
    warnings = len(problems) - errors
    if output_format == "json":
        document = {
            "version": 1,
            "model": config.name or model,
            "request": shown,
            "problems": [
                {
                    "path": shown,
                    "line": p.span.line if p.span else None,
                    "column": p.span.column if p.span else None,
                    "end_line": p.span.end_line if p.span else None,
                    "end_column": p.span.end_column if p.span else None,
                    "code": p.code,
                    "severity": p.severity.value,
                    "message": p.message,
                    "server_answer": p.triton,
                    "hint": p.hint,
                }
                for p in problems
            ],
            "summary": {"errors": errors, "warnings": warnings},
        }
        click.echo(json.dumps(document, indent=2))
    else:
        _render_text(problems, shown, text)
        name = config.name or model
        if not problems:
            click.echo(f"Request to model '{name}': no problems found.")
        else:
            click.echo(
                f"Request to model '{name}': {errors} error{'s' if errors != 1 else ''}, "
                f"{warnings} warning{'s' if warnings != 1 else ''}."
            )
    sys.exit(EXIT_ERRORS if errors else EXIT_OK)


def _read_request(path: Path, shown: str) -> str:
    try:
        if str(path) == "-":
            data = sys.stdin.buffer.read(MAX_REQUEST_BYTES + 1)
        elif not path.is_file():
            raise OSError(f"{shown}: no such file" if not path.exists() else f"{shown}: not a file")
        else:
            with open(path, "rb") as handle:
                data = handle.read(MAX_REQUEST_BYTES + 1)
    except OSError as error:
        click.echo(f"pbtxt-lint: {error.strerror or error}", err=True)
        sys.exit(EXIT_USAGE)
    if len(data) > MAX_REQUEST_BYTES:
        click.echo(
            f"pbtxt-lint: {shown} is larger than {MAX_REQUEST_BYTES >> 20} MiB, the most "
            "`request` checks; not read. Check a smaller request of the same form (shapes "
            "with fewer elements, and data to match)",
            err=True,
        )
        sys.exit(EXIT_USAGE)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        click.echo(f"pbtxt-lint: {shown} is not UTF-8 (byte {error.start}); JSON is", err=True)
        sys.exit(EXIT_USAGE)


def _render_text(problems: list[RequestProblem], shown: str, text: str) -> None:
    from pbtxt_lint.diagnostics import Diagnostic
    from pbtxt_lint.report.text import code_frame

    lines = text.splitlines()
    for problem in problems:
        where = shown
        if problem.span is not None:
            where += f":{problem.span.line}:{problem.span.column}"
        click.echo(f"{where}: {problem.severity.value} {problem.code} {problem.message}")
        diagnostic = Diagnostic(
            problem.code, problem.severity, problem.message, Path(shown), problem.span
        )
        frame = code_frame(diagnostic, lambda _: lines)
        if frame is not None:
            click.echo(frame)
        if problem.triton:
            click.echo(f"  server answers: {problem.triton}")
        if problem.hint:
            click.echo(f"  hint: {problem.hint}")
    if problems:
        click.echo()
