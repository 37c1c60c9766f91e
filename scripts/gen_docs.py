#!/usr/bin/env python3
"""Regenerate docs/rules.md, docs/backends.md, the rule and backend-coverage tables in
README.md and the engine's rule index (pbtxt_lint/rules/index.py) from the rules and
the backends' censuses (`make docs`).

Any Python runs it: one without pbtxt-lint's dependencies hands over to the checkout's
`.venv` (made by `make .venv/.installed`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_PYTHON = ROOT / ".venv" / "bin" / "python"


def main() -> None:
    from pbtxt_lint.docs import census_reference, rule_index, rules_reference, with_rule_table

    (ROOT / "docs").mkdir(exist_ok=True)
    (ROOT / "docs" / "rules.md").write_text(rules_reference())
    (ROOT / "docs" / "backends.md").write_text(census_reference())
    readme = ROOT / "README.md"
    readme.write_text(with_rule_table(readme.read_text()))
    (ROOT / "pbtxt_lint" / "rules" / "index.py").write_text(rule_index())


def _needs_venv() -> bool:
    """True when this Python lacks pbtxt-lint's dependencies (a system `python3`)."""
    try:
        import pbtxt_lint.docs  # noqa: F401
    except ModuleNotFoundError:
        return True
    return False


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if _needs_venv():
        if not VENV_PYTHON.exists() or Path(sys.executable) == VENV_PYTHON:
            sys.exit("pbtxt-lint's dependencies are missing: run `make docs` (it makes .venv)")
        os.execv(VENV_PYTHON, [str(VENV_PYTHON), *sys.argv])
    main()
