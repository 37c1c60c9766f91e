"""The engine: jobs -> contexts -> rules -> suppressions -> each job's outcome.

`pbtxt_lint.linter` (the Python API) discovers the jobs (one model of one repository
each) and takes what it can from the result cache; this module lints the rest and
returns an `Outcome` per job. Models are checked one by one and independently (a rule
may read other models of the repository, never earlier results), so a large
repository is split over worker processes: forked, so they start with everything
imported and the repository already listed; each lints every n-th job and sends back
its outcomes. The output is the same whatever the split.
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from pbtxt_lint.analysis.context import ModelContext, Scope, Workspace
from pbtxt_lint.analysis.loading import Loading, ModelError
from pbtxt_lint.analysis.reads import ReadLog
from pbtxt_lint.config import known_rules
from pbtxt_lint.diagnostics import Diagnostic, Severity, Span
from pbtxt_lint.repository.layout import Job
from pbtxt_lint.results import InternalError, Outcome
from pbtxt_lint.rules.base import Finding, PlannedRule, Rule, Stage
from pbtxt_lint.rules.meta import unused_suppression
from pbtxt_lint.settings import Settings
from pbtxt_lint.storage import is_remote

if TYPE_CHECKING:
    from pbtxt_lint.suppressions import Suppressions


PARALLEL_MIN_MODELS = 40
"""Below this many models, forking workers costs more than it saves (lint() on 2 cores:
one process and two take the same time at 25 models; at 50, two take 45 ms, one 62)."""


def lint_jobs(
    jobs: Sequence[Job],
    settings: Settings,
    rules: Sequence[PlannedRule],
    processes: int | None = None,
    *,
    record_reads: bool = False,
) -> dict[Job, Outcome]:
    """Lint each job by itself; `rules` are the rules known to the run (the active ones
    are those the settings select). `processes`: see `_workers`. `record_reads`: each
    outcome says what its checks read beyond the model's folder (`analysis.reads`), for
    the result cache."""
    plan = _Plan(jobs, settings, [r for r in rules if settings.wants(r.code)], rules, record_reads)
    workers = _workers(len(jobs), processes)
    if any(is_remote(job.repository.root) for job in jobs):
        # A cloud repository is read up front, many models at a time, by threads of
        # this process (a forked worker would inherit the client's I/O thread dead);
        # the checks that follow only compute.
        from pbtxt_lint.analysis.prefetch import prefetch  # deferred: only for URLs

        workers = 1
        prefetch([plan.context(job) for job in jobs])
    # Parsing allocates many small objects and frees few: collecting cycles after every
    # 700 allocations (the default) costs a tenth of the run for nothing.
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 20_000), *threshold[1:])
    try:
        if workers > 1:
            return _lint_in_workers(plan, list(jobs), workers)
        return {job: plan.lint(job) for job in jobs}
    finally:
        gc.set_threshold(*threshold)


@dataclass(frozen=True)
class _Runnable:
    rules: list[Rule]
    codes: frozenset[str]


class _Plan:
    """The workspaces of the jobs' repositories, and the rules each kind of model runs."""

    def __init__(
        self,
        jobs: Sequence[Job],
        settings: Settings,
        active: list[PlannedRule],
        all_rules: Sequence[PlannedRule],
        record_reads: bool,
    ) -> None:
        self.settings = settings
        loading = Loading(self.errors)
        self.workspaces = {
            repository: Workspace(
                repository, settings, loading, ReadLog(repository) if record_reads else None
            )
            for repository in dict.fromkeys(job.repository for job in jobs)
        }
        self.codes = {r.code: r.name for r in all_rules}
        self.by_name = {name: code for code, name in self.codes.items()}
        self.active = active
        self._runnable: dict[tuple[bool, bool, frozenset[Scope]], _Runnable] = {}

    def runnable(self, context: ModelContext) -> _Runnable:
        """The active rules for a model like this one (stray folder?, config parsed?,
        scopes), in their declared order; computed once per kind of model."""
        stray, parsed, scopes = context.model.is_stray, context.config is not None, context.scopes
        key = (stray, parsed, scopes)
        if key not in self._runnable:
            rules = [
                r.load()
                for r in self.active
                if r.stray == stray and (parsed or not r.needs_config) and r.scope in scopes
            ]
            self._runnable[key] = _Runnable(rules, frozenset(r.code for r in rules))
        return self._runnable[key]

    @staticmethod
    def errors(context: ModelContext) -> Iterator[ModelError]:
        """The first error each error rule finds on a model, in rule order and whatever
        the selection (an ensemble fails with its composing model whether or not its
        rule is selected): what `analysis.loading` asks."""
        for planned in known_rules():
            if planned.severity is not Severity.ERROR or planned.stray != context.model.is_stray:
                continue
            if planned.needs_config and context.config is None:
                continue
            candidate = planned.load()
            try:
                findings = list(candidate.check(context))
            except Exception:  # a crashing rule is reported on that model itself
                continue
            first = next(
                (f for f in findings if (f.severity or Severity.ERROR) is Severity.ERROR), None
            )
            if first is not None:
                at_poll = candidate.stage in (Stage.PARSE, Stage.POLL)
                yield ModelError(candidate.code, candidate.name, first.message, at_poll)

    def context(self, job: Job) -> ModelContext:
        return self.workspaces[job.repository].context(job.repository.models[job.model])

    def lint(self, job: Job) -> Outcome:
        workspace = self.workspaces[job.repository]
        log = workspace.reads
        with log.job(job.model) if log is not None else nullcontext():
            outcome = self._lint(self.context(job))
        if log is not None:
            outcome.reads, outcome.scans = log.taken()
        return outcome

    def _lint(self, context: ModelContext) -> Outcome:
        internal_errors: list[InternalError] = []
        runnable = self.runnable(context)
        found: list[Diagnostic] = []
        for rule in runnable.rules:
            try:  # a bug in a rule must not hide the others
                findings = list(rule.check(context))
            except Exception as error:
                internal_errors.append(InternalError(rule.code, context.model.name, repr(error)))
                continue
            if findings:
                found.extend(_to_diagnostic(rule, context, f) for f in findings)
        kept, suppressed = _finish(context, found, runnable.codes, self)
        trailer = _unreported(context)
        if trailer is not None:
            kept.append(trailer)
        files = 1 if context.config_file is not None else 0
        return Outcome(kept, files, internal_errors, suppressed, sources=_sources(context, kept))


