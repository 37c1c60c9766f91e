"""CI outputs: SARIF against the official 2.1.0 schema, GitHub workflow commands,
GitLab Code Quality, and the automatic choice of GitHub's format in Actions."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from test_cli import GOOD, make_model

from pbtxt_lint.cli import cli
from pbtxt_lint.diagnostics import Diagnostic, Severity, Span
from pbtxt_lint.report.github import annotation, escape_data, escape_property
from pbtxt_lint.settings_files import known_rules

SARIF_SCHEMA = Path(__file__).parent / "schemas" / "sarif-schema-2.1.0.json"

# PL103 (an error on line 1 without a fix) and PL108 (a warning about a folder, no
# line) in model m; PL004 (a quoted enum, which carries a fix) in model q.
RENAMED = GOOD.replace('name: "m"', 'name: "x"')
QUOTED = GOOD.replace('name: "m"', 'name: "q"').replace(
    "data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput", 'data_type: "TYPE_FP32" dims: [ 4 ] } ]\noutput'
)


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_model(tmp_path, "m", RENAMED, versions=("1", "01"))
    make_model(tmp_path, "q", QUOTED)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_sarif_validates_against_the_official_schema(repo: Path) -> None:
    code, output = run("check", ".", "--format", "sarif")
    assert code == 1
    document = json.loads(output)
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(document)
    (run_,) = document["runs"]
    rules = run_["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.code for r in known_rules()]
    by_id = {r["id"]: r for r in rules}
    assert by_id["PL103"]["name"] == "name-mismatch"
    assert "Bad:" in by_id["PL103"]["help"]["text"]
    assert "```" in by_id["PL103"]["help"]["markdown"]
    assert by_id["PL103"]["defaultConfiguration"]["level"] == "error"
    results = {r["ruleId"]: r for r in run_["results"]}
    assert set(results) >= {"PL103", "PL004", "PL108"}
    located = results["PL103"]["locations"][0]["physicalLocation"]
    assert located["artifactLocation"] == {"uri": "m/config.pbtxt", "uriBaseId": "%SRCROOT%"}
    assert located["region"]["startLine"] == 1
    assert rules[results["PL103"]["ruleIndex"]]["id"] == "PL103"
    assert results["PL004"]["fixes"][0]["artifactChanges"][0]["replacements"]
    assert "region" not in results["PL108"]["locations"][0]["physicalLocation"]


def test_github_annotations_at_the_right_lines(repo: Path) -> None:
    code, output = run("check", ".", "--format", "github")
    assert code == 1
    lines = output.splitlines()
    name_line = next(line for line in lines if "title=PL103" in line)
    assert name_line.startswith("::error file=m/config.pbtxt,line=1,col=7,endLine=1,")
    assert '::name "x" does not match' in name_line
    folder = next(line for line in lines if "title=PL108" in line)
    assert folder.startswith("::warning file=m/01,title=PL108::")
    assert lines[-1].startswith("Checked 2 models")


def test_github_format_is_automatic_in_actions(repo: Path) -> None:
    _, output = run("check", ".", env={"GITHUB_ACTIONS": "true"})
    assert output.startswith("::")
    _, explicit = run("check", ".", "--format", "text", env={"GITHUB_ACTIONS": "true"})
    assert not explicit.startswith("::")
    _, outside = run("check", ".", env={"GITHUB_ACTIONS": ""})
    assert not outside.startswith("::")


def test_github_escaping() -> None:
    assert escape_data("100% sure\r\nnext") == "100%25 sure%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    diagnostic = Diagnostic(
        "PL103",
        Severity.INFO,
        "line one\nline two: 50%",
        Path("dir,with:odd/config.pbtxt"),
        Span(2, 3, 2, 5),
        hint="fix it",
    )
    assert annotation(diagnostic) == (
        "::notice file=dir%2Cwith%3Aodd/config.pbtxt,line=2,col=3,endLine=2,endColumn=5,"
        # A newline in a message (user text) is already an inert escape in the
        # Diagnostic; the runner's escaping still covers `%`.
        "title=PL103::line one\\nline two: 50%25 (hint: fix it)"
    )


def test_gitlab_code_quality(repo: Path) -> None:
    code, output = run("check", ".", "--format", "gitlab")
    assert code == 1
    issues = json.loads(output)
    by_check = {issue["check_name"]: issue for issue in issues}
    name = by_check["PL103"]
    assert name["severity"] == "major"
    assert name["location"] == {"path": "m/config.pbtxt", "lines": {"begin": 1, "end": 1}}
    assert by_check["PL108"]["severity"] == "minor"
    fingerprints = [issue["fingerprint"] for issue in issues]
    assert len(set(fingerprints)) == len(fingerprints)
    _, again = run("check", ".", "--format", "gitlab")
    assert [i["fingerprint"] for i in json.loads(again)] == fingerprints


def test_output_file(repo: Path) -> None:
    code, output = run("check", ".", "--format", "sarif", "--output-file", "out.sarif")
    assert code == 1
    assert output == ""
    assert json.loads((repo / "out.sarif").read_text())["version"] == "2.1.0"
    code, _ = run("check", ".", "--output-file", str(repo / "missing" / "out.txt"))
    assert code == 2


def test_shell_completion_script() -> None:
    """The README's `_PBTXT_LINT_COMPLETE=bash_source pbtxt-lint` prints a script."""
    import subprocess
    import sys

    completed = subprocess.run(
        [sys.executable, "-m", "pbtxt_lint"],
        env={**os.environ, "_PBTXT_LINT_COMPLETE": "bash_source"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 0
    assert "complete -o nosort -F _pbtxt_lint_completion pbtxt-lint" in completed.stdout
    words = subprocess.run(
        [sys.executable, "-m", "pbtxt_lint"],
        env={
            **os.environ,
            "_PBTXT_LINT_COMPLETE": "bash_complete",
            "COMP_WORDS": "pbtxt-lint check --for",
            "COMP_CWORD": "2",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert "plain,--format" in words.stdout
