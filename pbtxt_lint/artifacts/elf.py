"""A stub executable's ELF header and dynamic section, read with `struct`, never run.

A `triton_python_backend_stub` placed in a model folder replaces the backend's own
(python_backend stub_launcher.cc). The kernel refuses a binary for another machine,
and the dynamic loader refuses to start it when the `libpython3.X` its dynamic section
names (DT_NEEDED) is nowhere on the library path. Both facts are in the first few KiB
of the file: the ELF header (class, byte order, type, machine), the program headers
(PT_DYNAMIC, and PT_LOAD to map addresses to file offsets), the dynamic entries and
their string table. Every offset and size is checked against the file before it is
read, and each read is bounded, so a hostile file costs at most a few reads of 1 MiB.
"""

from __future__ import annotations

import os
import re
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ElfInfo", "NotElf", "libpython_version", "read_elf"]

MAX_TABLE_BYTES = 1 << 20
"""Program headers, dynamic section and string table each read at most this much."""
_MACHINES = {
    3: "x86",
    8: "MIPS",
    20: "PowerPC",
    21: "PowerPC64",
    22: "IBM S/390",
    40: "ARM",
    62: "x86-64",
    183: "AArch64",
    243: "RISC-V",
}
TRITON_MACHINES = frozenset({62, 183})
"""Machines Triton is built for: x86-64 and AArch64 (SBSA servers, Jetson)."""
_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_STRSZ, _DT_RPATH, _DT_RUNPATH = 0, 1, 5, 10, 15, 29
_LIBPYTHON = re.compile(r"^libpython(\d+)(?:-[0-9a-f]{8})?\.(\d+)[a-z]*\.so")
"""`libpython3.10.so.1.0`, `libpython3.13t.so.1.0`, and auditwheel's renamed
`libpython3-419a3a08.13.so.1.0` (the nvidia-pytriton wheel's 3.13 stub)."""


@dataclass(frozen=True)
class ElfInfo:
    path: Path
    bits: int
    """32 or 64."""
    little_endian: bool
    elf_type: int
    """ET_EXEC (2) or ET_DYN (3) for something the kernel runs."""
    machine: int
    needed: tuple[str, ...]
    """DT_NEEDED entries in order: the shared libraries the loader must find."""
    rpath: tuple[str, ...]
    """DT_RPATH and DT_RUNPATH folders (`$ORIGIN` is the stub's folder)."""
    executable: bool
    """The owner's execute bit is set."""

    @property
    def machine_name(self) -> str:
        return _MACHINES.get(self.machine, f"machine {self.machine}")

    @property
    def runnable_by_triton(self) -> bool:
        """A 64-bit little-endian executable for a machine Triton is built for."""
        return (
            self.bits == 64
            and self.little_endian
            and self.elf_type in (2, 3)
            and self.machine in TRITON_MACHINES
        )

    @property
    def libpython(self) -> tuple[str, tuple[int, int]] | None:
        """The `libpython` the stub links (file name, version); None if it links none."""
        for name in self.needed:
            version = libpython_version(name)
            if version is not None:
                return name, version
        return None


class NotElf(Exception):
    """The file is not an ELF executable pbtxt-lint can read; `what` says what it is."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


def libpython_version(name: str) -> tuple[int, int] | None:
    """(3, 10) for `libpython3.10.so.1.0`; None for anything else."""
    match = _LIBPYTHON.match(name)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _what(head: bytes) -> str:
    """A plain-words guess of what a non-ELF file is, from its first bytes."""
    if not head:
        return "an empty file"
    if head.startswith(b"version https://git-lfs"):
        return "a Git LFS pointer (run `git lfs pull`)"
    if head[:4] in (b"\xcf\xfa\xed\xfe", b"\xce\xfa\xed\xfe", b"\xca\xfe\xba\xbe"):
        return "a macOS (Mach-O) binary"
    if head.startswith(b"MZ"):
        return "a Windows executable"
    if head.startswith(b"#!"):
        return "a script"
    return "not an ELF executable"


def read_elf(path: Path) -> ElfInfo:
    """The ELF facts of `path`; raises `NotElf` (what the file is) or `OSError`."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotElf("a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file")
    executable = bool(info.st_mode & stat.S_IXUSR)
    with open(path, "rb") as handle:
        reader = _Reader(handle.fileno(), info.st_size)
        ident = reader.read(0, min(64, info.st_size))
        if len(ident) < 16 or ident[:4] != b"\x7fELF":
            raise NotElf(_what(ident))
        bits = {1: 32, 2: 64}.get(ident[4])
        order = {1: "<", 2: ">"}.get(ident[5])
        if bits is None or order is None:
            raise NotElf("an ELF file with an invalid class or byte order")
        header = _header(reader, bits, order)
        elf_type, machine = header[0], header[1]
        needed, rpath = _dynamic(reader, bits, order, header)
    return ElfInfo(path, bits, order == "<", elf_type, machine, needed, rpath, executable)


