"""The cache folder: where it is, and reading and writing it without trusting it.

The folder is the user's (`default_directory`), never inside a checked repository
(`refuse_inside`). pbtxt-lint creates it (0700) and marks it with `CACHEDIR.TAG`; it
uses an existing folder only if that mark is there (or the folder is empty). The folder
is opened once without following links, and every entry relative to it: read only if
it is a regular file of the user's, of bounded size, opened without following links or
blocking (a FIFO is a miss, never a hang); written under a fresh name and renamed
(atomic, and a link planted under the final name is replaced, not followed); pruned
only if it is named like a cache file. Files are sealed with a key kept outside the
folder (`key_path`, 0600), so an edited or copied file is never believed, nor parsed.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import os
import re
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

FORMAT = 2
"""The version of the cache files (their layout, and what a key covers)."""
MAX_FILES = 64
"""Cache files kept (one per repository and settings); the least recently written go."""
MAX_FILE_BYTES = 64 << 20
"""A cache file larger than this is not read."""
TAG_NAME = "CACHEDIR.TAG"
TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by pbtxt-lint.\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
_CACHE_FILE = re.compile(r"[0-9a-f]{32}\.json")
_TEMPORARY = re.compile(r"\.(?:[0-9a-f]{32}\.json|CACHEDIR\.TAG)\.[0-9]+\.[0-9a-f]{16}\.tmp")
"""A file being written (by `CacheFolder.write`), renamed when complete."""
_TAG_START = "\n".join(TAG.split("\n")[:2])
"""What a tag of pbtxt-lint starts with, whatever version wrote it."""
_MAGIC = b"pbtxt-lint cache %d\n" % FORMAT
_PERSON = b"pbtxt-lint cache"  # blake2b's personalisation: a key used for nothing else


class CacheError(Exception):
    """A cache folder pbtxt-lint refuses to use (the message is one line, for the user)."""


def default_directory() -> Path | None:
    """The user's cache folder for pbtxt-lint; None without a home folder."""
    base = os.environ.get("XDG_CACHE_HOME")
    if base and os.path.isabs(base):
        return Path(base) / "pbtxt-lint"
    home = _home()
    return home / ".cache" / "pbtxt-lint" if home is not None else None


def key_path() -> Path | None:
    """Where the key that authenticates cache files is kept (outside the cache folder)."""
    base = os.environ.get("XDG_STATE_HOME")
    if base and os.path.isabs(base):
        return Path(base) / "pbtxt-lint" / "cache-key"
    home = _home()
    return home / ".local" / "state" / "pbtxt-lint" / "cache-key" if home is not None else None


def _home() -> Path | None:
    try:
        home = Path.home()
    except (RuntimeError, KeyError):
        return None
    return home if home.is_absolute() and str(home) != "/" else None


def refuse_inside(directory: Path, roots: Iterable[Path]) -> None:
    """Raise CacheError if `directory` lies inside one of the repositories `roots`:
    Triton would take it for a model folder (or its files for a model's)."""
    root = _container(directory, roots)
    if root is not None:
        raise CacheError(
            f"{directory}: the cache folder is inside the model repository {root}, "
            "where Triton would try to load it as a model; choose a folder outside it"
        )


def _container(path: Path, roots: Iterable[Path]) -> Path | None:
    """The repository of `roots` that `path` lies in (links resolved), if any."""
    where = Path(os.path.abspath(path))
    with contextlib.suppress(OSError, RuntimeError):
        where = where.resolve()
    return next((root for root in roots if root == where or root in where.parents), None)


def _supported() -> bool:
    """Links are refused and entries opened relative to the folder (POSIX)."""
    return (
        hasattr(os, "O_NOFOLLOW")
        and hasattr(os, "O_DIRECTORY")
        and os.open in os.supports_dir_fd
        and os.unlink in os.supports_dir_fd
        and os.scandir in os.supports_fd
    )


