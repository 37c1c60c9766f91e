"""Hostile inputs that cost time, memory or output: each run stays bounded (issue 24).

Every case is generated in tmp_path (nothing large is committed) and run in an audited
child (tests/audited.py) that must end within its timeout with exit 0 or 1, no
traceback, no internal error and bounded memory. Work is bounded by what we count
(findings, bytes of output), never by elapsed time: a run that hangs or goes quadratic
is caught by the child's timeout, generous on purpose.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

from audited import PYTHON_MODEL, assert_well_behaved, run_lint

ENSEMBLE_IO = (
    "max_batch_size: 0\n"
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
)


def step(model: str, read: str, write: str) -> str:
    return (
        f'{{ model_name: "{model}" model_version: -1 input_map {{ key: "IN" value: "{read}" }} '
        f'output_map {{ key: "OUT" value: "{write}" }} }}'
    )


def ensemble(root: Path, name: str, steps: list[str]) -> None:
    folder = root / name
    (folder / "1").mkdir(parents=True)
    body = ",\n".join(steps)
    (folder / "config.pbtxt").write_text(
        f'platform: "ensemble"\n{ENSEMBLE_IO}ensemble_scheduling {{ step [\n{body}\n] }}\n'
    )


def python_model(root: Path, name: str) -> None:
    folder = root / name
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.py").write_text(PYTHON_MODEL)
    (folder / "config.pbtxt").write_text(f'backend: "python"\n{ENSEMBLE_IO}')


def chain(count: int) -> list[tuple[str, str]]:
    """The tensors `count` steps read and write, IN -> t1 -> ... -> OUT."""
    names = ["IN", *(f"t{i}" for i in range(1, count)), "OUT"]
    return list(pairwise(names))


# --------------------------------------------------------------------------- ensembles


def test_hundreds_of_nested_ensembles_are_walked_not_recursed(tmp_path: Path) -> None:
    """Each ensemble's one step is the next ensemble: the composing-model checks
    (PL516's first errors, the decoupled flag) went as deep as the nesting and hit
    Python's recursion limit."""
    depth = 600
    for i in range(depth):
        ensemble(tmp_path, f"e{i}", [step(f"e{i + 1}", "IN", "OUT")])
    python_model(tmp_path, f"e{depth}")
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert run.diagnostics == []


def test_a_diamond_of_nested_ensembles_costs_one_visit_per_model(tmp_path: Path) -> None:
    """Each ensemble uses the next one twice: 2**40 paths, 41 models."""
    depth = 40
    for i in range(depth):
        inner = f"d{i + 1}"
        ensemble(tmp_path, f"d{i}", [step(inner, "IN", "a"), step(inner, "a", "OUT")])
    python_model(tmp_path, f"d{depth}")
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert run.diagnostics == []


def test_an_ensemble_naming_itself_in_every_step_is_one_cycle(tmp_path: Path) -> None:
    """Thousands of steps that all name the ensemble and write the same tensor: the
    cycle and the twice-written tensor are reported once each, naming how many steps
    share them (16,000 steps took minutes and printed megabytes, a finding per step)."""
    count = 4000
    ensemble(tmp_path, "e", [step("e", "IN", "OUT")] * count)
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert sorted(str(d["code"]) for d in run.diagnostics) == ["PL507", "PL514"]
    assert f"{count - 13:,} more" in run.messages("PL514")
    assert len(run.stdout) < 10_000


def test_a_long_broken_chain_is_followed_step_by_step(tmp_path: Path) -> None:
    """PL510 follows the chain from the output back to the tensor nobody writes; it
    recursed once per step. Written last step first, the steps also make Triton's
    pass-by-pass reachability take one pass per step, once per step of the walk."""
    count = 3000
    links = chain(count)
    links[0] = ("nothing", links[0][1])
    python_model(tmp_path, "p")
    ensemble(tmp_path, "e", [step("p", read, write) for read, write in reversed(links)])
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert run.codes() == {"PL508", "PL510", "PL511"}
    assert "`nothing`, which is neither an ensemble input" in run.messages("PL510")
    assert len(run.stdout) < 20_000


def test_a_long_chain_written_backwards_is_one_walk(tmp_path: Path) -> None:
    """Triton's reachability runs the steps in passes over the written order; emulated
    pass by pass, a chain written last step first took one pass per step."""
    count = 16_000
    python_model(tmp_path, "p")
    ensemble(tmp_path, "e", [step("p", read, write) for read, write in reversed(chain(count))])
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert run.diagnostics == []
