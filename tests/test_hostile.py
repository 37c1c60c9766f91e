"""Hostile repositories: pbtxt-lint answers with diagnostics, and touches nothing else.

Each case builds a repository with something a careless or malicious repository can
hold (symlink loops, links out of the repository, unreadable files and folders, a FIFO,
a zip bomb, an XML entity bomb, ONNX external data pointing at /etc/passwd, a model.py
with side effects, configs that are folders, garbage, empty or hold a NUL byte) and
runs ``pbtxt-lint check --format json`` on it in a child process that records, through
``sys.addaudithook``, every file it opens, every folder it lists and anything it writes,
spawns or executes. For every case:

* the run ends within its time limit with exit code 0 or 1 (never 2: no internal
  error), no traceback, JSON on stdout, and bounded memory;
* every path opened or listed is inside the repository or Python's (and pbtxt-lint's)
  own installation, or is a configuration file pbtxt-lint looks for in the folders
  above the repository (``pyproject.toml``, ``.pbtxt-lint.toml``);
* nothing is written, created, removed, spawned or executed;
* the expected diagnostic is there (or none, where Triton accepts the repository).

We run as root in CI, where ``chmod 000`` does not stop reads. The child is then started
through ``setpriv`` without the capabilities that bypass file permissions
(CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so unreadable files really are unreadable.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from onnx_builders import set_external_location, write_external_data
from oracle import fetch_error, find_tritonserver

import pbtxt_lint

BOOTSTRAP = """
import atexit, json, os, resource, sys
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
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.fork", "os.forkpty",
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


