"""File-system access that never leaves the repository and never hangs or crashes.

Every read goes through here: paths are checked to stay inside the repository root
(symlinks included), special files (FIFOs, devices) are refused instead of opened, and
OS errors become plain-words strings for a diagnostic.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from pbtxt_lint import storage

MAX_CONFIG_BYTES = 8 * 1024 * 1024


class FsError(Exception):
    """A path could not be read; the message is for a diagnostic."""


class Entry(NamedTuple):
    """One name in a folder (a tuple: a repository of 10,000 models lists many)."""

    name: str
    is_dir: bool
    is_symlink: bool
    outside: bool  # a symlink whose target is outside the repository (or broken/looping)


def is_inside(root: Path, path: Path) -> bool:
    """True if `path`, with every symlink resolved, stays inside `root`.

    Every path a check builds from a config (a label file, an environment archive, a
    model file) passes here before it is read, so this is also where a run that keeps
    results learns which entries of the repository a model's checks reach (`watch`).
    """
    try:
        resolved = path.resolve(strict=False)
    except (OSError, RuntimeError):
        return False
    inside = resolved == root or root in resolved.parents
    if inside and _watchers:
        _watchers[-1](root, path, resolved)
    return inside


PathWatcher = Callable[[Path, Path, Path], None]
"""Told (root, path as given, path resolved) of each path found inside its root."""

_watchers: list[PathWatcher] = []


@contextmanager
def watch(watcher: PathWatcher) -> Iterator[None]:
    """Tell `watcher` of every path `is_inside` lets through, until the block ends."""
    _watchers.append(watcher)
    try:
        yield
    finally:
        _watchers.remove(watcher)


def list_dir(root: Path, folder: Path) -> list[Entry]:
    """The entries of `folder`, sorted bytewise like Triton's std::set of names."""
    if storage.is_remote(folder):
        return _list_objects(folder)
    try:
        with os.scandir(folder) as iterator:
            raw = list(iterator)
    except OSError as error:
        raise FsError(describe_os_error(error, folder)) from None
    entries = []
    for item in raw:
        symlink = item.is_symlink()
        outside = symlink and not is_inside(root, Path(item.path))
        try:
            is_dir = item.is_dir(follow_symlinks=not outside)
        except OSError:
            is_dir = False
        entries.append(Entry(item.name, is_dir, symlink, outside))
    if all(entry.name.isascii() for entry in entries):
        entries.sort()  # names are unique, and ASCII sorts the same as its bytes
    else:
        entries.sort(key=lambda entry: entry.name.encode("utf-8", "surrogateescape"))
    return entries


def _list_objects(folder: Path) -> list[Entry]:
    """A prefix's names (objects and sub-prefixes); a bucket has no symlinks."""
    try:
        with storage.scandir(folder) as entries:
            return [Entry(e.name, e.is_dir(), False, False) for e in entries]
    except OSError as error:
        raise FsError(describe_os_error(error, folder)) from None


def read_text_file(
    root: Path, path: Path, limit: int = MAX_CONFIG_BYTES, *, known_inside: bool = False
) -> bytes:
    """Read a small regular file inside the repository, or raise FsError.

    `known_inside`: the caller listed every folder from `root` down and none of them,
    nor the file, is a symlink, so the (costly) resolution of the path is skipped.
    """
    if not known_inside and not is_inside(root, path):
        raise FsError(f"{path.name} is a symlink to a file outside the repository; not read")
    try:
        info = storage.stat(path)
    except OSError as error:
        raise FsError(describe_os_error(error, path)) from None
    if stat.S_ISDIR(info.st_mode):
        raise FsError(f"{path.name} is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise FsError(f"{path.name} is not a regular file (a FIFO, socket or device); not read")
    if info.st_size > limit:
        raise FsError(
            f"{path.name} is {info.st_size / 1024 / 1024:.1f} MiB, larger than the "
            f"{limit // 1024 // 1024} MiB pbtxt-lint reads; a model configuration is "
            "normally a few KiB"
        )
    try:
        return storage.read_whole(path, limit)
    except OSError as error:
        raise FsError(describe_os_error(error, path)) from None


def describe_os_error(error: OSError, path: Path) -> str:
    reason = error.strerror or type(error).__name__
    return f"cannot read {path.name}: {reason}"


@dataclass(frozen=True)
class FolderEntry:
    """A name in a model's sub-folder, as Triton's backend inference sees it."""

    name: str
    is_dir: bool
