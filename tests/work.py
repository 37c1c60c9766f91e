"""Counted work: how tests bound the cost of a call without a clock.

Elapsed time depends on how busy the machine is (a 2-core machine shared with other jobs
runs the suite several times slower), so no test asserts it; timings live in bench/.
What a test can assert instead is the work a call does, counted in units that do not
change with the load: the function calls it makes (Python and C, through
`sys.setprofile`), the bytes it reads, the items a bounded reader reports it walked.
A blow-up (a walk repeated per node, a quadratic loop, an exponential expansion) shows as
a count far above the bound, on any machine; a hang still ends at the child process's
kill timeout, which is a guard, not a measure.

    with counted_calls() as calls:
        read(path)
    assert calls.total < 200_000
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

_COUNTED = frozenset({"call", "c_call"})


@dataclass
class Calls:
    """Function calls made inside a `counted_calls()` block."""

    total: int = 0


@contextmanager
def counted_calls() -> Iterator[Calls]:
    """Count every Python and C function call made in the block (this thread)."""
    calls = Calls()
    previous = sys.getprofile()

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event in _COUNTED:
            calls.total += 1

    sys.setprofile(profile)
    try:
        yield calls
    finally:
        sys.setprofile(previous)


CHILD_PRELUDE = """
import sys
_calls = [0]
def _profile(frame, event, arg):
    if event == "call" or event == "c_call":
        _calls[0] += 1
def count_calls(function, *args):
    '''function(*args) and the Python and C calls it made (tests/work.py).'''
    sys.setprofile(_profile)
    try:
        return function(*args), _calls[0]
    finally:
        sys.setprofile(None)
        _calls[0] = 0
"""
"""The same count for code a test runs in a child process (tests/child_process.py)."""
