"""A Python execution environment (EXECUTION_ENV_PATH) listed, never extracted.

The Python backend uses a folder as it is and extracts a file with libarchive, which it
opens with the gzip filter and the tar format only (python_backend pb_env.cc,
`ExtractTarFile`): a `.tar.xz`, `.tar.zst`, `.tar.bz2` or `.zip` fails at load, and so
does a corrupt or truncated archive. It then requires `<env>/bin/activate` and runs the
stub with `<env>/bin` first on PATH, so the stub's Python takes the environment's
`lib/python3.X/site-packages` only when X is its own version.

`list_environment` answers all of that from the archive's entry names alone: the magic
bytes say the format; gzip is inflated as a stream (the only way to find tar headers)
and each member's data is skipped, never written; a plain tar is read by seeking from
header to header. Only a few small files are read (`pyvenv.cfg`, `*.pth`). The listing
is bounded in entries, time and memory (`Limits`); a listing cut short says so
(`complete` is False), and absence-based verdicts must then not be drawn from it.

The result depends only on the file's bytes, so `environment_key` (path, size, mtime,
inode) can key a cache of complete listings (`EnvListing.to_json`/`from_json`).
"""

from __future__ import annotations

import io
import os
import posixpath
import re
import stat
import tarfile
import time
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pbtxt_lint.repository.fs import is_inside

__all__ = [
    "EnvListing",
    "Escape",
    "Limits",
    "environment_key",
    "list_environment",
]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PYTHON_DIR = re.compile(r"^(?:lib|lib64)/python3\.([0-9]{1,9})(?:/|$)")
_SITE_ENTRY = re.compile(r"^(?:lib|lib64)/python3\.([0-9]{1,9})/(?:site|dist)-packages/([^/]+)(/?)")
_BIN_PYTHON = re.compile(r"^bin/python3\.([0-9]{1,9})$")
_CONDA_PYTHON = re.compile(r"^conda-meta/python-3\.([0-9]{1,9})\.[^/]*\.json$")
_LIBPYTHON = re.compile(r"^lib/(libpython3[^/]*\.so[^/]*)$")
_SMALL_FILE = 64 << 10
"""pyvenv.cfg and .pth files larger than this are not read."""
_MAX_HEADER_READ = 16 << 20
"""A single read tarfile asks for (pax or GNU long-name headers) at most."""
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\xfd7zXZ\x00", "xz-compressed"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed"),
    (b"BZh", "bzip2-compressed"),
    (b"PK\x03\x04", "a zip archive"),
    (b"PK\x05\x06", "a zip archive"),
    (b"PK\x07\x08", "a zip archive"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"\x04\x22\x4d\x18", "lz4-compressed"),
    (b"LZIP", "lzip-compressed"),
    (b"\x1f\x9d", "compress(1)-compressed (.Z)"),
    (b"Rar!\x1a\x07", "a RAR archive"),
)
"""Formats libarchive could read but the backend does not enable."""


@dataclass(frozen=True)
class Limits:
    """How far a listing goes before it stops and says it is incomplete."""

    seconds: float = 60.0
    """CPU seconds (not wall time, so a busy machine gives the same answer)."""
    entries: int = 1_000_000
    kept_names: int = 200_000
    """Symbolic links remembered to detect entries written through them."""


@dataclass(frozen=True)
class Escape:
    """An entry that would be written outside the extraction folder."""

    name: str
    reason: str
    """"absolute", "dotdot", "symlink" (written through a link of the archive) or
    "hardlink" (a hard link whose target is absolute or goes up)."""
    detail: str = ""
    """The symlink passed through, or the hard link's target."""


