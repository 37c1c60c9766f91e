"""What a model's checks read beyond its own folder, recorded while they run.

The result cache (`pbtxt_lint.cache`) reports a model from an earlier run only when
nothing its findings were computed from has changed. Its own folder is easy to key;
the rest is what the checks reach while they run, and a list of it kept by hand would
be out of date with the next rule. So a run that keeps results records, for each model
it lints:

- every other model it looks up by name (a composing model, a BLS callee, a missing
  name: one that appears later changes the verdict too);
- every other model whose shared views it reuses (an ensemble's graph, whether a
  model loads), since whoever computed them read on that model's behalf;
- every entry of the repository that a path it checks reaches (an environment archive
  at `$$TRITON_MODEL_DIRECTORY/../shared/env.tar.gz`, a model file linked from another
  model's folder): such paths pass `repository.fs.is_inside` before they are read;
- whether it looked over every model of the repository (the ensembles that use it, the
  names of all models): then it depends on all of them.

Looking over the repository records no names (each model's configuration is read only
to find the ensembles among them), so a Python model that asks which ensembles use it
does not become related to every other model by name.
"""

from __future__ import annotations

import os
from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from contextlib import contextmanager
from pathlib import Path

from pbtxt_lint.repository import fs
from pbtxt_lint.repository.layout import ModelFolder, Repository


class ReadLog:
    """The reads of the job being linted in one repository (one log per repository)."""

    def __init__(self, repository: Repository) -> None:
        self.root = repository.root
        self._prefix = str(self.root) + os.sep
        self.repository = Repository(
            self.root, _WatchedModels(repository.models, self), repository.error
        )
        """The repository as the checks see it: its models mapping records what they ask."""
        self._model: str | None = None
        self._names: set[str] = set()
        self._scans = False

    @contextmanager
    def job(self, model: str) -> Iterator[None]:
        """Record what the checks of `model` read until the block ends."""
        self._model, self._names, self._scans = model, set(), False
        try:
            with fs.watch(self._path):
                yield
        finally:
            self._model = None

    def taken(self) -> tuple[frozenset[str], bool]:
        """(the other entries read, whether the checks looked over every model) of the
        last job."""
        return frozenset(self._names), self._scans

    def name(self, name: str) -> None:
        """The checks looked up (or reused the views of) the entry `name` (a name that
        cannot be an entry of the repository, `../x` say, can never appear: not kept)."""
        if self._model is not None and name != self._model and is_entry_name(name):
            self._names.add(name)

    def scan(self) -> None:
        """The checks looked over every model of the repository."""
        if self._model is not None:
            self._scans = True

    def _path(self, root: Path, given: Path, resolved: Path) -> None:
        """A path inside the repository: the entries it names and reaches, when they are
        not the same one (a path within one model folder is part of that folder)."""
        if root != self.root:
            return
        named, reached = self._entry(given), self._entry(resolved)
        if named != reached:
            for entry in (named, reached):
                if entry is not None:
                    self.name(entry)

    def _entry(self, path: Path) -> str | None:
        """The top-level entry of the repository that `path` lies in (None: the root
        itself, or a path not written from the root)."""
        text = str(path)
        if not text.startswith(self._prefix):
            return None
        return text[len(self._prefix) :].split(os.sep, 1)[0] or None


def is_entry_name(name: str) -> bool:
    """Whether `name` can name an entry of a folder (not a path, not `.` or `..`)."""
    return name not in ("", ".", "..") and not any(c in name for c in ("/", os.sep, "\0"))


class _WatchedModels(Mapping[str, ModelFolder]):
    """A repository's models, telling the log what the checks ask of them."""

    def __init__(self, models: Mapping[str, ModelFolder], log: ReadLog) -> None:
        self._models = models
        self._log = log

    def __getitem__(self, name: str) -> ModelFolder:
        self._log.name(name)
        return self._models[name]

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str):
            self._log.name(name)
        return name in self._models

    def __iter__(self) -> Iterator[str]:
        self._log.scan()
        return iter(self._models)

    def __len__(self) -> int:
        self._log.scan()
        return len(self._models)

    def keys(self) -> KeysView[str]:
        self._log.scan()
        return self._models.keys()

    def values(self) -> ValuesView[ModelFolder]:
        self._log.scan()
        return self._models.values()

    def items(self) -> ItemsView[str, ModelFolder]:
        self._log.scan()
        return self._models.items()