def _sources(context: ModelContext, diagnostics: list[Diagnostic]) -> dict[Path, str]:
    """The config's text, if a diagnostic points into it (for the reports' code frames):
    what the checks read, so no report reads the file again."""
    config_file, parsed = context.config_file, context.parsed
    if config_file is None or parsed is None or parsed.not_text is not None:
        return {}  # a file that is not text: the report shows what is on disk
    path = config_file.path
    if any(d.path == path and d.span is not None for d in diagnostics):
        return {path: parsed.text}
    return {}


def _workers(models: int, jobs: int | None) -> int:
    """How many processes to use: forking is Linux-only here, and pays for big runs."""
    if jobs is not None:
        wanted = jobs
    elif models < PARALLEL_MIN_MODELS:
        return 1
    else:
        wanted = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if not sys.platform.startswith("linux"):
        return 1
    return max(1, min(wanted, models))


def _lint_in_workers(plan: _Plan, jobs: list[Job], workers: int) -> dict[Job, Outcome]:
    """Lint `jobs` in this process and `workers - 1` forked ones.

    Job i goes to process i % workers: neighbouring models tend to cost alike, so the
    shares balance without a queue. A fork plus a pipe per worker costs a few
    milliseconds, a process pool (its imports and manager thread) ten times that, which
    is most of what a 1,000-model run gains from a second core. A worker that fails or
    dies (killed for memory, say) sends no complete reply; its models are then linted
    here, so the run still ends with every model (and a bug surfaces as in one process).
    """
    shares = [jobs[start::workers] for start in range(workers)]
    children: list[tuple[int, int, list[Job]]] = []
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()  # the workers' collector then leaves the inherited objects (and pages) alone
    try:
        here = [shares[0]]
        for share in shares[1:]:
            try:
                read_end, write_end = os.pipe()
            except OSError:  # out of file descriptors: this process takes the share
                here.append(share)
                continue
            try:
                pid = os.fork()
            except OSError:  # out of processes or memory
                os.close(read_end)
                os.close(write_end)
                here.append(share)
                continue
            if pid == 0:
                os.close(read_end)
                _worker(plan, share, write_end)
            os.close(write_end)
            children.append((pid, read_end, share))
        outcomes: dict[Job, Outcome] = {}
        for job in (job for share in here for job in share):
            outcomes[job] = plan.lint(job)
        while children:
            pid, read_end, share = children.pop(0)
            reply = _collect(pid, read_end, len(share))
            for position, job in enumerate(share):
                outcomes[job] = reply[position] if reply else plan.lint(job)
    finally:
        for pid, read_end, _ in children:  # only after an error or an interrupt here
            os.close(read_end)
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        gc.unfreeze()
    return outcomes