@dataclass(frozen=True)
class EnvListing:
    """What the backend will find in an environment, from its entry names."""

    path: Path
    kind: str
    """"directory", "tar" or "gzip" (a gzip-compressed tar), or "" when unreadable."""
    problem: str = ""
    """Why the backend cannot extract it, in plain words ("" when it can)."""
    problem_kind: str = ""
    """"format" (not a gzip or plain tar), "empty", "corrupt" or "unreadable"."""
    complete: bool = True
    stopped: str = ""
    """Why the listing stopped before the end ("" when complete)."""
    entries: int = 0
    activate: bool = False
    """`bin/activate` is there."""
    nested_activate: str = ""
    """`<folder>/bin/activate` when the environment sits in one top folder instead."""
    python_dirs: tuple[int, ...] = ()
    """Minor versions of `lib/python3.X` folders."""
    bin_pythons: tuple[int, ...] = ()
    """Minor versions of `bin/python3.X`."""
    conda_python: int | None = None
    """Minor version of the `conda-meta/python-3.X.Y-*.json` record."""
    venv_python: int | None = None
    """Minor version in `pyvenv.cfg`."""
    system_site_packages: bool = False
    """A pyvenv.cfg that does not say `include-system-site-packages = false`: the base
    Python's packages are visible too (site.py's default)."""
    site_packages: Mapping[int, frozenset[str]] = field(default_factory=dict)
    """Minor version -> top-level importable names in its site-packages."""
    path_hooks: tuple[str, ...] = ()
    """`.pth` files that add folders or run code: more may be importable than listed."""
    libpython: tuple[str, ...] = ()
    """`lib/libpython3*.so*` files (the backend puts `<env>/lib` on LD_LIBRARY_PATH)."""
    escapes: tuple[Escape, ...] = ()
    """The first escaping entries (`escape_count` counts them all)."""
    escape_count: int = 0

    @property
    def python(self) -> int | None:
        """The environment's Python 3 minor version, when its listing says one clearly."""
        for declared in (self.conda_python, self.venv_python):
            if declared is not None:
                return declared
        with_packages = sorted(self.site_packages)
        if len(with_packages) == 1:
            return with_packages[0]
        for found in (self.python_dirs, self.bin_pythons):
            if len(set(found)) == 1:
                return found[0]
        return None

    def modules(self, minor: int) -> frozenset[str]:
        """Top-level names Python 3.<minor> imports from this environment's site-packages."""
        return self.site_packages.get(minor, frozenset())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready form, for a cache keyed by `environment_key`."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["path"] = str(self.path)
        data["site_packages"] = {str(k): sorted(v) for k, v in self.site_packages.items()}
        data["escapes"] = [[e.name, e.reason, e.detail] for e in self.escapes]
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EnvListing:
        values = dict(data)
        values["path"] = Path(values["path"])
        values["site_packages"] = {int(k): frozenset(v) for k, v in values["site_packages"].items()}
        values["escapes"] = tuple(Escape(*e) for e in values["escapes"])
        for name in ("python_dirs", "bin_pythons", "path_hooks", "libpython"):
            values[name] = tuple(values[name])
        return cls(**values)


