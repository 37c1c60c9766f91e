#!/usr/bin/env python3
"""Regenerate docs/rules.md, docs/backends.md, the rule and backend-coverage tables in
README.md and the engine's rule index (pbtxt_lint/rules/index.py) from the rule
registry and the backends' censuses."""

from __future__ import annotations

from pathlib import Path

from pbtxt_lint.docs import census_reference, rule_index, rules_reference, with_rule_table

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    (ROOT / "docs").mkdir(exist_ok=True)
    (ROOT / "docs" / "rules.md").write_text(rules_reference())
    (ROOT / "docs" / "backends.md").write_text(census_reference())
    readme = ROOT / "README.md"
    readme.write_text(with_rule_table(readme.read_text()))
    (ROOT / "pbtxt_lint" / "rules" / "index.py").write_text(rule_index())


if __name__ == "__main__":
    main()
