"""The evaluation set (tests/evaluation/) and the independent held-out set
(tests/heldout/independent/) are well formed, and Triton loads every case.

Each case is a model repository plus a case.toml that says what request fails or answers
wrong (mistakes) or that it is correct (controls); scripts/evaluate.py scores pbtxt-lint
on it. These tests keep the set honest: every case.toml has the fields the scorer and
the live harness (scripts/evaluation_live.py) read, every config parses as Triton's
ModelConfig, every model.py is valid Python whose first line is a comment (the live
harness replaces it), the generated model files are what scripts/make_evaluation_set.py
writes, and the real tritonserver 2.51 accepts every model at its poll stage (a set of
"mistakes" Triton refuses to load would measure the error tier, not the warning tier).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import text_format
from oracle import TritonServer, require_tritonserver
from script_modules import load_script

from pbtxt_lint.schema import model_config_pb2

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "tests" / "evaluation"
CASES = sorted(p for p in CASES_DIR.iterdir() if p.is_dir())
HELDOUT_DIR = ROOT / "tests" / "heldout" / "independent"
HELDOUT = sorted(p.parent for p in HELDOUT_DIR.glob("*/case.toml"))
"""The independent held-out set (its README): same format, held to the same checks."""
ACCEPTED = {"backend_missing", "ready"}
"""Oracle verdicts of a model that passed every poll-stage check (empty backend folder)."""


def spec(case: Path) -> dict[str, Any]:
    with (case / "case.toml").open("rb") as handle:
        return tomllib.load(handle)


def test_the_set_is_large_enough() -> None:
    kinds = [spec(case)["kind"] for case in CASES]
    assert kinds.count("mistake") >= 40
    assert kinds.count("control") >= 25


def case_id(case: Path) -> str:
    return case.name if case.parent == CASES_DIR else f"heldout/{case.name}"


@pytest.mark.parametrize("case", CASES + HELDOUT, ids=case_id)
def test_case_toml_is_complete(case: Path) -> None:
    data = spec(case)
    assert data["kind"] in ("mistake", "control")
    assert case.name.startswith("m_" if data["kind"] == "mistake" else "c_")
    for key in ("summary", "request", "verified"):
        assert isinstance(data[key], str) and data[key].strip(), key
    assert isinstance(data["triton_says"], str)
    evidence = data["evidence"]
    assert isinstance(evidence, list) and evidence
    assert all(isinstance(e, str) and e.strip() for e in evidence)
    assert all(isinstance(a, str) for a in data.get("args", []))
    if data["verified"].startswith("live"):
        assert data.get("live"), "a case verified live lists the requests it sends"
    for entry in data.get("live", []):
        assert (case / "repo" / entry["model"] / "config.pbtxt").is_file()
        body = entry["body"]
        assert isinstance(body if isinstance(body, dict) else json.loads(body), dict)
    if data["kind"] == "mistake" and data["verified"].startswith("live"):
        assert data["triton_says"].strip(), "the observed answer is recorded"


@pytest.mark.parametrize("case", CASES + HELDOUT, ids=case_id)
def test_repository_parses(case: Path) -> None:
    configs = sorted((case / "repo").glob("*/config.pbtxt"))
    assert configs
    for config in configs:
        message = model_config_pb2.ModelConfig()
        text_format.Parse(config.read_text(encoding="utf-8"), message)
        versions = [d for d in config.parent.iterdir() if d.is_dir() and d.name.isdigit()]
        assert versions, f"{config.parent.name}: no version folder"
    for source in (case / "repo").glob("*/*/model.py"):
        text = source.read_text(encoding="utf-8")
        ast.parse(text, filename=str(source))
        assert text.startswith("#"), f"{source}: first line must be a comment"


def test_generated_model_files_are_current() -> None:
    assert load_script("make_evaluation_set").differences() == []


def test_scorer_runs_on_a_case(capsys: pytest.CaptureFixture[str]) -> None:
    evaluate = load_script("evaluate")
    assert evaluate.main(["c_py_add_sub", "m_py_output_name_typo"]) == 0
    out = capsys.readouterr().out
    assert "c_py_add_sub" in out and "m_py_output_name_typo" in out
    assert "mistakes caught:" in out


@pytest.fixture(scope="module")
def server() -> TritonServer:
    return require_tritonserver()


@pytest.mark.parametrize("case", CASES + HELDOUT, ids=case_id)
def test_triton_accepts_every_model(case: Path, server: TritonServer) -> None:
    verdicts = server.validate(case / "repo", auto_complete=True)
    assert verdicts
    refused = {
        m: f"{v.status}: {v.message}" for m, v in verdicts.items() if v.status not in ACCEPTED
    }
    assert not refused
