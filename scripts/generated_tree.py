"""Committed files that a generator script makes from a table: write them, or check them.

Each generator (scripts/make_fixture_artifacts.py, make_python_env_fixtures.py,
make_evaluation_set.py) keeps a table of relative path -> entry, where an entry is
anything with `write(path)`; this module writes a table below a folder, compares the
committed tree with a fresh copy, and gives every script the same command line.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any


def write_all(base: Path, table: Mapping[str, Any]) -> None:
    """Write every table entry below `base` (the real folder or a scratch copy)."""
    for relative, spec in table.items():
        path = base / relative
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        spec.write(path)


def same(a: Path, b: Path) -> bool:
    if a.is_symlink() or b.is_symlink():
        return a.is_symlink() and b.is_symlink() and os.readlink(a) == os.readlink(b)
    return b.is_file() and filecmp.cmp(a, b, shallow=False)


def table_differences(
    base: Path,
    table: Mapping[str, Any],
    depth: int,
    generated: Callable[[Path], list[Path]],
    equal: Callable[[Path, Path], bool] = same,
) -> list[str]:
    """Files `table` would write differently (or not at all) below `base`, and generated
    files in its cases (`depth` path parts) that no entry produces any more.

    Shared by every generator script (an entry is anything with `write(path)`).
    """
    problems = []
    with tempfile.TemporaryDirectory() as scratch:
        fresh = Path(scratch)
        write_all(fresh, table)
        produced = {p.relative_to(fresh) for p in generated(fresh)}
        problems += [
            f"{base / rel}: differs from what the table produces"
            for rel in sorted(produced)
            if not equal(fresh / rel, base / rel)
        ]
        cases = {Path(*Path(r).parts[:depth]) for r in table}
        for case in sorted(cases):
            for path in generated(base / case):
                rel = path.relative_to(base)
                if rel not in produced:
                    problems.append(f"{base / rel}: not produced by the table (stale?)")
    return problems


def command_line(description: str, check: Callable[[], list[str]], write: Callable[[], str]) -> int:
    """`--check` prints what `check` finds (exit 1 if anything); else `write` and say what."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    if args.check:
        problems = check()
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    print(write())
    return 0
