"""Load vLLM models with vllm_backend's own model.py on the real tritonserver, with a stand-in vLLM.

    .venv/bin/python scripts/vllm_live.py --backend-src DIR --numpy-dir NP [REPO ...]

Why: the PL80x rules quote what the vLLM backend prints when it refuses a model. The
backend is a Python-based backend, so its `src/model.py` runs on the python backend of
tritonserver 2.51 (the nvidia-pytriton wheel, see tests/oracle.py) without a GPU, if
`import vllm` finds something: this script writes a stand-in `vllm` package (and a
`torch` with a no-op `cuda.set_device`) whose `AsyncEngineArgs` is a dataclass with
exactly the fields of the vLLM release the target image installs
(`pbtxt_lint.triton.vllm`, read from vLLM's own source), and whose engine echoes the
prompt. Everything the backend itself checks (auto_complete_config, the decoupled
assertion, model.json, KIND_GPU, multi_lora.json, the unknown-key TypeError of the
dataclass) therefore runs for real; vLLM's own value checks do not (their census rows
cite vLLM's source).

* ``--backend-src`` is a folder with vllm_backend's ``src/`` (for instance
  ``git archive r24.10 src | tar -x -C DIR`` of a vllm_backend clone); it is copied to
  ``<backends>/vllm/``. Nothing of it is kept.
* ``--numpy-dir`` is a folder with ``numpy<2`` installed by ``pip install --target``
  (the 2.51 stub is built against numpy 1.x).
* Each REPO is a model repository; without any, the fixture cases of PL800-PL812
  (``tests/fixtures/rules``) are written out and loaded one by one. For every model the
  script prints Triton's verdict (READY or the load error) next to the errors
  pbtxt-lint reports, and a line ``AGREE`` or ``DISAGREE``.

KIND_GPU cannot load on a host without a GPU, so such cases say so instead of a verdict.
Running the backend's code is the point here: use it only on the backend's own source.
"""

from __future__ import annotations

import argparse
import ctypes.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbtxt_lint.triton.vllm import ENGINE_ARGS, VLLM_OF_RELEASE, default_model, versions_with  # noqa: E402

VLLM_SIDE = frozenset({"PL804"})
"""Rules about checks vLLM itself makes (its config classes), which the stand-in lacks."""
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
SERVER = (2, 51)

STAND_IN: dict[str, str] = {
    "vllm/__init__.py": "",
    "vllm/engine/__init__.py": "",
    "vllm/engine/arg_utils.py": """\
import dataclasses

FIELDS = {fields!r}
DEFAULT_MODEL = {model!r}

_fields = [(name, object, dataclasses.field(default=None)) for name in FIELDS if name != "model"]
if DEFAULT_MODEL:
    _fields.insert(0, ("model", str, dataclasses.field(default=DEFAULT_MODEL)))
else:
    _fields.insert(0, ("model", str))
EngineArgs = dataclasses.make_dataclass("EngineArgs", _fields)
AsyncEngineArgs = dataclasses.make_dataclass("AsyncEngineArgs", [], bases=(EngineArgs,))
""",
    "vllm/engine/async_llm_engine.py": '''\
import types


class _Output:
    def __init__(self, prompt, text, finished):
        self.prompt = prompt
        self.outputs = [types.SimpleNamespace(text=text)]
        self.finished = finished


class AsyncLLMEngine:
    """Echoes the prompt back, one word per step."""

    def __init__(self, args):
        self.args = args
        self.engine = types.SimpleNamespace(model_config=types.SimpleNamespace(max_model_len=2048))

    @classmethod
    def from_engine_args(cls, args):
        return cls(args)

    def add_logger(self, name, logger):
        pass

    async def abort(self, request_id):
        pass

    async def add_request(self, request_id, prompt, sampling_params, lora_request=None):
        words = str(prompt).split() or [""]

        async def steps():
            for index in range(len(words)):
                yield _Output(prompt, " ".join(words[: index + 1]), index == len(words) - 1)

        return steps()
''',
    "vllm/engine/metrics.py": """\
class StatLoggerBase:
    def __init__(self, local_interval=0, *args, **kwargs):
        pass


class Stats:
    pass


class SupportsMetricsInfo:
    pass


def build_1_2_5_buckets(limit):
    return [1, 2, 5]
""",
    "vllm/lora/__init__.py": "",
    "vllm/lora/request.py": """\
class LoRARequest:
    def __init__(self, *args, **kwargs):
        self.args = args
""",
    "vllm/sampling_params.py": """\
class SamplingParams:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
""",
    "vllm/utils.py": """\
import uuid


def random_uuid():
    return uuid.uuid4().hex
""",
    "torch/__init__.py": """\
import types

cuda = types.SimpleNamespace(set_device=lambda device: None)
""",
}


def write_backends(server_tree: Path, source: Path, numpy_dir: Path, scratch: Path) -> Path:
    """<scratch>/backends: python (this Python's stub) and vllm (model.py + stand-ins)."""
    backends = scratch / "backends"
    shutil.copytree(server_tree / "backends" / "python", backends / "python")
    stub = server_tree / "python_backend_stubs" / VERSION / "triton_python_backend_stub"
    shutil.copy(stub, backends / "python" / "triton_python_backend_stub")
    (backends / "python" / "triton_python_backend_stub").chmod(0o755)
    vllm = backends / "vllm"
    shutil.copytree(source / "src", vllm)
    version = VLLM_OF_RELEASE[SERVER]
    fields = sorted(name for name in ENGINE_ARGS if version in versions_with(name))
    for relative, text in STAND_IN.items():
        target = vllm / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.format(fields=fields, model=default_model(version)))
    for entry in numpy_dir.iterdir():
        if entry.name.startswith("numpy"):
            (vllm / entry.name).symlink_to(entry)
    return backends


