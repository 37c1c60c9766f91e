"""Names that attack the terminal or the report, and links that lead out (issue 24).

Every byte of a path or name that reaches a terminal or a report is escaped, a name
that is not UTF-8 is written in every format, and nothing is stat()ed through a link
that leaves the repository. Each case runs in an audited child (tests/audited.py).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from audited import PYTHON_MODEL, assert_well_behaved, run_audited, run_lint

CONFIG = b'backend: "python"\nmax_batch_size: -1\n'
"""A config with an error (PL301), so that every format has a finding to write."""
HOSTILE_NAMES = {
    "terminal-title": b"m\x1b]0;pwned\x07",
    "forged-line": b"n\rfake.pbtxt:1:1: error PL000 forged",
    "newline": b"o\nx",
    "not-utf8": b"bad\xff\xfe",
}


def hostile_repository(root: Path) -> Path:
    for name in HOSTILE_NAMES.values():
        folder = os.path.join(os.fsencode(root), name)
        os.makedirs(os.path.join(folder, b"1"))
        with open(os.path.join(folder, b"config.pbtxt"), "wb") as handle:
            handle.write(CONFIG)
        with open(os.path.join(folder, b"1", b"model.py"), "wb") as handle:
            handle.write(PYTHON_MODEL.encode())
    return root


def test_paths_reach_the_terminal_escaped(tmp_path: Path) -> None:
    """Messages were escaped, the path at the start of each line was not: ESC set the
    terminal's title, CR and newline forged finding lines."""
    root = hostile_repository(tmp_path / "repo")
    run = run_audited(root, "check", ".", "--no-color")
    assert_well_behaved(run, root, json_out=False)
    for forbidden in ("\x1b", "\x07", "\r", "\udcff", "\ufffd"):
        assert forbidden not in run.stdout
    findings = [line for line in run.stdout.splitlines() if " PL301 " in line]
    assert len(findings) == len(HOSTILE_NAMES)
    assert all(line.endswith("is negative; Triton refuses the model") for line in findings)
    assert "m\\x1b]0;pwned\\x07/config.pbtxt:2:17: error PL301" in run.stdout
    assert "bad\\xff\\xfe/config.pbtxt:2:17" in run.stdout


@pytest.mark.parametrize("output_format", ["json", "sarif", "gitlab", "github"])
def test_names_that_are_not_utf8_are_written_in_every_format(
    tmp_path: Path, output_format: str
) -> None:
    """SARIF and GitLab crashed in report/fingerprint.py on such a name."""
    root = hostile_repository(tmp_path / "repo")
    run = run_audited(root, "check", ".", "--format", output_format)
    assert_well_behaved(run, root, json_out=False)
    assert "\x1b" not in run.stdout
    if output_format != "github":
        document = json.loads(run.stdout)
        assert "bad" in json.dumps(document)
    else:
        assert run.stdout.count("::error ") == len(HOSTILE_NAMES)  # PL301


