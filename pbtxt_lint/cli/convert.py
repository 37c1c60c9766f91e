"""`pbtxt-lint convert`: a config between protobuf text format and JSON.

It also reads a ModelConfig saved in protobuf's binary encoding (PL017 points here),
so `convert config.pbtxt --to pbtxt -o config.pbtxt` turns one into the text Triton
reads, in place.

pbtxt comes from pbtxt-lint's one writer (`textproto.write`): `fmt` layout, fields in
the conventional order. From config text, the comments travel with their fields and
values keep their spelling; JSON and the binary encoding carry no comments.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from pbtxt_lint.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from pbtxt_lint.schema import ModelConfig


@click.command("convert")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--to",
    "target",
    type=click.Choice(["json", "pbtxt"]),
    required=True,
    help="Output format: JSON as Triton's model-load API takes it, or pbtxt.",
)
@click.option(
    "-o",
    "--output-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the result to this file (replaced atomically; may be FILE itself).",
)
def convert(file: Path, target: str, output_file: Path | None) -> None:
    """Print FILE (config.pbtxt, a JSON config, or a binary-serialized ModelConfig)
    converted to the other format.

    JSON output uses protobuf's field names and plain numbers, like Triton's
    `GET /v2/models/<m>/config`; pbtxt output is in `pbtxt-lint fmt` layout, fields in
    the conventional order (name, platform/backend, max_batch_size, ..., input, output,
    batching, instance_group, parameters, ...), comments of a pbtxt FILE kept with
    their fields. A config that does not parse is not converted (exit 1).
    """
    from pbtxt_lint.fixes import parse_any
    from pbtxt_lint.paths import shown_path
    from pbtxt_lint.repository.fs import FsError, read_text_file

    shown = shown_path(file)
    if not file.exists():
        click.echo(f"pbtxt-lint: {shown}: no such file", err=True)
        sys.exit(EXIT_USAGE)
    try:
        data = read_text_file(file.absolute().parent, file.absolute())
    except FsError as error:
        click.echo(f"pbtxt-lint: {shown}: {error}", err=True)
        sys.exit(EXIT_USAGE)
    parsed = parse_any(file, data)
    config = parsed.config
    binary = parsed.not_text.config if parsed.not_text is not None else None
    message = config if config is not None else binary
    if message is None:
        for problem in parsed.problems[:5]:
            where = f"{shown}:{problem.span.line}:{problem.span.column}"
            click.echo(f"{where}: {problem.message}", err=True)
        click.echo(f"pbtxt-lint: {shown} does not parse; nothing converted", err=True)
        sys.exit(EXIT_ERRORS)
    if target == "json":
        if parsed.document.comments:
            click.echo(f"pbtxt-lint: {shown}: JSON has no comments; they are left out", err=True)
        from pbtxt_lint.jsonconfig import config_to_json

        _write(config_to_json(message).encode("utf-8"), output_file)
    else:
        _write(_to_pbtxt(file, data, message, config is not None, shown), output_file)
    sys.exit(EXIT_OK)


def _to_pbtxt(file: Path, data: bytes, config: ModelConfig, as_text: bool, shown: str) -> bytes:
    """The config as pbtxt-lint writes it: from the text itself when it is text
    (comments and bytes that are not UTF-8 kept), else from the message (a JSON or
    binary config)."""
    from pbtxt_lint.textproto.format import FormatError, decode_text
    from pbtxt_lint.textproto.write import write_config, write_text

    try:
        if as_text and file.suffix.lower() != ".json":
            text = _CONTROLS.sub(_octal, write_text(decode_text(data)))
            return text.encode("utf-8", errors="surrogateescape")
        return write_config(config).encode("utf-8")
    except FormatError as error:
        click.echo(f"pbtxt-lint: {shown}: {error}", err=True)
        sys.exit(EXIT_ERRORS)


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)")
"""What a terminal obeys (ESC, a lone CR, bidi overrides) where the text holds it raw."""


def _octal(match: re.Match[str]) -> str:
    """A character as the octal escapes of its UTF-8 bytes: in a string, the same value
    to every protobuf text parser (as protobuf itself writes a control character)."""
    return "".join(f"\\{byte:03o}" for byte in match.group().encode("utf-8"))


def _write(output: bytes, output_file: Path | None) -> None:
    if output_file is None:
        click.echo(output, nl=False)
        return
    from pbtxt_lint.fixes import write_atomically

    try:
        write_atomically(output_file, output)
    except OSError as error:
        click.echo(f"pbtxt-lint: {output_file}: cannot write: {error.strerror or error}", err=True)
        sys.exit(EXIT_USAGE)
