"""How backends read the strings of a config's `parameters` map.

Every backend gets parameters as strings and converts them itself: `std::stoi` reads a
leading integer and ignores the rest, `ParseBoolValue` takes true/on/1 or false/off/0.
Checks that predict what a backend makes of a value use these, not Python's parsers.
"""

from __future__ import annotations

import re

from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.textproto.integers import integer

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
_STOI = re.compile(r"[ \t\n\v\f\r]*([+-]?\d+)")
"""What `std::stoi` reads: optional white space, an optional sign, decimal digits."""


def leading_int(text: str) -> int | None:
    """The integer `std::stoi`/`std::stoll` read from `text`, or None when they throw."""
    match = _STOI.match(text)
    return integer(match.group(1)) if match else None


def parse_bool(text: str) -> bool | None:
    """The backends' `ParseBoolValue`: true/on/1 or false/off/0, any case; else None."""
    lowered = text.lower()
    if lowered in ("true", "on", "1"):
        return True
    if lowered in ("false", "off", "0"):
        return False
    return None


def parameter(config: ModelConfig, key: str) -> str | None:
    """A `parameters` entry's string value, or None when the key is absent."""
    return config.parameters[key].string_value if key in config.parameters else None
