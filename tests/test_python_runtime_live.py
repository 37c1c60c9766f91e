"""The PL68x verdicts checked against the real Python backend (tritonserver 2.51).

The nvidia-pytriton wheel's tritonserver runs the python backend here, with the stub
built for the Python running these tests (the wheel ships stubs for 3.8 to 3.13). Each
model gets that stub in its folder too, so pbtxt-lint reads the stub's Python from its
ELF and both sides agree on the version. Environments are built with tarfile: a venv
layout (pyvenv.cfg, bin/python3 linking this interpreter, lib/python3.X/site-packages)
with a stand-in numpy (enough for triton_python_backend_utils to import; no request is
sent) and a package `envonly`, plus lib/libpython3.X.so.1.0 linking the host's library.

For every model: Triton loads it exactly when pbtxt-lint reports no load-stage error,
and a rejection carries the log line the rule's documentation quotes. An archive that
fails to extract leaves its folder behind and makes every later archive of the same
server fail (observed; see PL680), so those run in a server of their own.

Skips where the server cannot be fetched or this Python has no shared libpython, and
never under CI=true (it fails instead).
"""

from __future__ import annotations

import ctypes.util
import gzip
import io
import lzma
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from oracle import (
    TritonServer,
    Verdict,
    _kill,
    _LogReader,
    _server_env,
    fail_or_skip,
    model_directories,
    parse_log,
    require_tritonserver,
)

from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.linter import lint
from pbtxt_lint.settings import Settings
from pbtxt_lint.targets import resolve

MINOR = sys.version_info[1]
VERSION = f"3.{MINOR}"
RELEASE = resolve("2.51").release
FAKE_NUMPY = """\
class _Any:
    def __getattr__(self, name):
        return _Any()

    def __call__(self, *args, **kwargs):
        return _Any()


def __getattr__(name):
    return _Any()
"""
ACTIVATE = 'export PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bin:$PATH"\n'
CONFIG = """backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]
"""
MODEL = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"


@pytest.fixture(scope="module")
def backend() -> Iterator[tuple[TritonServer, Path, Path, Path]]:
    """(server, backend folder, this Python's stub, host libpython)."""
    server = require_tritonserver()
    found = ctypes.util.find_library(f"python{VERSION}")
    library = _library_path(found) if found else None
    tree = server.binary.parent.parent
    stub = tree / "python_backend_stubs" / VERSION / "triton_python_backend_stub"
    if library is None or not stub.is_file():
        fail_or_skip(f"no shared libpython{VERSION} or no {VERSION} stub in the wheel")
    assert library is not None
    with tempfile.TemporaryDirectory(prefix="pbtxt-lint-pyrt-") as scratch:
        backends = Path(scratch) / "backends"
        shutil.copytree(tree / "backends" / "python", backends / "python")
        shutil.copy(stub, backends / "python" / "triton_python_backend_stub")
        (backends / "python" / "triton_python_backend_stub").chmod(0o755)
        yield server, backends, stub, library


def _library_path(name: str) -> Path | None:
    """The file behind `find_library`'s soname, from the loader's cache."""
    done = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines():
        if line.strip().startswith(name + " ") and "=>" in line:
            return Path(line.split("=>", 1)[1].strip())
    return None


