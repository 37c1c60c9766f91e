"""Cloud repository URLs, parsed as Triton parses them, and the paths of their objects.

Triton accepts `--model-repository` URLs of three clouds (triton-inference-server/core,
src/filesystem/implementations/):

- `s3://bucket/path`, and an S3-compatible endpoint written into the URL:
  `s3://host:port/bucket/path`, optionally `s3://http://host:port/...` or `https://`
  (s3.h, `S3FileSystem::CleanPath` and the `s3_regex_` of its constructor: extra slashes
  collapse; without a scheme the endpoint is spoken to over plain HTTP; path-style
  addressing);
- `gs://bucket/path` (gcs.h, `GCSFileSystem::ParsePath`);
- `as://account/container/path` (as.h, `AS_URL_PATTERN`; the account may be written as
  `account.blob.core.windows.net`, and `AZURE_STORAGE_ACCOUNT` overrides it).

An object is addressed by an `ObjectPath`: a `pathlib.Path` whose first part names the
store (the cloud and endpoint) and whose other parts are the bucket and the key's
segments, so the repository code joins, compares and names objects exactly as it does
local files; `str()` gives the URL back. Its file-system methods (`exists`, `stat`,
`open`, ...) ask the store, so code written against local paths reads objects without
knowing it. Nothing here imports a cloud library: `pbtxt_lint.storage.remote` does, and
only once an object is read.
"""

from __future__ import annotations

import io
import os
import posixpath
import re
import stat as stat_module
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path, PosixPath
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pbtxt_lint.storage.remote import Store

SCHEMES = ("s3", "gs", "as")

# s3.h, S3FileSystem's constructor: the endpoint form; anything else is bucket/object.
_S3_ENDPOINT = re.compile(
    r"s3://(http://|https://|)([0-9a-zA-Z\-.]+):([0-9]+)/([0-9a-z.\-]+)(((/[0-9a-zA-Z.\-_]+)*)?)"
)
_HOST_PORT = re.compile(r"[0-9a-zA-Z\-.]+:[0-9]+")
# as.h, AS_URL_PATTERN.
_AS_URL = re.compile(r"as://([^/]+)/([^/?]+)(?:/([^?]*))?(\?.*)?")
_AZURE_HOST_SUFFIX = ".blob.core.windows.net"


class UrlError(ValueError):
    """A URL Triton would not accept; the message says why."""


def is_url(text: str) -> bool:
    """`s3://`, `gs://` or `as://`: a repository Triton reads from a cloud."""
    return text.startswith(tuple(f"{scheme}://" for scheme in SCHEMES))


@dataclass(frozen=True)
class Location:
    """Where a parsed URL points: the store (cloud, endpoint or account) and the key."""

    scheme: str
    endpoint: str | None
    """`http://host:port` for an S3-compatible endpoint written in the URL; the Azure
    account's blob endpoint; None for the cloud's own."""
    account: str | None
    """Azure's storage account (from the URL, or AZURE_STORAGE_ACCOUNT)."""
    prefix: str
    """The URL up to the bucket: `s3://`, `s3://http://host:9000/`, `as://account/`."""
    bucket: str
    key: str
    """The object key or folder prefix inside the bucket, without slashes at either end."""

    @property
    def token(self) -> str:
        """The first part of the store's ObjectPaths: the prefix without slashes."""
        return self.prefix.replace("/", "")


_USER_INFO = re.compile(r"(?<=://)[^/@\s]*@")


def without_user_info(text: str) -> str:
    """`text` with the user-info of every URL in it (`KEY:SECRET@`) blanked to `***@`."""
    return _USER_INFO.sub("***@", text)


def parse_url(url: str) -> Location:
    """Split a repository URL the way Triton does, or raise UrlError."""
    shown = without_user_info(url)
    if shown != url:  # never echoed: the part before '@' is a secret more often than not
        raise UrlError(
            f"{shown}: Triton reads no credentials from a repository URL (it takes what "
            "comes before '@' for part of the bucket name); give them in the environment "
            "or in the file TRITON_CLOUD_CREDENTIAL_PATH names"
        )
    if url.startswith("s3://"):
        return _parse_s3(url)
    if url.startswith("gs://"):
        return _parse_gs(url)
    if url.startswith("as://"):
        return _parse_as(url)
    raise UrlError(f"not a cloud URL: {url} (Triton reads s3://, gs:// and as://)")


def _clean(rest: str) -> str:
    """Leading, trailing and repeated slashes dropped (s3.h, CleanPath)."""
    return "/".join(part for part in rest.split("/") if part)


def _parse_s3(url: str) -> Location:
    rest = url[len("s3://") :]
    protocol = ""
    for candidate in ("https://", "http://"):
        if rest.startswith(candidate):
            protocol, rest = candidate, rest[len(candidate) :]
            break
    clean = _clean(rest)
    if not clean:
        raise UrlError(f"no bucket name in {url}")
    match = _S3_ENDPOINT.fullmatch(f"s3://{protocol}{clean}")
    if match:
        host, port, bucket, key = match.group(2), match.group(3), match.group(4), match.group(5)
        scheme = "https" if protocol == "https://" else "http"
        return Location(
            "s3",
            f"{scheme}://{host}:{port}",
            None,
            f"s3://{protocol}{host}:{port}/",
            bucket,
            key.strip("/"),
        )
    bucket, _, key = clean.partition("/")
    if _HOST_PORT.fullmatch(bucket):
        # Triton reads an endpoint only when every character of the path is one its
        # regular expression allows; otherwise `host:port` becomes the bucket name.
        raise UrlError(
            f"{url}: Triton takes '{bucket}' as the bucket name here, not as an endpoint: "
            "it reads s3://host:port/bucket/path as an endpoint only when the bucket is "
            "lower-case letters, digits, '.' and '-' and the path letters, digits, '.', "
            "'-' and '_'"
        )
    return Location("s3", None, None, "s3://", bucket, key)


