"""Serve evaluation cases with the real tritonserver and send the requests their case.toml names.

    .venv/bin/python scripts/evaluation_live.py --server-dir DIR --numpy-dir NP \\
        [--set DIR] [CASE ...]

Why: every case of ``tests/evaluation/`` says which request fails (or answers wrong) and
what Triton answers. This script checks those claims against tritonserver 2.51 (the
binary of the nvidia-pytriton wheel, see ``tests/oracle.py``) with its python backend:

* ``--server-dir`` is an unpacked ``pytriton/tritonserver`` folder whose
  ``backends/python/`` holds ``triton_python_backend_stub`` for this Python, and
  ``--libs`` the wheel's ``nvidia_pytriton.libs`` (plus a shared libpython on the
  library path). ``--numpy-dir`` is a folder with ``numpy<2`` installed by
  ``pip install --target`` (the 2.51 stub is built against numpy 1.x).
* The case's repository is copied to a scratch folder. Each Python model gets that numpy
  folder on ``sys.path`` through its first line, which is a comment in every case for
  that reason (so line numbers in Triton's messages stay those of the committed file).
  A model of another backend is served by a stand-in: the same config with ``backend:
  "python"`` and a model.py that returns zeros of the configured outputs. Triton's core
  checks (request shapes, data types, ensemble data flow, sequence batching) are the
  same for every backend; the backend's own behaviour is not reproduced. ``KIND_GPU``
  becomes ``KIND_CPU`` and ``gpus`` lists are dropped (the server runs without a GPU).
* Each ``[[live]]`` table of case.toml is one request: ``model``, ``body`` (the JSON of a
  KServe v2 infer request), and optionally ``endpoint`` (``generate_stream`` for
  decoupled models; default ``infer``), ``parallel`` (send that many at once),
  ``pause_ms`` (wait before sending, e.g. longer than a sequence idle timeout) and
  ``timeout_s`` (how long to wait for the answer to end, default 20). The
  server listens on 127.0.0.1 only and is stopped after the case.

It prints, per request, the HTTP status and the start of the answer; ``--json FILE``
writes them. Running model code is the point here, so use it only on this project's own
cases.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "evaluation"

STAND_IN = '''\
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Stand-in for a non-Python model: zeros of every configured output."""

    def initialize(self, args):
        self.config = json.loads(args["model_config"])

    def execute(self, requests):
        responses = []
        batching = self.config.get("max_batch_size", 0) > 0
        for request in requests:
            first = request.inputs()[0].as_numpy() if request.inputs() else None
            batch = [first.shape[0]] if batching and first is not None else []
            outputs = []
            for output in self.config["output"]:
                dims = [1 if int(d) < 0 else int(d) for d in output["dims"]]
                dtype = pb_utils.triton_string_to_numpy(output["data_type"])
                value = np.zeros(batch + dims, dtype=dtype)
                if dtype == np.object_:
                    value = value.astype(np.bytes_).astype(np.object_)
                outputs.append(pb_utils.Tensor(output["name"], value))
            responses.append(pb_utils.InferenceResponse(outputs))
        return responses
