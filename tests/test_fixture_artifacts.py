"""The committed PL6xx fixture model files are exactly what the generator's table makes."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from script_modules import load_script


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return load_script("make_fixture_artifacts")


def test_committed_files_match_the_table(generator: ModuleType) -> None:
    assert generator.differences() == []


def test_regenerating_in_place_writes_the_same_bytes(generator: ModuleType, tmp_path: Path) -> None:
    """A second run over existing files (onnx appends to external data) changes nothing."""

    def contents() -> dict[Path, bytes]:
        files = generator.generated_files(tmp_path)
        return {p.relative_to(tmp_path): p.read_bytes() for p in files if not p.is_symlink()}

    for _, table, _ in generator.TABLES:
        generator.write_all(tmp_path, table)
    first = contents()
    for _, table, _ in generator.TABLES:
        generator.write_all(tmp_path, table)
    assert contents() == first
