"""`pbtxt-lint convert`: a config between protobuf text format and JSON."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from pbtxt_lint.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE


@click.command("convert")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--to",
    "target",
    type=click.Choice(["json", "pbtxt"]),
    required=True,
    help="Output format: JSON as Triton's model-load API takes it, or pbtxt.",
)
def convert(file: Path, target: str) -> None:
    """Print FILE (config.pbtxt, or a JSON config) converted to the other format.

    JSON output uses protobuf's field names and plain numbers, like Triton's
    `GET /v2/models/<m>/config`; pbtxt output is in `pbtxt-lint fmt` layout. A config
    that does not parse is not converted (exit 1).
    """
    from google.protobuf import text_format

    from pbtxt_lint.fixes import parse_any
    from pbtxt_lint.jsonconfig import config_to_json
    from pbtxt_lint.paths import display_path
    from pbtxt_lint.repository.fs import FsError, read_text_file
    from pbtxt_lint.textproto.format import FormatError, format_config, format_text

    shown = display_path(file)
    if not file.exists():
        click.echo(f"pbtxt-lint: {shown}: no such file", err=True)
        sys.exit(EXIT_USAGE)
    try:
        data = read_text_file(file.absolute().parent, file.absolute())
    except FsError as error:
        click.echo(f"pbtxt-lint: {shown}: {error}", err=True)
        sys.exit(EXIT_USAGE)
    parsed = parse_any(file, data)
    if parsed.config is None:
        for problem in parsed.problems[:5]:
            where = f"{shown}:{problem.span.line}:{problem.span.column}"
            click.echo(f"{where}: {problem.message}", err=True)
        click.echo(f"pbtxt-lint: {shown} does not parse; nothing converted", err=True)
        sys.exit(EXIT_ERRORS)
    is_json = file.suffix.lower() == ".json"
    if target == "json":
        if parsed.document.comments:
            click.echo(f"pbtxt-lint: {shown}: JSON has no comments; they are left out", err=True)
        click.echo(config_to_json(parsed.config), nl=False)
        sys.exit(EXIT_OK)
    try:
        if is_json:
            text = text_format.MessageToString(parsed.config, as_utf8=True)
            output = format_text(text)
        else:
            output = format_config(data).decode("utf-8")
    except FormatError as error:
        click.echo(f"pbtxt-lint: {shown}: {error}", err=True)
        sys.exit(EXIT_ERRORS)
    click.echo(output, nl=False)
    sys.exit(EXIT_OK)