'''


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def prepare(case: Path, scratch: Path, numpy_dir: Path) -> Path:
    """Copy the case's repository; numpy folder on sys.path; stand-ins for other backends."""
    repo = scratch / "repo"
    shutil.copytree(case / "repo", repo)
    for config in repo.glob("*/config.pbtxt"):
        text = config.read_text(encoding="utf-8").replace("KIND_GPU", "KIND_CPU")
        text = re.sub(r"\bgpus\s*:\s*\[[^\]]*\]", "", text)
        config.write_text(text, encoding="utf-8")
        model = config.parent
        if re.search(r'^\s*platform\s*:\s*"ensemble"', text, re.M):
            continue
        python = re.search(r'^\s*backend\s*:\s*"python"', text, re.M)
        if not python:
            text = re.sub(r'^\s*(platform|backend)\s*:\s*"[^"]*"\s*$', "", text, flags=re.M)
            text = re.sub(r"^\s*default_model_filename\s*:.*$", "", text, flags=re.M)
            config.write_text('backend: "python"\n' + text, encoding="utf-8")
            for version in [d for d in model.iterdir() if d.is_dir() and d.name.isdigit()]:
                shutil.rmtree(version)
            (model / "1").mkdir()
            (model / "1" / "model.py").write_text(
                f"import sys; sys.path.insert(0, {str(numpy_dir)!r})\n" + STAND_IN,
                encoding="utf-8",
            )
            continue
        for source in model.glob("*/model.py"):
            lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
            if not lines or not lines[0].startswith("#"):
                raise SystemExit(f"{source}: the first line must be a comment")
            lines[0] = f"import sys; sys.path.insert(0, {str(numpy_dir)!r})\n"
            source.write_text("".join(lines), encoding="utf-8")
    return repo


def send(
    port: int, model: str, body: str, timeout: float, endpoint: str = "infer"
) -> tuple[int, str]:
    """POST the body; what arrived before the answer ended (or before `timeout`)."""
    url = f"http://127.0.0.1:{port}/v2/models/{model}/{endpoint}"
    request = urllib.request.Request(url, data=body.encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    received = b""
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            status = answer.status
            try:
                while chunk := answer.read1(65536):
                    received += chunk
            except TimeoutError:
                text = received.decode("utf-8", "replace")
                return status, f"{text}(no end of answer after {timeout:.0f} s)"
            return status, received.decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")
    except (TimeoutError, urllib.error.URLError) as error:
        return 0, f"no answer after {timeout:.0f} s: {error}"


@contextlib.contextmanager
def served(
    repo: Path, server_dir: Path, libs: Path, scratch: Path, wait: float = 60
) -> Iterator[tuple[int, bool]]:
    """Serve `repo` on 127.0.0.1 (HTTP only; the log goes to scratch/server.log): yields
    (port, whether the server came up within `wait` seconds), then stops it."""
    port = free_port()
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = f"{libs}:{env.get('LD_LIBRARY_PATH', '')}"
    env["CUDA_VISIBLE_DEVICES"] = ""
    command = [
        str(server_dir / "bin" / "tritonserver"),
        f"--model-repository={repo}",
        f"--backend-directory={server_dir / 'backends'}",
        "--allow-grpc=false",
        "--allow-metrics=false",
        "--http-address=127.0.0.1",
        f"--http-port={port}",
        "--exit-on-error=false",
    ]
    with (scratch / "server.log").open("wb") as log:
        server = subprocess.Popen(
            command, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=scratch,
            start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + wait
            ready = False
            while time.monotonic() < deadline and server.poll() is None:
                status, _ = _get(port, "/v2/health/live")
                if status == 200:
                    ready = True
                    break
                time.sleep(0.3)
            time.sleep(1.0)
            yield port, ready
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()


def run_case(case: Path, server_dir: Path, libs: Path, numpy_dir: Path) -> list[dict[str, Any]]:
    spec = tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))
    live: list[dict[str, Any]] = spec.get("live", [])
    if not live:
        return []
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pbtxt-lint-live-") as tmp:
        scratch = Path(tmp)
        repo = prepare(case, scratch, numpy_dir)
        with served(repo, server_dir, libs, scratch) as (port, ready):
            for entry in live:
                if not ready:
                    results.append({"model": entry["model"], "status": -1, "answer": "no server"})
                    continue
                time.sleep(entry.get("pause_ms", 0) / 1000)
                parallel = int(entry.get("parallel", 1))
                with concurrent.futures.ThreadPoolExecutor(parallel) as pool:
                    futures = [
                        pool.submit(
                            send,
                            port,
                            entry["model"],
                            entry["body"],
                            float(entry.get("timeout_s", 20)),
                            entry.get("endpoint", "infer"),
                        )
                        for _ in range(parallel)
                    ]
                    answers = [f.result() for f in futures]
                for status, answer in answers:
                    results.append({"model": entry["model"], "status": status, "answer": answer})
        server_log = (scratch / "server.log").read_text(encoding="utf-8", errors="replace")
        problems = [
            line for line in server_log.splitlines()
            if re.search(r"^E\d{4}|Traceback|Error|error:", line)
        ]  # fmt: skip
        results.append({"model": "(server log)", "status": 0, "answer": "\n".join(problems[:12])})
    return results


def _get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=2) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, ""
    except (OSError, urllib.error.URLError):
        return 0, ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case folder names (default: every case)")
    parser.add_argument("--server-dir", type=Path, required=True)
    parser.add_argument("--libs", type=Path, required=True)
    parser.add_argument("--numpy-dir", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--set", type=Path, default=CASES, help="folder of cases (default: tests/evaluation)"
    )
    args = parser.parse_args(argv)
    cases: Path = args.set
    names = args.cases or sorted(p.name for p in cases.iterdir() if (p / "case.toml").is_file())
    everything: dict[str, list[dict[str, Any]]] = {}
    for name in names:
        results = run_case(cases / name, args.server_dir, args.libs, args.numpy_dir)
        if not results:
            continue
        everything[name] = results
        print(f"== {name}")
        for r in results:
            print(f"  [{r['status']}] {r['model']}: {r['answer'][:600]}")
    if args.json:
        args.json.write_text(json.dumps(everything, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
