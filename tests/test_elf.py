"""Stub ELF files read with struct: header, machine, DT_NEEDED libpython, never run.

The synthetic stubs come from the fixture generator (scripts/make_python_env_fixtures.py);
the real ones are the nvidia-pytriton wheel's stubs for Python 3.8 to 3.13, when the
wheel has been fetched for the oracle tests.
"""

from __future__ import annotations

import contextlib
import os
import struct
import tempfile
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import cache_dir
from script_modules import load_script

from pbtxt_lint.artifacts.elf import NotElf, libpython_version, read_elf

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "tests/fixtures/rules/PL684/pass_x86_64_stub/m/triton_python_backend_stub"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_script("make_python_env_fixtures")


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("libpython3.10.so.1.0", (3, 10)),
        ("libpython3.13t.so.1.0", (3, 13)),
        ("libpython3-419a3a08.13.so.1.0", (3, 13)),  # auditwheel's rename (pytriton 3.13)
        ("libpython3.so", None),
        ("libc.so.6", None),
    ],
)
def test_libpython_names(name: str, version: tuple[int, int] | None) -> None:
    assert libpython_version(name) == version


def test_synthetic_stub(generator: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "stub"
    generator.Stub("libpython3.10.so.1.0").write(path)
    elf = read_elf(path)
    assert (elf.bits, elf.little_endian, elf.machine_name) == (64, True, "x86-64")
    assert elf.needed == ("libpython3.10.so.1.0", "libc.so.6")
    assert elf.libpython == ("libpython3.10.so.1.0", (3, 10))
    assert elf.runnable_by_triton and elf.executable


def test_foreign_and_non_executable(generator: ModuleType, tmp_path: Path) -> None:
    generator.Stub(machine=40, bits=32).write(tmp_path / "arm")
    arm = read_elf(tmp_path / "arm")
    assert arm.bits == 32 and arm.machine_name == "ARM" and not arm.runnable_by_triton
    generator.Stub(mode=0o644).write(tmp_path / "plain")
    assert not read_elf(tmp_path / "plain").executable


@pytest.mark.parametrize(
    ("data", "what"),
    [
        (b"", "an empty file"),
        (b"version https://git-lfs.github.com/spec/v1\noid sha256:0\n", "a Git LFS pointer"),
        (b"\xcf\xfa\xed\xfe" + bytes(60), "a macOS (Mach-O) binary"),
        (b"MZ" + bytes(62), "a Windows executable"),
        (b"#!/bin/sh\nexec stub\n", "a script"),
        (b"\x7fELF\x03\x01" + bytes(58), "invalid class"),
    ],
)
def test_not_elf(tmp_path: Path, data: bytes, what: str) -> None:
    path = tmp_path / "stub"
    path.write_bytes(data)
    with pytest.raises(NotElf) as raised:
        read_elf(path)
    assert what in raised.value.what


def test_lying_tables_are_refused(generator: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "stub"
    generator.Stub().write(path)
    data = bytearray(path.read_bytes())
    struct.pack_into("<H", data, 56, 60000)  # e_phnum: far more headers than the file has
    path.write_bytes(bytes(data))
    with pytest.raises(NotElf, match="truncated or corrupt"):
        read_elf(path)
    with pytest.raises(NotElf, match="a folder"):
        read_elf(tmp_path)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.binary(max_size=400), st.integers(min_value=0, max_value=400))
def test_random_bytes_never_crash(data: bytes, keep: int) -> None:
    base = SEED.read_bytes()
    for candidate in (data, base[:keep], base[:keep] + data):
        with tempfile.NamedTemporaryFile() as handle:
            handle.write(candidate)
            handle.flush()
            with contextlib.suppress(NotElf):  # anything else escaping is a bug
                read_elf(Path(handle.name))


def _wheel_stubs() -> list[Path]:
    root = cache_dir() / "nvidia-pytriton-0.7.0" / "pytriton" / "tritonserver"
    return sorted((root / "python_backend_stubs").glob("3.*/triton_python_backend_stub"))


def test_the_wheel_stubs_name_their_libpython() -> None:
    stubs = _wheel_stubs()
    if not stubs:
        if os.environ.get("CI") == "true":
            pytest.fail("the nvidia-pytriton wheel is not in the cache")
        pytest.skip("the nvidia-pytriton wheel has not been fetched (tests/oracle.py)")
    for stub in stubs:
        elf = read_elf(stub)
        minor = int(stub.parent.name.split(".")[1])
        assert elf.libpython is not None and elf.libpython[1] == (3, minor), stub
        assert elf.machine_name == "x86-64" and elf.runnable_by_triton
