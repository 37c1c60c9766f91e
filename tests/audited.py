"""An audited pbtxt-lint child: every file it opens, every folder it lists, anything
it writes, spawns or executes, and its peak memory (tests/test_hostile*.py).

The child installs ``sys.addaudithook`` before pbtxt-lint is imported and logs each
watched event as a line of JSON; `assert_well_behaved` then checks the promises every
hostile case must keep. We run as root in CI, where ``chmod 000`` does not stop reads:
the child is then started through ``setpriv`` without the capabilities that bypass
file permissions (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pbtxt_lint

BOOTSTRAP = """
import sys
if sys.path and sys.path[0] in ("", "."):  # -P before Python 3.11: nothing from the cwd
    del sys.path[0]
import atexit, json, os, resource
log = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
WATCHED = {
    "open", "os.listdir", "os.scandir", "os.mkdir", "os.remove", "os.rmdir", "os.rename",
    "os.symlink", "os.link", "os.chmod", "os.chown", "os.truncate", "os.utime",
    "shutil.rmtree", "shutil.copyfile", "shutil.move", "subprocess.Popen", "os.system",
    "os.exec", "os.posix_spawn", "os.fork", "os.forkpty", "os.startfile", "exec",
    "compile", "socket.connect", "urllib.Request", "ctypes.dlopen",
}
def record(*item):
    os.write(log, (json.dumps(item, default=repr) + "\\n").encode())
# Peak RSS of this process image: VmHWM, opened before the hook is installed
# (ru_maxrss would start at the peak of the pytest worker that spawned us).
status = os.open("/proc/self/status", os.O_RDONLY)
def peak_kib():
    text = os.pread(status, 65536, 0).decode()
    return int(next(l for l in text.splitlines() if l.startswith("VmHWM")).split()[1])
def hook(event, args):
    if event not in WATCHED:
        return
    path = args[0] if args else None
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    elif isinstance(path, os.PathLike):
        path = os.fspath(path)
    if event == "compile":
        path = args[1]  # (source, filename)
        if not isinstance(path, str) or path.startswith("<"):
            return  # source held in memory (dataclasses, namedtuple): no file
    if event == "exec":
        path = getattr(path, "co_filename", repr(path))
    mode = args[1] if event == "open" and len(args) > 1 else None
    flags = args[2] if event == "open" and len(args) > 2 else 0
    record(event, path if isinstance(path, (str, int)) else repr(path), mode, flags,
           os.getcwd())
sys.addaudithook(hook)
atexit.register(lambda: record("rss", peak_kib()))
from pbtxt_lint.cli import main
sys.argv = ["pbtxt-lint", *sys.argv[2:]]
main()
"""
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
WRITE_EVENTS = {
    "os.mkdir", "os.remove", "os.rmdir", "os.rename", "os.symlink", "os.link", "os.chmod",
    "os.chown", "os.truncate", "os.utime", "shutil.rmtree", "shutil.copyfile", "shutil.move",
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.forkpty",
    "os.startfile", "socket.connect", "urllib.Request",
}  # fmt: skip
CONFIG_FILES = {"pyproject.toml", ".pbtxt-lint.toml"}
INSTALLED = {
    Path(p).resolve()
    for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, Path(pbtxt_lint.__file__).parent)
}
PYTHON_MODEL = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"
IO = (
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)
PYTHON_CONFIG = 'backend: "python"\n' + IO


@dataclass
class Run:
    """What one pbtxt-lint child did."""

    returncode: int
    stdout: str
    stderr: str
    events: list[tuple[str, object, object, int, str]]
    rss_mb: float

    @property
    def diagnostics(self) -> list[dict[str, object]]:
        diagnostics: list[dict[str, object]] = json.loads(self.stdout)["diagnostics"]
        return diagnostics

    def codes(self, model: str | None = None) -> set[str]:
        return {str(d["code"]) for d in self.diagnostics if model is None or d["model"] == model}

    def messages(self, code: str) -> str:
        return " | ".join(str(d["message"]) for d in self.diagnostics if d["code"] == code)


def _without_dac_override() -> list[str]:
    """As root, drop the capabilities that ignore file permissions (see the docstring)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return []
    caps = "-dac_override,-dac_read_search"
    return [setpriv, "--bounding-set", caps, "--inh-caps", caps]


