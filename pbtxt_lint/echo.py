"""Bounded, inert echoes of user text in messages, hints and code frames.

A config, a model file or a request body can hold a 1 MB name on one line, or bytes
that a terminal obeys (ESC sequences, a newline that forges another `path:line:col:`
line, bidi overrides that reorder what the reader sees). Whatever pbtxt-lint quotes
from them goes through here: control characters become visible escapes, long runs are
cut in the middle with an ellipsis, and a code frame shows a window around its span.
Everything is idempotent, so text may pass through twice.
"""

from __future__ import annotations

import re

ELLIPSIS = "\u2026"
VALUE_LIMIT = 60
"""A quoted name or value longer than this is shortened (tensor names run to ~60)."""
RUN_LIMIT = 100
"""In a whole message, a run without spaces longer than this is user text: shortened."""
MESSAGE_LIMIT = 600
"""A message or hint longer than this loses its middle (the longest real ones are ~420)."""
FRAME_WIDTH = 100
"""Characters of a source line a code frame shows around its span."""
_FRAME_BEFORE = 30  # of which before the span, when the line must be cut

# C0 and C1 controls, DEL, the bidi embeddings, overrides and isolates, and the lone
# surrogates that stand for the bytes of a file name that is not UTF-8 (surrogateescape).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")
_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LONG_RUN = re.compile(rf"\S{{{RUN_LIMIT + 1},}}")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    escaped = _ESCAPES.get(char)
    if escaped is not None:
        return escaped
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8: written as that byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str) -> str:
    """`text` with every control or bidi character, and every byte of a name that is
    not UTF-8, written as an escape (`\\x1b`, `\\xff`): what a terminal, a report or a
    file of any encoding takes as it is. Paths go through it too (a folder name can hold
    ESC or a newline)."""
    return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text


def _cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters by dropping its middle for an ellipsis."""
    if len(text) <= limit:
        return text
    tail = (limit - 1) // 3
    head = limit - 1 - tail
    return text[:head] + ELLIPSIS + text[len(text) - tail :]


def shorten(value: str, limit: int = VALUE_LIMIT) -> str:
    """A name or value to quote in a message: inert, and at most `limit` characters
    (the middle gives way to an ellipsis, so both ends stay recognisable)."""
    return _cut(inert(value), limit)


def bound_message(text: str) -> str:
    """A whole message or hint made safe to print: inert, every long run of non-space
    characters shortened, and the whole at most MESSAGE_LIMIT characters."""
    if not text.isprintable():  # str's own test is the fast path for the usual message
        text = inert(text)
    if len(text) > RUN_LIMIT and max(map(len, text.split())) > RUN_LIMIT:
        text = _LONG_RUN.sub(lambda match: _cut(match.group(), RUN_LIMIT), text)
    return _cut(text, MESSAGE_LIMIT)


def frame_line(text: str) -> str:
    """A source line as a code frame shows it: one visible character per character, so
    the caret line stays aligned (a tab is a space, a control character its symbol)."""
    text = text.replace("\t", " ")
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(_picture, text)


def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: NUL is U+2400
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def window(text: str, start: int, end: int, width: int = FRAME_WIDTH) -> tuple[str, int, int]:
    """The part of a line a code frame shows, for the span [start, end) (0-based).

    Returns the visible text (an ellipsis on each cut side) and the span's start and
    end in it; a line of at most `width` characters comes back whole.
    """
    if len(text) <= width:
        return text, start, end
    first = max(0, min(start - _FRAME_BEFORE, len(text) - width))
    last = min(len(text), first + width)
    shown = text[first:last]
    offset = first
    if first > 0:
        shown = ELLIPSIS + shown
        offset -= 1
    if last < len(text):
        shown += ELLIPSIS
    visible_end = len(shown) - (1 if last < len(text) else 0)
    new_start = min(max(start - offset, 0), visible_end)
    new_end = min(max(end - offset, new_start + 1), visible_end + 1)
    return shown, new_start, new_end
