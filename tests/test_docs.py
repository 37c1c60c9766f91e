"""Generated docs are current: a new or changed rule must regenerate them."""

from __future__ import annotations

from pathlib import Path

from pbtxt_lint.docs import rule_index, rules_reference, with_rule_table

ROOT = Path(__file__).resolve().parent.parent
STALE = "stale: run `python scripts/gen_docs.py`"


def test_rules_reference_is_current() -> None:
    assert (ROOT / "docs" / "rules.md").read_text() == rules_reference(), STALE


def test_readme_rule_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text()
    assert with_rule_table(readme) == readme, STALE


def test_rule_index_is_current() -> None:
    assert (ROOT / "pbtxt_lint" / "rules" / "index.py").read_text() == rule_index(), STALE


def test_rule_index_rows_are_the_rules() -> None:
    from pbtxt_lint.rules.index import INDEX
    from pbtxt_lint.rules.registry import ALL_RULES

    assert [info.load() for info in INDEX] == list(ALL_RULES)
    for info, rule in zip(INDEX, ALL_RULES, strict=True):
        assert (info.code, info.name, info.severity, info.scope, info.stage) == (
            rule.code,
            rule.name,
            rule.severity,
            rule.scope,
            rule.stage,
        )
