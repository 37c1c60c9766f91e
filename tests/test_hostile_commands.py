"""Never a traceback (issue 24): every subcommand turns unexpected input into a
diagnostic or a one-line error (exit 2 for usage and internal errors), and `check`
still reports the other models and writes the report it was asked for.

Two kinds of cases: hostile inputs given to every command (each run in an audited
child, tests/audited.py), and a fault injected into each command, which shows the one
guard in `pbtxt_lint.cli.main` catches what no test foresaw.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from audited import PYTHON_MODEL, assert_well_behaved, run_audited

from pbtxt_lint.cli import COMMANDS

IO = (
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
)
HOSTILE_CONFIGS: dict[str, bytes] = {
    "huge-integer": b'backend: "python"\nmax_batch_size: ' + b"9" * 5000 + b"\n",
    "huge-hex": b'backend: "python"\nmax_batch_size: 0x' + b"f" * 5000 + b"\n",
    "deep-nesting": b'backend: "python"\n' + b"parameters { " * 20000,
    "binary": bytes(range(256)) * 8,
    "nul": b'backend: "python"\n\0\n',
    "not-utf8": b'backend: "python"\nname: "\xff\xfe"\n',
    "not-utf8-unformatted": b'backend:   "python"\nname: "\xff\xfe"\n',
    "empty": b"",
    "many-tokens": b'backend: "python"\n' + b"dims: 1 " * 60000,
    "control-characters": b'backend: "python\x1b[2J"\n' + IO.encode(),
}


def hostile_model(root: Path, case: str) -> Path:
    folder = root / "m"
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.py").write_text(PYTHON_MODEL)
    (folder / "config.pbtxt").write_bytes(HOSTILE_CONFIGS[case])
    return folder


COMMAND_LINES = {
    "check": ("check", ".", "--format", "json"),
    "fmt": ("fmt", "--check", "m/config.pbtxt"),
    "fmt-diff": ("fmt", "--diff", "m/config.pbtxt"),
    "convert-json": ("convert", "--to", "json", "m/config.pbtxt"),
    "convert-pbtxt": ("convert", "--to", "pbtxt", "m/config.pbtxt"),
    "complete": ("complete", "m"),
    "graph": ("graph", "m"),
    "request": ("request", "m", "body.json"),
}


@pytest.mark.parametrize("case", HOSTILE_CONFIGS)
@pytest.mark.parametrize("command", COMMAND_LINES)
def test_every_command_answers_a_hostile_config_without_a_traceback(
    tmp_path: Path, case: str, command: str
) -> None:
    root = tmp_path / "repo"
    hostile_model(root, case)
    (root / "body.json").write_text('{"inputs": [{"name": "IN", "shape": [1], "data": [1]}]}')
    run = run_audited(root, *COMMAND_LINES[command])
    assert_well_behaved(run, root, exits=(0, 1, 2), json_out=command == "check")
    if run.returncode == 2:  # a usage error, in a line or two
        assert 0 < len(run.stderr.splitlines()) <= 3, run.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ("explain", "\x1b]0;pwned\x07"),
        ("explain", "PL" + "9" * 5000),
        ("schema",),
        ("rules",),
        ("request", "m", "-"),
    ],
    ids=["explain-control", "explain-long", "schema", "rules", "request-stdin"],
)
def test_odd_arguments_get_a_line_not_a_traceback(tmp_path: Path, argv: tuple[str, ...]) -> None:
    root = tmp_path / "repo"
    hostile_model(root, "huge-integer")
    run = run_audited(root, *argv, stdin=b"\xff" * 100)
    assert_well_behaved(run, root, exits=(0, 1, 2), json_out=False)
    assert "\x1b" not in run.stdout + run.stderr


# --------------------------------------------------------------------------- injected faults

FAULT = """
import sys
import importlib
module_name, _, attribute = sys.argv[1].partition(":")
command = getattr(importlib.import_module(module_name), attribute)
def boom(*args, **kwargs):
    raise RuntimeError("an injected fault \\x1b[2J" + "x" * 5000)
command.callback = boom
from pbtxt_lint.cli import main
sys.argv = ["pbtxt-lint", *sys.argv[2:]]
main()
"""
ARGUMENTS = {
    "check": ["."],
    "explain": ["PL001"],
    "complete": ["m"],
    "init": ["m"],
    "graph": ["m"],
    "fmt": ["--check", "."],
    "convert": ["--to", "json", "m/config.pbtxt"],
    "request": ["m", "body.json"],
}


@pytest.mark.parametrize("command", [name for name in COMMANDS if name != "lsp"])
def test_a_fault_in_any_command_is_one_line_and_exit_2(tmp_path: Path, command: str) -> None:
    """fmt, convert, complete and request printed a full traceback for what escaped."""
    root = tmp_path / "repo"
    hostile_model(root, "empty")
    (root / "body.json").write_text("{}")
    done = subprocess.run(
        [sys.executable, "-c", FAULT, COMMANDS[command], command, *ARGUMENTS.get(command, [])],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PBTXT_LINT_DEBUG": ""},
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith("pbtxt-lint: internal error: RuntimeError('an injected fault")
    assert "\x1b" not in lines[0] and len(lines[0]) < 800


CHECK_FAULT = """
import sys
import pbtxt_lint.engine as engine
real = engine._Plan._lint
def failing(self, context):
    if context.folder.name == "broken":
        raise RuntimeError("an injected fault")
    return real(self, context)
engine._Plan._lint = failing
from pbtxt_lint.cli import main
sys.argv = ["pbtxt-lint", "check", ".", "--format", "json", "-o", sys.argv[1]]
main()
"""


def test_a_fault_on_one_model_leaves_the_others_and_the_report(tmp_path: Path) -> None:
    """An exception outside the rules (reading a config) ended the run: no other model
    reported, the -o report never written."""
    root = tmp_path / "repo"
    for name, config in (("broken", IO), ("fine", "max_batch_size: -5\n" + IO)):
        (root / name / "1").mkdir(parents=True)
        (root / name / "1" / "model.py").write_text(PYTHON_MODEL)
        (root / name / "config.pbtxt").write_text('backend: "python"\n' + config)
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", CHECK_FAULT, str(report)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "internal error on model 'broken': RuntimeError('an injected fault')" in done.stderr
    findings = json.loads(report.read_text())["diagnostics"]
    assert {(d["model"], d["code"]) for d in findings} == {("fine", "PL301")}


def test_the_audited_run_sees_a_hostile_command(tmp_path: Path) -> None:
    """The harness is real: a command that cannot be parsed is exit 2, not a pass."""
    root = tmp_path / "repo"
    hostile_model(root, "empty")
    run = run_audited(root, "no-such-command")
    assert run.returncode == 2 and "No such command" in run.stderr
