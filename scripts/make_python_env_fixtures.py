#!/usr/bin/env python3
"""Write the environment archives and stubs of the PL68x fixture repositories.

Usage: python scripts/make_python_env_fixtures.py [--check]

The PL680-PL689 fixture cases are model repositories whose config.pbtxt and model.py
are written by hand and whose execution environments (gzip/plain/xz/zstd/zip archives
and folders of a conda-pack-like layout) and `triton_python_backend_stub` ELF files are
generated here from one declarative table, so what each holds is readable below
rather than hidden in a binary. The archives list a few small files (stand-ins for the
interpreter and packages); the stubs are ELF headers with a dynamic section naming
their libpython, not programs. Output is deterministic (fixed times, owners, order and
gzip header), and tests/test_python_env_fixtures.py checks that the committed files are
exactly what the table produces. `--check` compares without writing (exit 1 on a
difference).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import stat
import struct
import sys
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "rules"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_tree import command_line, same, table_differences, write_all  # noqa: E402

ACTIVATE = """\
# Stand-in for conda-pack's activate: the environment is the folder above this file.
_env="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$_env/bin:$PATH"
"""


@dataclass(frozen=True)
class Layout:
    """A conda-pack-like environment: what its listing shows, in a few small files."""

    python: tuple[int, int] = (3, 12)
    packages: tuple[str, ...] = ("numpy",)
    activate: bool = True
    libpython: bool = False
    extra: tuple[tuple[str, str, str], ...] = ()
    """(name, kind, link target or content): entries appended after the layout, kind
    "file", "symlink" or "hardlink"."""

    def entries(self) -> list[tuple[str, str, str]]:
        """(name, kind, content or link target) in archive order."""
        major, minor = self.python
        version = f"{major}.{minor}"
        found: list[tuple[str, str, str]] = []
        if self.activate:
            found.append(("bin/activate", "file", ACTIVATE))
        found.append((f"bin/python{version}", "file", "# stand-in for the interpreter\n"))
        found.append(("bin/python3", "symlink", f"python{version}"))
        found.append((f"conda-meta/python-{version}.0-h0_0.json", "file", "{}\n"))
        if self.libpython:
            found.append((f"lib/libpython{version}.so.1.0", "file", "stand-in\n"))
        for package in self.packages:
            init = f"lib/python{version}/site-packages/{package}/__init__.py"
            found.append((init, "file", f'"""Stand-in for {package}."""\n'))
        found.extend(self.extra)
        return found


def _tar_bytes(layout: Layout, prefix: str = "") -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, kind, value in layout.entries():
            info = tarfile.TarInfo(name if name.startswith(("/", "..")) else prefix + name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if kind == "symlink":
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, value, 0o777
                tar.addfile(info)
            elif kind == "hardlink":
                info.type, info.linkname, info.mode = tarfile.LNKTYPE, value, 0o644
                tar.addfile(info)
            else:
                data = value.encode("utf-8")
                info.size, info.mode = len(data), 0o755 if name.startswith("bin/") else 0o644
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _gzip(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0) as stream:
        stream.write(data)
    return buffer.getvalue()


def _zstd(data: bytes) -> bytes:
    """A valid zstd frame of raw (stored) blocks: Python has no zstd codec before 3.14,
    and the backend refuses the format whatever its blocks hold."""
    frame = bytearray(b"\x28\xb5\x2f\xfd")
    frame.append(0xA0)  # single segment, 4-byte content size, no checksum
    frame += struct.pack("<I", len(data))
    chunks = [data[i : i + (128 << 10)] for i in range(0, len(data), 128 << 10)] or [b""]
    for index, chunk in enumerate(chunks):
        last = index == len(chunks) - 1
        header = (len(chunk) << 3) | (0 << 1) | int(last)  # block type 0: raw
        frame += header.to_bytes(3, "little") + chunk
    return bytes(frame)


def _zip(layout: Layout) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, kind, value in layout.entries():
            if kind == "file":
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                archive.writestr(info, value)
    return buffer.getvalue()


@dataclass(frozen=True)
class Archive:
    """An environment archive of `layout` in `fmt`: gz, tar, xz, bz2, zst or zip."""

    layout: Layout = field(default_factory=Layout)
    fmt: str = "gz"
    prefix: str = ""
    """A top folder every entry sits in (`tar czf env.tar.gz myenv/`)."""
    keep: int | None = None
    """Only the first `keep` bytes: an interrupted copy."""

    def write(self, path: Path) -> None:
        if self.fmt == "zip":
            data = _zip(self.layout)
        else:
            plain = _tar_bytes(self.layout, self.prefix)
            data = {
                "tar": lambda: plain,
                "gz": lambda: _gzip(plain),
                "xz": lambda: lzma.compress(plain, format=lzma.FORMAT_XZ),
                "bz2": lambda: bz2.compress(plain),
                "zst": lambda: _zstd(plain),
            }[self.fmt]()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data[: self.keep] if self.keep is not None else data)


@dataclass(frozen=True)
class Folder:
    """An unpacked environment folder of `layout` (symbolic links as links)."""

    layout: Layout = field(default_factory=Layout)

    def write(self, path: Path) -> None:
        for name, kind, value in self.layout.entries():
            target = path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if kind == "symlink":
                os.symlink(value, target)
            else:
                target.write_text(value)
                target.chmod(0o755 if name.startswith("bin/") else 0o644)


@dataclass(frozen=True)
class Stub:
    """A `triton_python_backend_stub` ELF: header, PT_LOAD, PT_DYNAMIC with DT_NEEDED.

    Not a program (no code): the rules read its headers, never run it."""

    libpython: str = "libpython3.12.so.1.0"
    machine: int = 62  # x86-64
    bits: int = 64
    mode: int = 0o755

    def write(self, path: Path) -> None:
        data = self._elf64() if self.bits == 64 else self._elf32()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(self.mode)

    def _elf64(self) -> bytes:
        strings = b"\0" + self.libpython.encode() + b"\0libc.so.6\0"
        phoff, phnum = 64, 2
        strtab = phoff + 56 * phnum
        dynamic = strtab + len(strings) + (-(strtab + len(strings)) % 8)
        tags = [(1, 1), (1, 2 + len(self.libpython)), (5, strtab), (10, len(strings)), (0, 0)]
        size = dynamic + 16 * len(tags)
        ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
        header = ident + struct.pack(
            "<HHIQQQIHHHHHH", 3, self.machine, 1, 0, phoff, 0, 0, 64, 56, phnum, 64, 0, 0
        )
        load = struct.pack("<IIQQQQQQ", 1, 5, 0, 0, 0, size, size, 0x1000)
        dyn = struct.pack("<IIQQQQQQ", 2, 6, dynamic, dynamic, dynamic, 16 * len(tags), 0, 8)
        body = header + load + dyn + strings
        body += bytes(dynamic - len(body))
        body += b"".join(struct.pack("<qQ", tag, value) for tag, value in tags)
        return body

    def _elf32(self) -> bytes:
        ident = b"\x7fELF" + bytes([1, 1, 1, 0]) + bytes(8)
        return ident + struct.pack(
            "<HHIIIIIHHHHHH", 2, self.machine, 1, 0, 0, 0, 0, 52, 32, 0, 40, 0, 0
        )


@dataclass(frozen=True)
class Raw:
    """Bytes that are not an ELF file (a macOS build, say)."""

    data: bytes
    mode: int = 0o755

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(self.data)
        path.chmod(self.mode)


@dataclass(frozen=True)
class Link:
    """A symbolic link (relative target)."""

    target: str

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(self.target, path)


Spec = Archive | Folder | Stub | Raw | Link
ENV = "m/env.tar.gz"
PY310 = Layout(python=(3, 10))
DOTDOT = (("../outside.txt", "file", "written outside the extraction folder\n"),)
MACH_O = b"\xcf\xfa\xed\xfe\x07\x00\x00\x01\x03\x00\x00\x00\x02\x00\x00\x00" + bytes(16)

TABLE: dict[str, Spec] = {
    # PL680: the backend reads gzip-compressed or plain tar archives, and folders.
    "PL680/fail_xz/m/env.tar.xz": Archive(fmt="xz"),
    "PL680/fail_zstd/m/env.tar.zst": Archive(fmt="zst"),
    "PL680/fail_zip/m/env.zip": Archive(fmt="zip"),
    "PL680/fail_truncated/m/env.tar.gz": Archive(keep=200),
    "PL680/pass_gzip_tar/m/env.tar.gz": Archive(),
    "PL680/pass_plain_tar/m/env.tar": Archive(fmt="tar"),
    "PL680/pass_folder/m/env": Folder(),
    # PL681: entries written outside the extraction folder.
    "PL681/fail_dotdot/m/env.tar.gz": Archive(Layout(extra=DOTDOT)),
    "PL681/fail_absolute_on_24_10/m/env.tar.gz": Archive(
        Layout(python=(3, 10), extra=(("/tmp/pbtxt-lint-outside.txt", "file", "x\n"),))
    ),
    "PL681/fail_through_symlink/m/env.tar.gz": Archive(
        Layout(extra=(("share", "symlink", "/usr/share"), ("share/x.txt", "file", "x\n")))
    ),
    "PL681/pass_links_inside/m/env.tar.gz": Archive(
        Layout(extra=(("lib/libz.so", "symlink", "/usr/lib/libz.so"),))
    ),
    # PL682: bin/activate at the environment's root.
    "PL682/fail_top_folder/m/env.tar.gz": Archive(prefix="myenv/"),
    "PL682/fail_pip_target_folder/m/env": Folder(Layout(activate=False)),
    "PL682/pass_activate_at_root/m/env.tar.gz": Archive(),
    # PL683: the environment's Python against the stub's.
    "PL683/fail_env_310_on_newest/m/env.tar.gz": Archive(PY310),
    "PL683/fail_env_310_with_312_stub/m/env.tar.gz": Archive(PY310),
    "PL683/fail_env_310_with_312_stub/m/triton_python_backend_stub": Stub(),
    "PL683/pass_same_python/m/env.tar.gz": Archive(),
    "PL683/pass_310_on_24_10/m/env.tar.gz": Archive(PY310),
    # PL684: a stub in the model folder the kernel cannot run.
    "PL684/fail_macos_build/m/triton_python_backend_stub": Raw(MACH_O),
    "PL684/fail_arm32/m/triton_python_backend_stub": Stub(machine=40, bits=32),
    "PL684/fail_not_executable/m/triton_python_backend_stub": Stub(mode=0o644),
    "PL684/pass_x86_64_stub/m/triton_python_backend_stub": Stub(),
    # PL685: the libpython the custom stub links.
    "PL685/fail_env_without_libpython/m/env.tar.gz": Archive(PY310),
    "PL685/fail_env_without_libpython/m/triton_python_backend_stub": Stub("libpython3.10.so.1.0"),
    "PL685/fail_no_env/m/triton_python_backend_stub": Stub("libpython3.10.so.1.0"),
    "PL685/pass_env_with_libpython/m/env.tar.gz": Archive(Layout(python=(3, 10), libpython=True)),
    "PL685/pass_env_with_libpython/m/triton_python_backend_stub": Stub("libpython3.10.so.1.0"),
    "PL685/pass_container_python/m/triton_python_backend_stub": Stub("libpython3.10.so.1.0"),
    # PL686: imports against the environment, the standard library and local files.
    "PL686/fail_missing_in_env/m/env.tar.gz": Archive(),
    "PL686/fail_in_execute/m/env.tar.gz": Archive(),
    "PL686/pass_provided_by_env/m/env.tar.gz": Archive(Layout(packages=("numpy", "tokenizers"))),
    "PL686/pass_guarded/m/env.tar.gz": Archive(),
    # PL687: numpy in the environment.
    "PL687/fail_env_without_numpy/m/env.tar.gz": Archive(Layout(packages=("tokenizers",))),
    "PL687/pass_env_with_numpy/m/env.tar.gz": Archive(),
    # PL688: $$TRITON_MODEL_DIRECTORY placement.
    "PL688/fail_leaves_model_folder/m_env.tar.gz": Archive(),
    "PL688/pass_keyword_at_start/m/env.tar.gz": Archive(),
    # PL689: environments pbtxt-lint does not read.
    "PL689/fail_link_outside/m/env.tar.gz": Link("../../../PL680/pass_gzip_tar/m/env.tar.gz"),
    "PL689/pass_listed/m/env.tar.gz": Archive(),
}
"""Fixture path (relative to tests/fixtures/rules) -> how it is made."""

HAND_WRITTEN = (".pbtxt", ".txt", ".py")


def generated_files(root: Path) -> list[Path]:
    """Every file and link below `root` that the table accounts for."""
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_symlink():
            found.append(path)
        elif path.is_file() and path.suffix not in HAND_WRITTEN:
            found.append(path)
        elif path.is_file() and "/env/" in f"/{path.relative_to(root).as_posix()}":
            found.append(path)  # a folder environment's .py files are generated too
    return found


def _same(a: Path, b: Path) -> bool:
    """Equal files, and the same executable bit (the stubs' matters to PL68x)."""
    if not same(a, b):
        return False
    if a.is_symlink():
        return True
    return stat.S_IMODE(a.stat().st_mode) & 0o111 == stat.S_IMODE(b.stat().st_mode) & 0o111


def differences() -> list[str]:
    """Files the table would write differently (or not at all) in the committed tree."""
    return table_differences(FIXTURES, TABLE, 2, generated_files, _same)


def main() -> int:
    def write() -> str:
        write_all(FIXTURES, TABLE)
        return f"wrote {len(TABLE)} environment fixtures under {FIXTURES.relative_to(ROOT)}"

    return command_line(__doc__.splitlines()[0], differences, write)


if __name__ == "__main__":
    sys.exit(main())
