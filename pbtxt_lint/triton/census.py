"""Each backend's census: every error its source can return, and what reports it.

A census is a data file per backend, `census/<backend>.toml`, keyed by the backend's
name in `triton.backends.BACKENDS`. It is written by reading the backend's own source
at a named release: every error it returns while loading a model (auto-complete,
model and instance creation, I/O validation) and while executing requests, with where
(file, function), the message it prints, the stage, what in a repository triggers it,
and the rules that report it, or why no static check can (it needs a GPU, it depends
on the request's data...). The docs (docs/backends.md) and the README's coverage
table are generated from these files; tests/test_census.py keeps every row pointing
at a rule that exists and every backend rule at its row. Nothing here runs during a
check.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

CENSUS_DIR = Path(__file__).resolve().parent / "census"

STAGES: dict[str, str] = {
    "load": "the model fails to load (auto-complete, model or instance creation)",
    "first-request": "the first request fails",
    "some-requests": "requests fail depending on what they carry",
    "silent": "nothing is printed: a setting is ignored or an answer is wrong",
}
"""When the backend reports the problem, as the census records it."""


@dataclass(frozen=True)
class CensusRow:
    """One error (or silent behaviour) of a backend."""

    id: str
    where: str
    """Source file and function: `src/model.py: TritonPythonModel.auto_complete_config`."""
    message: str
    """What the backend prints, verbatim (format placeholders kept as in the source)."""
    stage: str
    trigger: str
    """What in a repository (config, model files) makes it happen."""
    decidable: bool
    """Whether the repository alone decides it (no GPU, no request data needed)."""
    rules: tuple[str, ...] = ()
    reason: str = ""
    """Why no static check reports it (required when not decidable)."""

    @property
    def covered(self) -> bool:
        return bool(self.rules)


@dataclass(frozen=True)
class Census:
    backend: str
    repository: str
    """The backend's source repository (`triton-inference-server/vllm_backend`)."""
    release: str
    """The tag or branch the rows were read at (`r24.10`)."""
    read: tuple[str, ...]
    """The source files walked."""
    rows: tuple[CensusRow, ...]
    notes: str = ""

    @property
    def decidable(self) -> tuple[CensusRow, ...]:
        return tuple(row for row in self.rows if row.decidable)

    @property
    def covered(self) -> tuple[CensusRow, ...]:
        return tuple(row for row in self.decidable if row.covered)


class CensusError(ValueError):
    """A census file that does not follow the format above."""


def census_names() -> tuple[str, ...]:
    """The backends that have a census, sorted."""
    return tuple(sorted(path.stem for path in CENSUS_DIR.glob("*.toml")))


def load(backend: str) -> Census:
    """The census of `backend`; CensusError names the problem when the file is malformed."""
    if sys.version_info >= (3, 11):
        import tomllib  # deferred: only docs and tests read censuses
    else:  # pragma: no cover
        import tomli as tomllib

    path = CENSUS_DIR / f"{backend}.toml"
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
        rows = tuple(_row(entry) for entry in document.get("row", ()))
        census = Census(
            backend=_text(document, "backend"),
            repository=_text(document, "repository"),
            release=_text(document, "release"),
            read=tuple(document.get("read", ())),
            rows=rows,
            notes=str(document.get("notes", "")),
        )
    except (OSError, KeyError, TypeError, ValueError) as error:
        raise CensusError(f"{path.name}: {error}") from error
    if census.backend != backend:
        raise CensusError(f"{path.name}: backend = {census.backend!r}, expected {backend!r}")
    return census


def _row(entry: dict[str, object]) -> CensusRow:
    rules = entry.get("rules", [])
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ValueError(f"row {entry.get('id')!r}: rules must be a list of codes")
    decidable = entry.get("decidable")
    if not isinstance(decidable, bool):
        raise ValueError(f"row {entry.get('id')!r}: decidable must be true or false")
    row = CensusRow(
        id=_text(entry, "id"),
        where=_text(entry, "where"),
        message=_text(entry, "message"),
        stage=_text(entry, "stage"),
        trigger=_text(entry, "trigger"),
        decidable=decidable,
        rules=tuple(rules),
        reason=str(entry.get("reason", "")),
    )
    if row.stage not in STAGES:
        raise ValueError(f"row {row.id!r}: stage {row.stage!r} is not one of {sorted(STAGES)}")
    if not row.decidable and not row.reason:
        raise ValueError(f"row {row.id!r}: a row the repository cannot decide needs a reason")
    return row


def _text(table: dict[str, object], key: str) -> str:
    value = table[key]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must be a non-empty string")
    return value
