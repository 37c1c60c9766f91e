"""Inline suppressions in the linter core, PL015 for the ones that silence nothing, and
the fix flags (`--fix`, `--diff`, `--unsafe-fixes`) wired to the fix engine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import make_model

from pbtxt_lint.cli import cli

BODY = """backend: "python"
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""


def check(root: Path, *args: str) -> tuple[int, list[dict[str, object]], str]:
    result = CliRunner().invoke(cli, ["check", str(root), "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)["diagnostics"], result.stderr


def found(diagnostics: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(d["code"], d["line"]) for d in diagnostics]


def test_on_the_line(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'name: "x"  # pbtxt-lint: disable=PL103\n' + BODY)
    code, diagnostics, _ = check(tmp_path)
    assert (code, diagnostics) == (0, [])


def test_by_name_and_on_the_line_before(tmp_path: Path) -> None:
    text = "# pbtxt-lint: disable=name-mismatch\n# why: the folder is renamed at deploy\n"
    make_model(tmp_path, "m", text + 'name: "x"\n' + BODY)
    assert check(tmp_path)[1] == []


def test_file_level_covers_the_model_folders(tmp_path: Path) -> None:
    make_model(
        tmp_path,
        "m",
        'name: "x"\n' + BODY + "# pbtxt-lint: disable-file=PL103,PL108\n",
        versions=("1", "01"),
    )
    assert check(tmp_path)[1] == []
    make_model(tmp_path, "n", 'name: "y"\n' + BODY, versions=("1", "01"))
    assert sorted(found(check(tmp_path)[1])) == [("PL103", 1), ("PL108", None)], (
        "another model's findings stay"
    )


def test_other_lines_and_codes_stay(tmp_path: Path) -> None:
    text = '# pbtxt-lint: disable=PL103\n\nname: "x"\n' + BODY
    make_model(tmp_path, "m", text)
    _, diagnostics, _ = check(tmp_path)
    assert found(diagnostics) == [("PL015", 1), ("PL103", 3)], (
        "a blank line ends a directive's reach"
    )


def test_unused_unknown_and_malformed_are_pl015(tmp_path: Path) -> None:
    text = (
        'name: "m"  # pbtxt-lint: disable=PL103,PL9999\n'
        "# pbtxt-lint: disabel=PL103\n"
        "# pbtxt-lint: disable\n" + BODY
    )
    make_model(tmp_path, "m", text)
    code, diagnostics, _ = check(tmp_path)
    assert code == 0, "PL015 is a warning"
    messages = [(d["code"], d["line"], d["column"], d["message"]) for d in diagnostics]
    assert messages == [
        ("PL015", 1, 34, "unused suppression PL103: nothing reported PL103 on line 1"),
        ("PL015", 1, 40, "'PL9999' in this suppression is not a rule code or name"),
        (
            "PL015",
            2,
            1,
            "unknown pbtxt-lint directive 'disabel' (did you mean 'disable' or "
            "'disable-file'?); it silences nothing",
        ),
        ("PL015", 3, 1, "'disable' names no rule; it silences nothing"),
    ]


def test_no_pl015_for_rules_that_are_off_or_did_not_run(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'name: "m"  # pbtxt-lint: disable=PL103\n' + BODY)
    assert check(tmp_path, "--ignore", "PL103")[1] == []
    assert check(tmp_path, "--ignore", "PL015")[1] == []
    make_model(tmp_path, "p", 'name: "p"  # pbtxt-lint: disable=PL103\nmax_batch_size: [\n' + BODY)
    _, diagnostics, _ = check(tmp_path, "--select", "PL0,PL103")
    unused = [Path(str(d["path"])).parent.name for d in diagnostics if d["code"] == "PL015"]
    assert unused == ["m"], "PL103 did not run on p, whose config does not parse"


def test_suppressed_count_in_text_summary(tmp_path: Path) -> None:
    make_model(tmp_path, "m", 'name: "x"  # pbtxt-lint: disable=PL103\n' + BODY)
    result = CliRunner().invoke(cli, ["check", str(tmp_path)])
    assert "no problems found (1 suppressed)." in result.stdout


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ('name: "m"  # pbtxt-lint: disable=PL103\n', 'name: "m"\n'),
        ('# pbtxt-lint: disable=PL103\nname: "m"\n', 'name: "m"\n'),
        ('name: "m"  # pbtxt-lint: disable=PL103  # keep me\n', 'name: "m"  # keep me\n'),
        (
            'name: "x"  # pbtxt-lint: disable=PL108,PL103\n',
            'name: "x"  # pbtxt-lint: disable=PL103\n',
        ),
    ],
)
def test_fix_removes_unused_suppressions(tmp_path: Path, before: str, after: str) -> None:
    config = make_model(tmp_path, "m", before + BODY) / "config.pbtxt"
    result = CliRunner().invoke(cli, ["check", str(tmp_path), "--diff"])
    assert result.exit_code == 1, "--diff exits 1 when there is something to fix"
    assert "-" + before.splitlines()[0] in result.stdout
    assert config.read_text() == before + BODY, "--diff writes nothing"
    result = CliRunner().invoke(cli, ["check", str(tmp_path), "--fix"])
    assert result.exit_code == 0, result.output
    assert config.read_text() == after + BODY
    assert "Fixed 1 problem(s) in 1 file(s)." in result.stderr
    assert "no problems found" in result.stdout, "the report is of the re-check"
    again = CliRunner().invoke(cli, ["check", str(tmp_path), "--diff"])
    assert again.exit_code == 0 and again.stdout == ""


def test_fix_reports_what_remains(tmp_path: Path) -> None:
    head, _, _ = BODY.rpartition("output")
    unfixable = head + 'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 0 ] } ]\n'  # PL204
    config = make_model(tmp_path, "m", 'name: "m"  # pbtxt-lint: disable=PL108\n' + unfixable)
    result = CliRunner().invoke(cli, ["check", str(tmp_path), "--fix", "--format", "json"])
    assert result.exit_code == 1
    remaining = [d["code"] for d in json.loads(result.stdout)["diagnostics"]]
    assert remaining == ["PL204"]
    assert (config / "config.pbtxt").read_text().startswith('name: "m"\n')


def test_unsafe_fixes_need_the_opt_in(tmp_path: Path) -> None:
    """A fix marked unsafe is applied only with --unsafe-fixes (checked on the engine's
    own data: whichever rule offers one)."""
    from pbtxt_lint.fixes import apply_fixes
    from pbtxt_lint.linter import lint
    from pbtxt_lint.settings import Settings

    make_model(tmp_path, "m", 'name: "m"  # pbtxt-lint: disable=PL103\n' + BODY)
    diagnostics = lint([tmp_path], Settings()).diagnostics
    unsafe = [
        type(d)(**{**d.__dict__, "fix": type(d.fix)(d.fix.description, d.fix.edits, False)})
        for d in diagnostics
        if d.fix is not None
    ]
    assert unsafe, "the PL015 diagnostic carries a fix"
    assert apply_fixes(unsafe, unsafe=False, write=False) == []
    assert [o.applied for o in apply_fixes(unsafe, unsafe=True, write=False)] == [1]