def load(binary: Path, libs: Path, backends: Path, repo: Path, timeout: float = 90) -> str:
    """Start tritonserver on `repo`; its log once the model table is printed."""
    env = dict(os.environ, LD_LIBRARY_PATH=f"{libs}:{os.environ.get('LD_LIBRARY_PATH', '')}")
    env["CUDA_VISIBLE_DEVICES"] = ""
    log_path = repo.parent / "server.log"
    with log_path.open("wb") as log:
        server = subprocess.Popen(
            [
                str(binary),
                f"--model-repository={repo}",
                f"--backend-directory={backends}",
                "--allow-grpc=false",
                "--allow-metrics=false",
                "--allow-http=false",
                "--exit-on-error=false",
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline and server.poll() is None:
                if re.search(r"^\+-+\+\s*$", log_path.read_text(errors="replace"), re.M):
                    time.sleep(0.5)
                    break
                time.sleep(0.3)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
    return log_path.read_text(errors="replace")


def verdicts(log: str) -> dict[str, str]:
    """Model -> READY or Triton's failure text, from the log."""
    found: dict[str, str] = {}
    for match in re.finditer(r"failed to load '([^']+)' version \d+: (.*)", log):
        found.setdefault(match.group(1), match.group(2).strip())
    for match in re.finditer(r"^\|\s*(\S+)\s*\|\s*\d+\s*\|\s*READY\s*\|", log, re.M):
        found[match.group(1)] = "READY"
    return found


def lint_errors(repo: Path, args: list[str]) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-m", "pbtxt_lint", "check", ".", "--format", "json",
         "--triton-version", "24.10", *args],
        capture_output=True, text=True, check=False, cwd=repo,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    errors: dict[str, list[str]] = {}
    for diagnostic in json.loads(done.stdout or "{}").get("diagnostics", []):
        if diagnostic["severity"] == "error":
            model = str(diagnostic["path"]).split("/", 1)[0]
            errors.setdefault(model, []).append(f"{diagnostic['code']} {diagnostic['message']}")
    return errors


def fixture_repos(scratch: Path) -> list[tuple[Path, list[str]]]:
    """The PL800-PL812 fixture cases that target Triton 24.10 (or no release)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from fixture_cases import all_cases, write_case  # type: ignore[import-not-found]

    repos = []
    for case in all_cases():
        if not re.match(r"PL8(0\d|1[0-2])$", case.code) or case.files is None:
            continue
        args = list(case.args)
        if "--triton-version" in args:
            index = args.index("--triton-version")
            if args[index + 1] != "24.10":
                continue
            del args[index : index + 2]
        repos.append((write_case(case, scratch / "fixtures" / case.code / case.name), args))
    return repos


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend-src", type=Path, required=True)
    parser.add_argument("--numpy-dir", type=Path, required=True)
    parser.add_argument("--server-tree", type=Path, default=None)
    parser.add_argument("repos", nargs="*", type=Path)
    args = parser.parse_args(argv)
    cache = Path(os.environ.get("PBTXT_LINT_CACHE", ROOT / ".cache" / "tritonserver"))
    unpacked = cache / "nvidia-pytriton-0.7.0"
    tree = args.server_tree or unpacked / "pytriton" / "tritonserver"
    libs = unpacked / "nvidia_pytriton.libs"
    if ctypes.util.find_library(f"python{VERSION}") is None:
        raise SystemExit(f"no shared libpython{VERSION}: the stub cannot start")
    with tempfile.TemporaryDirectory(prefix="pbtxt-lint-vllm-live-") as tmp:
        scratch = Path(tmp)
        backends = write_backends(tree, args.backend_src, args.numpy_dir, scratch)
        given: list[tuple[Path, list[str]]] = [(repo, []) for repo in args.repos]
        repos = given or fixture_repos(scratch)
        merged = scratch / "merged"
        merged.mkdir()
        served: dict[str, tuple[str, list[str]]] = {}  # served name -> (label, our errors)
        skipped: list[str] = []
        for repo, extra in repos:
            ours = lint_errors(repo, extra)
            for config in sorted(repo.glob("*/config.pbtxt")):
                model = config.parent.name
                label = f"{repo.parent.name}/{repo.name}/{model}"
                text = config.read_text()
                if "--disable-auto-complete-config" in extra or "KIND_GPU" in text:
                    why = "strict mode" if "KIND_GPU" not in text else "KIND_GPU needs a GPU"
                    skipped.append(
                        f"{label}: not loaded here ({why}); pbtxt-lint: {ours.get(model, [])}"
                    )
                    continue
                name = f"m{len(served)}_{model}"
                shutil.copytree(config.parent, merged / name, symlinks=True)
                (merged / name / "config.pbtxt").write_text(
                    re.sub(r'^name:\s*"[^"]*"', f'name: "{name}"', text, flags=re.M)
                )
                served[name] = (label, ours.get(model, []))
        found = verdicts(load(tree / "bin" / "tritonserver", libs, backends, merged))
        agree = disagree = 0
        for name, (label, mine) in served.items():
            triton = found.get(name, "(no verdict)")
            same = (triton == "READY") == (not mine)
            if not same and triton == "READY" and all(m.split()[0] in VLLM_SIDE for m in mine):
                print(f"NOT RUN {label} (vLLM's own check; the stand-in has none)")
                continue
            agree += same
            disagree += not same
            print(f"{'AGREE' if same else 'DISAGREE'} {label}\n  triton: {triton[:400]}")
            for line in mine:
                print(f"  pbtxt-lint: {line}")
        print("\n".join(skipped))
        print(f"{agree} agree, {disagree} disagree")
    return 0 if not disagree else 1


if __name__ == "__main__":
    raise SystemExit(main())
