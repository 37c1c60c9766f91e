"""The command line as a user meets it: exit codes, formats, paths, rules, explain."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pbtxt_lint import __version__
from pbtxt_lint.cli import cli
from pbtxt_lint.rules.registry import ALL_RULES

MINIMAL_MODEL_PY = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"

GOOD = """name: "m"
backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""


def make_model(root: Path, name: str, config: str, versions: tuple[str, ...] = ("1",)) -> Path:
    model = root / name
    model.mkdir(parents=True)
    (model / "config.pbtxt").write_text(config)
    for version in versions:
        (model / version).mkdir()
        (model / version / "model.py").write_text(MINIMAL_MODEL_PY)
    return model


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_clean_repository_exits_zero(tmp_path: Path) -> None:
    make_model(tmp_path, "m", GOOD)
    code, output = invoke("check", str(tmp_path))
    assert code == 0, output
    assert "no problems found" in output


def test_error_exits_one_with_location_frame_and_hint(tmp_path: Path) -> None:
    make_model(
        tmp_path,
        "m",
        GOOD.replace("TYPE_FP32 dims: [ 4 ] } ]\noutput", "TYPE_FLOAT32 dims: [ 4 ] } ]\noutput"),
    )
    code, output = invoke("check", str(tmp_path), "--no-color")
    assert code == 1
    assert "config.pbtxt:4:" in output
    assert "error PL003" in output
    assert "^^^^^^^^^^^^" in output
    assert "hint: did you mean TYPE_FP32?" in output


def test_json_contract(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_model(tmp_path, "m", GOOD.replace("max_batch_size: 0", "max_batch_size: -1"))
    monkeypatch.chdir(tmp_path)
    code, output = invoke("check", "--format", "json")
    assert code == 1
    document = json.loads(output)
    assert document["version"] == 1
    assert document["tool"] == {"name": "pbtxt-lint", "version": __version__}
    assert document["summary"] == {"models": 1, "files": 1, "errors": 1, "warnings": 0}
    (diagnostic,) = document["diagnostics"]
    assert set(diagnostic) == {
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "code",
        "severity",
        "message",
        "model",
        "hint",
    }
    assert diagnostic["path"] == os.path.join("m", "config.pbtxt")
    assert (diagnostic["line"], diagnostic["column"]) == (3, 17)
    assert diagnostic["severity"] == "error"
    assert diagnostic["model"] == "m"


@pytest.mark.parametrize("which", ["repository", "model", "file"])
def test_path_forms_find_the_same_model(tmp_path: Path, which: str) -> None:
    model = make_model(tmp_path, "m", GOOD.replace('name: "m"', 'name: "x"'))
    make_model(tmp_path, "other", GOOD.replace('name: "m"', 'name: "other"'))
    target = {"repository": tmp_path, "model": model, "file": model / "config.pbtxt"}[which]
    code, output = invoke("check", str(target), "--format", "json")
    document = json.loads(output)
    assert code == 1
    assert [d["code"] for d in document["diagnostics"]] == ["PL103"]
    assert document["summary"]["models"] == (2 if which == "repository" else 1)


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    code, output = invoke("check", str(tmp_path / "nope"))
    assert code == 2
    assert "no such file or folder" in output


def test_unknown_select_code_is_a_usage_error(tmp_path: Path) -> None:
    code, output = invoke("check", str(tmp_path), "--select", "PL999")
    assert code == 2
    assert "PL999" in output


def test_select_and_ignore(tmp_path: Path) -> None:
    make_model(tmp_path, "m", GOOD.replace('name: "m"', 'name: "x"'))
    assert invoke("check", str(tmp_path), "--ignore", "PL103")[0] == 0
    assert invoke("check", str(tmp_path), "--select", "PL0")[0] == 0
    assert invoke("check", str(tmp_path), "--select", "name-mismatch")[0] == 1


def test_rules_lists_every_rule() -> None:
    code, output = invoke("rules")
    assert code == 0
    for rule in ALL_RULES:
        assert rule.code in output and rule.name in output


def test_explain_by_code_and_name() -> None:
    code, output = invoke("explain", "PL003")
    assert code == 0
    assert "unknown-enum-value" in output and "Bad:" in output and "Good:" in output
    assert invoke("explain", "unknown-enum-value")[1] == output
    assert invoke("explain", "PL999")[0] == 2


def test_python_dash_m_runs_the_cli(tmp_path: Path) -> None:
    make_model(tmp_path, "m", GOOD)
    completed = subprocess.run(
        [sys.executable, "-m", "pbtxt_lint", "check", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert "no problems found" in completed.stdout


def test_json_config_file_runs_the_same_rules(tmp_path: Path) -> None:
    model = make_model(tmp_path, "m", GOOD)
    (model / "config.json").write_text(
        '{"name": "x", "backend": "python", "max_batch_size": -1,\n'
        ' "input": [{"name": "IN", "data_type": "TYPE_FP32", "dims": [4]}],\n'
        ' "output": [{"name": "OUT", "data_type": "TYPE_FP32", "dims": [4]}]}\n'
    )
    code, output = invoke("check", str(model / "config.json"), "--format", "json")
    document = json.loads(output)
    assert code == 1
    found = {(d["path"].rsplit("/", 1)[-1], d["line"], d["code"]) for d in document["diagnostics"]}
    assert found == {("config.json", 1, "PL103"), ("config.json", 1, "PL301")}
