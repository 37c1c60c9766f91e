"""The language server's transport: LSP frames on standard input, bounded and
answered whatever a client sends.

pygls's own reader trusts its client: `Content-Length: 99999999999999` asks for a
buffer of that size and kills the server, `-5` or `abc` matches no header so the
server reads the body as headers and stays deaf, a header line without an end grows
without bound, and a request whose params do not fit the method is logged and never
answered (the client waits for its timeout). Here every header line and body is
bounded, a frame that cannot be read is answered with a JSON-RPC error and skipped
(the reader finds the next `Content-Length:` header, even glued to the end of a body
without a line end), and every request gets an answer: -32700 (parse error) for a
body that is not JSON, -32600 (invalid request) for one that is not a JSON-RPC
message or a frame that cannot be read, -32602 (invalid params) for params that do
not fit the method. Everything that can be read goes to pygls as before.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import sys
import threading
from collections.abc import Callable
from typing import BinaryIO

from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 << 20
"""The largest message read: a full buffer of the 8 MiB config pbtxt-lint reads,
escaped as JSON (up to 6 bytes a character), fits."""
MAX_LINE_BYTES = 8 << 10
"""The longest header line read; the rest of a longer one is skipped."""
MAX_HEADERS = 32
"""Header lines of one frame (LSP defines two)."""
PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
_CONTENT_LENGTH = re.compile(rb"content-length:[ \t]*([^\r\n]*)", re.IGNORECASE)
_DIGITS = re.compile(rb"[0-9]{1,20}")


class FrameError(Exception):
    """A frame that cannot be read; `code` is the JSON-RPC error it is answered with."""

    def __init__(self, message: str, code: int = INVALID_REQUEST) -> None:
        super().__init__(message)
        self.code = code


class FrameReader:
    """Frames from a byte stream (blocking reads; run in a thread).

    After a frame that cannot be read, what follows is skipped up to the next
    `Content-Length:` header, which may arrive glued to the end of the skipped body
    (a client writes no line end after a body); `pending` holds it."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.pending = b""
        self.skipping = False

    def line(self) -> bytes | None:
        """One header line of at most MAX_LINE_BYTES (a longer one comes in pieces);
        None at the end of the stream."""
        if self.pending:
            line, self.pending = self.pending, b""
            return line
        return self.stream.readline(MAX_LINE_BYTES) or None

    def frame(self) -> bytes | None:
        """The next frame's body; None at the end of the stream. Raises FrameError for a
        frame that cannot be read (and skips what follows it, see the class)."""
        length: int | None = None
        problem: str | None = None
        headers = 0
        while True:
            line = self.line()
            if line is None:
                return None
            header = _CONTENT_LENGTH.search(line)
            if self.skipping:
                if header is None:
                    continue
                self.skipping = False
                line = line[header.start() :]
                header = _CONTENT_LENGTH.match(line)
            if line in (b"\r\n", b"\n"):
                if length is None and problem is None:
                    problem = "a frame without Content-Length"
                break
            headers += 1
            if headers > MAX_HEADERS:
                problem = f"more than {MAX_HEADERS} header lines"
                break
            if header is None:
                if not line.lower().startswith(b"content-"):
                    problem = problem or f"not a header line: {_show(line)}"
                    break
                continue  # Content-Type and its kin
            if header.start() > 0:  # a header glued to what came before it
                self.pending = line[header.start() :]
                problem = problem or f"not a header line: {_show(line[: header.start()])}"
                break
            value = header.group(1).strip()
            if _DIGITS.fullmatch(value) is None:
                problem = f"Content-Length {_show(value)} is not a byte count"
            elif int(value) > MAX_BODY_BYTES:
                problem = (
                    f"Content-Length {int(value)} is larger than the "
                    f"{MAX_BODY_BYTES >> 20} MiB the server reads"
                )
            else:
                length = int(value)
        if problem is not None or length is None:
            self.skipping = not self.pending
            raise FrameError(problem or "a frame without Content-Length")
        body = self.stream.read(length)
        if len(body) < length:
            return None  # the stream ended inside the body
        return body


def _show(data: bytes) -> str:
    text = data.decode("utf-8", "backslashreplace").strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


def error_frame(msg_id: object, code: int, message: str) -> bytes:
    """A JSON-RPC error response, framed."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": msg_id, "error": {"code": code, "message": message}}
    ).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def dispatch(
    server: LanguageServer, body: bytes, answer: Callable[[object, int, str], None]
) -> None:
    """Hand one body to pygls, or `answer(id, code, message)` why it cannot be."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as error:
        answer(None, PARSE_ERROR, f"Parse error: the message is not JSON ({error})")
        return
    msg_id = data.get("id") if isinstance(data, dict) else None
    if not isinstance(msg_id, int | str):
        msg_id = None
    method = data.get("method") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("jsonrpc") != "2.0"
        or ("method" in data and not isinstance(method, str))
        or ("method" not in data and "id" not in data)
    ):
        answer(msg_id, INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message")
        return
    try:
        message = server.protocol.structure_message(data)
    except JsonRpcException as error:
        if method is not None and "id" in data:  # a notification gets no answer
            answer(msg_id, INVALID_PARAMS, f"Invalid params for {method}: {error.message}")
        else:
            logger.warning("dropped a %s notification with invalid params", method)
        return
    server.protocol.handle_message(message)


async def read_messages(
    server: LanguageServer, reader: FrameReader, writer: StdoutWriter, stop: threading.Event
) -> None:
    """Read frames until the stream ends or the server stops; answer what cannot be read."""
    loop = asyncio.get_running_loop()

    def answer(msg_id: object, code: int, message: str) -> None:
        logger.warning("%s", message)
        writer.write(error_frame(msg_id, code, message))

    while not stop.is_set():
        try:
            body = await loop.run_in_executor(server.thread_pool, reader.frame)
        except FrameError as error:
            answer(None, error.code, f"Invalid request: {error}")
            continue
        if body is None:
            break
        try:
            dispatch(server, body, answer)
        except Exception:  # pygls's own handling failed: keep serving the others
            logger.exception("unable to handle a message")


def serve_stdio(server: LanguageServer, stdin: BinaryIO | None = None) -> None:
    """pygls's `start_io`, with this module's reader in place of its own."""
    stop = threading.Event()
    server._stop_event = stop  # what pygls's shutdown() and exit set to end the loop
    writer = StdoutWriter(sys.stdout.buffer)
    server.protocol.set_writer(writer)
    reader = FrameReader(stdin or sys.stdin.buffer)
    try:
        asyncio.run(read_messages(server, reader, writer, stop))
    except BrokenPipeError:
        logger.error("the client closed the connection")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]  # pygls leaves it untyped
