"""A cloud store (S3, GCS or Azure Blob) read through fsspec, only as much as asked.

One `Store` per cloud endpoint of a run. It lists folders (prefixes) and keeps the
listings, so the many questions the checks ask about a model's files (does it exist,
how large is it, is it a folder) cost no request once the model is listed; it reads
small files whole and large ones through ranged GETs (`storage.ranged`), and counts
the requests and bytes of both. Every failure becomes an OSError whose message is what
the service said, with any secret blanked out: the repository code turns those into
diagnostics the way it does for local files. A store that loses its connection says
so once and fails every later request at once instead of waiting for each one.

Every request has a deadline, and S3 listings and ranged reads are bounded whatever
the service answers (`storage.bounded`). The client libraries (s3fs, gcsfs, adlfs: the
extras `pbtxt-lint[s3]`, `[gcs]`, `[azure]`) are imported here, when the first URL is
given, never by the core; what they log is not printed (a retry's traceback).
"""

from __future__ import annotations

import errno
import importlib.util
import logging
import os
import stat
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from pbtxt_lint.storage.bounded import (
    LISTING_SECONDS,
    REQUEST_SECONDS,
    RUN_SECONDS,
    ListingBudget,
    ListingTooLong,
    RangeIgnored,
    fetch_other,
    fetch_s3,
    within,
)
from pbtxt_lint.storage.credentials import CredentialError, Credentials, for_url
from pbtxt_lint.storage.ranged import RangedBuffer, RangedFile
from pbtxt_lint.storage.service_errors import (
    describe_failure,
    http_status,
    is_connection_error,
    not_found_message,
)
from pbtxt_lint.storage.urls import (
    Location,
    ObjectPath,
    is_url,
    object_path,
    parse_url,
    register,
    without_user_info,
)

T = TypeVar("T")
R = TypeVar("R")

EXTRAS = {"s3": ("s3fs", "s3"), "gs": ("gcsfs", "gcs"), "as": ("adlfs", "azure")}
"""The fsspec implementation each scheme needs, and the extra that installs it."""
SERVICES = {"s3": "S3", "gs": "Google Cloud Storage", "as": "Azure Blob Storage"}

CONCURRENCY = int(os.environ.get("PBTXT_LINT_REMOTE_CONCURRENCY", "") or 16)
"""Requests in flight at once: listings, config reads and model-file reads of different
models overlap, up to this many."""
CONNECT_TIMEOUT = 10
READ_TIMEOUT = 30
ATTEMPTS = 3
SMALL_BYTES = 1 << 20
SMALL_TOTAL = 64 << 20
"""Objects read whole up to SMALL_BYTES are kept, up to SMALL_TOTAL in all."""
WHOLE_REPORT_BYTES = 1 << 20
"""Objects read whole from this size up are named in --verbose and the JSON report."""


class MissingExtra(Exception):
    """The client library of a URL's cloud is not installed; the message names the extra."""


def open_store(location: Location, url: str) -> Store:
    """The store for a URL's cloud and endpoint (one per run), or MissingExtra."""
    module, extra = EXTRAS[location.scheme]
    if importlib.util.find_spec(module) is None:
        raise MissingExtra(
            f"{url}: reading {location.scheme}:// repositories needs the optional "
            f"dependency {module}: pip install 'pbtxt-lint[{extra}]'"
        )
    try:
        credentials = for_url(location, url)
    except CredentialError as error:
        raise MissingExtra(str(error)) from None
    return Store(location, credentials)


def as_path(text: str) -> Path:
    """A command-line PATH: an ObjectPath (its store registered) for a URL, else a Path.

    Raises UrlError for a URL Triton would not accept and MissingExtra when the cloud's
    optional dependencies are not installed.
    """
    if not is_url(text):
        return Path(text)
    location = parse_url(text)
    register(location, open_store(location, text))
    return object_path(location)


class Info(NamedTuple):
    """One name in a listing."""

    name: str
    is_dir: bool
    size: int
    mtime_ns: int
    etag: str


@dataclass
class ObjectRead:
    size: int
    fetched: int = 0
    requests: int = 0
    whole: bool = False


@dataclass
class Stats:
    """What a store asked of its service, for --verbose, the JSON report and the bench."""

    requests: int = 0
    bytes: int = 0
    listings: int = 0
    objects: dict[str, ObjectRead] = field(default_factory=dict)
    lost_connection: str | None = None


