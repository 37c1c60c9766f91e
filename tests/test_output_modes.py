"""What `check` prints and exits with, as a newcomer meets it: the severity threshold
and its default, --statistics, the concise format, --exit-zero, standard input, explicit
files (a config by any name, a file beside the config), progress on a terminal."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import GOOD
from test_cli import MINIMAL_MODEL_PY as MODEL_PY

from pbtxt_lint.cli import cli
from pbtxt_lint.cli.progress import DELAY, Progress
from pbtxt_lint.linter import lint
from pbtxt_lint.settings import Settings

BATCHING = GOOD.replace("max_batch_size: 0", "max_batch_size: 8")
"""A clean model but for one info: PL319, batching without a scheduler."""
TYPO = BATCHING.replace(
    "data_type: TYPE_FP32 dims: [ 4 ] } ]\noutput", "data_typ: TYPE_FP32 } ]\noutput"
)
"""BATCHING with an error (PL002) on line 4."""


def model(root: Path, name: str = "m", config: str = BATCHING) -> Path:
    folder = root / name
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.py").write_text(MODEL_PY)
    (folder / "config.pbtxt").write_text(config.replace('name: "m"', f'name: "{name}"'))
    return folder


def check(*args: str, cwd: Path, stdin: str | None = None) -> tuple[int, str, str]:
    """`pbtxt-lint check ARGS` run in `cwd`: exit code, standard output, standard error."""
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, ["check", "--no-cache", *args], input=stdin)
    finally:
        os.chdir(previous)
    return result.exit_code, result.stdout, result.stderr


# --- the severity threshold -----------------------------------------------------------------


def test_text_counts_info_without_showing_it(tmp_path: Path) -> None:
    model(tmp_path)
    code, out, _ = check(".", cwd=tmp_path)
    assert code == 0
    assert "PL319" not in out
    assert out.strip() == (
        "Checked 1 model (1 config file): 0 errors, 0 warnings, 1 info. "
        "Not shown: 1 info (--min-severity info shows it)."
    )


def test_min_severity_info_shows_info_in_full(tmp_path: Path) -> None:
    model(tmp_path)
    code, out, _ = check(".", "--min-severity", "info", "--no-color", cwd=tmp_path)
    assert code == 0
    assert "m/config.pbtxt:3:17: info PL319 model 'm' has max_batch_size 8" in out
    assert "   3 | max_batch_size: 8" in out
    assert out.rstrip().endswith("0 errors, 0 warnings, 1 info.")


def test_machine_formats_keep_every_severity_unless_told(tmp_path: Path) -> None:
    model(tmp_path)
    _, out, _ = check(".", "--format", "json", cwd=tmp_path)
    assert [d["code"] for d in json.loads(out)["diagnostics"]] == ["PL319"]
    _, out, _ = check(".", "--format", "json", "--min-severity", "warning", cwd=tmp_path)
    assert json.loads(out)["diagnostics"] == []


def test_min_severity_error_counts_what_it_leaves_out(tmp_path: Path) -> None:
    model(tmp_path, "a", TYPO)
    model(tmp_path, "b")
    model(tmp_path, "c")
    code, out, _ = check(".", "--min-severity", "error", "--format", "concise", cwd=tmp_path)
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("a/config.pbtxt:4:") and " error PL002 " in lines[0]
    assert lines[-1] == (
        "Checked 3 models (3 config files): 1 error, 0 warnings, 2 info. "
        "Not shown: 2 info (--min-severity info shows them)."
    )


def test_statistics_counts_findings_per_rule(tmp_path: Path) -> None:
    model(tmp_path, "a", TYPO)
    model(tmp_path, "b")
    model(tmp_path, "c")
    code, out, _ = check(".", "--statistics", cwd=tmp_path)
    assert code == 1
    assert out.splitlines()[:3] == [
        "2  PL319  info     batching-without-scheduler",
        "1  PL002  error    unknown-field",
        "",
    ]
    code, _, err = check(".", "--statistics", "--format", "json", cwd=tmp_path)
    assert code == 2 and "--statistics prints a table" in err


def test_exit_zero_keeps_the_findings_and_drops_the_failure(tmp_path: Path) -> None:
    model(tmp_path, "a", TYPO)
    code, out, _ = check(".", "--exit-zero", cwd=tmp_path)
    assert code == 0 and "error PL002" in out
    code, _, err = check("missing", "--exit-zero", cwd=tmp_path)
    assert code == 2 and "no such file or folder" in err


# --- standard input ---------------------------------------------------------------------------


def test_standard_input_is_checked_as_the_named_config(tmp_path: Path) -> None:
    model(tmp_path)  # on disk: a clean config
    code, out, _ = check(
        "-", "--stdin-filename", "m/config.pbtxt", "--no-color", cwd=tmp_path, stdin=TYPO
    )
    assert code == 1
    assert "m/config.pbtxt:4:" in out and "error PL002" in out
    assert '   4 | input [ { name: "IN" data_typ: TYPE_FP32 } ]' in out  # the frame of stdin


def test_standard_input_for_a_config_not_yet_saved(tmp_path: Path) -> None:
    folder = model(tmp_path, "m")
    (folder / "config.pbtxt").unlink()
    code, out, _ = check("-", "--stdin-filename", "m/config.pbtxt", cwd=tmp_path, stdin=BATCHING)
    assert code == 0 and "Checked 1 model (1 config file)" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-",), "needs --stdin-filename PATH"),
        ((".", "--stdin-filename", "m/config.pbtxt"), "give '-' as a PATH"),
        (("-", "--stdin-filename", "m/1/model.py"), "the path must name one"),
        (("-", "--stdin-filename", "m/config.pbtxt", "--fix"), "do not read standard input"),
        (("-", "--stdin-filename", "nowhere/config.pbtxt"), "does not exist"),
    ],
)
def test_standard_input_misuse_is_one_clear_line(
    args: tuple[str, ...], message: str, tmp_path: Path
) -> None:
    model(tmp_path)
    code, _, err = check(*args, cwd=tmp_path, stdin=BATCHING)
    assert code == 2 and message in err, err


# --- explicit files -----------------------------------------------------------------------


def test_a_config_by_another_name_is_that_models_config(tmp_path: Path) -> None:
    """`check triton/config_1.pbtxt` checks that file as the config of `triton`, not the
    folder without it (which ended in PL104: no backend)."""
    folder = model(tmp_path, "triton", TYPO)
    (folder / "config.pbtxt").rename(folder / "config_1.pbtxt")
    code, out, _ = check("triton/config_1.pbtxt", "--format", "concise", cwd=tmp_path)
    assert code == 1
    assert "triton/config_1.pbtxt:4:" in out and "PL002" in out and "PL104" not in out


def test_a_file_beside_the_config_checks_its_model(tmp_path: Path) -> None:
    model(tmp_path, "a", TYPO)
    model(tmp_path, "b", TYPO)
    (tmp_path / "a" / "labels.txt").write_text("cat\n")
    for path in ("a/1/model.py", "a/labels.txt"):
        code, out, _ = check(path, "--format", "concise", cwd=tmp_path)
        assert code == 1 and "a/config.pbtxt:4:" in out and "b/" not in out, out


def test_a_file_of_no_model_is_skipped_and_said(tmp_path: Path) -> None:
    """A pre-commit hook passes every changed file its pattern matches."""
    model(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print()\n")
    code, out, err = check("src/app.py", "m/1/model.py", cwd=tmp_path)
    assert code == 0
    assert "src/app.py: not part of a model" in err and "skipped" in err
    assert "Checked 1 model (1 config file)" in out


# --- progress -----------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_waits_then_rewrites_one_line_and_erases_it() -> None:
    now = [0.0]
    stream = _Terminal()
    progress = Progress(stream, clock=lambda: now[0])
    progress(1, 500)  # a run that ends within DELAY shows nothing
    assert stream.getvalue() == ""
    now[0] = DELAY
    progress(250, 500)
    progress(260, 500)  # too soon after the last line
    now[0] += 1
    progress(500, 500)
    assert stream.getvalue() == ("\rpbtxt-lint: 250/500 models\rpbtxt-lint: 500/500 models")
    progress.close()
    assert stream.getvalue().endswith("\r" + " " * len("pbtxt-lint: 500/500 models") + "\r")


@pytest.mark.parametrize("jobs", [1, 2])
def test_lint_reports_its_progress(tmp_path: Path, jobs: int) -> None:
    for index in range(6):
        model(tmp_path, f"m{index}")
    seen: list[tuple[int, int]] = []
    lint([tmp_path], Settings(), jobs=jobs, progress=lambda done, total: seen.append((done, total)))
    assert seen and all(total == 6 for _, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert seen[-1][0] >= 3  # with workers, this process's share counts for all of them
