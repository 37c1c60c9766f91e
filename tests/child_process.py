"""Run a measuring snippet in a child Python, for the bounded-cost tests.

A hang or a memory blow-up in the code under test must fail one test, not the run. What
the child measured (memory, counted work: tests/work.py) comes back as JSON on stdout;
a child still running after HANG seconds is killed. That is a guard against a hang, far
above what any of these snippets needs even on a busy machine, not a measure of speed.
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
HANG = 600.0


def run_measured(code: str, argument: Path, what: str) -> dict[str, Any]:
    """`python -c code argument` with pbtxt_lint importable; its JSON output, or fail
    the test when it hangs (`what` names the work in the message)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, str(argument)], capture_output=True, text=True,
            timeout=HANG, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} still ran after {HANG:g}s: it hangs")
    assert done.returncode == 0, done.stderr[-2000:]
    measured: dict[str, Any] = json.loads(done.stdout)
    return measured