class Store:
    """One cloud endpoint's objects, listed and read on demand (thread-safe)."""

    def __init__(self, location: Location, credentials: Credentials) -> None:
        self.location = location
        self.scheme = location.scheme
        self.prefix = location.prefix
        self.service = SERVICES[location.scheme]
        self.credentials = credentials
        self.stats = Stats()
        self._fs: Any = None
        self._lock = threading.RLock()
        self._listings: dict[str, dict[str, Info]] = {}
        self._missing: set[str] = set()
        self._complete: set[str] = set()  # folders listed with everything below them
        self._down: str | None = None
        self._redact = [s for s in credentials.secrets if s]
        self._small: dict[str, bytes] = {}
        self._small_held = 0
        self._ends = time.monotonic() + RUN_SECONDS  # the run's budget on this endpoint
        self._listing_budget = ListingBudget()

    # -- the client -------------------------------------------------------------

    def _client(self) -> Any:
        with self._lock:
            if self._fs is None:
                fs = _make_fs(self.scheme, self.credentials.options)
                if self.scheme == "s3":
                    self._listing_budget.install(fs)
                self._fs = fs
            return self._fs

    def _call(self, what: str, path: str, action: Callable[[Any], Awaitable[T]]) -> T:
        """Run one request within its deadline; any failure becomes an OSError saying
        what the service said."""
        if self._down is not None:  # fail at once, naming the object and the first failure
            raise ConnectionError(
                errno.EHOSTUNREACH,
                f"cannot reach {self._endpoint()} to {what} {self.url_of(path)}: {self._down}",
            )
        left = self._ends - time.monotonic()
        seconds = min(LISTING_SECONDS if what == "list" else REQUEST_SECONDS, left)
        try:
            if seconds <= 0:
                raise TimeoutError(f"the run spent the {RUN_SECONDS:g} s it may wait on it")
            client = self._client()
            return within(client.loop, lambda: action(client), seconds)
        except Exception as error:  # every client library has its own exception tree
            raise self._translate(error, what, path) from None

    def _translate(self, error: BaseException, what: str, path: str) -> OSError:
        text = self._clean(describe_failure(error))
        url = self.url_of(path)
        lying = isinstance(error, (RangeIgnored, ListingTooLong))
        if lying or is_connection_error(error):
            # Once it stalls or lies, every later request fails at once: the run ends
            # about one deadline after the first, and says it is incomplete.
            endpoint = self._endpoint()
            what_it_did = "answered with what was not asked" if lying else "stopped answering"
            with self._lock:
                if self._down is None:
                    self._down = f"it {what_it_did} ({text})"
                    self.stats.lost_connection = f"{endpoint} {what_it_did} ({text})"
            return ConnectionError(
                errno.EHOSTUNREACH, f"cannot reach {endpoint} to {what} {url}: {text}"
            )
        if isinstance(error, FileNotFoundError) or http_status(error) == 404:
            return FileNotFoundError(errno.ENOENT, not_found_message(text, url))
        if isinstance(error, PermissionError) or http_status(error) in (401, 403):
            return PermissionError(errno.EACCES, f"{self.service} denied access to {url}: {text}")
        return OSError(errno.EIO, f"{self.service} failed to {what} {url}: {text}")

    def _endpoint(self) -> str:
        return self.location.endpoint or f"the {self.service} endpoint"

    def _clean(self, text: str) -> str:
        for secret in self._redact:
            text = text.replace(secret, "***")
        return " ".join(without_user_info(text).split())[:300]

    # -- names ------------------------------------------------------------------

    @staticmethod
    def key_of(path: ObjectPath) -> str:
        """The fsspec path: `bucket/key`."""
        return "/".join(path.parts[1:])

    def url_of(self, key: str) -> str:
        return self.prefix + key

    # -- listings ---------------------------------------------------------------

    def list(self, folder: ObjectPath) -> list[Info]:
        """The names in a folder (prefix), sorted bytewise like Triton's std::set."""
        key = self.key_of(folder)
        listing = self._listing(key)
        return sorted(listing.values(), key=lambda info: info.name.encode("utf-8"))

    def _listing(self, key: str) -> dict[str, Info]:
        with self._lock:
            cached = self._listings.get(key)
            if cached is not None:
                return cached
            if key in self._missing or self._under_complete(key):
                raise FileNotFoundError(
                    errno.ENOENT, f"no object under {self.url_of(key)}/ (no such folder)"
                )
        entries = self._call("list", key, lambda fs: fs._ls(key, detail=True))
        listing: dict[str, Info] = {}
        for item in entries:
            info = _info(item, key)
            if info is not None and info.name not in listing:
                listing[info.name] = info
        with self._lock:
            self.stats.requests += 1
            self.stats.listings += 1
            if not listing:
                self._missing.add(key)
                raise FileNotFoundError(
                    errno.ENOENT, f"no object under {self.url_of(key)}/ (no such folder)"
                )
            return self._listings.setdefault(key, listing)

    def _under_complete(self, key: str) -> bool:
        return any(key == done or key.startswith(done + "/") for done in self._complete)

    def list_tree(self, folder: ObjectPath) -> None:
        """List everything under `folder` in one paginated listing; later questions
        about any folder below it are answered from it."""
        key = self.key_of(folder)
        with self._lock:
            if self._under_complete(key) or key in self._missing:
                return
        found = self._call("list", key, lambda fs: fs._find(key, detail=True, withdirs=True))
        tree: dict[str, dict[str, Info]] = {key: {}}
        for name, item in found.items():
            full = str(item.get("name", name)).rstrip("/")
            if not full.startswith(key + "/"):
                continue
            parent, _, leaf = full.rpartition("/")
            is_dir = item.get("type") == "directory"
            tree.setdefault(parent, {})[leaf] = _make_info(leaf, is_dir, item)
            while parent != key and parent.startswith(key + "/"):  # implied folders
                grand, _, base = parent.rpartition("/")
                siblings = tree.setdefault(grand, {})
                if base in siblings and siblings[base].is_dir:
                    break
                siblings[base] = Info(base, True, 0, 0, "")
                parent = grand
        for folder_key, listing in list(tree.items()):  # empty folders (marker objects)
            for name, info in listing.items():
                if info.is_dir:
                    tree.setdefault(f"{folder_key}/{name}", {})
        with self._lock:
            self.stats.requests += 1
            self.stats.listings += 1
            if not tree[key]:
                self._missing.add(key)
                return
            for folder_key, listing in tree.items():
                self._listings.setdefault(folder_key, listing)
            self._complete.add(key)

    def stat(self, path: ObjectPath) -> os.stat_result:
        """A stat_result from the parent's listing (a folder is a prefix).

        A path whose parent is not listed yet is first listed as a folder itself, as
        Triton's IsDirectory does (a policy may allow listing `models/` but not the
        bucket's top level).
        """
        parts = path.parts
        if len(parts) <= 2:  # the store itself, or a bucket: a folder if it lists
            if len(parts) == 2:
                self._listing(self.key_of(path))
            return _stat_result(Info(path.name, True, 0, 0, ""))
        parent_key = self.key_of(path.parent)
        with self._lock:
            known = parent_key in self._listings or self._under_complete(parent_key)
        if not known:
            try:
                self._listing(self.key_of(path))
            except FileNotFoundError:
                pass
            else:
                return _stat_result(Info(path.name, True, 0, 0, ""))
        parent = self._listing(parent_key)
        info = parent.get(path.name)
        if info is None:
            raise FileNotFoundError(
                errno.ENOENT, f"{self.url_of(self.key_of(path))} does not exist"
            )
        return _stat_result(info)

    # -- reads ------------------------------------------------------------------

    def _size(self, path: ObjectPath) -> int:
        result = self.stat(path)
        if stat.S_ISDIR(result.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"{path} is a folder (a prefix), not an object")
        return result.st_size

    def fetch(self, key: str, start: int, end: int) -> bytes:
        """The bytes [start, end) of an object: one ranged GET."""
        fetch = fetch_s3 if self.scheme == "s3" else fetch_other
        data: bytes = self._call("read", key, lambda fs: fetch(fs, key, start, end))
        with self._lock:
            self.stats.requests += 1
            self.stats.bytes += len(data)
            read = self.stats.objects.get(key)
            if read is not None:
                read.fetched += len(data)
                read.requests += 1
        return data

    def _track(self, key: str, size: int, whole: bool = False) -> None:
        with self._lock:
            read = self.stats.objects.setdefault(key, ObjectRead(size))
            read.whole = read.whole or whole

    def buffer(self, path: ObjectPath) -> RangedBuffer:
        """The object as a buffer read by ranges (what an mmap is for a local file)."""
        size = self._size(path)
        key = self.key_of(path)
        self._track(key, size)
        return RangedBuffer(lambda start, end: self.fetch(key, start, end), size)

    def open(self, path: ObjectPath) -> RangedFile:
        return RangedFile(self.buffer(path), str(path))

    def read_whole(self, path: ObjectPath, limit: int | None = None) -> bytes:
        """A small object's bytes (up to `limit` + 1 of them): one GET, kept when small
        (a report quoting a config's lines reads it again)."""
        size = self._size(path)
        key = self.key_of(path)
        end = size if limit is None else min(size, limit + 1)
        with self._lock:
            kept = self._small.get(key)
        if kept is not None and len(kept) >= end:
            return kept[:end]
        self._track(key, size, whole=end >= size)
        data = self.fetch(key, 0, end) if end > 0 else b""
        if end >= size and size <= SMALL_BYTES:
            with self._lock:
                if self._small_held + size <= SMALL_TOTAL:
                    self._small[key] = data
                    self._small_held += size
        return data


