"""Command-line options of the test suite."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--snapshot-update",
        action="store_true",
        help="rewrite tests/snapshots/ from what pbtxt-lint reports now (test_snapshots.py)",
    )
