"""Output stays small and inert whatever the input: long lines, long names, control
characters, binary files, files with hundreds of problems (issue 14)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pbtxt_lint.diagnostics import Diagnostic, Severity, Span
from pbtxt_lint.echo import (
    ELLIPSIS,
    MESSAGE_LIMIT,
    RUN_LIMIT,
    bound_message,
    frame_line,
    inert,
    shorten,
    window,
)
from pbtxt_lint.linter import lint
from pbtxt_lint.report.github import render_github
from pbtxt_lint.report.gitlab import render_gitlab
from pbtxt_lint.report.json_report import render_json
from pbtxt_lint.report.sarif import render_sarif
from pbtxt_lint.report.text import code_frame
from pbtxt_lint.settings import Settings

MODEL_PY = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"
IO = (
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)
MEGABYTE = 1_000_000
TEXT_BUDGET = 10_000


def run(*args: str, cwd: Path, stdin: str | None = None) -> tuple[int, str, str]:
    completed = subprocess.run(
        [sys.executable, "-m", "pbtxt_lint", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ | {"NO_COLOR": "1", "GITHUB_ACTIONS": ""},
        check=False,
    )
    return completed.returncode, completed.stdout, completed.stderr


def model(root: Path, config: bytes | str, name: str = "m") -> Path:
    folder = root / name
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.py").write_text(MODEL_PY)
    data = config.encode() if isinstance(config, str) else config
    (folder / "config.pbtxt").write_bytes(data)
    return folder


# --- the helpers --------------------------------------------------------------------------


def test_shorten_keeps_both_ends() -> None:
    assert shorten("encoder_output") == "encoder_output"
    long = "a" * 30 + "b" * 1000 + "c" * 30
    short = shorten(long)
    assert len(short) == 60 and ELLIPSIS in short
    assert short.startswith("a" * 30) and short.endswith("c" * 19)


def test_control_characters_become_escapes() -> None:
    assert inert("x\x1b[2Jy") == "x\\x1b[2Jy"
    assert inert("two\nlines\r\tand \u202eevil") == "two\\nlines\\r\\tand \\u202eevil"
    assert inert("café ☕") == "café ☕"


def test_bound_message_cuts_runs_and_length_and_is_idempotent() -> None:
    message = f"name 'x{'y' * 100_000}' differs from folder name 'm'; Triton refuses it"
    bounded = bound_message(message)
    assert len(bounded) < 2 * RUN_LIMIT
    assert bounded.endswith("differs from folder name 'm'; Triton refuses it")
    assert bound_message(bounded) == bounded
    spaced = "dims [" + ", ".join(["1"] * 100_000) + "] do not match"
    assert len(bound_message(spaced)) <= MESSAGE_LIMIT
    assert bound_message(spaced).endswith("] do not match")
    assert bound_message(bound_message(spaced)) == bound_message(spaced)
    ordinary = "input 'x' of model 'm' has dims [ 3, 224, 224 ]; the model says [ 3, 256 ]"
    assert bound_message(ordinary) == ordinary


def test_frame_line_keeps_one_column_per_character() -> None:
    line = "a\tb\x1bc\x00d\x7fe\u202ef"
    shown = frame_line(line)
    assert len(shown) == len(line)
    assert "\x1b" not in shown and "\x00" not in shown and "\u202e" not in shown


@pytest.mark.parametrize("start", [0, 5, 500, 50_000, 99_990, 100_000])
def test_window_shows_the_span(start: int) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(100_000))
    shown, begin, end = window(text, start, start + 3)
    assert len(shown) <= 102
    assert begin < end <= len(shown) + 1
    if start == len(text):  # a span at the end of the line (a missing value)
        assert begin == len(shown)
    else:
        visible = shown[begin:end].replace(ELLIPSIS, "")
        assert visible and text[start : start + 3].startswith(visible)
    assert shown.startswith(ELLIPSIS) == (start > 30)


def test_code_frame_of_a_long_line_is_a_window() -> None:
    line = "x" * 50_000 + " name: 1 " + "y" * 50_000
    diagnostic = Diagnostic(
        "PL005", Severity.ERROR, "bad", Path("c.pbtxt"), Span(1, 50_008, 1, 50_009)
    )
    frame = code_frame(diagnostic, lambda _: [line])
    assert frame is not None
    text, carets = frame.split("\n")
    assert len(text) < 120 and text.count(ELLIPSIS) == 2
    assert "name: 1" in text
    assert text[carets.index("^")] == "1"


def test_diagnostic_messages_are_bounded_and_inert() -> None:
    diagnostic = Diagnostic(
        "PL103",
        Severity.ERROR,
        f"name '{'n' * 10_000}\n' differs",
        Path("c.pbtxt"),
        hint="rename to '" + "h" * 10_000 + "'",
    )
    assert len(diagnostic.message) < 2 * RUN_LIMIT and "\n" not in diagnostic.message
    assert diagnostic.hint is not None and len(diagnostic.hint) < 2 * RUN_LIMIT


# --- whole runs: output size ----------------------------------------------------------------

ONE_LINE_CONFIGS = {
    # one megabyte on one line, in the shapes people (or generators) produce
    "long name": f'name: "{"n" * MEGABYTE}" backend: "python" {IO}'.replace("\n", " "),
    "long unknown field": f'name: "m" backend: "python" {"f" * MEGABYTE}: 1 {IO}'.replace(
        "\n", " "
    ),
    "long parameter key": (
        'name: "m" backend: "onnxruntime" parameters { key: "'
        + "v" * MEGABYTE
        + f'" value {{ string_value: "1" }} }} {IO}'
    ).replace("\n", " "),
    # every word a mistake: each costs the parser a problem, so a tenth of the size
    "garbage words": "x " * (MEGABYTE // 20),
    "long dims": (
        'name: "m" backend: "python" input [ { name: "IN" data_type: TYPE_FP32 dims: [ '
        + ", ".join(["0"] * (MEGABYTE // 3))
        + ' ] } ] output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]'
    ),
}


@pytest.mark.parametrize("kind", sorted(ONE_LINE_CONFIGS))
def test_a_megabyte_line_gives_a_few_kilobytes(kind: str, tmp_path: Path) -> None:
    text = ONE_LINE_CONFIGS[kind]
    assert len(text) >= MEGABYTE // 10 and text.count("\n") <= 1
    model(tmp_path, text)
    _, out, err = run("check", ".", "--config-only", "--min-severity", "info", cwd=tmp_path)
    assert any(f" {severity} PL" in out for severity in ("error", "warning", "info")), out + err
    assert len(out.encode()) + len(err.encode()) < TEXT_BUDGET, out[:2000]
    # The machine formats, rendered in-process from one run of the engine.
    result = lint([tmp_path], Settings(config_only=True), jobs=1)
    stream = io.StringIO()
    render_github(result, stream)
    outputs = {
        "github": stream.getvalue(),
        "gitlab": render_gitlab(result),
        "json": json.dumps(json.loads(render_json(result))["diagnostics"]),
        # the rule registry is most of a SARIF document: measure the results
        "sarif": json.dumps(json.loads(render_sarif(result))["runs"][0]["results"]),
    }
    # A bounded number of findings, each of a bounded size (the text is measured above).
    assert len(result.diagnostics) <= 25
    for output_format, findings in outputs.items():
        per_finding = len(findings.encode()) / len(result.diagnostics)
        assert per_finding < 2_000, (output_format, findings[:2000])
        assert "n" * 1000 not in findings and "v" * 1000 not in findings
        assert "f" * 1000 not in findings


def test_a_long_request_line_gives_a_few_kilobytes(tmp_path: Path) -> None:
    folder = model(tmp_path, 'name: "m"\nbackend: "python"\n' + IO)
    body = {
        "inputs": [
            {"name": "I" * MEGABYTE, "shape": [4], "datatype": "FP32", "data": [1.0] * 4},
            {"name": "IN", "shape": [4], "datatype": "FP64", "data": [0.5] * 50_000},
        ]
    }
    (tmp_path / "request.json").write_text(json.dumps(body))
    for output_format in ("text", "json"):
        code, out, err = run(
            "request", str(folder), "request.json", "--format", output_format, cwd=tmp_path
        )
        assert code == 1, out + err
        assert len(out.encode()) + len(err.encode()) < TEXT_BUDGET, out[:2000]
        assert "I" * 1000 not in out


def test_control_characters_in_a_name_reach_the_terminal_as_escapes(tmp_path: Path) -> None:
    model(tmp_path, 'name: "x\\033[2J\\nfake.pbtxt:1:1: error"\nbackend: "python"\n' + IO)
    code, out, _ = run("check", ".", "--config-only", cwd=tmp_path)
    assert code == 1
    assert "\x1b" not in out
    assert "\\x1b[2J\\nfake.pbtxt" in out
    assert not any(line.startswith("fake.pbtxt") for line in out.splitlines())


# --- a file that is not text: one finding (PL017) -----------------------------------------


def _binary_model_config() -> bytes:
    from google.protobuf import text_format

    from pbtxt_lint.schema import ModelConfig

    config = text_format.Parse('name: "m"\nbackend: "python"\n' + IO, ModelConfig())
    return config.SerializeToString()


NOT_TEXT = {
    "binary ModelConfig": (_binary_model_config(), "ModelConfig in protobuf's binary"),
    "random bytes": (__import__("random").Random(1).randbytes(MEGABYTE), "binary data (976.6 KiB"),
    "UTF-16 with BOM": (b"\xff\xfe" + ('name: "m"\n' + IO).encode("utf-16-le"), "UTF-16 text"),
    "UTF-16 without BOM": (('name: "m"\n' + IO).encode("utf-16-be"), "UTF-16 text"),
    "gzip": (b"\x1f\x8b\x08\x00" + bytes(range(256)) * 8, "gzip-compressed"),
    "ELF": (b"\x7fELF\x02\x01\x01" + bytes(4000), "ELF executable"),
}


@pytest.mark.parametrize("kind", sorted(NOT_TEXT))
def test_a_file_that_is_not_text_gets_one_finding(kind: str, tmp_path: Path) -> None:
    data, what = NOT_TEXT[kind]
    model(tmp_path, data)
    result = lint([tmp_path], Settings(), jobs=1)
    assert [(d.code, d.span) for d in result.diagnostics] == [("PL017", None)]
    assert what in result.diagnostics[0].message
    code, out, _ = run("check", ".", cwd=tmp_path)
    assert code == 1 and out.count(" PL0") == 1 and len(out) < 1_000


def test_text_with_a_few_stray_bytes_keeps_its_precise_findings(tmp_path: Path) -> None:
    model(tmp_path, b'name: "m"\x01\nbackend: "python"\n# caf\xe9\n' + IO.encode())
    codes = sorted(d.code for d in lint([tmp_path], Settings(config_only=True)).diagnostics)
    assert codes == ["PL001", "PL014"]


def test_latin1_text_is_not_called_binary(tmp_path: Path) -> None:
    """Text in a legacy 8-bit encoding has no control bytes: Triton reads it (PL014)."""
    comment = "# " + "àéèêëïîôöùûüç" * 200 + "\n"
    model(tmp_path, comment.encode("latin-1") + b'name: "m"\nbackend: "python"\n' + IO.encode())
    codes = [d.code for d in lint([tmp_path], Settings(config_only=True)).diagnostics]
    assert codes == ["PL014"]


def test_random_protobuf_bytes_are_not_taken_for_a_model_config() -> None:
    from pbtxt_lint.textproto.sniff import binary_model_config

    generator = __import__("random").Random(7)
    decoded = [
        binary_model_config(generator.randbytes(generator.randrange(1, 200))) for _ in range(20_000)
    ]
    assert sum(config is not None for config in decoded) == 0
    assert binary_model_config(_binary_model_config()) is not None


def test_convert_writes_a_binary_model_config_as_text(tmp_path: Path) -> None:
    folder = model(tmp_path, _binary_model_config())
    config = folder / "config.pbtxt"
    code, out, err = run("check", ".", "--config-only", cwd=tmp_path)
    assert code == 1 and "pbtxt-lint convert m/config.pbtxt --to pbtxt -o m/config.pbtxt" in out
    code, out, err = run(
        "convert", "m/config.pbtxt", "--to", "pbtxt", "-o", "m/config.pbtxt", cwd=tmp_path
    )
    assert code == 0 and out == "", err
    text = config.read_text()  # in the conventional order, `fmt` layout
    assert text.startswith('name: "m"\nbackend: "python"\ninput [\n  {\n    name: "IN"')
    code, out, err = run("check", ".", "--config-only", cwd=tmp_path)
    assert code == 0, out + err


# --- a file with hundreds of problems: the cap comes last ---------------------------------


def test_the_cap_is_the_last_finding_of_its_file_and_counts_the_rest(tmp_path: Path) -> None:
    from pbtxt_lint.textproto.parse import MAX_REPORTED

    lines = ['name: "m"', 'backend: "python"'] + [f"field_{i}: {i}" for i in range(150)]
    lines += ["max_batch_size: -1"]  # a rule finding after the parse problems
    model(tmp_path, "\n".join(lines) + "\n" + IO)
    result = lint([tmp_path], Settings(config_only=True), jobs=1)
    config = [d for d in result.diagnostics if d.path.name == "config.pbtxt"]
    assert len(config) == MAX_REPORTED + 1
    last = config[-1]
    assert last.code == "PL019" and last.span is None and last.severity is Severity.ERROR
    assert last.message.startswith(
        f"{150 - MAX_REPORTED} more problems in this file not shown ({150 - MAX_REPORTED} PL002)"
    )
    assert all(d.span is not None for d in config[:-1])
    code, out, _ = run("check", ".", "--config-only", cwd=tmp_path)
    assert code == 1
    findings = [line for line in out.splitlines() if " PL0" in line]
    assert "130 more problems" in findings[-1]
    assert len(findings) == MAX_REPORTED + 1


def _codes(root: Path, **settings: frozenset[str]) -> list[str]:
    result = lint([root], Settings(config_only=True, **settings), jobs=1)
    return [d.code for d in result.diagnostics]


def test_the_cap_follows_the_selection(tmp_path: Path) -> None:
    """PL019 counts only what the run would have shown: ignoring a code leaves its
    problems out of the count, selecting a code shows its first 20 (not the first 20
    problems of any code), and with nothing left out there is no notice."""
    unknown = [f"f{i}: 1" for i in range(30)]  # PL002 x 30
    wrong = [f'max_batch_size: "{i}"' for i in range(5)]  # PL005 x 5 (and PL006 x 4)
    model(tmp_path, 'backend: "python"\n' + "\n".join(unknown + wrong) + "\n")
    everything = _codes(tmp_path)
    assert everything[-1] == "PL019" and everything.count("PL002") == 20
    ignored = _codes(tmp_path, ignore=frozenset({"PL002"}))
    assert "PL019" not in ignored and "PL002" not in ignored and "PL005" in ignored
    assert _codes(tmp_path, select=frozenset({"PL005"})) == ["PL005"] * 5
    assert _codes(tmp_path, select=frozenset({"PL001"})) == []  # no syntax error here
    alone = _codes(tmp_path, select=frozenset({"PL002"}))
    assert alone == ["PL002"] * 20 + ["PL019"]
    assert _codes(tmp_path, ignore=frozenset({"PL019"})).count("PL019") == 0
