"""What a run produces: each job's outcome, and the result they add up to.

A job (`repository.layout.Job`: one model of one repository) gets an `Outcome` from the
engine, or from the result cache when nothing it was computed from has changed; the
run adds the outcomes up, in job order, into one `LintResult`, which every report and
the public API (`pbtxt_lint.check`) hand on. The result also carries the text the
checks read (`Sources`), so a report quotes the lines a diagnostic points at without
reading the file a second time (for a repository in a bucket, a second download).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.repository.layout import PathProblem


@dataclass(frozen=True)
class InternalError:
    """A rule crashed: a bug in pbtxt-lint, reported apart from the user's problems."""

    rule: str
    model: str
    error: str


@dataclass
class Outcome:
    """What one job contributes to a run: the unit the engine returns and the cache keeps."""

    diagnostics: list[Diagnostic]
    files: int
    internal_errors: list[InternalError]
    suppressed: int
    reads: frozenset[str] = frozenset()
    """The other entries of the repository (models, or files and folders beside them)
    that its checks read, by name or through a path its config gives."""
    scans: bool = False
    """Its checks looked over every model of the repository (the ensembles that use it,
    the names of all models)."""
    sources: dict[Path, str] = field(default_factory=dict)
    """The text its diagnostics point into, as the checks read it."""


class Sources:
    """The lines of the files a run's diagnostics point into, for code frames.

    The engine keeps the text of each config it parsed; a file it did not keep (a model
    reported from the result cache, a model file a rule read) is read once, on first use.
    """

    def __init__(self) -> None:
        self._texts: dict[Path, str] = {}
        self._lines: dict[Path, list[str] | None] = {}

    def keep(self, texts: dict[Path, str]) -> None:
        """Remember the text the checks read of these files (the first text wins)."""
        for path, text in texts.items():
            self._texts.setdefault(path, text)

    def merge(self, other: Sources) -> None:
        self.keep(other._texts)

    def lines(self, path: Path) -> list[str] | None:
        """The file's lines (without their ends), or None if it cannot be read."""
        if path not in self._lines:
            text = self._texts.get(path)
            if text is None:
                text = _read(path)
            self._lines[path] = text.lstrip("\ufeff").splitlines() if text is not None else None
        return self._lines[path]


def _read(path: Path) -> str | None:
    try:
        data = path.read_bytes() if path.is_file() else None
    except OSError:
        data = None
    return data.decode("utf-8", errors="replace") if data is not None else None


@dataclass
class LintResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    models: int = 0
    files: int = 0
    path_problems: list[PathProblem] = field(default_factory=list)
    internal_errors: list[InternalError] = field(default_factory=list)
    suppressed: int = 0  # silenced by `# pbtxt-lint: disable` comments
    baselined: int = 0  # left out because the baseline records them
    cached: int = 0  # models reported from the result cache
    remote: list[dict[str, Any]] = field(default_factory=list)
    """For cloud repositories: the requests and bytes each one cost (storage.report)."""
    sources: Sources = field(default_factory=Sources, compare=False, repr=False)
    """The text the diagnostics point into, for reports that quote it."""

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

    def add(self, outcome: Outcome) -> None:
        """Count one job's outcome in."""
        self.models += 1
        self.files += outcome.files
        self.diagnostics.extend(outcome.diagnostics)
        self.internal_errors.extend(outcome.internal_errors)
        self.suppressed += outcome.suppressed
        self.sources.keep(outcome.sources)

    def merge(self, other: LintResult) -> None:
        """Add another run's results (paths checked under other settings)."""
        self.diagnostics.extend(other.diagnostics)
        self.diagnostics.sort(key=Diagnostic.sort_key)
        self.models += other.models
        self.files += other.files
        self.path_problems.extend(other.path_problems)
        self.internal_errors.extend(other.internal_errors)
        self.suppressed += other.suppressed
        self.baselined += other.baselined
        self.cached += other.cached
        self.remote.extend(other.remote)
        self.sources.merge(other.sources)
