"""Lints run in a separate process, so nothing the engine does can delay the editor.

The server process answers the editor (hover, completion, typing); every job that reads
the repository (a lint, the inputs and outputs of a composing model) goes to one warm
worker process over a pipe. A run made stale by newer typing is cancelled by killing
the worker, which costs a fork: workers come from a fork server that has the engine
imported already (where the platform has one; elsewhere they are spawned). Nothing in
the worker imports pygls, and like the CLI it never runs model code.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from pbtxt_lint.lsp.core import (
    CheckOptions,
    ConfigError,
    Diagnostic,
    Options,
    Settings,
    Workspace,
    check,
    describe_model,
    load_repository,
    resolve_settings,
)
from pbtxt_lint.lsp.cursor import io_names


@dataclass(frozen=True)
class LintJob:
    """Lint the model of `path`, reading `overlay` (open buffers) instead of files."""

    path: Path
    overlay: dict[Path, str]
    options: Options


@dataclass
class LintOutcome:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    settings: Settings | None = None
    settings_file: Path | None = None
    error: str | None = None  # a configuration mistake or an internal error, for the user


@dataclass(frozen=True)
class TensorsJob:
    """The inputs and outputs of model `model` of the repository at `root`, as an
    ensemble step sees them (completed from the model file where Triton would)."""

    root: Path
    model: str
    overlay: dict[Path, str]
    settings: Settings


@dataclass
class TensorsOutcome:
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)


Job = LintJob | TensorsJob
Outcome = LintOutcome | TensorsOutcome


def run_job(job: Job) -> Outcome:
    """Do one job; never raises (an engine bug becomes a message, not a dead server)."""
    if isinstance(job, TensorsJob):
        try:
            return _tensors(job)
        except Exception:
            return TensorsOutcome()
    try:
        groups = resolve_settings([job.path], job.options)
    except ConfigError as error:
        return LintOutcome(error=str(error))
    group = groups[0]
    try:
        options = CheckOptions.extending(
            job.options, config_file=group.config_file, processes=1, overlay=job.overlay
        )
        result = check([job.path], options)
    except Exception as error:  # a bug in pbtxt-lint: say so instead of going quiet
        return LintOutcome(settings=group.settings, error=f"internal error: {error!r}")
    message = None
    if result.internal_errors:
        first = result.internal_errors[0]
        message = f"internal error in rule {first.rule}: {first.error} (please report this bug)"
    return LintOutcome(result.diagnostics, group.settings, group.config_file, message)


def _tensors(job: TensorsJob) -> TensorsOutcome:
    repository = load_repository(job.root, job.settings.model_config_name, job.overlay)
    model = describe_model(Workspace(repository, job.settings), job.model)
    config = model.config
    if config is not None:
        return TensorsOutcome([i.name for i in config.input], [o.name for o in config.output])
    # It does not load as it is: what its config says is still the best guess.
    folder = repository.model(job.model)
    config_file = folder.config() if folder is not None else None
    if config_file is None or config_file.parsed is None:
        return TensorsOutcome()
    inputs, outputs = io_names(config_file.parsed.document)
    return TensorsOutcome(inputs, outputs)


def serve(connection: Connection) -> None:
    """The worker's loop: a job in, its outcome out, until the pipe closes."""
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        try:
            connection.send(run_job(job))
        except (BrokenPipeError, OSError):
            return


_PRELOAD = (
    "pbtxt_lint.lsp.worker",
    "pbtxt_lint.rules.registry",
    "pbtxt_lint.analysis.artifacts",
    "pbtxt_lint.suppressions",
)
"""Imported once by the fork server: every worker it forks starts with them loaded."""


def _warm_up() -> None:
    """Import what a first lint would import lazily, so a fresh worker is fast."""
    import pbtxt_lint.analysis.artifacts
    import pbtxt_lint.suppressions  # noqa: F401
    from pbtxt_lint.lsp.core import known_rules

    known_rules()


class LintProcess:
    """The server's handle on the worker: one job at a time, cancellable by killing.

    Falls back to a thread in the server process where no worker process can be
    started (then a stale run is waited for rather than cancelled).
    """

    def __init__(self) -> None:
        methods = multiprocessing.get_all_start_methods()
        self._context: Any = multiprocessing.get_context(
            "forkserver" if "forkserver" in methods else "spawn"
        )
        if "forkserver" in methods:
            self._context.set_forkserver_preload(list(_PRELOAD))
        self._process: Any = None
        self._connection: Connection | None = None
        self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbtxt-lint-recv")
        self._lock = asyncio.Lock()
        self._in_process = False
        self.restarts = 0
        self.running: str | None = None  # the key of the job being done

    def start(self) -> None:
        """Start the worker now (at initialisation), so the first lint is warm."""
        if self._process is not None or self._in_process:
            return
        try:
            parent, child = self._context.Pipe()
            process = self._context.Process(target=_child_main, args=(child,), daemon=True)
            process.start()
            child.close()
        except (OSError, ValueError, RuntimeError):
            self._in_process = True
            return
        self._process, self._connection = process, parent

    async def run(self, job: Job, key: str = "") -> Outcome | None:
        """The job's outcome, or None when it was cancelled (or the worker died)."""
        async with self._lock:
            self.running = key
            try:
                return await self._run(job)
            finally:
                self.running = None

    async def _run(self, job: Job) -> Outcome | None:
        loop = asyncio.get_running_loop()
        self.start()
        connection = self._connection
        if self._in_process or connection is None:
            return await loop.run_in_executor(self._reader, run_job, job)
        try:
            connection.send(job)
        except (OSError, ValueError):
            self.cancel()
            return None
        try:
            outcome: Outcome = await loop.run_in_executor(self._reader, connection.recv)
        except (EOFError, OSError, ValueError):
            self.cancel()  # killed for a newer run, or died: the next job restarts it
            return None
        return outcome

    def cancel(self) -> None:
        """Kill the worker (its run is stale); the next job starts a fresh one."""
        process, connection = self._process, self._connection
        self._process = self._connection = None
        if process is None:
            return
        self.restarts += 1
        with contextlib.suppress(OSError, ValueError, AttributeError):
            process.kill()
        # Reap it off the event loop; closing the pipe wakes a pending recv.
        threading.Thread(target=_reap, args=(process, connection), daemon=True).start()

    @property
    def busy(self) -> bool:
        return self._lock.locked()

    def close(self) -> None:
        self.cancel()
        self._reader.shutdown(wait=False, cancel_futures=True)


def _reap(process: Any, connection: Connection | None) -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):
        process.join(5)
    if connection is not None:
        with contextlib.suppress(OSError):
            connection.close()


def _child_main(connection: Connection) -> None:
    """Entry point of a worker process."""
    os.environ.setdefault("PBTXT_LINT_WORKER", "1")
    _warm_up()
    serve(connection)
