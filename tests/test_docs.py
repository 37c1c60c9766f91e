"""Generated docs are current: a new or changed rule must regenerate them."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbtxt_lint.docs import rule_index, rules_reference, with_rule_table
from pbtxt_lint.rules import catalog, index
from pbtxt_lint.rules.base import Rule, RuleInfo
from pbtxt_lint.rules.catalog import known_rules, stale_modules

ROOT = Path(__file__).resolve().parent.parent
STALE = "stale: run `make docs`"


def test_rules_reference_is_current() -> None:
    assert (ROOT / "docs" / "rules.md").read_text() == rules_reference(), STALE


def test_readme_rule_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text()
    assert with_rule_table(readme) == readme, STALE


def test_rule_index_is_current() -> None:
    assert (ROOT / "pbtxt_lint" / "rules" / "index.py").read_text() == rule_index(), STALE


def test_rule_index_digests_are_the_sources() -> None:
    assert stale_modules() == [], STALE


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


def test_a_changed_module_is_planned_from_its_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule runs the moment it is written: the index rows of a module edited since
    they were generated are not used; the module's own rules are."""
    monkeypatch.setitem(index.DIGESTS, "batching.priorities", "edited since")
    monkeypatch.delitem(index.DIGESTS, "layout.versions")  # a module the index never saw
    known_rules.cache_clear()
    try:
        planned = known_rules()
    finally:
        known_rules.cache_clear()
    from_rules = {r.code for r in planned if isinstance(r, Rule)}
    from_rows = {r.code for r in planned if isinstance(r, RuleInfo)}
    edited = {r.code for r in index.INDEX if r.module in ("batching.priorities", "layout.versions")}
    assert from_rules == edited
    assert from_rows == {r.code for r in index.INDEX} - edited
    assert [r.code for r in planned] == sorted(r.code for r in index.INDEX)


def test_a_module_without_source_is_planned_from_the_index(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(catalog, "source_digest", lambda module: None)
    known_rules.cache_clear()
    try:
        assert known_rules() == index.INDEX
    finally:
        known_rules.cache_clear()
