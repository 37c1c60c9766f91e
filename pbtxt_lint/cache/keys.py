"""Cache keys: what a kept outcome was computed from, recomputed from the disk.

A component of models (`pbtxt_lint.cache`) is keyed by the settings, pbtxt-lint's code
and, for each member, `folder_key`: its config files' bytes and the name, kind, size,
times and inode of every entry of its folder, at any depth, never looking through a
link that leaves the repository. A component in which a check looked over every model
is keyed by every entry of the repository too.
"""

from __future__ import annotations

import dataclasses
import enum
import errno
import hashlib
import json
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pbtxt_lint import __version__
from pbtxt_lint.analysis.reads import is_entry_name
from pbtxt_lint.repository.layout import Repository, Target

MAX_ENTRIES = 4000
"""Entries of one repository entry (a model folder, at any depth) that a key may cover."""
_CONFIG_LIMIT = 1 << 24
"""Bytes of a config file or a named file that count (beyond it, its identity does)."""
PACKAGE = Path(__file__).resolve().parent.parent


def code_identity() -> str:
    """pbtxt-lint's version and the identity of its own files: a change of the code
    (a new release, or an edited checkout) invalidates every entry."""
    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    for folder, subfolders, files in os.walk(PACKAGE):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".json", ".toml")):
                info = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


def settings_key(settings: object) -> str:
    """A stable text for a settings dataclass (sets sorted, paths as strings), with the
    bytes of every file a setting names (`--python-packages`): the checks read them."""
    return json.dumps([_plain(settings), _named_files(settings)], sort_keys=True)


def _named_files(settings: object) -> list[str]:
    named = []
    if dataclasses.is_dataclass(settings):
        for field in dataclasses.fields(settings):
            value = getattr(settings, field.name)
            if isinstance(value, Path):
                named.append(f"{field.name}:{_file_key(value)}")
    return named


def _file_key(path: Path) -> str:
    try:
        with path.open("rb") as stream:
            data = stream.read(_CONFIG_LIMIT)
        resolved = path.resolve()
    except (OSError, RuntimeError) as error:
        return f"{path}:unreadable:{getattr(error, 'errno', None)}"
    return f"{resolved}:{hashlib.blake2b(data, digest_size=16).hexdigest()}"


def _plain(value: object) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (frozenset, set)):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def folder_key(path: str, root: str) -> str | None:
    """The key of one entry of a repository (a model folder, or a file or folder beside
    them), at any depth; None when it holds more than `MAX_ENTRIES` entries.

    Config files (`*.pbtxt`, `*.json` in a model folder and its `configs/`) count by
    their bytes, every other entry by name, kind, size, times and inode. A link counts
    as its target when that is inside the repository, else as the text of the link:
    nothing outside the repository is looked at.
    """
    digest = hashlib.blake2b(digest_size=16)
    try:
        top = os.lstat(path)
    except OSError as error:
        return "absent" if error.errno == errno.ENOENT else f"unreadable:{error.errno}"
    if stat.S_ISLNK(top.st_mode):
        target = _inside(path, root)
        if target is None:
            return f"link:{_readlink(path)}"
        digest.update(f"link:{_readlink(path)};".encode())
        path = target
    elif not stat.S_ISDIR(top.st_mode):
        return _identity(path, top)
    entries = 0
    pending = [(path, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as listing:
                found = sorted(listing, key=lambda e: e.name)
        except OSError as error:
            digest.update(f"{folder}:unlistable:{error.errno};".encode())
            continue
        for entry in found:
            entries += 1
            if entries > MAX_ENTRIES:
                return None
            digest.update(_entry_key(entry, depth, root, pending).encode())
    return digest.hexdigest()


def _entry_key(
    entry: os.DirEntry[str], depth: int, root: str, pending: list[tuple[str, int]]
) -> str:
    """One entry of a folder being keyed (sub-folders are added to `pending`)."""
    path = entry.path
    try:
        info = entry.stat(follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            target = _inside(path, root)
            if target is None:
                return f"{path}:link:{_readlink(path)};"
            info = os.stat(target)
            if stat.S_ISDIR(info.st_mode):
                pending.append((target, depth + 1))
                return f"{path}:link:{_readlink(path)}/;"
        if stat.S_ISDIR(info.st_mode):
            pending.append((path, depth + 1))
            return f"{path}/;"
        if depth < 2 and stat.S_ISREG(info.st_mode) and entry.name.endswith((".pbtxt", ".json")):
            handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # unbuffered: one read call
            try:
                data = os.read(handle, min(info.st_size, _CONFIG_LIMIT))
            finally:
                os.close(handle)
            return f"{path}:{info.st_size}:{hashlib.blake2b(data, digest_size=16).hexdigest()};"
    except OSError as error:
        return f"{path}:unreadable:{error.errno};"
    return _identity(path, info)


def _identity(path: str, info: os.stat_result) -> str:
    return (
        f"{path}:{info.st_mode}:{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_ino};"
    )


def _inside(path: str, root: str) -> str | None:
    target = os.path.realpath(path)
    return target if target == root or target.startswith(root + os.sep) else None


def _readlink(path: str) -> str:
    try:
        return os.readlink(path)
    except OSError as error:
        return f"unreadable:{error.errno}"


class Keys:
    """The keys of one repository's entries, each computed once per run."""

    def __init__(self, target: Target) -> None:
        self.repository: Repository = target.repository
        self._root = str(target.repository.root)
        # Config files named on the command line (a JSON config may sit anywhere).
        self._explicit = "".join(
            f"{path}:{folder_key(str(path), self._root)};" for path in sorted(target.explicit_files)
        )
        self._own: dict[str, str | None] = {}
        self._everything: str | None = None
        self._components: dict[str, str | None] = {}

    def own(self, name: str) -> str | None:
        """The key of the repository's entry `name` (a name that is not an entry's is
        never looked up: nothing outside the repository is read)."""
        if name not in self._own:
            plain = is_entry_name(name)
            key = folder_key(os.path.join(self._root, name), self._root) if plain else "none"
            self._own[name] = key
        return self._own[name]

    def everything(self) -> str | None:
        """Every entry of the repository (for a component that looked over all models)."""
        if self._everything is None:
            try:
                with os.scandir(self._root) as listing:
                    names = sorted(entry.name for entry in listing)
            except OSError as error:
                return f"unlistable:{error.errno}"
            digest = hashlib.blake2b(digest_size=16)
            for name in names:
                own = self.own(name)
                if own is None:
                    return None
                digest.update(f"{name}\0{own};".encode())
            self._everything = digest.hexdigest()
        return self._everything

    def component(self, members: Sequence[str], everything: bool) -> str | None:
        """The key of a component: each member's entry (and every entry, if asked)."""
        memo = f"{everything}\0" + "\0".join(members)
        if memo not in self._components:
            digest = hashlib.blake2b(self._explicit.encode(), digest_size=16)
            key: str | None = None
            for member in members:
                own = self.own(member)
                if own is None:
                    break
                digest.update(f"{member}\0{own};".encode())
            else:
                rest = self.everything() if everything else ""
                key = None if rest is None else (digest.hexdigest() + (rest or ""))
            self._components[memo] = key
        return self._components[memo]
