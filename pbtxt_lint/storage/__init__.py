"""Where the bytes of a repository come from: the local disk or a cloud bucket.

The readers of model files and the repository code open files only through these
helpers. For a local path each one is exactly the system call the code made before
(`os.stat`, `open`, `os.scandir`, an mmap), so local runs are unchanged; for an
`ObjectPath` (a URL given on the command line, `storage.urls`) each asks the object's
store, which lists prefixes and reads ranges (`storage.remote`, `storage.ranged`).

    stat(path)        os.stat, or the object's size and kind from its folder's listing
    open_binary(path) open(path, "rb"), or a seekable file read by ranges
    map_file(path)    a read-only mmap, or a buffer read by ranges (same indexing)
    read_head(path)   the first bytes
    scandir(path)     os.scandir, or the folder's listing
"""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import stat as stat_module
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol, SupportsIndex, overload

from pbtxt_lint.storage.urls import ObjectPath, is_url, store_of


class Buffer(Protocol):
    """What the mmap walkers use: an mmap, or a RangedBuffer for a remote object."""

    def __len__(self) -> int: ...

    @overload
    def __getitem__(self, key: SupportsIndex) -> int: ...

    @overload
    def __getitem__(self, key: slice) -> bytes: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, kind: Any, error: Any, trace: Any, /) -> Any: ...

    def close(self) -> None: ...


class NotRegularFile(Exception):
    """map_file: the path is a folder, FIFO, socket or device."""


class EmptyFile(Exception):
    """map_file: the file has no bytes (an mmap cannot map it)."""


class MapFailed(Exception):
    """map_file: the file opened but could not be mapped; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def is_remote(path: Path) -> bool:
    return isinstance(path, ObjectPath)


def stat(path: Path) -> os.stat_result:
    """os.stat(path), for a local path or an object."""
    if isinstance(path, ObjectPath):
        return store_of(path).stat(path)
    return os.stat(path)


def lstat(path: Path) -> os.stat_result:
    """os.lstat(path); an object is never a link."""
    if isinstance(path, ObjectPath):
        return store_of(path).stat(path)
    return os.lstat(path)


def exists(path: Path) -> bool:
    """os.path.exists(path)."""
    if isinstance(path, ObjectPath):
        return path.exists()
    return os.path.exists(path)


def lexists(path: Path) -> bool:
    """os.path.lexists(path)."""
    if isinstance(path, ObjectPath):
        return path.exists()
    return os.path.lexists(path)


def open_binary(path: Path) -> BinaryIO:
    """open(path, "rb"); for an object a seekable file that reads only what is read."""
    if isinstance(path, ObjectPath):
        return io.BufferedReader(store_of(path).open(path), 65536)
    return open(path, "rb")


def read_head(path: Path, size: int) -> bytes:
    """The first `size` bytes (fewer if the file is shorter)."""
    if isinstance(path, ObjectPath):
        store = store_of(path)
        buffer = store.buffer(path)
        return buffer[: min(size, len(buffer))]
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def read_whole(path: Path, limit: int) -> bytes:
    """Up to `limit` + 1 bytes of a small file (a config, a model.py), read at once."""
    if isinstance(path, ObjectPath):
        return store_of(path).read_whole(path, limit)
    with open(path, "rb") as handle:
        return handle.read(limit + 1)


def map_file(path: Path) -> Buffer:
    """The file as a read-only buffer whose bytes are read only where it is indexed.

    Raises OSError (cannot open), NotRegularFile, EmptyFile or MapFailed.
    """
    if isinstance(path, ObjectPath):
        info = stat(path)
        if not stat_module.S_ISREG(info.st_mode):
            raise NotRegularFile()
        if info.st_size == 0:
            raise EmptyFile()
        return store_of(path).buffer(path)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat_module.S_ISREG(info.st_mode):
            raise NotRegularFile()
        if info.st_size == 0:
            raise EmptyFile()
        try:
            buf = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError, OverflowError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise MapFailed(reason) from None
        # Default readahead (often several MiB) would pull in the weights around every header.
        if hasattr(mmap, "MADV_RANDOM"):
            with contextlib.suppress(OSError):
                buf.madvise(mmap.MADV_RANDOM)
        return buf
    finally:
        os.close(fd)


class DirEntry:
    """An object-store stand-in for os.DirEntry (name, is_dir, is_file, is_symlink)."""

    __slots__ = ("_dir", "name", "path")

    def __init__(self, folder: ObjectPath, name: str, is_dir: bool) -> None:
        self.name = name
        self.path = str(folder / name)
        self._dir = is_dir

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return self._dir

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        return not self._dir

    def is_symlink(self) -> bool:
        return False


@contextlib.contextmanager
def scandir(path: Path) -> Iterator[Iterator[os.DirEntry[str] | DirEntry]]:
    """os.scandir(path) as a context manager, for a local folder or a prefix."""
    if isinstance(path, ObjectPath):
        entries = store_of(path).list(path)
        yield iter([DirEntry(path, e.name, e.is_dir) for e in entries])
        return
    with os.scandir(path) as iterator:
        yield iterator


__all__ = [
    "Buffer",
    "EmptyFile",
    "MapFailed",
    "NotRegularFile",
    "ObjectPath",
    "exists",
    "is_remote",
    "is_url",
    "lexists",
    "lstat",
    "map_file",
    "open_binary",
    "read_head",
    "read_whole",
    "scandir",
    "stat",
]
