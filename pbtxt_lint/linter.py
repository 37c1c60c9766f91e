"""The Python API: discover -> the result cache -> the engine for the rest -> one result.

A pure function of paths and settings; the CLI only formats what comes out. With a
cache folder, each model whose key (its files, the settings, pbtxt-lint's code, and
for an ensemble the models it reads) is unchanged since a stored run is reported from
the cache (`pbtxt_lint.cache`); only the others go through the engine
(`pbtxt_lint.engine`), which is not even imported when nothing changed. The result
is the same either way.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbtxt_lint.cache import Outcome, ResultCache, code_identity, folder_key, settings_key
from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.repository.layout import Overlay, PathProblem, Repository, Target, discover
from pbtxt_lint.settings import Settings
from pbtxt_lint.storage import is_remote

if TYPE_CHECKING:
    from pbtxt_lint.rules.base import PlannedRule


@dataclass
class InternalError:
    """A rule crashed: a bug in pbtxt-lint, reported apart from the user's problems."""

    rule: str
    model: str
    error: str


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

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

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


def lint(
    paths: Iterable[Path],
    settings: Settings,
    rules: Sequence[PlannedRule] | None = None,
    *,
    jobs: int | None = None,
    overlay: Overlay | None = None,
    cache_dir: Path | None = None,
) -> LintResult:
    """Check the repositories, models or config files at `paths`.

    `jobs`: worker processes (None: one per available CPU core when the run is large
    enough to gain from it; 1: in this process). `overlay`: config text by absolute
    path, checked instead of those files' bytes (an editor's unsaved buffers).
    `cache_dir`: where results of earlier runs are kept (None: no cache); unused with
    an overlay or an explicit rule list.
    """
    targets, path_problems = discover(paths, settings.model_config_name, overlay)
    result = LintResult(path_problems=path_problems)
    work = [(target, name) for target in targets for name in target.selected]
    caches: list[_Keys] = []
    outcomes: dict[int, Outcome] = {}
    remote = [t.repository.root for t in targets if is_remote(t.repository.root)]
    # No result cache for a repository in a bucket: see README, "Cloud repositories".
    if cache_dir is not None and overlay is None and rules is None and not remote:
        setting, code = settings_key(settings), code_identity()
        keys = {
            id(t.repository): _Keys(ResultCache(cache_dir, t.repository.root, setting, code), t)
            for t in targets
        }
        caches = list(keys.values())
        for index, (target, name) in enumerate(work):
            cached = keys[id(target.repository)].lookup(name)
            if cached is not None:
                outcomes[index] = cached
        result.cached = len(outcomes)
    todo = [index for index in range(len(work)) if index not in outcomes]
    if todo:
        from pbtxt_lint.engine import lint_models
        from pbtxt_lint.settings_files import (
            known_rules,  # deferred: a fully cached run needs no rule
        )

        linted = lint_models(targets, settings, rules or known_rules(), todo, jobs)
        outcomes.update(linted)
        if caches:
            for index, outcome in linted.items():  # first what each linted model reads
                target, name = work[index]
                keys[id(target.repository)].remember(name, outcome.steps)
            for index, outcome in linted.items():
                target, name = work[index]
                keys[id(target.repository)].store(name, outcome)
    for keyed in caches:
        keyed.save()
    for index in range(len(work)):
        outcome = outcomes[index]
        result.models += 1
        result.files += outcome.files
        result.diagnostics.extend(outcome.diagnostics)
        result.internal_errors.extend(InternalError(*e) for e in outcome.internal_errors)
        result.suppressed += outcome.suppressed
    result.diagnostics.sort(key=Diagnostic.sort_key)
    if remote:
        from pbtxt_lint.storage.report import lost_connections, summarize  # deferred: URLs

        result.remote = summarize(remote)
        result.path_problems.extend(PathProblem(p, m) for p, m in lost_connections(remote))
    return result


class _Keys:
    """The cache keys of one repository's models, computed once per run.

    A model's own key covers its folder; an ensemble's adds the own keys of every
    model it reads (its steps, theirs...) and the names of all models, which its
    checks read (missing models, did-you-mean). To know which models an ensemble
    reads without parsing, the stored entry of each one says whether it is an
    ensemble and what its steps name; a stored entry that no longer matches its model
    makes every ensemble reading it a miss.
    """

    def __init__(self, cache: ResultCache, target: Target) -> None:
        self.cache = cache
        self.repository: Repository = target.repository
        self._root = str(target.repository.root)
        # Config files named on the command line (a JSON config may sit anywhere).
        self._explicit = "".join(
            f"{path}:{folder_key(str(path.parent), self._root)};"
            for path in sorted(target.explicit_files)
        )
        self._own: dict[str, str | None] = {}
        self._steps_now: dict[str, tuple[str, ...]] = {}

    def own(self, name: str) -> str | None:
        if name not in self._own:
            if name not in self.repository.models:
                self._own[name] = "absent"
            else:
                key = folder_key(os.path.join(self._root, name), self._root)
                self._own[name] = key and self._explicit + key
        return self._own[name]

    def _stored_steps(self, name: str) -> tuple[str, ...] | None:
        """The steps its valid stored entry records (empty for a model that is not an
        ensemble); None when there is no valid entry."""
        if name in self._steps_now:
            return self._steps_now[name]
        entry = self.cache.entry(name)
        own = self.own(name)
        if own is None or entry is None or entry.get("own") != own:
            return None
        steps = entry.get("outcome", {}).get("steps", [])
        return tuple(str(s) for s in steps) if isinstance(steps, list) else None

    def _key(self, name: str, steps: tuple[str, ...] | None) -> str | None:
        own = self.own(name)
        if own is None or steps is None:
            return None
        if not steps:
            return own
        digest = hashlib.blake2b(own.encode(), digest_size=16)
        digest.update("\0".join(sorted(self.repository.models)).encode())
        seen = {name}
        pending = list(steps)
        while pending:
            step = pending.pop()
            if step in seen:
                continue
            seen.add(step)
            inner = self._stored_steps(step) if step in self.repository.models else ()
            step_own = self.own(step) if step in self.repository.models else "absent"
            if inner is None or step_own is None:
                return None
            digest.update(f"{step}:{step_own};".encode())
            pending.extend(inner)
        return digest.hexdigest()

    def lookup(self, name: str) -> Outcome | None:
        key = self._key(name, self._stored_steps(name))
        return self.cache.outcome(name, key) if key is not None else None

    def remember(self, name: str, steps: tuple[str, ...]) -> None:
        """The steps of a model linted in this run (before any of them is stored)."""
        self._steps_now[name] = steps

    def store(self, name: str, outcome: Outcome) -> None:
        key = self._key(name, outcome.steps)
        own = self.own(name)
        if key is not None and own is not None:
            self.cache.store(name, key, own, outcome)

    def save(self) -> None:
        self.cache.forget_missing(self.repository.models)
        self.cache.save()
