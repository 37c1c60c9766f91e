"""Generated docs are current: a new or changed rule must regenerate them."""

from __future__ import annotations

from pathlib import Path

from pbtxt_lint.docs import rules_reference, with_rule_table

ROOT = Path(__file__).resolve().parent.parent
STALE = "stale: run `python scripts/gen_docs.py`"


def test_rules_reference_is_current() -> None:
    assert (ROOT / "docs" / "rules.md").read_text() == rules_reference(), STALE


def test_readme_rule_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text()
    assert with_rule_table(readme) == readme, STALE
