"""The language server's transport against a client that sends what it should not
(issue 24): every frame is bounded, every request answered, and the server keeps
serving the frames that follow.

A raw client writes bytes to `pbtxt-lint lsp` and reads its frames back on a thread;
a reply that does not come within the timeout fails the test (the server died or went
deaf), so no test waits on the clock otherwise.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pygls")

REPLY_SECONDS = 60


def frame(body: bytes | str) -> bytes:
    data = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def request(msg_id: int, method: str, params: object) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params}))


def notification(method: str, params: object) -> bytes:
    return frame(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}))


class RawClient:
    """`pbtxt-lint lsp` in a child, spoken to in bytes."""

    def __init__(self, cwd: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "pbtxt_lint", "lsp"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        )
        self.frames: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.frames.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            assert length is not None
            self.frames.put(json.loads(stream.read(length)))

    def send(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def reply(self, msg_id: object) -> dict[str, Any]:
        """The next response with `msg_id` (notifications and other replies skipped)."""
        while True:
            try:
                message = self.frames.get(timeout=REPLY_SECONDS)
            except queue.Empty:
                pytest.fail(f"no reply to {msg_id!r} within {REPLY_SECONDS} s: the server is deaf")
            if message is None:
                stderr = self.process.stderr.read().decode() if self.process.stderr else ""
                pytest.fail(f"the server ended before answering {msg_id!r}: {stderr[-2000:]}")
            if "method" not in message and message.get("id") == msg_id:
                return message

    def initialize(self, root: Path, msg_id: int = 1) -> None:
        self.send(
            request(
                msg_id,
                "initialize",
                {"processId": None, "rootUri": root.as_uri(), "capabilities": {}},
            )
        )
        assert "result" in self.reply(msg_id)
        self.send(notification("initialized", {}))

    def peak_mb(self) -> float:
        """The server's peak resident memory so far (Linux)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(line for line in status.splitlines() if line.startswith("VmHWM"))
        return int(line.split()[1]) / 1024

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=REPLY_SECONDS)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    raw = RawClient(tmp_path)
    yield raw
    raw.close()


@pytest.mark.parametrize(
    "header",
    [b"Content-Length: 99999999999999", b"Content-Length: -5", b"Content-Length: abc"],
    ids=["huge", "negative", "word"],
)
def test_a_frame_whose_length_cannot_be_read_is_answered_and_skipped(
    client: RawClient, tmp_path: Path, header: bytes
) -> None:
    """99999999999999 killed the server (it asked for a buffer that size); -5 and abc
    left it deaf (it read the body as headers, and every frame after it)."""
    client.send(header + b"\r\n\r\n" + b'{"jsonrpc": "2.0", "id": 7, "method": "shutdown"}')
    error = client.reply(None)
    assert error["error"]["code"] == -32600
    assert header.split(b": ")[1].decode() in error["error"]["message"]
    client.initialize(tmp_path)


def test_a_header_line_without_an_end_is_skipped_in_bounded_memory(
    client: RawClient, tmp_path: Path
) -> None:
    client.send(b"X" * (64 << 20) + b"\r\n\r\n")
    assert client.reply(None)["error"]["code"] == -32600
    client.initialize(tmp_path)
    assert client.peak_mb() < 150


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", -32700),
        (b"[1, 2]", -32600),
        (b'{"id": 3, "method": "shutdown"}', -32600),
        (b'{"jsonrpc": "2.0", "id": 3, "method": 5}', -32600),
    ],
    ids=["not-json", "not-an-object", "no-jsonrpc", "method-not-a-string"],
)
def test_a_body_that_is_no_json_rpc_message_is_answered(
    client: RawClient, tmp_path: Path, body: bytes, code: int
) -> None:
    client.send(frame(body))
    reply = client.reply(3 if b'"id": 3' in body else None)
    assert reply["error"]["code"] == code
    client.initialize(tmp_path)


def test_a_request_with_malformed_params_gets_invalid_params(
    client: RawClient, tmp_path: Path
) -> None:
    """The client waited for its timeout: pygls logged the error and never answered."""
    client.initialize(tmp_path)
    client.send(request(5, "textDocument/hover", {"textDocument": 5, "position": "top"}))
    reply = client.reply(5)
    assert reply["error"]["code"] == -32602
    assert "textDocument/hover" in reply["error"]["message"]
    client.send(request(6, "shutdown", None))
    assert "result" in client.reply(6)


def test_an_integer_of_any_length_in_an_open_buffer_is_a_diagnostic(
    client: RawClient, tmp_path: Path
) -> None:
    """Formatting and symbols answered -32603 (internal error) for a 5,000-digit value."""
    model = tmp_path / "m"
    (model / "1").mkdir(parents=True)
    config = model / "config.pbtxt"
    text = 'backend: "python"\nmax_batch_size: ' + "9" * 5000 + "\n"
    config.write_text(text)
    client.initialize(tmp_path)
    document = {"uri": config.as_uri(), "languageId": "pbtxt", "version": 1, "text": text}
    client.send(notification("textDocument/didOpen", {"textDocument": document}))
    identifier = {"uri": config.as_uri()}
    options = {"tabSize": 2, "insertSpaces": True}
    client.send(
        request(8, "textDocument/formatting", {"textDocument": identifier, "options": options})
    )
    client.send(request(9, "textDocument/documentSymbol", {"textDocument": identifier}))
    for msg_id in (8, 9):
        assert "error" not in client.reply(msg_id)