def test_a_terminal_that_takes_only_ascii_gets_escapes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Text output under an ASCII-only stdout raised UnicodeEncodeError."""
    root = hostile_repository(tmp_path / "repo")
    (root / "é").mkdir()  # not hostile, just not ASCII: a stray folder
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")
    monkeypatch.setenv("LC_ALL", "C")
    run = run_audited(root, "check", ".", "--no-color")
    assert_well_behaved(run, root, json_out=False)
    assert "Checked 5 models" in run.stdout


def test_the_graph_of_an_ensemble_escapes_its_names(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    step = "p\x1b]0;pwned\x07"
    (root / step / "1").mkdir(parents=True)
    (root / step / "1" / "model.py").write_text(PYTHON_MODEL)
    io = (
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    )
    (root / step / "config.pbtxt").write_text(f'backend: "python"\nmax_batch_size: 0\n{io}')
    (root / "e" / "1").mkdir(parents=True)
    (root / "e" / "config.pbtxt").write_text(
        f'platform: "ensemble"\nmax_batch_size: 0\n{io}ensemble_scheduling {{ step [ {{ '
        'model_name: "p\\x1b]0;pwned\\x07" model_version: -1 input_map { key: "IN" value: '
        '"IN" } output_map { key: "OUT\\x1b[2J" value: "OUT" } } ] }\n'
    )
    for output_format in ("tree", "mermaid", "dot"):
        run = run_audited(root, "graph", "e", "--format", output_format)
        assert_well_behaved(run, root, json_out=False)
        assert "\x1b" not in run.stdout and "pwned" in run.stdout


def test_onnx_external_data_behind_a_linked_folder_is_not_stated(tmp_path: Path) -> None:
    """The data file was stat()ed through a linked folder outside the repository, and its
    size printed."""
    from onnx_builders import set_external_location, write_external_data

    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = root / "m" / "1"
    folder.mkdir(parents=True)
    (root / "m" / "config.pbtxt").write_text('platform: "onnxruntime_onnx"\n')
    write_external_data(folder / "model.onnx")
    (folder / "model.onnx.data").rename(outside / "model.onnx.data")
    (folder / "weights").symlink_to(outside, target_is_directory=True)
    set_external_location(folder / "model.onnx", "weights/model.onnx.data")
    run = run_lint(root)
    assert_well_behaved(run, root)
    assert "symbolic link that leaves the model folder" in run.messages("PL604")
    assert "bytes" not in run.messages("PL604")


def test_a_label_file_over_the_cap_is_reported_not_skipped(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "m" / "1").mkdir(parents=True)
    (root / "m" / "1" / "model.py").write_text(PYTHON_MODEL)
    (root / "m" / "config.pbtxt").write_text(
        'backend: "python"\nmax_batch_size: 0\n'
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 10 ] } ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 10 ] '
        'label_filename: "labels.txt" } ]\n'
    )
    (root / "m" / "labels.txt").write_text("class\n" * ((9 << 20) // 6))
    run = run_lint(root)
    assert_well_behaved(run, root)
    found = [d for d in run.diagnostics if d["code"] == "PL730"]
    assert [d["severity"] for d in found] == ["info"]
    assert "larger than the 8 MiB pbtxt-lint reads" in str(found[0]["message"])


def test_a_fil_model_file_named_outside_the_repository_is_not_stated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FIL's default_model_filename may name a folder out of the repository (an absolute
    path, `..`, a link): PL888 asked whether it was a folder before anything else, and
    ended in an internal error on an absolute path."""
    from pbtxt_lint import CheckOptions, check

    root = tmp_path / "repo"
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "f" / "1").mkdir(parents=True)
    (root / "f" / "1" / "linked").symlink_to(outside, target_is_directory=True)
    stated = []
    real = Path.is_dir
    monkeypatch.setattr(Path, "is_dir", lambda self: stated.append(self) or real(self))
    for name in (str(outside), "../../../outside", "linked"):
        (root / "f" / "config.pbtxt").write_text(
            f'backend: "fil"\nmax_batch_size: 4\ndefault_model_filename: "{name}"\n'
            'parameters { key: "model_type" value { string_value: "xgboost_json" } }\n'
            'parameters { key: "output_class" value { string_value: "false" } }\n'
        )
        result = check([root], CheckOptions(processes=1))
        assert "PL888" in {d.code for d in result.diagnostics}
        assert not result.internal_errors
    assert not [p for p in stated if p == outside or outside in p.resolve().parents]


def test_convert_writes_no_raw_control_character(tmp_path: Path) -> None:
    """`convert --to pbtxt` of a config text kept a raw ESC (or a lone CR, a bidi
    override) of a string as it was: the terminal obeyed it. It is written as protobuf
    writes it, an octal escape of the same value."""
    model = tmp_path / "m"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text(PYTHON_MODEL)
    (model / "config.pbtxt").write_bytes(
        b'backend: "python"\n'
        b'output [ { name: "\x1b[2Jx\ry\xe2\x80\xaez" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    )
    run = run_audited(tmp_path, "convert", "--to", "pbtxt", "m/config.pbtxt")
    assert_well_behaved(run, tmp_path, json_out=False)
    assert not {"\x1b", "\r", "\u202e"} & set(run.stdout)
    assert '"\\033[2Jx\\015y\\342\\200\\256z"' in run.stdout
    (tmp_path / "again.pbtxt").write_text(run.stdout)
    names = [
        json.loads(run_audited(tmp_path, "convert", "--to", "json", name).stdout)["output"]
        for name in ("m/config.pbtxt", "again.pbtxt")
    ]
    assert names[0] == names[1]
