"""Fixture cases of PL015 and PL016 through the same harness as every rule's.

They wait in `fixtures/pending_rules/` until the registry lists the two rules
(`test_rules.py` rejects cases of unregistered codes); once moved to `fixtures/rules/`,
this module runs them from there, and `test_rules.py` runs them too.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from fixture_cases import FIXTURES, Case, Expectation, all_cases
from test_rules import run_case

from pbtxt_lint.rules.meta import META_RULES

CODES = [rule.code for rule in META_RULES]
PENDING = FIXTURES.parent / "pending_rules"


def meta_cases() -> list[Case]:
    roots = [root for root in (FIXTURES, PENDING) if root.is_dir()]
    return [case for root in roots for case in all_cases(root) if case.code in CODES]


CASES = meta_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_case(case: Case, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    exit_code, diagnostics = run_case(case, monkeypatch, tmp_path)
    reported: Counter[Expectation] = Counter(
        (str(d["path"]), d["line"] if isinstance(d["line"], int) else None, str(d["code"]))
        for d in diagnostics
    )
    assert reported == case.expected
    assert (case.code in {code for _, _, code in case.expected}) is case.should_fail
    assert exit_code == (1 if any(d["severity"] == "error" for d in diagnostics) else 0)


def test_each_meta_rule_has_a_failing_and_a_passing_case() -> None:
    for code in CODES:
        mine = [c for c in CASES if c.code == code]
        assert any(c.should_fail for c in mine) and any(not c.should_fail for c in mine), code


@pytest.mark.parametrize("rule", META_RULES, ids=CODES)
def test_meta_rule_is_documented(rule: object) -> None:
    from pbtxt_lint.diagnostics import Severity
    from pbtxt_lint.rules.base import Rule

    assert isinstance(rule, Rule)
    assert rule.summary.endswith(".")
    assert "Bad:" in rule.doc and "Good:" in rule.doc
    assert rule.severity is not Severity.ERROR or rule.triton
