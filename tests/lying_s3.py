"""An S3-compatible endpoint on 127.0.0.1 that serves a local folder, and lies on
demand (tests/test_hostile_storage.py).

It speaks the little of S3 that pbtxt-lint's reads need, path-style: ListObjectsV2
(prefix, delimiter, continuation), HeadObject and GetObject with a Range. The lies:

- `endless-listing`: every listing page says it is truncated and names a thousand
  new objects, so a client that follows the pages never ends;
- `one-per-page`: every page holds one new object and says it is truncated;
- `ignore-range`: GetObject answers 200 with the whole object, whatever the Range;
- `endless-body`: GetObject answers 200 and streams bytes until the client hangs up;
- `slow`: every answer waits `delay` seconds first (a server that accepts and stalls).

Standard library only, in a thread of the test process (`serving`).
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
from collections.abc import Iterator
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit
from xml.sax.saxutils import escape

MODES = ("honest", "endless-listing", "one-per-page", "ignore-range", "endless-body", "slow")


class LyingS3(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: Path, mode: str, delay: float = 0) -> None:
        assert mode in MODES
        super().__init__(("127.0.0.1", 0), _Handler)
        self.root, self.mode, self.delay = root, mode, delay
        self.requests = 0
        self.bytes_sent = 0

    @property
    def endpoint(self) -> str:
        return f"127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: LyingS3
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet

    def _begin(self) -> tuple[str, str, dict[str, list[str]]]:
        self.server.requests += 1
        if self.server.mode == "slow":
            time.sleep(self.server.delay)
        url = urlsplit(self.path)
        bucket, _, key = unquote(url.path).lstrip("/").partition("/")
        return bucket, key, parse_qs(url.query, keep_blank_values=True)

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
            self.server.bytes_sent += len(body)

    def _file(self, bucket: str, key: str) -> Path | None:
        path = self.server.root / bucket / key
        return path if key and path.is_file() else None

    def do_HEAD(self) -> None:
        bucket, key, _ = self._begin()
        path = self._file(bucket, key)
        if path is None:
            self._send(404, b"")
            return
        self._send(200, b"", _object_headers(path) | {"Content-Length": str(path.stat().st_size)})

    def do_GET(self) -> None:
        bucket, key, query = self._begin()
        if not key or "list-type" in query:
            self._list(bucket, query)
            return
        path = self._file(bucket, key)
        if path is None:
            self._send(404, _error("NoSuchKey", key))
            return
        mode = self.server.mode
        if mode == "endless-body":
            self.send_response(200)
            self.send_header("Connection", "close")
            self.end_headers()
            chunk = b"\0" * 65536
            with contextlib.suppress(OSError):
                while True:
                    self.wfile.write(chunk)
                    self.server.bytes_sent += len(chunk)
            return
        data = path.read_bytes()
        wanted = self.headers.get("Range")
        if wanted and mode != "ignore-range":
            first, _, last = wanted.removeprefix("bytes=").partition("-")
            start, end = int(first), min(int(last), len(data) - 1) if last else len(data) - 1
            headers = _object_headers(path) | {"Content-Range": f"bytes {start}-{end}/{len(data)}"}
            self._send(206, data[start : end + 1], headers)
            return
        self._send(200, data, _object_headers(path))

    def _list(self, bucket: str, query: dict[str, list[str]]) -> None:
        prefix = query.get("prefix", [""])[0]
        delimiter = query.get("delimiter", [""])[0]
        token = query.get("continuation-token", [""])[0]
        mode = self.server.mode
        if mode in ("endless-listing", "one-per-page"):
            page = int(token or "0")
            count = 1000 if mode == "endless-listing" else 1
            keys = [(f"{prefix}junk-{page}-{i}", 1) for i in range(count)]
            self._send(200, _listing(bucket, prefix, keys, [], f"{page + 1}"))
            return
        folder = self.server.root / bucket
        keys, prefixes = [], set()
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            key = path.relative_to(folder).as_posix()
            if not key.startswith(prefix):
                continue
            rest = key[len(prefix) :]
            if delimiter and delimiter in rest:
                prefixes.add(prefix + rest.split(delimiter)[0] + delimiter)
            else:
                keys.append((key, path.stat().st_size))
        self._send(200, _listing(bucket, prefix, keys, sorted(prefixes), None))


def _object_headers(path: Path) -> dict[str, str]:
    etag = hashlib.md5(path.read_bytes(), usedforsecurity=False).hexdigest()
    return {
        "ETag": f'"{etag}"',
        "Last-Modified": formatdate(path.stat().st_mtime, usegmt=True),
        "Content-Type": "application/octet-stream",
    }


def _listing(
    bucket: str, prefix: str, keys: list[tuple[str, int]], prefixes: list[str], token: str | None
) -> bytes:
    contents = "".join(
        f'<Contents><Key>{escape(key)}</Key><Size>{size}</Size><ETag>"e"</ETag>'
        "<LastModified>2024-01-01T00:00:00.000Z</LastModified>"
        "<StorageClass>STANDARD</StorageClass></Contents>"
        for key, size in keys
    )
    common = "".join(
        f"<CommonPrefixes><Prefix>{escape(p)}</Prefix></CommonPrefixes>" for p in prefixes
    )
    more = f"<NextContinuationToken>{token}</NextContinuationToken>" if token else ""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
        f"<Name>{escape(bucket)}</Name><Prefix>{escape(prefix)}</Prefix>"
        f"<KeyCount>{len(keys) + len(prefixes)}</KeyCount><MaxKeys>1000</MaxKeys>"
        f"<IsTruncated>{'true' if token else 'false'}</IsTruncated>{more}"
        f"{contents}{common}</ListBucketResult>"
    ).encode()


def _error(code: str, key: str) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
        f"<Message>{code}</Message><Key>{escape(key)}</Key></Error>"
    ).encode()


@contextlib.contextmanager
def serving(root: Path, mode: str, delay: float = 0) -> Iterator[LyingS3]:
    """The server, answering on a thread until the block ends."""
    server = LyingS3(root, mode, delay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
