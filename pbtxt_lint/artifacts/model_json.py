"""A small JSON object file read with the position of each key: vLLM's `model.json`
(the engine arguments) and `multi_lora.json` (LoRA name -> path).

The vLLM backend reads both with Python's `json.load` and fails the model's load on
anything that module refuses, so this reader accepts exactly what it accepts (NaN and
Infinity included) and keeps its message ("Expecting ',' delimiter: line 3 column 5
(char 40)"). Keys are found by walking the top-level object after it parsed, so each
finding can point at its line. Read through `pbtxt_lint.storage`, at most `MAX_BYTES`.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from pathlib import Path

from pbtxt_lint import storage
from pbtxt_lint.artifacts.signature import reason

MAX_BYTES = 1 << 20
"""Larger files are not read: real engine-argument files are well under a kilobyte."""


@dataclass(frozen=True)
class JsonEntry:
    """One key of the top-level object, with its value and where the key is written."""

    key: str
    value: object
    line: int
    column: int


@dataclass(frozen=True)
class JsonObjectFile:
    """What `json.load` makes of the file, or why it fails."""

    path: Path
    entries: tuple[JsonEntry, ...] = ()
    problem: str = ""
    """"" when the file is a JSON object; else "missing", "unreadable", "too-large",
    "syntax" (what json.load refuses) or "not-an-object"."""
    message: str = ""
    """Python's words for the problem (the exception the backend raises)."""
    line: int = 0
    column: int = 0

    def get(self, key: str) -> JsonEntry | None:
        """The entry `json.load` keeps for `key` (the last one written)."""
        return next((entry for entry in reversed(self.entries) if entry.key == key), None)


def read_json_object(path: Path) -> JsonObjectFile:
    """Read `path` as the backend's `json.load(open(path))` would; never raises."""
    try:
        st = storage.stat(path)
    except FileNotFoundError:
        return JsonObjectFile(path, problem="missing", message="No such file or directory")
    except (OSError, ValueError) as error:
        return JsonObjectFile(path, problem="unreadable", message=reason(error))
    if not stat.S_ISREG(st.st_mode):  # a FIFO would block the read
        what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        return JsonObjectFile(path, problem="unreadable", message=f"it is {what}")
    if st.st_size > MAX_BYTES:
        return JsonObjectFile(
            path, problem="too-large", message=f"larger than {MAX_BYTES >> 10} KiB: not read"
        )
    try:
        data = storage.read_whole(path, MAX_BYTES)
    except OSError as error:
        return JsonObjectFile(path, problem="unreadable", message=reason(error))
    if len(data) > MAX_BYTES:  # it grew after the stat
        return JsonObjectFile(
            path, problem="too-large", message=f"larger than {MAX_BYTES >> 10} KiB: not read"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return JsonObjectFile(path, problem="syntax", message=f"UnicodeDecodeError: {error}")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        return JsonObjectFile(
            path, problem="syntax", message=f"JSONDecodeError: {error}", line=error.lineno,
            column=error.colno,
        )  # fmt: skip
    except RecursionError:
        return JsonObjectFile(
            path, problem="syntax", message="RecursionError: maximum recursion depth exceeded"
        )
    except ValueError as error:  # an integer past int()'s 4,300 digits: json.load fails too
        return JsonObjectFile(path, problem="syntax", message=f"ValueError: {error}")
    if not isinstance(value, dict):
        return JsonObjectFile(
            path, problem="not-an-object", message=f"a JSON {json_kind(value)} instead of an object"
        )
    return JsonObjectFile(path, entries=tuple(_entries(text)))


def _entries(text: str) -> list[JsonEntry]:
    """The top-level keys of `text`, a JSON object that `json.loads` accepted: each key
    once, where `json.load` keeps it (the last time it is written), in one pass over the
    text (lines are counted from the previous key, not from the start)."""
    decoder = json.JSONDecoder()
    entries: dict[str, JsonEntry] = {}
    index = _skip(text, 0) + 1  # past "{"
    line, line_start, counted = 1, 0, 0
    while True:
        index = _skip(text, index)
        if text[index] == "}":
            return list(entries.values())  # in the order of the kept keys
        start = index
        key, index = json.decoder.scanstring(text, index + 1)  # type: ignore[attr-defined]
        index = _skip(text, index) + 1  # past ":"
        value, index = decoder.raw_decode(text, _skip(text, index))
        line += text.count("\n", counted, start)
        line_start = max(line_start, text.rfind("\n", counted, start) + 1)
        counted = start
        entries.pop(key, None)
        entries[key] = JsonEntry(key, value, line, start - line_start + 1)
        index = _skip(text, index)
        if text[index] == ",":
            index += 1


def _skip(text: str, index: int) -> int:
    while text[index] in " \t\r\n":
        index += 1
    return index


def json_kind(value: object) -> str:
    """A value's JSON name: object, array, string, number, true/false, null."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    return "null" if value is None else "number"
