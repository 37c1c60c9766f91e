"""`pbtxt-lint fmt`: rewrite config files in the canonical layout (or check that they are)."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import click

from pbtxt_lint.cli.exit_codes import EXIT_ERRORS, EXIT_OK, EXIT_USAGE
from pbtxt_lint.cli.urls import RepositoryPath
from pbtxt_lint.echo import inert


@dataclass(frozen=True)
class ConfigFileRef:
    """A config file to format, and the repository root reads must stay inside."""

    root: Path
    path: Path


def find_config_files(paths: Iterable[Path]) -> tuple[list[ConfigFileRef], list[str]]:
    """Config files under the PATHs, found like `check` finds them.

    A file is taken as given; a repository or model folder contributes every model's
    `config.pbtxt` and `configs/*.pbtxt` (all variants: formatting one that is not
    selected is still wanted). Returns the files and messages for PATHs that are wrong.
    """
    from pbtxt_lint.repository.layout import classify, load_repository

    found: dict[Path, ConfigFileRef] = {}
    problems = []
    for raw in paths:
        if not raw.exists() and not raw.is_symlink():
            problems.append(f"{raw}: no such file or folder")
            continue
        root, model, config_file = classify(raw.absolute())
        if config_file is not None:
            found.setdefault(config_file, ConfigFileRef(root, config_file))
            continue
        repository = load_repository(root, None)
        if repository.error is not None:
            problems.append(f"{raw}: {repository.error}")
            continue
        names = [model] if model is not None else list(repository.models)
        for name in names:
            folder = repository.models.get(name)
            if folder is None:
                continue
            candidates = [folder.config_path] if folder.config_path else []
            for path in [*candidates, *folder.unused_configs]:
                found.setdefault(path, ConfigFileRef(repository.root, path))
    return list(found.values()), problems


@click.command("fmt")
@click.argument("paths", nargs=-1, type=RepositoryPath(remote=False, command="fmt"))
@click.option("--check", is_flag=True, help="Write nothing; exit 1 if a file would change.")
@click.option("--diff", is_flag=True, help="Write nothing; print what would change as a diff.")
def fmt(paths: tuple[Path, ...], check: bool, diff: bool) -> None:
    """Format config files in the canonical layout (default: .).

    PATHs are repositories, model folders or config files, as for `check`. Only
    layout changes: the parsed configuration stays identical, comments are kept, and
    a file that does not parse is left alone.
    """
    from pbtxt_lint.fixes import unified_diff, write_atomically
    from pbtxt_lint.paths import shown_path
    from pbtxt_lint.repository.fs import FsError, read_text_file
    from pbtxt_lint.textproto.format import FormatError, format_config

    files, problems = find_config_files(paths or (Path("."),))
    for problem in problems:
        click.echo(f"pbtxt-lint: {inert(problem)}", err=True)
    if problems:
        sys.exit(EXIT_USAGE)
    changed = unchanged = failed = 0
    for ref in files:
        shown = shown_path(ref.path)
        try:
            data = read_text_file(ref.root, ref.path)
            formatted = format_config(data)
        except (FsError, FormatError) as error:
            click.echo(f"pbtxt-lint: {shown}: not formatted: {error}", err=True)
            failed += 1
            continue
        if formatted == data:
            unchanged += 1
            continue
        changed += 1
        if diff:
            before, after = (t.decode("utf-8", "surrogateescape") for t in (data, formatted))
            patch = unified_diff(ref.path, before, after)  # the file's own bytes, for git apply
            click.echo(patch.encode("utf-8", "surrogateescape"), nl=False)
        elif check:
            click.echo(f"would reformat {shown}")
        else:
            try:
                write_atomically(ref.path, formatted)
            except OSError as error:
                click.echo(
                    f"pbtxt-lint: {shown}: cannot write: {error.strerror or error}", err=True
                )
                changed -= 1
                failed += 1
                continue
            click.echo(f"reformatted {shown}")
    dry = check or diff
    click.echo(_summary(changed, unchanged, failed, dry), err=diff)
    if failed or (dry and changed):
        sys.exit(EXIT_ERRORS)
    sys.exit(EXIT_OK)


def _summary(changed: int, unchanged: int, failed: int, dry: bool) -> str:
    def files(count: int) -> str:
        return f"{count} file{'' if count == 1 else 's'}"

    verb = "would be reformatted" if dry else "reformatted"
    parts = [f"{files(changed)} {verb}", f"{files(unchanged)} already formatted"]
    if failed:
        parts.append(f"{files(failed)} not formatted (see above)")
    return ", ".join(parts) + "."
