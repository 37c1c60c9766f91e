"""Cloud repositories: how much of a bucket `pbtxt-lint check s3://...` reads, and how fast.

Not a timed test: `python bench/cloud.py [--server moto|s3rver]` (after `make demo`)
prints the rows of bench/RESULTS.md, "Cloud repositories". An S3 server runs on
127.0.0.1 behind a counting proxy (every request and every response byte the server
sends is counted there, not by pbtxt-lint): moto (PyPI), which reads a whole object to
answer a ranged GET, or s3rver (npm, installed on first use into .cache/s3rver), which
streams the range from disk as S3 does. Then:

1. a repository of ONNX models totalling >= 1 GiB (weights as initializers, as
   exporters write them) is checked, then downloaded whole with boto3's transfer
   manager (what `aws s3 cp --recursive` uses), both through the proxy;
2. a repository of 100 small ONNX models is checked from the bucket with the default
   concurrency and with one request at a time, and from local disk.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import cloud_servers as servers

S3RVER_DIR = Path(__file__).resolve().parent.parent / ".cache" / "s3rver"
LARGE_MODELS = 8
LAYERS = 34  # initializers of 4 MiB per model: 136 MiB a model, 1.06 GiB in all
SMALL_MODELS = 100


class Counter:
    def __init__(self) -> None:
        self.requests = 0
        self.bytes = 0
        self.lock = threading.Lock()

    def reset(self) -> tuple[int, int]:
        with self.lock:
            seen = self.requests, self.bytes
            self.requests = self.bytes = 0
            return seen


def proxy(upstream_port: int, counter: Counter) -> tuple[http.server.ThreadingHTTPServer, int]:
    """A forwarding HTTP proxy to the S3 server that counts what the server sends."""

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            connection = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=120)
            headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
            connection.request(self.command, self.path, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            with counter.lock:
                counter.requests += 1
                counter.bytes += len(data)
            self.send_response(response.status)
            for key, value in response.getheaders():
                if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            connection.close()

        do_GET = do_HEAD = do_PUT = do_POST = do_DELETE = _forward

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def onnx_model(path: Path, layers: int, width: int, seed: int) -> None:
    """An MLP: `layers` weight matrices of width x width floats."""
    rng = np.random.default_rng(seed)
    nodes, weights = [], []
    previous = "x"
    for index in range(layers):
        name = f"w{index}"
        weights.append(numpy_helper.from_array(rng.random((width, width), np.float32), name))
        nodes.append(helper.make_node("MatMul", [previous, name], [f"h{index}"]))
        previous = f"h{index}"
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-1, width])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, [-1, width])],
        weights,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    config = (
        'backend: "onnxruntime"\nmax_batch_size: 0\n'
        f'input [ {{ name: "x", data_type: TYPE_FP32, dims: [ -1, {width} ] }} ]\n'
        f'output [ {{ name: "{previous}", data_type: TYPE_FP32, dims: [ -1, {width} ] }} ]\n'
    )
    (path.parent.parent / "config.pbtxt").write_text(config)


def make_repository(root: Path, models: int, layers: int, width: int) -> int:
    for index in range(models):
        folder = root / f"model_{index:03d}" / "1"
        folder.mkdir(parents=True)
        onnx_model(folder / "model.onnx", layers, width, index)
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def check(target: str, env: dict[str, str]) -> tuple[float, dict[str, object]]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pbtxt_lint", "check", "--no-cache", "--format", "json", target],
        env={**os.environ, **servers.S3_ENV, **env},
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"check failed: {done.stderr}")
    document: dict[str, object] = json.loads(done.stdout)
    return elapsed, document


def download(endpoint: str, bucket: str, into: Path) -> float:
    import boto3
    from boto3.s3.transfer import TransferConfig

    client = boto3.client("s3", endpoint_url=endpoint, **servers._aws())
    start = time.perf_counter()
    keys = [
        item["Key"]
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket)
        for item in page.get("Contents", [])
    ]
    config = TransferConfig(max_concurrency=10)
    for key in keys:
        target = into / key
        target.parent.mkdir(parents=True, exist_ok=True)
        client.download_file(bucket, key, str(target), Config=config)
    return time.perf_counter() - start


@contextlib.contextmanager
def s3rver(data: Path) -> Iterator[servers.Server]:
    """s3rver on 127.0.0.1, installed with npm on first use; any credentials pass."""
    script = S3RVER_DIR / "node_modules" / "s3rver" / "bin" / "s3rver.js"
    if not script.exists():
        S3RVER_DIR.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "s3rver@3"],
            cwd=S3RVER_DIR,
            check=True,
            timeout=600,
        )
    # s3rver knows one key pair; this process then uses it everywhere (upload, check).
    servers.S3_ENV.update(AWS_ACCESS_KEY_ID="S3RVER", AWS_SECRET_ACCESS_KEY="S3RVER")
    port = servers.free_port()
    data.mkdir(parents=True, exist_ok=True)
    command = [shutil.which("node") or "node", str(script), "-d", str(data), "-a", "127.0.0.1"]
    command += ["-p", str(port), "-s", "--allow-mismatched-signatures", "--no-vhost-buckets"]
    with servers._run(command, port) as server:
        yield server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("moto", "s3rver"), default="moto")
    args = parser.parse_args()
    counter = Counter()
    with contextlib.ExitStack() as stack:
        scratch = stack.enter_context(tempfile.TemporaryDirectory())
        if args.server == "moto":
            s3 = stack.enter_context(servers.moto_server())
        else:
            s3 = stack.enter_context(s3rver(Path(scratch) / "s3rver-data"))
        run(s3, scratch, counter)


def run(s3: servers.Server, scratch: str, counter: Counter) -> None:
    front, port = proxy(s3.port, counter)
    work = Path(scratch)
    large = work / "large"
    total = make_repository(large, LARGE_MODELS, LAYERS, 1024)
    servers.upload_s3(s3.endpoint, "large", "models", large)
    counter.reset()
    seconds, report = check(f"s3://127.0.0.1:{port}/large/models", {})
    requests, served = counter.reset()
    local_seconds, local = check(str(large), {})
    same = report["diagnostics"] == [
        {**d, "path": d["path"].replace(str(large), f"s3://127.0.0.1:{port}/large/models")}
        for d in local["diagnostics"]  # type: ignore[union-attr]
    ]
    fetched = download(f"http://127.0.0.1:{port}", "large", work / "download")
    down_requests, down_bytes = counter.reset()
    print(
        f"large: {LARGE_MODELS} models, {total:,} bytes; check from S3 {seconds:.2f} s, "
        f"{requests} requests, {served:,} bytes served ({served / total:.3%}); "
        f"same diagnostics as local: {same}; local check {local_seconds:.2f} s; "
        f"boto3 download {fetched:.2f} s, {down_requests} requests, {down_bytes:,} bytes"
    )
    small = work / "small"
    total = make_repository(small, SMALL_MODELS, 2, 64)
    servers.upload_s3(s3.endpoint, "small", "models", small)
    url = f"s3://127.0.0.1:{port}/small/models"
    for label, env in (
        ("concurrency 16", {}),
        ("one at a time", {"PBTXT_LINT_REMOTE_CONCURRENCY": "1"}),
    ):
        counter.reset()
        seconds, _ = check(url, env)
        requests, served = counter.reset()
        print(
            f"small ({label}): {SMALL_MODELS} models, {total:,} bytes; check from S3 "
            f"{seconds:.2f} s, {requests} requests, {served:,} bytes served"
        )
    seconds, _ = check(str(small), {})
    print(f"small (local disk): {seconds:.2f} s")
    front.shutdown()


if __name__ == "__main__":
    main()
