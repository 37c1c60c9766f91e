"""Real object-storage servers on 127.0.0.1 for the cloud repository tests.

- S3: moto's standalone server (PyPI `moto[server]`).
- GCS: gcp-storage-emulator (PyPI), a JSON-API server of its own.
- Azure Blob: Azurite (npm `azurite`), installed into `.cache/azurite` on first use
  with npm; its tests skip, saying why, only where node/npm cannot install it.

Each server is a child process on a free port, stopped by the fixture that started it;
objects are uploaded with each cloud's own client library, never with pbtxt-lint.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AZURITE_DIR = ROOT / ".cache" / "azurite"
AZURITE_ACCOUNT = "devstoreaccount1"
# Azurite's documented, public development account key (not a secret).
AZURITE_KEY = (
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)
S3_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing-secret-never-printed",
    "AWS_DEFAULT_REGION": "us-east-1",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait(port: int, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    """Until the server accepts connections (or exits, or the time is up)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            time.sleep(0.3)  # listening is not always serving yet
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listens on port {port} after {seconds} s")


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@contextlib.contextmanager
def _run(command: list[str], port: int, env: dict[str, str] | None = None) -> Iterator[Server]:
    log = Path(tempfile.mkstemp(prefix="pbtxt-lint-server-", suffix=".log")[1])
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
    server = Server(process, port, log)
    try:
        _wait(port, process)
        yield server
    finally:
        server.stop()
        log.unlink(missing_ok=True)


@contextlib.contextmanager
def moto_server(auth: bool = False) -> Iterator[Server]:
    """`auth`: moto checks credentials from the first request (unknown keys: 403)."""
    port = free_port()
    command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    env = {"INITIAL_NO_AUTH_ACTION_COUNT": "0"} if auth else None
    with _run(command, port, env) as server:
        yield server


@contextlib.contextmanager
def gcs_emulator() -> Iterator[Server]:
    port = free_port()
    executable = shutil.which("gcp-storage-emulator", path=os.path.dirname(sys.executable))
    command = [executable or "gcp-storage-emulator", "start", "-H", "127.0.0.1"]
    command += ["--port", str(port), "--in-memory", "-q"]
    with _run(command, port) as server:
        yield server


def azurite_command() -> list[str] | str:
    """Azurite's blob server command, installing it with npm on first use; or why not."""
    script = AZURITE_DIR / "node_modules" / "azurite" / "dist" / "src" / "blob" / "main.js"
    if not script.exists():
        npm, node = shutil.which("npm"), shutil.which("node")
        if npm is None or node is None:
            return "node and npm are not installed (Azurite is an npm package)"
        AZURITE_DIR.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--loglevel=error", "azurite@3"],
            cwd=AZURITE_DIR,
            capture_output=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0 or not script.exists():
            return f"npm could not install azurite: {done.stderr.decode()[-300:]}"
    return [shutil.which("node") or "node", str(script)]


@contextlib.contextmanager
def azurite(command: list[str]) -> Iterator[Server]:
    port = free_port()
    workspace = tempfile.mkdtemp(prefix="pbtxt-lint-azurite-")
    full = command + ["--blobHost", "127.0.0.1", "--blobPort", str(port)]
    full += ["--location", workspace, "--silent", "--skipApiVersionCheck", "--loose"]
    try:
        with _run(full, port) as server:
            yield server
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def azurite_connection_string(port: int) -> str:
    return (
        f"DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};"
        f"AccountKey={AZURITE_KEY};BlobEndpoint=http://127.0.0.1:{port}/{AZURITE_ACCOUNT};"
    )


def files_of(folder: Path) -> list[tuple[str, Path]]:
    """(key below the folder, file) for every file, hidden ones included."""
    return sorted(
        (path.relative_to(folder).as_posix(), path) for path in folder.rglob("*") if path.is_file()
    )


def upload_s3(endpoint: str, bucket: str, prefix: str, folder: Path | None) -> None:
    import boto3

    client = boto3.client("s3", endpoint_url=endpoint, **_aws())
    client.create_bucket(Bucket=bucket)
    for key, path in files_of(folder) if folder else []:
        client.upload_file(str(path), bucket, f"{prefix}/{key}")


def _aws() -> dict[str, str]:
    return {
        "aws_access_key_id": S3_ENV["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": S3_ENV["AWS_SECRET_ACCESS_KEY"],
        "region_name": S3_ENV["AWS_DEFAULT_REGION"],
    }


def upload_gcs(endpoint: str, bucket: str, prefix: str, folder: Path) -> None:
    """Through the emulator's JSON API (what google-cloud-storage speaks)."""
    import json

    body = json.dumps({"name": bucket}).encode()
    request = urllib.request.Request(
        f"{endpoint}/storage/v1/b?project=test",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    urllib.request.urlopen(request, timeout=10).close()
    boundary = "pbtxt-lint-boundary"
    for key, path in files_of(folder):
        # A multipart upload, as google-cloud-storage sends small objects (the
        # emulator drops a media upload with an empty body).
        metadata = json.dumps({"name": f"{prefix}/{key}"}).encode()
        body = b"".join(
            [
                f"--{boundary}\r\nContent-Type: application/json\r\n\r\n".encode(),
                metadata,
                f"\r\n--{boundary}\r\nContent-Type: application/octet-stream\r\n\r\n".encode(),
                path.read_bytes(),
                f"\r\n--{boundary}--\r\n".encode(),
            ]
        )
        request = urllib.request.Request(
            f"{endpoint}/upload/storage/v1/b/{bucket}/o?uploadType=multipart",
            data=body,
            headers={"Content-Type": f"multipart/related; boundary={boundary}"},
        )
        urllib.request.urlopen(request, timeout=10).close()


def upload_azure(port: int, container: str, prefix: str, folder: Path) -> None:
    from azure.storage.blob import BlobServiceClient

    service = BlobServiceClient.from_connection_string(azurite_connection_string(port))
    client = service.create_container(container)
    for key, path in files_of(folder):
        client.upload_blob(f"{prefix}/{key}", path.read_bytes())
