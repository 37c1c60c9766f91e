"""A PATH that does not exist or holds no model fails the run (exit 2) with one line on
stderr, and nothing on stdout reads as success (issue 14)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GOOD = (
    'name: "m"\nbackend: "python"\n'
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


def run(*args: str, cwd: Path) -> tuple[int, str, str]:
    completed = subprocess.run(
        [sys.executable, "-m", "pbtxt_lint", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"NO_COLOR": "1", "GITHUB_ACTIONS": ""},
        check=False,
    )
    return completed.returncode, completed.stdout, completed.stderr


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "models" / "m" / "1").mkdir(parents=True)
    (tmp_path / "models" / "m" / "config.pbtxt").write_text(GOOD)
    (tmp_path / "models" / "m" / "1" / "model.py").write_text("class TritonPythonModel: ...\n")
    (tmp_path / "empty").mkdir()
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "README.md").write_text("not a model\n")
    return tmp_path


@pytest.mark.parametrize("path", ["empty", "files", "models/m/1"])
def test_a_path_without_models_fails_and_says_what_was_looked_for(tree: Path, path: str) -> None:
    code, out, err = run("check", path, "--config-only", cwd=tree)
    assert code == 2
    assert out == ""
    assert err.startswith(f"pbtxt-lint: {path}: no model configuration found: looked for ")
    assert "config.pbtxt and configs/*.pbtxt" in err


def test_model_config_name_is_what_was_looked_for(tree: Path) -> None:
    code, _, err = run("check", "empty", "--model-config-name", "h100", cwd=tree)
    assert code == 2
    assert "looked for configs/h100.pbtxt and config.pbtxt" in err


def test_a_missing_path_prints_the_error_only(tree: Path) -> None:
    code, out, err = run("check", "modles", cwd=tree)
    assert (code, out) == (2, "")
    assert err == "pbtxt-lint: modles: no such file or folder\n"
    code, out, _ = run("check", "modles", "--format", "github", cwd=tree)
    assert (code, out) == (2, "")


def test_a_failed_path_among_good_ones_is_counted_in_the_summary(tree: Path) -> None:
    code, out, err = run("check", "models", "empty", "--config-only", cwd=tree)
    assert code == 2
    assert "empty: no model configuration found" in err
    assert out.strip() == "Checked 1 model (1 config file): no problems found; 1 path not checked."


def test_machine_formats_still_write_their_document(tree: Path) -> None:
    code, out, _ = run("check", "empty", "--format", "json", cwd=tree)
    assert code == 2 and json.loads(out)["summary"]["models"] == 0
    code, out, _ = run("check", "empty", "--format", "sarif", cwd=tree)
    assert code == 2
    assert json.loads(out)["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_a_repository_of_auto_completed_models_is_not_empty(tree: Path) -> None:
    """Models without config.pbtxt are models (Triton auto-completes them)."""
    (tree / "models" / "m" / "config.pbtxt").unlink()
    code, out, err = run("check", "models", cwd=tree)
    assert "no model configuration found" not in err
    assert "Checked 1 model (0 config files)" in out
    assert code in (0, 1)
