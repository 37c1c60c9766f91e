"""Command-line options of the test suite, and its environment.

Tests run `pbtxt-lint check` inside fixture folders of this checkout; the result
cache (on by default for users) would write its folder there, so the suite turns it
off unless a test asks for it with --cache-dir (tests/test_cache.py).
"""

from __future__ import annotations

import os

import pytest

os.environ["PBTXT_LINT_NO_CACHE"] = "1"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--snapshot-update",
        action="store_true",
        help="rewrite tests/snapshots/ from what pbtxt-lint reports now (test_snapshots.py)",
    )
