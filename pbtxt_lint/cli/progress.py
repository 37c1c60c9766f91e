"""Progress of a long run on standard error, for a person at a terminal.

`pbtxt-lint: 1,234/5,000 models` is written in place (carriage return) from the first
second of a run on, at most ten times a second, and erased when the run ends: a short
run never shows it, and a log or a pipe never gets it (the CLI makes one only when
standard error is a terminal).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

DELAY = 1.0
"""Seconds before the first line: a run shorter than this shows nothing."""
INTERVAL = 0.1
"""Seconds between two updates."""


class Progress:
    """The callback `lint(progress=...)` calls with (models done, models in the run)."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        self._stream = stream
        self._clock = clock
        self._started = clock()
        self._last = float("-inf")
        self._width = 0

    def __call__(self, done: int, total: int) -> None:
        now = self._clock()
        if now - self._started < DELAY or (now - self._last < INTERVAL and done < total):
            return
        self._last = now
        line = f"pbtxt-lint: {min(done, total):,}/{total:,} models"
        self._stream.write("\r" + line.ljust(self._width))
        self._stream.flush()
        self._width = len(line)

    def close(self) -> None:
        """Erase the line, if one was written, so the report starts on a clean line."""
        if self._width:
            self._stream.write("\r" + " " * self._width + "\r")
            self._stream.flush()
            self._width = 0
