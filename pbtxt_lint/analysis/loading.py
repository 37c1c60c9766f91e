"""Does a model load? The question an ensemble asks of each model its steps name.

Triton loads an ensemble only after every composing model has loaded, so a composing
model it refuses takes the ensemble down with it (PL516). Whether a model loads is what
pbtxt-lint's error rules say about it, whatever rules the run selected. The engine,
which knows the rules, supplies the `ErrorChecks`: the errors the rules find on a
model, in rule order. This service asks them once per model and answers with the first
error, preferring one Triton reports while it reads the repository (parse or poll) to
one it reports when the backend loads the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbtxt_lint.analysis.context import ModelContext


@dataclass(frozen=True)
class ModelError:
    """The first error the linter reports on a model, as another model's check sees it
    (an ensemble whose composing model fails)."""

    code: str
    name: str
    message: str
    at_poll: bool
    """Triton reports it while reading the repository (parse or poll), not at load."""


ErrorChecks = Callable[["ModelContext"], Iterator[ModelError]]
"""The errors the rules find on a model, in rule order (lazily: the first poll-stage
error ends the search)."""


class Loading:
    """Whether each model of a workspace loads, asked once per model.

    Without `checks` (a workspace made outside a run: a command about one model) every
    model is taken to load.
    """

    def __init__(self, checks: ErrorChecks | None = None) -> None:
        self._checks = checks
        self._errors: dict[str, ModelError | None] = {}
        self._checking: set[str] = set()

    def first_error(self, context: ModelContext) -> ModelError | None:
        """The first error on `context`'s model (poll-stage errors first), computed
        once; None while that model's own checks are running (ensembles that contain
        each other)."""
        name = context.model.name
        context.workspace.reached(context)
        if self._checks is None or name in self._checking:
            return None
        if name not in self._errors:
            with self.checking(context):
                self._errors[name] = self._first(context, self._checks)
        return self._errors[name]

    @staticmethod
    def _first(context: ModelContext, checks: ErrorChecks) -> ModelError | None:
        found: ModelError | None = None
        for error in checks(context):
            if error.at_poll:
                return error
            found = found or error
        return found

    @contextmanager
    def checking(self, context: ModelContext) -> Iterator[None]:
        """Mark `context`'s model as being checked while a check looks at others."""
        name = context.model.name
        added = name not in self._checking
        self._checking.add(name)
        try:
            yield
        finally:
            if added:
                self._checking.discard(name)