def _tar(entries: list[tuple[str, str, bytes]]) -> bytes:
    """(name, kind "file"/"symlink", data or target) -> tar bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, kind, value in entries:
            info = tarfile.TarInfo(name)
            if kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, value.decode()
                tar.addfile(info)
            else:
                info.size, info.mode = len(value), 0o755
                tar.addfile(info, io.BytesIO(value))
    return buffer.getvalue()


def _environment(
    library: Path, *, activate: bool = True, numpy: bool = True, top: str = ""
) -> list[tuple[str, str, bytes]]:
    executable = Path(os.path.realpath(sys.executable))
    site = f"lib/python{VERSION}/site-packages"
    entries: list[tuple[str, str, bytes]] = [
        (
            "pyvenv.cfg",
            "file",
            f"home = {executable.parent}\ninclude-system-site-packages = false\n"
            f"version = {VERSION}.0\n".encode(),
        ),
        (f"bin/python{VERSION}", "symlink", str(executable).encode()),
        ("bin/python3", "symlink", f"python{VERSION}".encode()),
        (f"lib/libpython{VERSION}.so.1.0", "symlink", str(library).encode()),
        (f"{site}/envonly/__init__.py", "file", b"VALUE = 1\n"),
    ]
    if activate:
        entries.insert(0, ("bin/activate", "file", ACTIVATE.encode()))
    if numpy:
        entries.append((f"{site}/numpy/__init__.py", "file", FAKE_NUMPY.encode()))
    return [(top + name, kind, value) for name, kind, value in entries]


def _model(repo: Path, name: str, stub: Path, env: str | None, source: str) -> Path:
    folder = repo / name
    (folder / "1").mkdir(parents=True)
    config = CONFIG
    if env is not None:
        config += (
            'parameters { key: "EXECUTION_ENV_PATH" value: { string_value: '
            f'"$$TRITON_MODEL_DIRECTORY/{env}" }} }}\n'
        )
    (folder / "config.pbtxt").write_text(config)
    (folder / "1" / "model.py").write_text(source)
    shutil.copy(stub, folder / "triton_python_backend_stub")
    (folder / "triton_python_backend_stub").chmod(0o755)
    return folder


def _serve(
    server: TritonServer, repo: Path, backends: Path, timeout: float = 90
) -> tuple[dict[str, Verdict], list[str]]:
    """Verdicts and log of one tritonserver run with the python backend."""
    command = server.command(repo, backends, auto_complete=True)
    proc = subprocess.Popen(
        command, cwd=repo, env=_server_env(server.libs), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    reader = _LogReader(proc)
    try:
        reader.start()
        reader.done.wait(timeout)
    finally:
        _kill(proc)
        reader.join(timeout=10)
    lines = list(reader.lines)
    verdicts = parse_log(lines, model_directories(repo), completed=reader.table_seen)
    return verdicts, lines


def _our_load_errors(repo: Path) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for diagnostic in lint([repo], Settings(target=RELEASE)).diagnostics:
        if diagnostic.severity is Severity.ERROR and diagnostic.model:
            found.setdefault(diagnostic.model, set()).add(diagnostic.code)
    return found


BLS_AT_LOAD = """import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.warm_up()

    def warm_up(self):
        request = pb_utils.InferenceRequest(
            model_name="encoder", requested_output_names=["EMBEDDING"], inputs=[]
        )
        request.exec()

    def execute(self, requests):
        return []
