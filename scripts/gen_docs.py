#!/usr/bin/env python3
"""Regenerate docs/rules.md and the rule table in README.md from the rule registry."""

from __future__ import annotations

from pathlib import Path

from pbtxt_lint.docs import rules_reference, with_rule_table

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    (ROOT / "docs").mkdir(exist_ok=True)
    (ROOT / "docs" / "rules.md").write_text(rules_reference())
    readme = ROOT / "README.md"
    readme.write_text(with_rule_table(readme.read_text()))


if __name__ == "__main__":
    main()