def run_lint(repository: Path, *args: str, timeout: float = 60) -> Run:
    """``pbtxt-lint check <repository> --format json <args>`` in an audited child."""
    log = repository.parent / f"{repository.name}.audit.jsonl"
    log.write_bytes(b"")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "NO_COLOR": "1"}
    command = [sys.executable, "-P", "-c", BOOTSTRAP, str(log), "check", str(repository)]
    done = subprocess.run(
        [*_without_dac_override(), *command, "--format", "json", *args],
        cwd=repository, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip
    events = [json.loads(line) for line in log.read_text().splitlines()]
    rss = [event[1] for event in events if event[0] == "rss"]
    return Run(
        done.returncode,
        done.stdout,
        done.stderr,
        [tuple(event) for event in events if event[0] != "rss"],
        rss[0] / 1024 if rss else 0.0,
    )


def _allowed(path: Path, repository: Path) -> bool:
    if path == repository or repository in path.parents:
        return True
    if any(root == path or root in path.parents for root in INSTALLED):
        return True
    return path.name in CONFIG_FILES and path.parent in repository.parents


def assert_well_behaved(run: Run, repository: Path, max_mb: float = 250) -> None:
    """The properties every case must have (see the module docstring)."""
    assert run.returncode in (0, 1), f"exit {run.returncode}: {run.stderr[-3000:]}"
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert isinstance(run.diagnostics, list)
    repository = repository.resolve()
    outside = []
    written = []
    for event, path, mode, flags, cwd in run.events:
        if event in WRITE_EVENTS:
            written.append((event, path))
            continue
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


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty repository, with a folder beside it (``outside``) holding a valid model."""
    root = tmp_path / "repo"
    root.mkdir()
    model(tmp_path / "outside", "secret")
    return root


# --------------------------------------------------------------------------- symlinks


def test_model_folder_linking_to_itself(repo: Path) -> None:
    model(repo)
    (repo / "loop").symlink_to("loop")
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    assert run.codes("loop") == {"PL115"}
    assert run.codes("m") <= {"PL219"}  # the good model is still checked


def test_links_to_the_parent_folder(repo: Path) -> None:
    folder = model(repo)
    (repo / "up").symlink_to(".")  # a "model" that is the repository itself
    (folder / "1" / "back").symlink_to("..")  # a version folder linking to its model
    (folder / "2").symlink_to("2")  # and a self-looping version folder
    run = run_lint(repo, "--disable-auto-complete-config", timeout=60)
    assert_well_behaved(run, repo)
    assert "PL102" in run.codes("up")  # Triton also loads it as a model, without a config


def test_links_out_of_the_repository_are_not_followed(repo: Path) -> None:
    outside = repo.parent / "outside"
    (repo / "ext").symlink_to(outside / "secret")
    folder = model(repo, config=None)
    (folder / "config.pbtxt").symlink_to(outside / "secret" / "config.pbtxt")
    onnx_model = model(repo, "onnx", 'platform: "onnxruntime_onnx"\n' + IO)
    (onnx_model / "1" / "model.onnx").symlink_to(outside / "secret" / "1" / "model.py")
    (repo / "abs").symlink_to("/etc")
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    assert "PL115" in run.codes("ext") and "PL115" in run.codes("abs")
    assert run.codes("m") == {"PL013"}
    assert "outside the repository" in run.messages("PL013")
    assert any("outside the repository" in str(d["message"]) for d in run.diagnostics
               if d["model"] == "onnx")  # fmt: skip


# --------------------------------------------------------------------------- permissions


def test_unreadable_config(repo: Path) -> None:
    folder = model(repo)
    (folder / "config.pbtxt").chmod(0)
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    if PERMISSIONS_ENFORCED:  # as root without setpriv the file stays readable
        assert run.codes("m") == {"PL013"}
        assert "Permission denied" in run.messages("PL013")


def test_unreadable_model_folder(repo: Path) -> None:
    model(repo, "locked").chmod(0)
    model(repo)
    try:
        run = run_lint(repo, "--disable-auto-complete-config")
    finally:
        (repo / "locked").chmod(0o755)
    assert_well_behaved(run, repo)
    if PERMISSIONS_ENFORCED:
        assert run.codes("locked") == {"PL115"}
    assert run.codes("m") <= {"PL219"}


def test_unreadable_version_folder(repo: Path) -> None:
    folder = model(repo, config='platform: "onnxruntime_onnx"\n' + IO)
    (folder / "1" / "model.onnx").write_bytes(b"")
    (folder / "1").chmod(0)
    try:
        run = run_lint(repo, "--disable-auto-complete-config")
    finally:
        (folder / "1").chmod(0o755)
    assert_well_behaved(run, repo)
    # Unreadable here need not mean unreadable for the server's user: a warning.
    assert "PL601" in run.codes("m")


# --------------------------------------------------------------------------- special files


def test_fifo_config_does_not_hang(repo: Path) -> None:
    folder = model(repo, config=None)
    os.mkfifo(folder / "config.pbtxt")
    run = run_lint(repo, "--disable-auto-complete-config", timeout=30)
    assert_well_behaved(run, repo)
    assert run.codes("m") == {"PL013"}


def test_fifo_model_file_is_not_opened(repo: Path) -> None:
    folder = model(repo, config='platform: "onnxruntime_onnx"\n' + IO)
    os.mkfifo(folder / "1" / "model.onnx")
    run = run_lint(repo, "--disable-auto-complete-config", timeout=30)
    assert_well_behaved(run, repo)
    assert "PL601" in run.codes("m")


def test_config_that_is_a_folder(repo: Path) -> None:
    folder = model(repo, config=None)
    (folder / "config.pbtxt").mkdir()
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    assert "PL013" in run.codes("m") and "folder" in run.messages("PL013")
    assert run.codes("m") <= {"PL013", "PL108"}  # Triton ignores it as a version folder


# --------------------------------------------------------------------------- bombs


def test_zip_bomb_as_torchscript_model(repo: Path) -> None:
    folder = model(repo, config='platform: "pytorch_libtorch"\n' + IO)
    with (
        zipfile.ZipFile(folder / "1" / "model.pt", "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("archive/data/0", "w", force_zip64=True) as entry,
    ):
        chunk = bytes(1 << 20)
        for _ in range(512):  # 512 MiB of zeros, about 0.5 MiB compressed
            entry.write(chunk)
    assert (folder / "1" / "model.pt").stat().st_size < 2 << 20
    run = run_lint(repo, "--disable-auto-complete-config", timeout=60)
    assert_well_behaved(run, repo, max_mb=250)


def test_xml_entity_bomb_as_openvino_model(repo: Path) -> None:
    folder = model(repo, config='backend: "openvino"\n' + IO)
    entities = ['<!ENTITY e0 "lol">'] + [
        f'<!ENTITY e{i} "{f"&e{i - 1};" * 10}">' for i in range(1, 10)
    ]
    (folder / "1" / "model.xml").write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE net [\n' + "\n".join(entities) + "\n]>\n"
        '<net name="&e9;"><layers/></net>\n'
    )
    (folder / "1" / "model.bin").write_bytes(b"")
    run = run_lint(repo, "--disable-auto-complete-config", timeout=60)
    assert_well_behaved(run, repo, max_mb=250)


def test_onnx_external_data_pointing_at_etc_passwd(repo: Path) -> None:
    folder = model(
        repo,
        config='platform: "onnxruntime_onnx"\n'
        'input [ { name: "X" data_type: TYPE_FP32 dims: [ -1, 8 ] } ]\n'
        'output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1, 8 ] } ]\n',
    )
    path = write_external_data(folder / "1" / "model.onnx")
    set_external_location(path, "../../etc/passwd")
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)  # /etc/passwd is never opened
    assert "PL604" in run.codes("m")
    assert "etc/passwd" in run.messages("PL604")


def test_model_py_is_never_executed(repo: Path) -> None:
    marker = repo.parent / "imported"
    folder = model(repo, config='backend: "python"\n')  # auto-complete would run model.py
    (folder / "1" / "model.py").write_text(
        f"open({str(marker)!r}, 'w').write('model.py ran')\n"
        "import os\nos.system('touch /tmp/pbtxt-lint-model-py-ran')\n" + PYTHON_MODEL
    )
    for args in ((), ("--disable-auto-complete-config",)):
        run = run_lint(repo, *args)
        assert_well_behaved(run, repo)  # no exec, compile, spawn or write recorded either
        assert not marker.exists()
        model_py = str(folder / "1" / "model.py")
        assert not [e for e in run.events if e[0] in ("exec", "compile") and e[1] == model_py]


# --------------------------------------------------------------------------- config bytes


HOSTILE_CONFIGS: dict[str, bytes] = {
    "binary garbage": bytes(range(256)) * 8,
    "empty": b"",
    "NUL byte": PYTHON_CONFIG.encode() + b"\x00\n",
    "NUL in a string": PYTHON_CONFIG.encode() + b'parameters { key: "a\x00" value { } }\n',
    "UTF-16": PYTHON_CONFIG.encode("utf-16"),
    "invalid UTF-8": PYTHON_CONFIG.encode() + b"# \xff\xfe\n",
}
TRITON_REJECTS = {"binary garbage", "NUL byte", "NUL in a string", "UTF-16"}
"""What tritonserver 2.51 does with each (checked by test_hostile_configs_are_tritons)."""


@pytest.mark.parametrize("case", HOSTILE_CONFIGS)
def test_hostile_config_bytes(repo: Path, case: str) -> None:
    model(repo, config=HOSTILE_CONFIGS[case])
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    errors = {str(d["code"]) for d in run.diagnostics if d["severity"] == "error"}
    assert bool(errors) == (case in TRITON_REJECTS), run.diagnostics
    assert run.returncode == (1 if errors else 0)


def test_hostile_configs_are_tritons(tmp_path: Path) -> None:
    server = find_tritonserver()
    if server is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"tritonserver could not be fetched: {fetch_error()}")
        pytest.skip(f"tritonserver could not be fetched: {fetch_error()}")
    names = {case: f"m{index}" for index, case in enumerate(HOSTILE_CONFIGS)}
    for case, name in names.items():
        model(tmp_path, name, HOSTILE_CONFIGS[case])
    verdicts = server.validate(tmp_path)
    rejected = {case for case, name in names.items() if verdicts[name].status == "rejected"}
    assert rejected == TRITON_REJECTS, verdicts


def test_the_harness_sees_reads_outside_the_repository(tmp_path: Path) -> None:
    """The audit trail is real: a read outside the repository is caught."""
    run = Run(0, '{"diagnostics": []}', "", [("open", "/etc/hostname", "r", 0, "/")], 1.0)
    with pytest.raises(AssertionError, match="outside the repository"):
        assert_well_behaved(run, tmp_path)
    written = Run(0, '{"diagnostics": []}', "", [("open", str(tmp_path / "x"), "w", 0, "/")], 1)
    with pytest.raises(AssertionError, match="wrote"):
        assert_well_behaved(written, tmp_path)


def test_sanity_the_child_is_really_audited(repo: Path) -> None:
    model(repo)
    run = run_lint(repo, "--disable-auto-complete-config")
    opened = {Path(str(e[1])).name for e in run.events if e[0] == "open"}
    assert "config.pbtxt" in opened and run.rss_mb > 0
    assert stat.S_ISDIR(os.stat(repo).st_mode)
