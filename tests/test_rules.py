"""Every fixture case reports exactly its expected diagnostics; every rule has cases."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixture_cases import Case, Expectation, all_cases, materialize

from pbtxt_lint.cli import cli
from pbtxt_lint.rules.registry import ALL_RULES

CASES = all_cases()


def run_case(
    case: Case, monkeypatch: pytest.MonkeyPatch, scratch: Path
) -> tuple[int, list[dict[str, object]]]:
    monkeypatch.chdir(materialize(case, scratch))
    result = CliRunner().invoke(cli, ["check", ".", "--format", "json", *case.args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)["diagnostics"]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    exit_code, diagnostics = run_case(case, monkeypatch, tmp_path)
    reported: Counter[Expectation] = Counter(
        (str(d["path"]), d["line"] if isinstance(d["line"], int) else None, str(d["code"]))
        for d in diagnostics
    )
    details = "\n".join(
        f"  {d['path']}:{d['line']}: {d['severity']} {d['code']} {d['message']}"
        for d in diagnostics
    )
    assert reported == case.expected, f"reported:\n{details}\nexpected: {dict(case.expected)}"
    codes = {code for _, _, code in case.expected}
    if case.should_fail:
        assert case.code in codes, f"a fail case must expect {case.code}"
    else:
        assert case.code not in codes, f"a pass case must not expect {case.code}"
    has_error = any(d["severity"] == "error" for d in diagnostics)
    assert exit_code == (1 if has_error else 0)


def test_every_rule_has_a_failing_and_a_passing_case() -> None:
    missing = []
    for rule in ALL_RULES:
        mine = [c for c in CASES if c.code == rule.code]
        if not any(c.should_fail for c in mine):
            missing.append(f"{rule.code}: no fail case")
        if not any(not c.should_fail for c in mine):
            missing.append(f"{rule.code}: no pass case")
    assert not missing, "\n".join(missing)


def test_every_case_belongs_to_a_rule() -> None:
    codes = {r.code for r in ALL_RULES}
    assert {c.code for c in CASES} <= codes


@pytest.mark.parametrize("rule", ALL_RULES, ids=[r.code for r in ALL_RULES])
def test_rule_is_documented(rule: object) -> None:
    from pbtxt_lint.diagnostics import Severity
    from pbtxt_lint.rules.base import Rule

    assert isinstance(rule, Rule)
    assert rule.summary.endswith("."), "a summary is one sentence"
    assert "Bad:" in rule.doc and "Good:" in rule.doc, "docs show a bad and a good example"
    if rule.severity is Severity.ERROR:
        assert rule.triton, "an error quotes the Triton message it prevents"