class _Reader:
    """Bounded reads at offsets of one open file."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size = fd, size

    def read(self, offset: int, length: int) -> bytes:
        if offset < 0 or length < 0 or offset + length > self.size:
            raise NotElf("a truncated or corrupt ELF file")
        if length > MAX_TABLE_BYTES:
            raise NotElf("an ELF file with an implausibly large table")
        return os.pread(self.fd, length, offset)


def _header(reader: _Reader, bits: int, order: str) -> tuple[int, int, int, int, int]:
    """(e_type, e_machine, e_phoff, e_phentsize, e_phnum)."""
    if bits == 64:
        fields = struct.unpack(order + "HHIQQQIHHHHHH", reader.read(16, 48))
    else:
        fields = struct.unpack(order + "HHIIIIIHHHHHH", reader.read(16, 36))
    e_type, e_machine, _, _, e_phoff, _, _, _, e_phentsize, e_phnum = fields[:10]
    return e_type, e_machine, e_phoff, e_phentsize, e_phnum


def _dynamic(
    reader: _Reader, bits: int, order: str, header: tuple[int, int, int, int, int]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    _, _, phoff, phentsize, phnum = header
    if phnum == 0:
        return (), ()  # a static executable or an object file: nothing to load
    layout = order + ("IIQQQQQQ" if bits == 64 else "IIIIIIII")
    size = struct.calcsize(layout)
    if phentsize < size:
        raise NotElf("an ELF file with malformed program headers")
    table = reader.read(phoff, phentsize * phnum)
    loads: list[tuple[int, int, int]] = []  # (vaddr, offset, filesz)
    dynamic: tuple[int, int] | None = None  # (offset, filesz)
    for index in range(phnum):
        raw = struct.unpack(layout, table[index * phentsize : index * phentsize + size])
        if bits == 64:
            p_type, _, p_offset, p_vaddr, _, p_filesz = raw[:6]
        else:
            p_type, p_offset, p_vaddr, _, p_filesz = raw[:5]
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        return (), ()
    entry = struct.Struct(order + ("qQ" if bits == 64 else "iI"))
    data = reader.read(dynamic[0], dynamic[1] - dynamic[1] % entry.size)
    tags: list[tuple[int, int]] = []
    for tag, value in entry.iter_unpack(data):
        if tag == _DT_NULL:
            break
        tags.append((tag, value))
    strtab = next((v for t, v in tags if t == _DT_STRTAB), None)
    strsz = next((v for t, v in tags if t == _DT_STRSZ), None)
    if strtab is None or strsz is None:
        return (), ()
    offset = next((o + strtab - v for v, o, n in loads if v <= strtab < v + n), None)
    if offset is None:
        raise NotElf("an ELF file whose string table is outside its segments")
    strings = reader.read(offset, strsz)

    def string(at: int) -> str:
        if not 0 <= at < len(strings):
            raise NotElf("an ELF file with a dynamic string outside its string table")
        end = strings.find(b"\0", at)
        return strings[at : end if end >= 0 else len(strings)].decode("utf-8", "replace")

    needed = tuple(string(v) for t, v in tags if t == _DT_NEEDED)
    rpath = tuple(
        folder for t, v in tags if t in (_DT_RPATH, _DT_RUNPATH) for folder in string(v).split(":")
    )
    return needed, rpath