def environment_key(path: Path) -> tuple[str, int, int, int, int] | None:
    """(real path, size, mtime ns, inode, device): equal keys, equal archive listings.
    None for a folder (its content has no single modification time) or an error."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    return (os.path.realpath(path), info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev)


def list_environment(path: Path, limits: Limits | None = None) -> EnvListing:
    """The listing of the environment folder or archive at `path` (never raises)."""
    limits = limits or Limits()
    try:
        info = os.stat(path)
    except (OSError, ValueError) as error:
        return EnvListing(path, "", _reason(error), "unreadable")
    if stat.S_ISDIR(info.st_mode):
        return _list_directory(path, limits)
    if not stat.S_ISREG(info.st_mode):
        return EnvListing(path, "", "it is not a regular file", "unreadable")
    try:
        with open(path, "rb") as handle:
            return _list_file(path, handle, info.st_size, limits)
    except OSError as error:
        return EnvListing(path, "", _reason(error), "unreadable")


def _reason(error: OSError | ValueError) -> str:
    return getattr(error, "strerror", None) or str(error) or type(error).__name__


class _Builder:
    """Accumulates what the entries say; `listing()` freezes it."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.entries = 0
        self.activate = False
        self.nested: set[str] = set()
        self.python_dirs: set[int] = set()
        self.bin_pythons: set[int] = set()
        self.conda_python: int | None = None
        self.venv_python: int | None = None
        self.system_site = False
        self.site: dict[int, set[str]] = {}
        self.hooks: list[str] = []
        self.libpython: set[str] = set()
        self.escapes: list[Escape] = []
        self.escape_count = 0
        self.symlinks: set[str] = set()

    def add(self, raw: str, kind: str = "file", link: str = "") -> bool:
        """Record one entry (`kind`: file, dir, symlink, hardlink); True if its content is
        worth reading (pyvenv.cfg, a .pth file)."""
        self.entries += 1
        name = _normalize(raw)
        escape = self._escape(raw, name, kind, link)
        if escape is not None:
            self.escape_count += 1
            if len(self.escapes) < 10:
                self.escapes.append(escape)
            return False
        if not name:
            return False
        if kind == "symlink" and len(self.symlinks) < self.limits.kept_names:
            self.symlinks.add(name)
        return self._layout(name, kind)

    def _escape(self, raw: str, name: str, kind: str, link: str) -> Escape | None:
        """libarchive's ARCHIVE_EXTRACT_SECURE_* checks (archive_write_disk_posix.c)."""
        if raw.startswith("/"):
            return Escape(raw, "absolute")
        if ".." in raw.split("/"):
            return Escape(raw, "dotdot")
        parts = name.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            if parent in self.symlinks:
                return Escape(raw, "symlink", parent)
        if kind == "hardlink" and (link.startswith("/") or ".." in link.split("/")):
            return Escape(raw, "hardlink", link)
        return None

    def _layout(self, name: str, kind: str) -> bool:
        if name == "bin/activate":
            self.activate = True
        elif name.endswith("/bin/activate") and name.count("/") == 2:
            self.nested.add(name)
        elif name == "pyvenv.cfg":
            return kind == "file"
        if match := _PYTHON_DIR.match(name):
            self.python_dirs.add(int(match.group(1)))
        if match := _SITE_ENTRY.match(name):
            minor, top, slash = int(match.group(1)), match.group(2), match.group(3)
            module = _module_name(top, is_dir=bool(slash) or kind in ("dir", "symlink"))
            if module:
                self.site.setdefault(minor, set()).add(module)
            if top.endswith(".pth") and not slash and kind == "file":
                return True
        elif match := _BIN_PYTHON.match(name):
            self.bin_pythons.add(int(match.group(1)))
        elif match := _CONDA_PYTHON.match(name):
            self.conda_python = int(match.group(1))
        elif match := _LIBPYTHON.match(name):
            self.libpython.add(match.group(1))
        return False

    def content(self, name: str, data: bytes) -> None:
        """The text of a small file `add` asked for."""
        text = data.decode("utf-8", "replace")
        name = _normalize(name)
        if name == "pyvenv.cfg":
            self.system_site = True  # site.py's default when the key is absent
            for line in text.splitlines():
                key, _, value = line.partition("=")
                key, value = key.strip().lower(), value.strip()
                if key in ("version", "version_info") and (
                    m := re.match(r"3\.([0-9]{1,9})", value)
                ):
                    self.venv_python = int(m.group(1))
                elif key == "include-system-site-packages":
                    self.system_site = value.lower() == "true"
            return
        for line in text.splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                if posixpath.basename(name) == "distutils-precedence.pth":
                    minor = _PYTHON_DIR.match(name)
                    if minor:  # setuptools' shim: `import distutils` works again (3.12+)
                        self.site.setdefault(int(minor.group(1)), set()).add("distutils")
                    continue
                self.hooks.append(name)
                return

    def listing(self, path: Path, kind: str, stopped: str = "") -> EnvListing:
        nested = sorted(self.nested)
        return EnvListing(
            path,
            kind,
            complete=not stopped,
            stopped=stopped,
            entries=self.entries,
            activate=self.activate,
            nested_activate=nested[0] if len(nested) == 1 else "",
            python_dirs=tuple(sorted(self.python_dirs)),
            bin_pythons=tuple(sorted(self.bin_pythons)),
            conda_python=self.conda_python,
            venv_python=self.venv_python,
            system_site_packages=self.system_site,
            site_packages={k: frozenset(v) for k, v in sorted(self.site.items())},
            path_hooks=tuple(self.hooks),
            libpython=tuple(sorted(self.libpython)),
            escapes=tuple(self.escapes),
            escape_count=self.escape_count,
        )


def _normalize(raw: str) -> str:
    """The path libarchive writes, relative to the extraction folder: `./` and `//`
    dropped, no trailing slash."""
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    return "/".join(parts)


def _module_name(entry: str, is_dir: bool) -> str:
    """The top-level module a site-packages entry provides ("" for none): a package
    folder, `name.py`, or an extension `name.<abi>.so`."""
    if is_dir:
        return entry if _IDENTIFIER.fullmatch(entry) else ""
    stem, dot, suffix = entry.partition(".")
    if not dot or not _IDENTIFIER.fullmatch(stem):
        return ""
    last = suffix.rsplit(".", 1)[-1]
    return stem if last in ("py", "pyc", "so", "pyd") else ""


# --------------------------------------------------------------------------- files


def _detect(head: bytes, size: int) -> tuple[str, str]:
    """(kind, problem): kind "gzip" or "tar", or a problem for anything else."""
    if size == 0:
        return "", "it is empty"
    if head.startswith(b"\x1f\x8b"):
        return "gzip", ""
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return "", f"it is {what}"
    if _is_tar_header(head):
        return "tar", ""
    return "", "it is neither a gzip-compressed nor a plain tar archive"