# -- helpers --------------------------------------------------------------------


_LIBRARY_LOGGERS = ("s3fs", "gcsfs", "adlfs", "fsspec", "aiobotocore", "botocore", "azure")


def _make_fs(scheme: str, options: dict[str, Any]) -> Any:
    """The fsspec file system, with bounded timeouts and retries and no caching of its
    own (the store keeps the listings); its library's log lines are not printed."""
    for name in _LIBRARY_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    common = {"skip_instance_cache": True, "use_listings_cache": False}
    if scheme == "s3":
        import s3fs  # deferred: the s3 extra

        config = {
            "connect_timeout": CONNECT_TIMEOUT,
            "read_timeout": READ_TIMEOUT,
            "retries": {"max_attempts": 1, "mode": "standard"},  # s3fs retries
            "max_pool_connections": CONCURRENCY,
            # Triton's client uses path-style addressing (s3.h: useVirtualAdressing false).
            "s3": {"addressing_style": "path"},
        }
        fs = s3fs.S3FileSystem(config_kwargs=config, **common, **options)
        fs.retries = ATTEMPTS
        return fs
    if scheme == "gs":
        # Deferred: the gcs extra. The JSON-API file system itself, as Triton's client
        # speaks (gcsfs's default class first probes each bucket over gRPC).
        from gcsfs.core import GCSFileSystem

        return GCSFileSystem(
            timeout=READ_TIMEOUT, requests_timeout=READ_TIMEOUT, **common, **options
        )
    import adlfs  # deferred: the azure extra

    return adlfs.AzureBlobFileSystem(
        connection_timeout=CONNECT_TIMEOUT, read_timeout=READ_TIMEOUT, **common, **options
    )


