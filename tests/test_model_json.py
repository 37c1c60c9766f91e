"""The JSON object reader of vLLM's model.json and multi_lora.json: what json.load
accepts, keys with their positions, and every bad file a finding, never an exception."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pbtxt_lint.artifacts.model_json import MAX_BYTES, read_json_object


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "model.json"
    path.write_bytes(data)
    return path


def test_keys_keep_their_positions_and_the_last_duplicate_wins(tmp_path: Path) -> None:
    path = _write(tmp_path, b'{\n  "model": "m",\n\t"tensor_parallel_size" : 2, "model": "n"\n}')
    document = read_json_object(path)
    assert not document.problem
    assert [(e.key, e.line, e.column) for e in document.entries] == [
        ("tensor_parallel_size", 3, 2),
        ("model", 3, 30),  # json.load keeps one "model": the last
    ]
    found = document.get("model")
    assert found is not None and found.value == "n"


@pytest.mark.parametrize(
    ("data", "problem", "words"),
    [
        (b'{"model": "m",}', "syntax", "Expecting property name enclosed in double quotes"),
        (b'\xef\xbb\xbf{"model": "m"}', "syntax", "Unexpected UTF-8 BOM"),
        (b'{"model": "\xff"}', "syntax", "UnicodeDecodeError"),
        (b"[" * 10_000, "syntax", "RecursionError"),
        (b'["--model", "m"]', "not-an-object", "a JSON array"),
        (b"", "syntax", "Expecting value"),
    ],
)
def test_what_json_load_refuses_is_a_problem(
    tmp_path: Path, data: bytes, problem: str, words: str
) -> None:
    document = read_json_object(_write(tmp_path, data))
    assert document.problem == problem
    assert words in document.message


def test_nan_is_accepted_as_json_load_does(tmp_path: Path) -> None:
    document = read_json_object(_write(tmp_path, b'{"swap_space": NaN}'))
    assert not document.problem and document.entries[0].key == "swap_space"


def test_missing_folder_fifo_and_large_files_are_not_read(tmp_path: Path) -> None:
    assert read_json_object(tmp_path / "absent.json").problem == "missing"
    (tmp_path / "dir.json").mkdir()
    assert read_json_object(tmp_path / "dir.json").problem == "unreadable"
    os.mkfifo(tmp_path / "fifo.json")
    assert read_json_object(tmp_path / "fifo.json").problem == "unreadable"
    large = _write(tmp_path, b"{" + b" " * MAX_BYTES + b"}")
    assert read_json_object(large).problem == "too-large"
