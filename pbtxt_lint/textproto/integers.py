"""Integer literals of any length, read in time proportional to their length.

A config, a JSON config, an ONNX file's external-data offset or a parameter's string
can spell an integer with millions of digits. Python's int() refuses a decimal string
of more than 4,300 digits (a ValueError nobody expects, sys.get_int_max_str_digits) and
cannot print an int that long either, while protobuf's C++ tokenizer (ParseInteger in
io/tokenizer.cc) refuses every literal past 2**64 - 1 alike, as out of range. So every
magnitude past 64 bits reads here as one stand-in, BEYOND_64_BITS, which every range
check refuses and which prints in a few characters.
"""

from __future__ import annotations

BEYOND_64_BITS = 1 << 64
"""Stands for every integer past 2**64 - 1 (what protobuf's largest field holds)."""
_DIGITS = {10: 20, 16: 16, 8: 22}
"""The most digits a 64-bit value takes in each base (leading zeros aside)."""
_VALID = {
    10: frozenset("0123456789"),
    16: frozenset("0123456789abcdefABCDEF"),
    8: frozenset("01234567"),
}


def integer(text: str, base: int = 10) -> int:
    """`int(text, base)` for the digits of a literal with an optional sign (no 0x
    prefix), except that any magnitude past 64 bits is BEYOND_64_BITS. Like int(),
    raises ValueError when `text` is not digits of `base`."""
    body = text[1:] if text[:1] in "+-" else text
    significant = body.lstrip("0") or "0"
    if len(significant) > _DIGITS[base]:
        if not _VALID[base].issuperset(body):
            raise ValueError(f"not an integer in base {base}: {text[:40]!r}")
        magnitude = BEYOND_64_BITS
    else:
        magnitude = min(int(significant, base), BEYOND_64_BITS)
    return -magnitude if text[:1] == "-" else magnitude
