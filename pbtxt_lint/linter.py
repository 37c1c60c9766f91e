"""The Python API: `check(paths, options)`, which every front end calls.

`check` turns the options into the settings of each group of paths (configuration files,
`pbtxt_lint.config`), discovers the jobs (one model of one repository each), takes what
it can from the result cache (`pbtxt_lint.cache`) and lints the rest with the engine
(`pbtxt_lint.engine`, not even imported when nothing changed); the result is the same
either way. The command line builds the options from its flags and formats the result;
the language server and the tests call it the same way. `lint` checks paths under
settings already made (one group), for tests and scripts.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pbtxt_lint.config import Options, resolve_settings
from pbtxt_lint.diagnostics import Diagnostic
from pbtxt_lint.repository.layout import Overlay, PathProblem, Target, discover
from pbtxt_lint.results import InternalError, LintResult, Outcome
from pbtxt_lint.settings import Settings
from pbtxt_lint.storage import is_remote

if TYPE_CHECKING:
    from pbtxt_lint.cache import CacheFolder
    from pbtxt_lint.repository.layout import Job
    from pbtxt_lint.rules.base import PlannedRule

__all__ = ["CheckOptions", "InternalError", "LintResult", "check", "lint"]


@dataclass(frozen=True)
class CheckOptions(Options):
    """Everything `pbtxt-lint check` takes besides its paths: the options that settings
    are made of (`config.Options`, merged over the configuration file found for each
    path), and how to run."""

    config_file: Path | None = None
    """The configuration file for every path (`--config`), instead of looking for one."""
    cache: bool = False
    """Keep results between runs and reuse them (`pbtxt-lint check` does by default)."""
    cache_dir: Path | None = None
    """Where (None: the user's cache folder). A folder inside a checked repository, or an
    existing one that is not a pbtxt-lint cache, is refused with a `CacheError`."""
    fixes: bool = False
    """The caller applies or shows the fixes: each is computed afresh, never taken from
    the result cache."""
    processes: int | None = None
    """Worker processes (None: one per available CPU core when the run is large enough
    to gain from it; 1: in this process)."""
    overlay: Overlay | None = None
    """Config text by absolute path, checked instead of those files' bytes (an editor's
    unsaved buffers); no result cache is used with it."""

    @classmethod
    def extending(cls, options: Options, **run: Any) -> CheckOptions:
        """`options` (what settings are made of) with how to run (the fields above)."""
        return cls(**{f.name: getattr(options, f.name) for f in fields(Options)}, **run)


def check(paths: Sequence[Path], options: CheckOptions | None = None) -> LintResult:
    """Check the repositories, model folders or config files at `paths` (none: the
    working folder), on disk or in a bucket.

    Raises `config.ConfigError` for a mistake in a configuration file or an option, and
    `cache.CacheError` for a cache folder pbtxt-lint must not use; nothing is linted then.
    """
    options = options or CheckOptions()
    groups = resolve_settings(list(paths) or [Path(".")], options, options.config_file)
    found = [
        (group.settings, *discover(group.paths, group.settings.model_config_name, options.overlay))
        for group in groups
    ]
    roots = [target.repository.root for _, targets, _ in found for target in targets]
    folder = _cache_folder(options, roots)
    result = LintResult()
    try:
        for settings, targets, problems in found:
            result.merge(
                _lint(targets, problems, settings, None, options.processes, folder, options.fixes)
            )
    finally:
        if folder is not None:
            folder.close()
    return result


def _cache_folder(options: CheckOptions, roots: Iterable[Path]) -> CacheFolder | None:
    """The cache folder of a run, checked before anything is linted: an explicit one
    that must not be used raises; the user's cache folder, if it cannot be used for
    these repositories, means no cache."""
    local = [root for root in roots if not is_remote(root)]
    if not options.cache or options.overlay is not None or not local:
        return None
    # Deferred for start-up time, here and below: only a run that keeps results needs it.
    from pbtxt_lint.cache import CacheError, CacheFolder, default_directory

    directory = options.cache_dir or default_directory()
    if directory is None:
        return None
    try:
        return CacheFolder.open(directory, local)
    except CacheError:
        if options.cache_dir is not None:
            raise
        return None


def lint(
    paths: Iterable[Path],
    settings: Settings,
    rules: Sequence[PlannedRule] | None = None,
    *,
    jobs: int | None = None,
    overlay: Overlay | None = None,
    cache_dir: Path | None = None,
) -> LintResult:
    """Check `paths` under `settings` (no configuration file is looked for).

    `rules`: the rules known to the run (None: all). `jobs`: worker processes (see
    `CheckOptions.processes`). `overlay`: see `CheckOptions.overlay`. `cache_dir`: keep
    results there between runs (None: no cache; unused with an overlay or a rule list);
    raises `cache.CacheError` for a folder pbtxt-lint must not use.
    """
    targets, problems = discover(paths, settings.model_config_name, overlay)
    local = [t.repository.root for t in targets if not is_remote(t.repository.root)]
    folder = None
    if cache_dir is not None and overlay is None and rules is None and local:
        from pbtxt_lint.cache import CacheFolder

        folder = CacheFolder.open(cache_dir, local)
    try:
        return _lint(targets, problems, settings, rules, jobs, folder)
    finally:
        if folder is not None:
            folder.close()


def _lint(
    targets: list[Target],
    problems: list[PathProblem],
    settings: Settings,
    rules: Sequence[PlannedRule] | None,
    processes: int | None,
    folder: CacheFolder | None,
    fixes: bool = False,
) -> LintResult:
    """One group of paths: its jobs from the cache or the engine, added up in order."""
    result = LintResult(path_problems=list(problems))
    jobs = [job for target in targets for job in target.jobs]
    remote = [t.repository.root for t in targets if is_remote(t.repository.root)]
    # No result cache for a repository in a bucket: see README, "Cloud repositories".
    cache = None
    if folder is not None and rules is None and not remote:
        from pbtxt_lint.cache import ResultCache

        cache = ResultCache(folder, targets, settings)
    outcomes: dict[Job, Outcome] = cache.lookup(jobs, fixes) if cache is not None else {}
    result.cached = len(outcomes)
    todo = [job for job in jobs if job not in outcomes]
    if todo:
        from pbtxt_lint.config import known_rules  # deferred: a fully cached run needs no rule
        from pbtxt_lint.engine import lint_jobs

        linted = lint_jobs(
            todo, settings, rules or known_rules(), processes, record_reads=cache is not None
        )
        outcomes.update(linted)
        if cache is not None:
            cache.store(linted)
    if cache is not None:
        cache.save()
    for job in jobs:
        result.add(outcomes[job])
    result.diagnostics.sort(key=Diagnostic.sort_key)
    if remote:
        from pbtxt_lint.storage.report import lost_connections, summarize  # deferred: URLs

        result.remote = summarize(remote)
        result.path_problems.extend(PathProblem(p, m) for p, m in lost_connections(remote))
    return result
