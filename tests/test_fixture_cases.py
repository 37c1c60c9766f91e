"""The fixture loader: data cases become the repositories they describe; mistakes in a
data file raise instead of silently testing less."""

from __future__ import annotations

import re
import stat
from collections import Counter
from pathlib import Path

import pytest
from fixture_cases import PYTHON_STUB, all_cases, corpus, find_case, load_data_file, materialize

DATA = """
[[case]]
name = "fail_typo"
args = "--config-only --gpus 1"
python_stub = ["m/1/model.py"]
empty = ["m/1/.gitkeep"]
dirs = ["m/2"]
expect = ["PL107 m", "PL665 m/1/model.py:3"]
fifos = ["m/pipe"]
files."m/config.pbtxt" = '''
backend: "python"
max_batch: 8  # expect: PL002, PL003
'''
files."m/configs/gpu.pbtxt" = "name: 'm'  # expect: PL001\\n"

[[case]]
name = "pass_minimal"
"""


def write(root: Path, code: str, text: str) -> Path:
    root.mkdir(exist_ok=True)
    path = root / f"{code}.toml"
    path.write_text(text)
    return path


def test_a_data_case_becomes_its_repository(tmp_path: Path) -> None:
    failing, passing = load_data_file(write(tmp_path / "rules", "PL002", DATA))
    assert failing.id == "PL002/fail_typo"
    assert failing.should_fail and not passing.should_fail
    assert failing.args == ("--config-only", "--gpus", "1")
    assert failing.expected == Counter(
        {
            ("m/config.pbtxt", 2, "PL002"): 1,
            ("m/config.pbtxt", 2, "PL003"): 1,
            ("m/configs/gpu.pbtxt", 1, "PL001"): 1,
            ("m", None, "PL107"): 1,
            ("m/1/model.py", 3, "PL665"): 1,
        }
    )
    folder = materialize(failing, tmp_path / "scratch")
    written = {
        p.relative_to(folder).as_posix(): p.read_bytes() if p.is_file() else None
        for p in folder.rglob("*")
        if not p.is_fifo()
    }
    assert written == {
        "m": None,
        "m/1": None,
        "m/2": None,
        "m/configs": None,
        "m/1/model.py": PYTHON_STUB.encode(),
        "m/1/.gitkeep": b"",
        "m/config.pbtxt": b'backend: "python"\nmax_batch: 8  # expect: PL002, PL003\n',
        "m/configs/gpu.pbtxt": b"name: 'm'  # expect: PL001\n",
    }
    assert stat.S_ISFIFO((folder / "m" / "pipe").lstat().st_mode)
    assert not (failing.path / "m" / "pipe").exists()  # the shared copy has no FIFO
    assert (failing.path / "m" / "config.pbtxt").read_bytes() == written["m/config.pbtxt"]
    assert list(materialize(passing, tmp_path / "scratch").iterdir()) == []


def test_folder_and_data_cases_of_a_rule_are_listed_together(tmp_path: Path) -> None:
    root = tmp_path / "rules"
    write(root, "PL002", DATA)
    (root / "PL002" / "pass_folder" / "m").mkdir(parents=True)
    (root / "PL002" / "pass_folder" / "expect.txt").write_text("args: --config-only\n")
    cases = all_cases(root)
    assert [c.name for c in cases] == ["fail_typo", "pass_folder", "pass_minimal"]
    assert cases[1].files is None and cases[1].path == root / "PL002" / "pass_folder"
    (root / "PL002" / "pass_minimal").mkdir()
    with pytest.raises(ValueError, match="named twice"):
        all_cases(root)


@pytest.mark.parametrize(
    "text,message",
    [
        ('[[case]]\nname = "broken"\n', "must start with 'fail' or 'pass'"),
        ('[[case]]\nname = "pass_x"\nexpected = ["PL001 m"]\n', "unknown keys"),
        ('[[case]]\nname = "pass_x"\nargs = ["--config-only"]\n', "args is one string"),
        ('[[case]]\nname = "pass_x"\nempty = "m/1/model.onnx"\n', "empty is a list"),
        ('[[case]]\nname = "pass_x"\nfiles."../x" = ""\n', "not a relative path"),
        ('[[case]]\nname = "pass_x"\nempty = ["/etc/x"]\n', "not a relative path"),
        ('[[case]]\nname = "pass_x"\nempty = ["a"]\nfiles.a = "x"\n', "given twice"),
        ('[case]\nname = "pass_x"\n', "only [[case]] tables"),
        ('name = "pass_x"\n', "only [[case]] tables"),
    ],
)
def test_mistakes_in_a_data_file_raise(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        load_data_file(write(tmp_path, "PL002", text))


def test_the_committed_fixtures_load_and_keep_binary_cases_as_folders() -> None:
    cases = all_cases()
    assert any(c.files is not None for c in cases) and any(c.files is None for c in cases)
    assert find_case("PL601", "pass_valid").files is None  # a generated ONNX model
    assert find_case("PL002", "fail_typo_and_wrong_block").files is not None
    labels = list(corpus("config.pbtxt"))
    assert labels[0].startswith("examples/")
    assert "PL002/fail_typo_and_wrong_block/m/config.pbtxt" in labels
