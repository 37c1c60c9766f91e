"""Results of earlier runs, so a repeated run re-lints only the models that changed.

Pre-commit hooks, CI and editors lint the same repository again and again with one or
two configs changed. Each job's outcome (its diagnostics, already suppressed and
graded) is kept under a key of everything it was computed from, and a later run whose
key matches reports it without linting the model again. A warm run therefore reports
exactly what a cold run reports.

**Keys.** A run that keeps results records what each model's checks read beyond its
own folder (`analysis.reads`: models looked up by name or whose shared views were
reused, entries a path from its config reaches, a look over every model). The models
these records connect form a component; every outcome is kept under the key of its
component: the settings, pbtxt-lint's version and code, the bytes of the files named by
flags (`--python-packages`), and for each member (`folder_key`) its config's bytes and
the name, kind, size, times and inode of every entry of its folder, at any depth. A
component in which a check looked over the whole repository also covers every entry of
the repository. A member whose folder holds more than `MAX_ENTRIES` entries cannot be
keyed: its component is never cached.

**Where.** In the user's cache folder (`$XDG_CACHE_HOME/pbtxt-lint`, else
`~/.cache/pbtxt-lint`), one file per repository (by its absolute path) and settings,
as pre-commit and mypy's daemon keep theirs: never inside a checked repository, where
Triton would take the folder for a model; a git root is often the model repository
itself. A cache folder inside a checked repository is refused (`CacheError`), and so is
an existing folder that is not a pbtxt-lint cache.

**Safety.** The folder is created by pbtxt-lint (0700, marked with `CACHEDIR.TAG`) and
opened once without following links; every entry is opened relative to it without
following links and without blocking, and read only if it is a regular file of the
user's, of bounded size. Files are written under a fresh name and renamed (atomic); only
files named like a cache file are ever pruned. Every file is authenticated with a key
kept outside the cache folder (`$XDG_STATE_HOME/pbtxt-lint/cache-key`, 0600): an edited
or copied file is never believed, and its JSON is not even parsed. An outcome with a
fix is recomputed, never replayed, when the run applies or shows fixes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pbtxt_lint.cache.entries import RepositoryCache
from pbtxt_lint.cache.folder import CacheError, CacheFolder, default_directory
from pbtxt_lint.cache.keys import code_identity, settings_key
from pbtxt_lint.repository.layout import Job, Target
from pbtxt_lint.results import Outcome

__all__ = [
    "CacheError",
    "CacheFolder",
    "ResultCache",
    "default_directory",
]


class ResultCache:
    """The result cache of one run: the cache folder and each repository's file."""

    def __init__(self, folder: CacheFolder, targets: Sequence[Target], settings: object) -> None:
        setting, code = settings_key(settings), code_identity()
        self._repositories = {
            target.repository: RepositoryCache(folder, target, setting, code) for target in targets
        }

    def lookup(self, jobs: Iterable[Job], fixes: bool = False) -> dict[Job, Outcome]:
        """The kept outcomes of `jobs` that are still what a run would compute."""
        found = {}
        for job in jobs:
            outcome = self._repositories[job.repository].lookup(job.model, fixes)
            if outcome is not None:
                found[job] = outcome
        return found

    def store(self, outcomes: Mapping[Job, Outcome]) -> None:
        """Keep the outcomes of the jobs linted in this run."""
        for repository, cache in self._repositories.items():
            cache.store({j.model: o for j, o in outcomes.items() if j.repository is repository})

    def save(self) -> None:
        for cache in self._repositories.values():
            cache.save()
