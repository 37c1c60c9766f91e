"""lint() over worker processes gives exactly what it gives in one process.

Large repositories are split over forked workers (`linter.py`); rules read other models
and keep per-repository state, so this checks that the split changes nothing: every
model folder of every fixture case, copied into one repository, linted with one job and
with two, in both modes.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from fixture_cases import all_cases

from pbtxt_lint import engine
from pbtxt_lint.engine import PARALLEL_MIN_MODELS, _workers
from pbtxt_lint.linter import LintResult, lint
from pbtxt_lint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="workers are forked on Linux only"
)


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every model folder of every fixture case (and the examples), in one repository."""
    root = tmp_path_factory.mktemp("all-fixtures")
    cases = [case.path for case in all_cases()]
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


def _small_repository(root: Path) -> Path:
    for number in range(12):
        model = root / f"m{number}"
        (model / "1").mkdir(parents=True)
        batch = "max_batch_size: 8" if number % 2 else "max_batch_size: 0"
        (model / "config.pbtxt").write_text(
            f'backend: "python"\n{batch}\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ 1, 4 ] } ]\n'
        )
    return root


@pytest.mark.parametrize("reply", [None, b"not a pickle"])
def test_a_failed_worker_is_replaced_by_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reply: bytes | None
) -> None:
    """A worker that dies (no reply) or sends garbage: its models are linted in the parent."""
    repository = _small_repository(tmp_path / "repository")
    marks = tmp_path / "marks"
    marks.mkdir()

    def broken_worker(plan: object, share: range, write_end: int) -> None:
        (marks / str(os.getpid())).touch()  # proof that the forked worker ran
        if reply is not None:
            os.write(write_end, reply)
        os._exit(3 if reply is None else 0)

    settings = Settings(auto_complete=False)
    alone = lint([repository], settings, jobs=1)
    monkeypatch.setattr(engine, "_worker", broken_worker)
    split = lint([repository], settings, jobs=3)
    assert alone.models == 12 and alone.diagnostics
    assert summary(split) == summary(alone)
    assert len(list(marks.iterdir())) == 2  # two forked workers, the parent the third
