"""The committed PL68x environment archives and stubs are exactly what the table makes."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from script_modules import load_script


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_script("make_python_env_fixtures")


def test_committed_files_match_the_table(generator: ModuleType) -> None:
    assert generator.differences() == []


def test_output_is_deterministic(generator: ModuleType, tmp_path: Path) -> None:
    def contents() -> dict[Path, bytes]:
        files = generator.generated_files(tmp_path)
        return {p.relative_to(tmp_path): p.read_bytes() for p in files if not p.is_symlink()}

    generator.write_all(tmp_path, generator.TABLE)
    first = contents()
    generator.write_all(tmp_path, generator.TABLE)
    assert contents() == first


def test_the_zstd_frame_is_valid(generator: ModuleType) -> None:
    """The handmade zstd fixture is a real zstd stream (checked with the zstd tool when
    it is installed; the frame layout is checked either way)."""
    import shutil
    import subprocess

    data = b"payload " * 40_000
    frame = generator._zstd(data)
    assert frame[:4] == b"\x28\xb5\x2f\xfd"
    if shutil.which("zstd"):
        done = subprocess.run(["zstd", "-dc"], input=frame, capture_output=True, check=True)
        assert done.stdout == data
