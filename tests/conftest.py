"""Command-line options of the test suite, and its environment.

The result cache is on by default for users, in their cache folder; the suite turns
it off so that no test writes there, unless a test asks for it with a cache folder of
its own (tests/test_cache.py).
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
