"""Run a measuring snippet in a child Python with a time limit, for the bounded-cost tests.

A hang or a memory blow-up in the code under test must fail one test, not the run: the
child is killed after `seconds`, and what it measured comes back as JSON on stdout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run_measured(code: str, argument: Path, seconds: float, what: str) -> dict[str, Any]:
    """`python -c code argument` with pbtxt_lint importable; its JSON output, or fail
    the test when it takes longer than `seconds` (`what` names the work in the message)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(argument)], capture_output=True, text=True,
            timeout=seconds, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} took longer than {seconds:g}s")
    assert done.returncode == 0, done.stderr[-2000:]
    measured: dict[str, Any] = json.loads(done.stdout)
    return measured
