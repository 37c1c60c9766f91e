"""Baselines: record today's findings so a team adopting pbtxt-lint sees only new ones.

A finding is matched by path, code, model and message, never by line, so editing a
file above a recorded finding does not bring it back. Paths are stored relative to the
baseline file, so the same file works from any working folder and on any machine.
Identical findings are counted: a third copy of a finding recorded twice is new.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pbtxt_lint import __version__
from pbtxt_lint.diagnostics import Diagnostic

FORMAT_VERSION = 1
Key = tuple[str, str, str, str]  # (path relative to the baseline, code, model, message)


class BaselineError(Exception):
    """A baseline file that cannot be read: a usage problem, reported without traceback."""


def _key(diagnostic: Diagnostic, folder: Path) -> Key:
    try:
        path = Path(os.path.relpath(diagnostic.path.absolute(), folder)).as_posix()
    except ValueError:  # another drive on Windows
        path = diagnostic.path.absolute().as_posix()
    return (path, diagnostic.code, diagnostic.model or "", diagnostic.message)


@dataclass
class Baseline:
    """The recorded findings, as a multiset of keys."""

    folder: Path
    counts: Counter[Key]

    def split(self, diagnostics: Iterable[Diagnostic]) -> tuple[list[Diagnostic], int]:
        """(the findings the baseline does not record, how many it does)."""
        left = Counter(self.counts)
        new: list[Diagnostic] = []
        known = 0
        for diagnostic in diagnostics:
            key = _key(diagnostic, self.folder)
            if left[key] > 0:
                left[key] -= 1
                known += 1
            else:
                new.append(diagnostic)
        return new, known


def load(path: Path) -> Baseline:
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BaselineError(
            f"{path}: no such baseline file (create it with --write-baseline {path})"
        ) from None
    except OSError as error:
        raise BaselineError(f"{path}: cannot read: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BaselineError(f"{path}: not a pbtxt-lint baseline (invalid JSON: {error})") from None
    if not isinstance(document, dict) or document.get("version") != FORMAT_VERSION:
        raise BaselineError(f"{path}: not a pbtxt-lint baseline of format {FORMAT_VERSION}")
    counts: Counter[Key] = Counter()
    for entry in document.get("findings", []):
        try:
            key = (
                str(entry["path"]),
                str(entry["code"]),
                str(entry["model"]),
                str(entry["message"]),
            )
            counts[key] += int(entry.get("count", 1))
        except (KeyError, TypeError, ValueError):
            raise BaselineError(f"{path}: malformed entry {entry!r}") from None
    return Baseline(path.absolute().parent, counts)


def write(path: Path, diagnostics: Iterable[Diagnostic]) -> int:
    """Record `diagnostics` in `path` (sorted, so diffs of the file stay readable);
    returns how many were recorded."""
    folder = path.absolute().parent
    counts = Counter(_key(d, folder) for d in diagnostics)
    findings = [
        {"path": p, "code": c, "model": m, "message": msg, "count": n}
        for (p, c, m, msg), n in sorted(counts.items())
    ]
    document = {
        "version": FORMAT_VERSION,
        "tool": {"name": "pbtxt-lint", "version": __version__},
        "findings": findings,
    }
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return sum(counts.values())