"""
"""A warm-up BLS request sent from initialize (through a helper method): refused by
InferRequest::Exec before the stub counts the model as initialized."""

SHARED = {
    # model: (archive name, builder key, model.py, Triton's outcome, our error codes)
    "gz_ok": ("env.tar.gz", "gz", "import envonly\n" + MODEL, "READY", set()),
    "tar_ok": ("env.tar", "tar", "import envonly\n" + MODEL, "READY", set()),
    "folder_ok": ("env", "folder", "import envonly\n" + MODEL, "READY", set()),
    "beside_ok": (
        "env.tar.gz",
        "gz",
        "import helper\nfrom . import helper\n" + MODEL,
        "READY",
        set(),
    ),
    "import_missing": (
        "env.tar.gz",
        "gz",
        "import notinenv\n" + MODEL,
        "No module named 'notinenv'",
        {"PL686"},
    ),
    "import_in_initialize": (
        "env.tar.gz",
        "gz",
        "class TritonPythonModel:\n    def initialize(self, args):\n        import notinenv\n\n"
        "    def execute(self, requests):\n        return []\n",
        "No module named 'notinenv'",
        {"PL686"},
    ),
    "import_in_execute": (
        "env.tar.gz",
        "gz",
        "class TritonPythonModel:\n    def execute(self, requests):\n        import notinenv\n"
        "        return []\n",
        "READY",
        set(),
    ),
    "relative_beyond": (
        "env.tar.gz",
        "gz",
        "from .. import helper\n" + MODEL,
        "attempted relative import beyond top-level package",
        {"PL686"},
    ),
    "no_activate": (
        "env.tar.gz",
        "noactivate",
        MODEL,
        "The Python environment should contain an 'activate' script.",
        {"PL682"},
    ),
    "top_folder": (
        "env.tar.gz",
        "top",
        MODEL,
        "The Python environment should contain an 'activate' script.",
        {"PL682"},
    ),
    "no_numpy": ("env.tar.gz", "nonumpy", MODEL, "No module named 'numpy'", {"PL687"}),
    "bls_in_initialize": ("env.tar.gz", "gz", BLS_AT_LOAD, "BLS is only supported", {"PL656"}),
    "bls_in_initialize_caught": (
        "env.tar.gz",
        "gz",
        BLS_AT_LOAD.replace(
            "        self.warm_up()\n",
            "        try:\n            self.warm_up()\n"
            "        except Exception:\n            pass\n",
        ),
        "READY",
        set(),
    ),
}


def _write_env(folder: Path, archive: str, kind: str, library: Path) -> None:
    if kind == "folder":
        for name, entry, value in _environment(library):
            path = folder / archive / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if entry == "symlink":
                os.symlink(value.decode(), path)
            else:
                path.write_bytes(value)
        return
    layout = {
        "noactivate": _environment(library, activate=False),
        "top": _environment(library, top="myenv/"),
        "nonumpy": _environment(library, numpy=False),
    }.get(kind, _environment(library))
    data = _tar(layout)
    (folder / archive).write_bytes(data if kind == "tar" else gzip.compress(data, mtime=0))


def test_loads_exactly_what_pbtxt_lint_passes(
    backend: tuple[TritonServer, Path, Path, Path], tmp_path: Path
) -> None:
    server, backends, stub, library = backend
    repo = tmp_path / "repo"
    for name, (archive, kind, source, _, _) in SHARED.items():
        folder = _model(repo, name, stub, archive, source)
        _write_env(folder, archive, kind, library)
        (folder / "helper.py").write_text("X = 1\n")
        (folder / "1" / "helper.py").write_text("X = 1\n")
    verdicts, lines = _serve(server, repo, backends)
    ours = _our_load_errors(repo)
    problems = []
    for name, (_, _, _, outcome, codes) in SHARED.items():
        verdict = verdicts[name]
        got = "READY" if verdict.status == "ready" else verdict.message
        if (outcome == "READY") != (verdict.status == "ready") or outcome not in got:
            problems.append(f"{name}: Triton said {verdict.status} {verdict.message!r}")
        if ours.get(name, set()) != codes:
            problems.append(f"{name}: pbtxt-lint errors {ours.get(name)} but expected {codes}")
    assert not problems, "\n".join(problems + lines[-40:])


@pytest.mark.parametrize(
    ("archive", "data"),
    [
        ("env.tar.xz", lambda raw: lzma.compress(raw, format=lzma.FORMAT_XZ)),
        ("env.zip", None),
        ("env.tar.gz", lambda raw: gzip.compress(raw, mtime=0)[:300]),
    ],
    ids=["xz", "zip", "truncated"],
)
def test_archives_libarchive_does_not_extract(
    backend: tuple[TritonServer, Path, Path, Path], tmp_path: Path, archive: str, data: object
) -> None:
    server, backends, stub, library = backend
    repo = tmp_path / "repo"
    folder = _model(repo, "m", stub, archive, MODEL)
    raw = _tar(_environment(library))
    if data is None:
        import zipfile

        with zipfile.ZipFile(folder / archive, "w") as zipped:
            for name, kind, value in _environment(library):
                if kind == "file":
                    zipped.writestr(name, value)
    else:
        assert callable(data)
        (folder / archive).write_bytes(data(raw))
    verdicts, lines = _serve(server, repo, backends)
    assert verdicts["m"].status == "rejected", lines[-20:]
    assert "archive_read_open_filename() failed." in verdicts["m"].message
    assert _our_load_errors(repo) == {"m": {"PL680"}}


def test_a_stub_without_its_libpython_never_starts(
    backend: tuple[TritonServer, Path, Path, Path], tmp_path: Path
) -> None:
    """PL685: on 2.51 the load hangs; the stub's loader error is the only trace."""
    server, backends, stub, library = backend
    others = sorted(stub.parent.parent.glob("3.*/triton_python_backend_stub"))
    container = "3.10"  # the 24.10 container's Python, which pbtxt-lint takes as present
    foreign = next(
        (
            s
            for s in others
            if s.parent.name not in (container, VERSION)
            and ctypes.util.find_library(f"python{s.parent.name}") is None
        ),
        None,
    )
    if foreign is None:
        pytest.skip("every stub's libpython is installed here")
    repo = tmp_path / "repo"
    folder = _model(repo, "m", foreign, "env.tar.gz", MODEL)
    _write_env(folder, "env.tar.gz", "gz", library)
    verdicts, lines = _serve(server, repo, backends, timeout=20)
    # The load never ends: the server prints no model table before it is stopped.
    assert verdicts["m"].status == "crashed", verdicts["m"]
    needed = f"libpython{foreign.parent.name}.so.1.0: cannot open shared object file"
    assert any(needed in line for line in lines), lines[-20:]
    assert _our_load_errors(repo) == {"m": {"PL685"}}
