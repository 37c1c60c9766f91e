"""`--write-baseline` records today's findings; `--baseline` reports only new ones,
matching by path, code, model and message so edits above a finding keep it known."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import GOOD, make_model

from pbtxt_lint.cli import cli

RENAMED = GOOD.replace('name: "m"', 'name: "x"')


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def codes(output: str) -> list[str]:
    return [str(d["code"]) for d in json.loads(output)["diagnostics"]]


def test_adopt_then_see_only_new_findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "models"
    config = make_model(repo, "m", RENAMED) / "config.pbtxt"
    baseline = tmp_path / "baseline.json"
    monkeypatch.chdir(tmp_path)
    code, output, errors = run("check", "models", "--write-baseline", str(baseline))
    assert (code, output) == (0, "")
    assert "recorded 1 finding(s)" in errors
    recorded = json.loads(baseline.read_text())
    assert recorded["findings"][0]["path"] == "models/m/config.pbtxt"
    assert "line" not in recorded["findings"][0]

    assert run("check", "models", "--baseline", str(baseline))[0] == 0
    # Lines added above the finding move it, but it is still the same finding.
    config.write_text("# a new comment\n\n" + RENAMED)
    code, output, _ = run("check", "models", "--baseline", str(baseline))
    assert code == 0 and "no problems found (1 in the baseline)." in output
    # A new problem is reported; the recorded one is not.
    make_model(repo, "n", GOOD.replace('name: "m"', 'name: "y"'))
    code, output, _ = run("check", "models", "--baseline", str(baseline), "--format", "json")
    assert code == 1
    assert [d["model"] for d in json.loads(output)["diagnostics"]] == ["n"]


def test_paths_are_relative_to_the_baseline_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_model(tmp_path / "models", "m", RENAMED)
    baseline = tmp_path / "baseline.json"
    monkeypatch.chdir(tmp_path)
    run("check", "models", "--write-baseline", str(baseline))
    monkeypatch.chdir(tmp_path / "models")
    code, output, _ = run("check", ".", "--baseline", os.path.join("..", "baseline.json"))
    assert code == 0, output


def test_counts_matter(tmp_path: Path) -> None:
    config = make_model(
        tmp_path, "m", GOOD.replace("data_type: TYPE_FP32", 'data_type: "TYPE_FP32"', 1)
    )
    baseline = tmp_path.parent / f"{tmp_path.name}-baseline.json"
    run("check", str(tmp_path), "--write-baseline", str(baseline))
    (config / "config.pbtxt").write_text(
        GOOD.replace("data_type: TYPE_FP32", 'data_type: "TYPE_FP32"')
    )
    code, output, _ = run("check", str(tmp_path), "--baseline", str(baseline), "--format", "json")
    assert code == 1
    assert codes(output) == ["PL004"], "the second copy of a recorded finding is new"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (None, "no such baseline file (create it with --write-baseline"),
        ("{", "not a pbtxt-lint baseline (invalid JSON"),
        ('{"version": 9}', "not a pbtxt-lint baseline of format 1"),
        ('{"version": 1, "findings": [{"path": "x"}]}', "malformed entry"),
    ],
)
def test_bad_baselines_are_usage_errors(tmp_path: Path, content: str | None, expected: str) -> None:
    make_model(tmp_path, "m", GOOD)
    baseline = tmp_path / "baseline.json"
    if content is not None:
        baseline.write_text(content)
    code, output, errors = run("check", str(tmp_path), "--baseline", str(baseline))
    assert code == 2 and output == ""
    assert expected in errors and "Traceback" not in errors


def test_unwritable_baseline_is_a_usage_error(tmp_path: Path) -> None:
    make_model(tmp_path, "m", GOOD)
    code, _, errors = run(
        "check", str(tmp_path), "--write-baseline", str(tmp_path / "no" / "b.json")
    )
    assert code == 2 and "cannot write the baseline" in errors
