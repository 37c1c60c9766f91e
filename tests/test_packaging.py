"""Packaging metadata: building the wheel and the editable wheel prints no warning.

`pip install .` and `pip install -e .` show the build backend's warnings to every user
(a deprecated `project.license` table, the flat-layout editable notice); the builds run
here offline, in a copy of the project, with this environment's setuptools.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

_BUILD = """
import sys
import setuptools.build_meta as backend
hook = getattr(backend, sys.argv[1])
print("built", hook(sys.argv[2]))
"""


@pytest.mark.parametrize("hook", ["build_wheel", "build_editable"])
def test_build_is_clean(hook: str, tmp_path: Path) -> None:
    project = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "pbtxt_lint", project / "pbtxt_lint", ignore=ignore)
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, project / name)
    out = tmp_path / "dist"
    out.mkdir()
    completed = subprocess.run(
        [sys.executable, "-W", "error", "-c", _BUILD, hook, str(out)],
        cwd=project,
        # distutils warns that byte-compiling is off when this is set: not our metadata
        env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert "built pbtxt_lint-" in output
    assert "warning" not in output.lower(), output
    if hook == "build_wheel":
        _check_wheel(next(out.glob("*.whl")))


def _check_wheel(wheel: Path) -> None:
    """The wheel carries the licence and the project's links, and installs no onnx (only
    the tests build ONNX models; pbtxt-lint reads them with its own reader)."""
    import zipfile

    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        lines = archive.read(metadata).decode().splitlines()
        licence = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert licence and b"Apache License" in archive.read(licence[0])
    assert "License-Expression: Apache-2.0" in lines
    required = [line for line in lines if line.startswith("Requires-Dist:")]
    assert not [r for r in required if r.startswith("Requires-Dist: onnx") and "extra ==" not in r]
    urls = {line.split(",")[0] for line in lines if line.startswith("Project-URL:")}
    assert {"Project-URL: Homepage", "Project-URL: Rules"} <= urls


def test_license_is_an_spdx_expression() -> None:
    """setuptools deprecates the `license` table (its isolated builds warn about it on
    every install); the SPDX string needs setuptools 77, which the build requires and
    `make` installs (the pre-commit test builds the hook from this environment)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    metadata = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert metadata["project"]["license"] == "Apache-2.0"
    assert "setuptools>=77" in metadata["build-system"]["requires"]
    assert '"setuptools>=77"' in (ROOT / "Makefile").read_text()