def _worker(plan: _Plan, share: list[Job], write_end: int) -> NoReturn:
    """In a forked worker: lint `share`, send the outcomes (in share order: the parent
    knows which job each is), exit without cleanup (the parent's buffers and exit
    handlers are the parent's)."""
    status = 1
    try:
        payload = pickle.dumps([plan.lint(job) for job in share], pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(payload)
        status = 0
    finally:
        os._exit(status)


def _collect(pid: int, read_end: int, expected: int) -> list[Outcome] | None:
    """A worker's outcomes, or None if it failed or died before sending them all."""
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while chunk := pipe.read(1 << 20):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    try:
        reply = pickle.loads(b"".join(chunks))  # our own worker's bytes, never user data
    except (pickle.UnpicklingError, EOFError, ValueError):
        return None
    return reply if isinstance(reply, list) and len(reply) == expected else None


def _finish(
    context: ModelContext,
    found: list[Diagnostic],
    ran: frozenset[str],
    plan: _Plan,
) -> tuple[list[Diagnostic], int]:
    """Per-path ignores, inline suppressions (and their PL015), severity overrides;
    returns the diagnostics kept and how many suppressions silenced."""
    settings = context.settings
    kept = [d for d in found if not settings.ignored_at(d.code, d.path)]
    suppressed = 0
    suppressions = _suppressions(context, plan)
    if suppressions is not None:
        folder = context.model.path
        remaining = [d for d in kept if not suppressions.silences(d, folder)]
        suppressed = len(kept) - len(remaining)
        kept = remaining
        path = suppressions.path
        if settings.wants(unused_suppression.code) and not settings.ignored_at(
            unused_suppression.code, path
        ):

            def could_report(code: str) -> bool:
                return code in ran and not settings.ignored_at(code, path)

            for problem in suppressions.unused(could_report):
                finding = Finding(problem.message, hint=problem.hint, fix=problem.fix)
                diagnostic = replace(
                    _to_diagnostic(unused_suppression, context, finding),
                    path=path,
                    span=problem.span,
                )
                if not suppressions.silences(diagnostic, folder):
                    kept.append(diagnostic)
    kept = [replace(d, severity=settings.severity_for(d.code, d.severity)) for d in kept]
    return kept, suppressed


def _unreported(context: ModelContext) -> Diagnostic | None:
    """The note that closes the list of a file Triton refuses when its problems were
    capped (`textproto.parse.MAX_REPORTED`): how many more there are. It sorts last in
    its file, after every finding shown."""
    parsed, config_file, settings = context.parsed, context.config_file, context.settings
    if parsed is None or config_file is None or not parsed.unreported:
        return None
    code = "PL001"  # syntax-error: the file is not valid protobuf text format
    if not settings.wants(code) or settings.ignored_at(code, config_file.path):
        return None
    from pbtxt_lint.textproto.parse import MAX_REPORTED

    count = parsed.unreported
    more = f"{count:,} more problem{'s' if count != 1 else ''}"
    return Diagnostic(
        code=code,
        severity=settings.severity_for(code, Severity.ERROR),
        message=f"{more} in this file not shown: pbtxt-lint reports the first "
        f"{MAX_REPORTED} of a file Triton cannot read (Triton itself stops at the first)",
        path=config_file.path,
        model=context.model.name,
        hint="fix the first ones and check again; a file this broken may not be a model "
        "configuration at all",
        stage="parse",
        trailer=True,
    )


def _suppressions(context: ModelContext, plan: _Plan) -> Suppressions | None:
    """The directives of the model's config file, if it has text."""
    config_file = context.config_file
    parsed = context.parsed
    if config_file is None or parsed is None:
        return None
    if not any("pbtxt-lint" in comment.text for comment in parsed.document.comments):
        return None  # no directive can be there: skip reading the file for them
    codes, by_name = plan.codes, plan.by_name

    def resolve(word: str) -> str | None:
        return word.upper() if word.upper() in codes else by_name.get(word)

    from pbtxt_lint.suppressions import parse  # only files that mention pbtxt-lint

    return parse(config_file.path, parsed.text, parsed.document, resolve)


def _to_diagnostic(rule: Rule, context: ModelContext, finding: Finding) -> Diagnostic:
    path, span = _locate(context, finding)
    return Diagnostic(
        code=rule.code,
        severity=finding.severity or rule.severity,
        message=finding.message,
        path=path,
        span=span,
        model=context.model.name,
        hint=finding.hint,
        fix=finding.fix,
        stage=(finding.stage or rule.stage).value,
    )


def _locate(context: ModelContext, finding: Finding) -> tuple[Path, Span | None]:
    if finding.file is not None:
        return finding.file, finding.span
    config_file = context.config_file
    if config_file is None:
        return context.model.path, None
    if finding.span is not None:
        return config_file.path, finding.span
    parsed = config_file.parsed
    if parsed is None:
        return config_file.path, None
    if finding.at is not None:
        span = parsed.source_map.span(finding.at)
        if span is not None:
            return config_file.path, span
    first = parsed.document.fields[0].name_span if parsed.document.fields else None
    return config_file.path, first or Span.point(1, 1)