def _is_tar_header(block: bytes) -> bool:
    """A ustar/GNU magic, or an old-style header whose checksum adds up."""
    if len(block) < 512:
        return False
    if block[257:262] == b"ustar":
        return True
    try:
        stored = int(block[148:156].replace(b"\0", b" ").strip() or b"-1", 8)
    except ValueError:
        return False
    computed = sum(block[:148]) + 8 * 32 + sum(block[156:512])
    return stored == computed and any(block[:100])


class _Stop(Exception):
    """The listing ran out of time or entries."""


class _Corrupt(Exception):
    """The stream does not decompress or ends early."""


class _Inflating(io.RawIOBase):
    """A forward-only, seekable-looking view of a gzip stream's decompressed bytes.

    Several concatenated gzip members are one stream, as libarchive reads them.
    Decompression happens in bounded steps (a gzip bomb never lands in memory) and
    checks the deadline; skipping forward inflates and discards.
    """

    CHUNK = 1 << 20

    def __init__(self, raw: io.BufferedReader, deadline: float) -> None:
        self.raw = raw
        self.deadline = deadline
        self.inflater = zlib.decompressobj(31)
        self.pending = b""  # compressed input not yet given to zlib
        self.buffer = b""  # decompressed, not yet consumed
        self.start = 0  # index of the next byte in `buffer`
        self.position = 0
        self.ended = False

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.position

    def _more(self) -> bool:
        """Decompress one bounded step into `buffer`; False at the end of the stream."""
        if time.process_time() > self.deadline:
            raise _Stop("the CPU time limit")
        while not self.ended:
            if not self.pending:
                self.pending = self.inflater.unconsumed_tail or self.raw.read(self.CHUNK)
                if not self.pending:
                    if not self.inflater.eof:
                        raise _Corrupt("the gzip stream is truncated")
                    self.ended = True
                    return False
            try:
                out = self.inflater.decompress(self.pending, self.CHUNK)
            except zlib.error as error:
                raise _Corrupt(f"the gzip data is corrupt ({error})") from None
            self.pending = b""
            if self.inflater.eof:  # the next member, if any, starts in unused_data
                rest = self.inflater.unused_data
                self.inflater = zlib.decompressobj(31)
                if rest.lstrip(b"\0"):
                    self.pending = rest
                elif not (more := self.raw.read(self.CHUNK)):
                    self.ended = True
                else:
                    self.pending = more
            if out:
                self.buffer = self.buffer[self.start :] + out
                self.start = 0
                return True
        return False

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > _MAX_HEADER_READ:
            raise _Corrupt("a tar header announces an implausibly large name or record")
        while len(self.buffer) - self.start < size and self._more():
            pass
        data = self.buffer[self.start : self.start + size]
        self.start += len(data)
        self.position += len(data)
        return data

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        target = offset if whence == io.SEEK_SET else self.position + offset
        if target < self.position:  # back within what is still buffered (the last block)
            back = self.position - target
            if back > self.start:
                raise _Corrupt("the archive asks to go back, which a stream cannot")
            self.start -= back
            self.position = target
            return target
        skip = target - self.position
        while skip:
            available = len(self.buffer) - self.start
            if not available and not self._more():
                break  # past the end: tarfile notices "unexpected end of data"
            step = min(skip, len(self.buffer) - self.start)
            self.start += step
            self.position += step
            skip -= step
        return self.position


class _Bounded(io.RawIOBase):
    """A plain tar file, seekable, whose reads tarfile cannot make unbounded."""

    def __init__(self, raw: io.BufferedReader, deadline: float) -> None:
        self.raw = raw
        self.deadline = deadline

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.raw.tell()

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > _MAX_HEADER_READ:
            raise _Corrupt("a tar header announces an implausibly large name or record")
        if time.process_time() > self.deadline:
            raise _Stop("the CPU time limit")
        return self.raw.read(size)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self.raw.seek(offset, whence)


def _list_file(path: Path, handle: Any, size: int, limits: Limits) -> EnvListing:
    head = handle.read(512)
    kind, problem = _detect(head, size)
    if problem:
        return EnvListing(path, "", problem, "empty" if size == 0 else "format")
    handle.seek(0)
    deadline = time.process_time() + limits.seconds
    stream: io.RawIOBase = (
        _Inflating(handle, deadline) if kind == "gzip" else _Bounded(handle, deadline)
    )
    builder = _Builder(limits)
    try:
        _walk_tar(stream, builder, limits)
    except _Stop as stop:
        return builder.listing(path, kind, stopped=str(stop))
    except _Corrupt as error:
        return _corrupt(path, kind, builder, str(error))
    except (tarfile.TarError, EOFError, OSError, ValueError, zlib.error) as error:
        text = str(error) or type(error).__name__
        if kind == "gzip" and builder.entries == 0 and "header" in text:
            text = "the gzip data is not a tar archive"
        return _corrupt(path, kind, builder, text)
    return builder.listing(path, kind)


