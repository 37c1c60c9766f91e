"""lint() over worker processes gives exactly what it gives in one process.

Large repositories are split over forked workers (`linter.py`); rules read other models
and keep per-repository state, so this checks that the split changes nothing: every
model folder of every fixture case, copied into one repository, linted with one job and
with two, in both modes.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from pbtxt_lint.linter import PARALLEL_MIN_MODELS, LintResult, _workers, lint
from pbtxt_lint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "rules"

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="workers are forked on Linux only"
)


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every model folder of every fixture case (and the examples), in one repository."""
    root = tmp_path_factory.mktemp("all-fixtures")
    cases = sorted(p for p in FIXTURES.glob("*/*") if p.is_dir())
    cases.append(ROOT / "examples" / "model_repository")
    for number, case in enumerate(cases):
        for model in sorted(p for p in case.iterdir() if p.is_dir() and not p.is_symlink()):
            shutil.copytree(model, root / f"c{number}_{model.name}", symlinks=True)
    assert len(list(root.iterdir())) > 2 * PARALLEL_MIN_MODELS
    return root


def summary(result: LintResult) -> tuple[object, ...]:
    return (
        result.diagnostics,
        result.models,
        result.files,
        result.suppressed,
        result.internal_errors,
        result.path_problems,
    )


@pytest.mark.parametrize("auto_complete", [True, False])
def test_workers_change_nothing(repository: Path, auto_complete: bool) -> None:
    settings = Settings(auto_complete=auto_complete)
    alone = lint([repository], settings, jobs=1)
    split = lint([repository], settings, jobs=2)
    assert alone.diagnostics, "the fixtures must produce diagnostics to compare"
    assert summary(split) == summary(alone)


def test_small_runs_stay_in_one_process() -> None:
    assert _workers(PARALLEL_MIN_MODELS - 1, None) == 1
    assert _workers(5, 1) == 1
    assert _workers(1, 8) == 1  # never more workers than models
