"""The pre-commit hooks: the hooks file is generated and current, its file patterns pick
Triton configs (pbtxt-fmt) and everything a check reads (pbtxt-lint), and the real
`pre-commit` tool runs the hook from a repository that points at this one, on a
temporary git project.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

import pytest
from script_modules import load_script
from test_cli import GOOD

MINIMAL_MODEL_PY = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"

ROOT = Path(__file__).resolve().parent.parent
GENERATOR = ROOT / "scripts" / "gen_pre_commit_hooks.py"


def generator() -> ModuleType:
    return load_script("gen_pre_commit_hooks")


def test_hooks_file_is_current() -> None:
    completed = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, "run: python scripts/gen_pre_commit_hooks.py"
    assert (ROOT / ".pre-commit-hooks.yaml").read_text() == generator().render()


@pytest.mark.parametrize(
    ("path", "selected"),
    [
        ("config.pbtxt", True),
        ("models/resnet/config.pbtxt", True),
        ("models/resnet/configs/h100.pbtxt", True),
        ("models/resnet/configs/deep/h100.pbtxt", False),
        ("models/resnet/other.pbtxt", False),
        ("models/resnet/config.pbtxt.bak", False),
        ("models/resnet/myconfig.pbtxt", False),
    ],
)
def test_file_pattern(path: str, selected: bool) -> None:
    """What pbtxt-fmt formats: configs only."""
    assert bool(re.search(generator().FILES, path)) is selected


@pytest.mark.parametrize(
    ("path", "selected"),
    [
        ("models/resnet/config.pbtxt", True),
        ("models/resnet/configs/h100.pbtxt", True),
        ("models/resnet/1/model.onnx", True),
        ("models/tok/1/model.py", True),
        ("models/tok/1/helpers/text.py", True),
        ("models/llm/1/model.json", True),
        ("models/resnet/1/model.savedmodel/saved_model.pb", True),
        ("models/resnet/labels.txt", True),
        ("models/tok/env.tar.gz", True),
        ("models/tok/triton_python_backend_stub", True),
        ("models/custom/libtriton_custom.so", True),
        ("models/resnet/model.onnx", True),  # outside its version folder: PL107 says so
        ("models/resnet/other.pbtxt", False),
        ("package.json", False),  # a .json given is read as a config: not passed
        ("README.md", False),
    ],
)
def test_check_hook_pattern_covers_what_a_check_reads(path: str, selected: bool) -> None:
    """What pbtxt-lint checks again: the configs and every file a check reads (files of
    the project around the models that match too are skipped by `check`)."""
    assert bool(re.search(generator().READ_FILES, path)) is selected


def _git(cwd: Path, *args: str) -> str:
    completed = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=_git_env()
    )
    return completed.stdout.strip()


def _git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "GITHUB_"))}
    identity = {"NAME": "pbtxt-lint tests", "EMAIL": "tests@example.invalid"}
    for role in ("AUTHOR", "COMMITTER"):
        for key, value in identity.items():
            env[f"GIT_{role}_{key}"] = value
    return env


def _hook_repository(target: Path) -> str:
    """A git repository holding the current tree of pbtxt-lint (work in progress
    included), committed; returns the commit pre-commit should use."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "pbtxt_lint", target / "pbtxt_lint", ignore=ignore)
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, target / name)
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-q", "-m", "pbtxt-lint under test")
    return _git(target, "rev-parse", "HEAD")


def test_real_pre_commit(tmp_path: Path) -> None:
    """A bad config fails the hook with our message, a good one passes, and a single
    config file still gets the checks that need its model folder."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    revision = _hook_repository(hooks)
    project = tmp_path / "project"
    models = project / "models"
    for name, config, versions in (
        ("m", GOOD.replace('name: "m"', 'name: "x"'), ("1",)),
        ("n", GOOD.replace('name: "m"', 'name: "n"'), ()),
    ):
        (models / name).mkdir(parents=True)
        (models / name / "config.pbtxt").write_text(config)
        for version in versions:
            (models / name / version).mkdir()
            (models / name / version / "model.py").write_text(MINIMAL_MODEL_PY)
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {hooks.as_posix()}\n    rev: {revision}\n"
        "    hooks:\n      - id: pbtxt-lint\n"
    )
    _git(project, "init", "-q")
    _git(project, "add", "-A")
    # The hook's environment gets pbtxt-lint from the hook repository as pre-commit
    # installs it, and its dependencies from this test environment (PYTHONPATH), so no
    # download happens and the test stays well under a minute.
    env = _git_env() | {
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PYTHONPATH": sysconfig.get_paths()["purelib"],
        "PIP_NO_BUILD_ISOLATION": "0",  # pip reads "0" here as --no-build-isolation
        "PIP_NO_INDEX": "1",
        "NO_COLOR": "1",
    }

    def pre_commit(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--color", "never", *args],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    everything = pre_commit("--all-files")
    output = everything.stdout + everything.stderr
    assert everything.returncode == 1, output
    assert "pbtxt-lint" in output and "Failed" in output
    assert "error PL103" in output and "does not match the folder name 'm'" in output
    assert "error PL107" in output, "model n has no version folder"

    (models / "m" / "config.pbtxt").write_text(GOOD)
    good = pre_commit("--files", "models/m/config.pbtxt")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout

    single = pre_commit("--files", "models/n/config.pbtxt")
    assert single.returncode == 1
    assert "error PL107" in single.stdout, "the version-folder check needs the model folder"
    assert "models/m" not in single.stdout, "only the model of the file passed is checked"

    # A change to model.py checks its model again; a file of no model is skipped.
    (models / "m" / "1" / "model.py").write_text("import x\n" + MINIMAL_MODEL_PY)
    (project / "setup.py").write_text("print()\n")
    beside = pre_commit("--files", "models/m/1/model.py", "setup.py", "--verbose")
    assert beside.returncode == 0, beside.stdout + beside.stderr
    assert "Checked 1 model (1 config file)" in beside.stdout
    assert "setup.py: not part of a model" in beside.stdout + beside.stderr


def test_every_hook_runs_a_command_that_exists() -> None:
    from pbtxt_lint.cli import COMMANDS

    for hook_id, command, *_ in generator().HOOKS:
        assert command in COMMANDS, f"hook {hook_id} runs `pbtxt-lint {command}`"