def _parse_gs(url: str) -> Location:
    rest = url[len("gs://") :]
    bucket, _, key = rest.partition("/")
    if not bucket:
        raise UrlError(f"no bucket name in {url}")
    return Location("gs", None, None, "gs://", bucket, _clean(key))


def _parse_as(url: str) -> Location:
    match = _AS_URL.fullmatch(url)
    if not match:
        raise UrlError(f"{url} is not as://account/container/path (Triton's Azure form)")
    host, container, key = match.group(1), match.group(2), match.group(3) or ""
    account = os.environ.get("AZURE_STORAGE_ACCOUNT") or (
        host[: -len(_AZURE_HOST_SUFFIX)] if host.endswith(_AZURE_HOST_SUFFIX) else host
    )
    return Location(
        "as",
        f"https://{account}{_AZURE_HOST_SUFFIX}",
        account,
        f"as://{host}/",
        container,
        _clean(key),
    )


_STORES: dict[str, Store] = {}
"""The stores of this run by token; forked workers inherit them."""


def register(location: Location, store: Store) -> None:
    _STORES.setdefault(location.token, store)


def store_of(path: ObjectPath) -> Store:
    return _STORES[path.parts[0]]


def object_path(location: Location) -> ObjectPath:
    """The ObjectPath of a parsed URL (its store must be registered to be read)."""
    parts = [location.bucket, *(p for p in location.key.split("/") if p)]
    return ObjectPath(location.token, *parts)


class ObjectPath(PosixPath):
    """An object or folder prefix in a bucket, as a Path (see the module docstring).

    Folders are prefixes: a "folder" exists when some object's key starts with it.
    There are no symbolic links; `..` is resolved lexically.
    """

    # pathlib's own slots; the store is looked up by the first part, so a path made
    # by `/`, `.parent` or unpickling in another process needs no extra state.
    __slots__ = ()

    def _store(self) -> Store:
        return store_of(self)

    @property
    def url(self) -> str:
        return str(self)

    @property
    def key(self) -> str:
        """The object key (folder prefix) inside the bucket."""
        return "/".join(self.parts[2:])

    @property
    def bucket(self) -> str:
        return self.parts[1] if len(self.parts) > 1 else ""

    def __str__(self) -> str:
        parts = self.parts
        store = _STORES.get(parts[0]) if parts else None
        if store is None:  # not rooted at a store (made by hand): plain segments
            return "/".join(parts)
        return store.prefix + "/".join(parts[1:])

    def relative_to(self, other: Any, *_: Any, **__: Any) -> Path:  # type: ignore[override]
        """The key's segments below `other`, as a plain relative path."""
        mine = self.parts
        theirs = other.parts if isinstance(other, ObjectPath) else Path(other).parts
        if mine[: len(theirs)] != theirs:
            raise ValueError(f"{self} is not under {other}")
        return Path(*mine[len(theirs) :])

    def __fspath__(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"ObjectPath({str(self)!r})"

    def as_posix(self) -> str:
        return str(self)

    def as_uri(self) -> str:
        return str(self)

    def is_absolute(self) -> bool:
        return True

    def absolute(self) -> ObjectPath:
        return self

    def resolve(self, strict: bool = False) -> ObjectPath:
        """`..` removed lexically (a key never escapes its bucket)."""
        if ".." not in self.parts and "." not in self.parts:
            return self
        inner = posixpath.normpath("/" + "/".join(self.parts[1:])).strip("/")
        return ObjectPath(self.parts[0], *[p for p in inner.split("/") if p])

    def expanduser(self) -> ObjectPath:
        return self

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        return self._store().stat(self)

    def lstat(self) -> os.stat_result:
        return self.stat()

    def exists(self, *, follow_symlinks: bool = True) -> bool:
        try:
            self.stat()
        except (FileNotFoundError, NotADirectoryError):
            return False
        return True

    def is_file(self) -> bool:
        try:
            return stat_module.S_ISREG(self.stat().st_mode)
        except OSError:
            return False

    def is_dir(self) -> bool:
        try:
            return stat_module.S_ISDIR(self.stat().st_mode)
        except OSError:
            return False

    def is_symlink(self) -> bool:
        return False

    def is_mount(self) -> bool:
        return False

    def iterdir(self) -> Generator[ObjectPath, None, None]:
        for entry in self._store().list(self):
            yield self / entry.name

    def open(  # type: ignore[override]
        self,
        mode: str = "r",
        buffering: int = -1,
        encoding: str | None = None,
        errors: str | None = None,
        newline: str | None = None,
    ) -> IO[Any]:
        if set(mode) - set("rbt"):
            raise PermissionError(f"{self} is read-only: pbtxt-lint never writes to a bucket")
        handle = io.BufferedReader(self._store().open(self), buffering if buffering > 1 else 65536)
        if "b" in mode:
            return handle
        return io.TextIOWrapper(handle, encoding=encoding or "utf-8", errors=errors)

    def read_bytes(self) -> bytes:
        return self._store().read_whole(self)

    def read_text(self, encoding: str | None = None, errors: str | None = None) -> str:
        return self.read_bytes().decode(encoding or "utf-8", errors or "strict")