class CacheFolder:
    """The cache folder, opened once without following links, and the key of its files.

    `open` raises CacheError for a folder pbtxt-lint must not use (inside a checked
    repository, a link, another user's, writable by others, an existing folder that is
    not a pbtxt-lint cache) and returns None when no cache can be kept (no home folder, a
    read-only disk, no key, or a key that would have to be written inside a checked
    repository).
    """

    def __init__(self, descriptor: int, key: bytes) -> None:
        self._descriptor = descriptor
        self._key = key

    @classmethod
    def open(cls, directory: Path, repositories: Iterable[Path] = ()) -> CacheFolder | None:
        """The folder `directory` for a run that checks `repositories` (their roots):
        neither the folder nor the key may lie inside one of them."""
        roots = list(repositories)
        refuse_inside(directory, roots)
        if not _supported():
            return None
        path = key_path()
        if path is None or _container(path, roots) is not None:
            return None  # the key would be written inside a checked repository
        key = _key(path)
        if key is None:
            return None
        try:
            directory.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            created = _make_folder(directory)
            descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError as error:
            if error.errno in (errno.ELOOP, errno.ENOTDIR):
                raise CacheError(
                    f"{directory}: the cache folder is a symbolic link or not a folder; "
                    "pbtxt-lint keeps its cache only in a folder it created"
                ) from None
            return None
        folder = cls(descriptor, key)
        try:
            folder._check(directory, created)
        except OSError:  # the mark cannot be written: no cache
            folder.close()
            return None
        except BaseException:
            folder.close()
            raise
        return folder

    def _check(self, directory: Path, created: bool) -> None:
        info = os.fstat(self._descriptor)
        if info.st_uid != os.geteuid():
            raise CacheError(f"{directory}: the cache folder belongs to another user")
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            raise CacheError(
                f"{directory}: the cache folder is writable by other users (chmod go-w it)"
            )
        tag = self.read(TAG_NAME, 4096)
        if tag is not None and tag.decode("utf-8", "replace").startswith(_TAG_START):
            return
        if tag is None and (created or all(_TEMPORARY.fullmatch(n) for n in self._names())):
            # A new or empty folder becomes ours (empty but for what a concurrent first
            # run is writing).
            self.write(TAG_NAME, TAG.encode())
            return
        raise CacheError(
            f"{directory}: this folder exists and is not a pbtxt-lint cache (no "
            f"{TAG_NAME} of pbtxt-lint in it); pbtxt-lint keeps its results only in a "
            "folder it created: choose another cache folder"
        )

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._descriptor)

    def _names(self) -> Iterator[str]:
        with os.scandir(self._descriptor) as listing:
            for entry in listing:
                yield entry.name

    def read(self, name: str, limit: int = MAX_FILE_BYTES) -> bytes | None:
        """The bytes of entry `name` if it is a regular file of the user's, at most
        `limit` bytes long; None otherwise (missing, a link, a FIFO, too large...)."""
        return _read_own(name, limit, self._descriptor)

    def write(self, name: str, data: bytes) -> None:
        """Replace entry `name` atomically with a file of ours (OSError if it cannot)."""
        temporary = f".{name}.{os.getpid()}.{os.urandom(8).hex()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        handle = os.open(temporary, flags, 0o600, dir_fd=self._descriptor)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(handle, view) :]
            finally:
                os.close(handle)
            os.replace(temporary, name, src_dir_fd=self._descriptor, dst_dir_fd=self._descriptor)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=self._descriptor)
            raise

    def prune(self) -> None:
        """Keep the `MAX_FILES` most recently written cache files; remove temporary files
        of runs that died an hour ago or more. Nothing else is ever removed."""
        files: list[tuple[int, str]] = []
        stale = time.time() - 3600
        with os.scandir(self._descriptor) as listing:
            for entry in listing:
                ours = _CACHE_FILE.fullmatch(entry.name)
                if not ours and not _TEMPORARY.fullmatch(entry.name):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
                    continue
                if ours:
                    files.append((info.st_mtime_ns, entry.name))
                elif info.st_mtime < stale:
                    self._remove(entry.name)
        files.sort(reverse=True)
        for _, name in files[MAX_FILES:]:
            self._remove(name)

    def _remove(self, name: str) -> None:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=self._descriptor)

    def seal(self, body: bytes) -> bytes:
        """A cache file: its format, the body's authentication code, the body."""
        return _MAGIC + self._code(body).encode() + b"\n" + body

    def unseal(self, data: bytes) -> bytes | None:
        """The body of a cache file this key sealed; None for anything else."""
        if not data.startswith(_MAGIC):
            return None
        code, newline, body = data[len(_MAGIC) :].partition(b"\n")
        if not newline or not hmac.compare_digest(code, self._code(body).encode()):
            return None
        return body

    def _code(self, body: bytes) -> str:
        return hashlib.blake2b(body, key=self._key, person=_PERSON, digest_size=32).hexdigest()


def _make_folder(directory: Path) -> bool:
    """Create the cache folder (0700); False if something is already there."""
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        return False
    return True


def _key(path: Path) -> bytes | None:
    """The user's key for cache files at `path`, created on first use; None if it cannot
    be read safely (a link, another user's, readable by others, not 32 bytes) or made."""
    key = _read_key(path)
    if key is not None:
        return key
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(8).hex()}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        handle = os.open(temporary, flags, 0o600)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(os.urandom(32))
            with contextlib.suppress(FileExistsError):  # another run made it first
                os.link(temporary, path)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    except OSError:
        return None
    return _read_key(path)


def _read_key(path: Path) -> bytes | None:
    key = _read_own(path, 32, secret=True)
    return key if key is not None and len(key) == 32 else None


def _read_own(
    path: str | Path, limit: int, folder: int | None = None, *, secret: bool = False
) -> bytes | None:
    """The bytes of a regular file of the user's, at most `limit` long, opened without
    following a link or blocking (relative to the open `folder`, if given); None for
    anything else. `secret`: also None if others may read it (as ssh treats a key)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            return None
        if info.st_size > limit or (secret and info.st_mode & 0o077):
            return None
        chunks = []
        remaining = limit + 1
        while remaining > 0 and (chunk := os.read(handle, min(remaining, 1 << 20))):
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(handle)