def _info(item: dict[str, Any], folder: str) -> Info | None:
    full = str(item.get("name", "")).rstrip("/")
    if not full.startswith(folder + "/"):
        return None  # the folder's own marker object
    leaf = full[len(folder) + 1 :]
    if not leaf or "/" in leaf:
        return None
    return _make_info(leaf, item.get("type") == "directory", item)


def _make_info(name: str, is_dir: bool, item: dict[str, Any]) -> Info:
    size = item.get("size") or 0
    etag = item.get("ETag") or item.get("etag") or ""
    when = item.get("LastModified") or item.get("last_modified") or item.get("updated")
    return Info(name, is_dir, int(size) if not is_dir else 0, _nanoseconds(when), str(etag))


def _nanoseconds(value: Any) -> int:
    if isinstance(value, datetime):
        return int(value.timestamp() * 1e9)
    if isinstance(value, str):
        try:
            return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1e9)
        except ValueError:
            return 0
    return 0


def _stat_result(info: Info) -> os.stat_result:
    mode = (stat.S_IFDIR | 0o555) if info.is_dir else (stat.S_IFREG | 0o444)
    seconds = info.mtime_ns // 1_000_000_000
    return os.stat_result(
        (mode, 0, 0, 1, 0, 0, info.size, seconds, seconds, seconds),
        {"st_mtime_ns": info.mtime_ns},
    )


def run_concurrently(work: Callable[[T], R], items: Iterable[T]) -> list[R | BaseException]:
    """`work(item)` for every item, CONCURRENCY at a time; results (or the exception
    each raised) in the items' order."""
    items = list(items)
    if not items:
        return []

    def guarded(item: T) -> R | BaseException:
        try:
            return work(item)
        except Exception as error:  # reported by the caller, item by item
            return error

    if len(items) == 1 or CONCURRENCY <= 1:
        return [guarded(item) for item in items]
    with ThreadPoolExecutor(min(CONCURRENCY, len(items))) as pool:
        return list(pool.map(guarded, items))