PERMISSIONS_ENFORCED = os.geteuid() != 0 or shutil.which("setpriv") is not None


def run_audited(cwd: Path, *argv: str, timeout: float = 60, stdin: bytes | None = None) -> Run:
    """``pbtxt-lint <argv>`` in an audited child started in `cwd`. A run that outlives
    `timeout` seconds fails the test (subprocess.TimeoutExpired): a hang is a failure."""
    log = cwd.parent / f"{cwd.name}.audit.jsonl"
    log.write_bytes(b"")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
    safe_path = ["-P"] if sys.version_info >= (3, 11) else []  # BOOTSTRAP does it before
    command = [sys.executable, *safe_path, "-c", BOOTSTRAP, str(log), *argv]
    done = subprocess.run(
        [*_without_dac_override(), *command],
        cwd=cwd, env=env, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True, timeout=timeout, check=False,
    )  # fmt: skip
    events = [json.loads(line) for line in log.read_text().splitlines()]
    rss = [event[1] for event in events if event[0] == "rss"]
    return Run(
        done.returncode,
        done.stdout.decode("utf-8", "backslashreplace"),
        done.stderr.decode("utf-8", "backslashreplace"),
        [tuple(event) for event in events if event[0] != "rss"],
        rss[0] / 1024 if rss else 0.0,
    )


def run_lint(repository: Path, *args: str, timeout: float = 60) -> Run:
    """``pbtxt-lint check <repository> --format json <args>`` in an audited child."""
    return run_audited(
        repository, "check", str(repository), "--format", "json", *args, timeout=timeout
    )


def _allowed(path: Path, repository: Path) -> bool:
    if path == repository or repository in path.parents:
        return True
    if any(root == path or root in path.parents for root in INSTALLED):
        return True
    return path.name in CONFIG_FILES and path.parent in repository.parents


def assert_well_behaved(
    run: Run,
    repository: Path,
    max_mb: float = 250,
    *,
    exits: tuple[int, ...] = (0, 1),
    writes: tuple[Path, ...] = (),
    json_out: bool = True,
) -> None:
    """The properties every case must have: it ends with one of `exits` without a
    traceback or internal error, with JSON on stdout (`json_out`), within `max_mb` of
    memory, and touches nothing outside the repository but the files in `writes` (a
    report asked for with -o)."""
    assert run.returncode in exits, f"exit {run.returncode}: {run.stderr[-3000:]}"
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    if json_out:
        assert isinstance(run.diagnostics, list)
    repository = repository.resolve()
    allowed_writes = {os.path.realpath(path) for path in writes}
    outside = []
    written = []
    for event, path, mode, flags, cwd in run.events:
        if event in WRITE_EVENTS:
            written.append((event, path))
            continue
        if isinstance(path, str) and os.path.realpath(os.path.join(cwd, path)) in allowed_writes:
            continue
        if event == "open" and isinstance(path, int):
            continue  # a descriptor: the pipe a forked worker of a large run reports through
        if event == "open" and (
            (isinstance(mode, str) and set(mode) & set("wax+")) or int(flags) & WRITE_FLAGS
        ):
            written.append((event, path))
        if not isinstance(path, str) or event in ("exec", "compile", "ctypes.dlopen"):
            continue
        real = Path(os.path.realpath(os.path.join(cwd, path)))
        if not _allowed(real, repository):
            outside.append((event, path, str(real)))
    assert not written, f"pbtxt-lint wrote or ran something: {written}"
    assert not outside, f"pbtxt-lint looked outside the repository: {outside}"
    assert run.rss_mb < max_mb, f"{run.rss_mb:.0f} MB"


def model(root: Path, name: str = "m", config: str | bytes | None = PYTHON_CONFIG) -> Path:
    """A model folder with a version 1 holding model.py, and ``config`` if given."""
    folder = root / name
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.py").write_text(PYTHON_MODEL)
    if isinstance(config, str):
        (folder / "config.pbtxt").write_text(config)
    elif config is not None:
        (folder / "config.pbtxt").write_bytes(config)
    return folder