def _corrupt(path: Path, kind: str, builder: _Builder, why: str) -> EnvListing:
    count = builder.entries
    where = f" after {count:,} entr{'y' if count == 1 else 'ies'}" if count else ""
    listing = builder.listing(path, kind, stopped="a corrupt archive")
    return EnvListing(
        **{
            **{n: getattr(listing, n) for n in listing.__dataclass_fields__},
            "problem": f"{why}{where}",
            "problem_kind": "corrupt",
        }
    )


def _walk_tar(stream: io.RawIOBase, builder: _Builder, limits: Limits) -> None:
    """Every member header in order; data skipped, small interesting files read."""
    with tarfile.open(fileobj=stream, mode="r:") as tar:
        while True:
            if builder.entries >= limits.entries:
                raise _Stop(f"{limits.entries:,} entries")
            member = tar.next()
            tar.members.clear()  # type: ignore[attr-defined]  # it keeps every header
            if member is None:
                break
            kind = (
                "dir"
                if member.isdir()
                else "symlink"
                if member.issym()
                else "hardlink"
                if member.islnk()
                else "file"
            )
            wanted = builder.add(member.name, kind, member.linkname)
            if wanted and member.isfile() and member.size <= _SMALL_FILE:
                extracted = tar.extractfile(member)
                if extracted is not None:
                    builder.content(member.name, extracted.read())
        _check_end(stream, tar.offset)


def _check_end(stream: io.RawIOBase, offset: int) -> None:
    """tarfile stops quietly at a damaged header; libarchive fails the extraction
    ("Damaged tar archive"). The block where tarfile stopped must be the end marker
    (zeros) or the end of the data."""
    stream.seek(offset)
    block = stream.read(512)
    if block.strip(b"\0"):
        raise _Corrupt(f"the tar header at byte {offset} is damaged")


# --------------------------------------------------------------------------- folders


def _list_directory(path: Path, limits: Limits) -> EnvListing:
    """An environment folder: only the few folders the checks need are listed."""
    builder = _Builder(limits)
    deadline = time.process_time() + limits.seconds
    try:
        for relative, is_dir in _directory_entries(path, limits):
            if time.process_time() > deadline:
                return builder.listing(path, "directory", stopped="the CPU time limit")
            if builder.add(relative, "dir" if is_dir else "file"):
                _read_small(path / relative, relative, builder)
    except _Stop as stop:
        return builder.listing(path, "directory", stopped=str(stop))
    return builder.listing(path, "directory")


def _directory_entries(root: Path, limits: Limits) -> Iterator[tuple[str, bool]]:
    """(relative name, is a folder) for bin/, lib/, lib/python3.X/{site,dist}-packages/,
    conda-meta/, pyvenv.cfg and `<top>/bin/activate`."""
    count = 0

    real_root = root.resolve()

    def listing(relative: str) -> list[tuple[str, bool]]:
        nonlocal count
        if relative and not is_inside(real_root, root / relative):
            return []  # a link out of the environment: not ours to list
        try:
            with os.scandir(root / relative) as entries:
                found = []
                for entry in entries:
                    count += 1
                    if count > limits.entries:
                        raise _Stop(f"{limits.entries:,} entries")
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    found.append((f"{relative}/{entry.name}".lstrip("/"), is_dir))
                return sorted(found)
        except OSError:
            return []

    top = listing("")
    yield from top
    for name, is_dir in top:
        if is_dir and name not in ("bin", "lib", "lib64", "conda-meta"):
            if (root / name / "bin" / "activate").exists():
                yield f"{name}/bin/activate", False
    for folder in ("bin", "conda-meta"):
        yield from listing(folder)
    for name, is_dir in listing("lib"):
        yield name, is_dir
        if is_dir and _PYTHON_DIR.match(name):
            for packages in ("site-packages", "dist-packages"):
                yield from listing(f"{name}/{packages}")


def _read_small(path: Path, relative: str, builder: _Builder) -> None:
    """A regular file's text; a link (which could lead out of the repository) is not
    followed."""
    try:
        info = os.lstat(path)
        if stat.S_ISREG(info.st_mode) and info.st_size <= _SMALL_FILE:
            builder.content(relative, path.read_bytes())
    except OSError:
        pass
