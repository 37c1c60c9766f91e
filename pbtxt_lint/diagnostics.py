"""The one result type every stage produces, so every reporter formats one thing.

Parse errors, rule violations and artifact problems are all `Diagnostic`s with a code.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from pbtxt_lint.echo import bound_message


class Severity(enum.Enum):
    """How sure we are that Triton will fail.

    ERROR: Triton refuses to load the model or fails its requests.
    WARNING: Triton accepts it, but it is almost certainly a mistake or host-dependent.
    INFO: worth knowing.
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Higher is more severe; used for sorting and thresholds."""
        return {"error": 2, "warning": 1, "info": 0}[self.value]


@dataclass(frozen=True, order=True)
class Span:
    """A range in a text file, 1-based; `end_column` is exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    @staticmethod
    def point(line: int, column: int, length: int = 1) -> Span:
        return Span(line, column, line, column + max(length, 1))


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 0-based offsets of a file with `text`."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Fix:
    """A textual fix carried as data; the engine decides whether to apply it.

    `safe` fixes keep the meaning the user obviously intended (a misspelt enum);
    unsafe ones change behaviour and need an explicit opt-in.
    """

    description: str
    edits: tuple[Edit, ...]
    safe: bool = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "description", bound_message(self.description))


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place."""

    code: str
    severity: Severity
    message: str
    path: Path
    span: Span | None = None
    model: str | None = None
    hint: str | None = None
    fix: Fix | None = field(default=None, compare=False)
    stage: str | None = field(default=None, compare=False)  # Triton's stage (rules.base.Stage)
    trailer: bool = field(default=False, compare=False)  # closes its file's list (the cap)

    def __post_init__(self) -> None:
        # Messages quote user text (names, values, tokens): bound it once, here, for
        # every output format and every producer.
        object.__setattr__(self, "message", bound_message(self.message))
        if self.hint is not None:
            object.__setattr__(self, "hint", bound_message(self.hint))

    def sort_key(self) -> tuple[str, bool, int, int, str]:
        line = self.span.line if self.span else 0
        column = self.span.column if self.span else 0
        return (str(self.path), self.trailer, line, column, self.code)
