"""The words of every diagnostic of every fixture case, against committed snapshots.

`test_rules.py` checks where diagnostics are (path, line, code); this checks what they
say: severity, exact span, message, hint and fix (as the diff `check --fix` would write
for it alone), one reviewable text file per rule in
`tests/snapshots/<CODE>.txt`. After an intended change, `make snapshots` (pytest
`--snapshot-update`) rewrites the files; review their diff like code.
"""

from __future__ import annotations

import difflib
import os
import platform
from pathlib import Path

import pytest
from fixture_cases import Case, all_cases, materialize

import pbtxt_lint
from pbtxt_lint.cli.check import check, check_options
from pbtxt_lint.diagnostics import Diagnostic, Fix
from pbtxt_lint.fixes import fix_text
from pbtxt_lint.paths import display_path

SNAPSHOTS = Path(__file__).parent / "snapshots"
CASES = all_cases()
CODES = sorted({case.code for case in CASES})


def check_diagnostics(args: tuple[str, ...]) -> list[Diagnostic]:
    """What `pbtxt-lint check . <args>` reports in the working folder, as objects (the
    JSON report has no fixes): the command's own flags, made into its options."""
    options = check_options(check.make_context("check", [".", *args]).params)
    return pbtxt_lint.check([Path(".")], options).diagnostics


def visible(text: str) -> str:
    """One line of the snapshot: control characters, bytes that are not UTF-8 and
    trailing blanks escaped, so the file shows (and keeps) every difference."""
    out = "".join(
        f"\\x{ord(c) - 0xDC00:02x}" if 0xDC80 <= ord(c) <= 0xDCFF
        else c if c.isprintable() or c == " "
        else c.encode("unicode_escape").decode()
        for c in text
    )  # fmt: skip
    stripped = out.rstrip(" ")
    return stripped + "\\x20" * (len(out) - len(stripped))


def render_fix(fix: Fix, path: Path) -> list[str]:
    lines = [f"  fix ({'safe' if fix.safe else 'unsafe'}): {visible(fix.description)}"]
    try:
        before = path.read_bytes().decode("utf-8", errors="surrogateescape")
    except OSError as error:
        return [*lines, f"    (cannot read {display_path(path)}: {error.strerror})"]
    after, applied = fix_text(path, before, [fix])  # what `check --fix` writes for it
    if not applied:
        edits = ", ".join(f"{e.start}-{e.end} {e.text!r}" for e in fix.edits)
        return [*lines, f"    (the edits do not apply: {visible(edits) or 'none'})"]
    diff = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), n=0, lineterm=""
    )
    for line in list(diff)[2:]:  # no file names: the diagnostic's path is the file
        end = "" if line.endswith("\n") or line.startswith("@@") else " (no newline at end)"
        lines.append(f"    {visible(line.removesuffix(chr(10)))}{end}")
    return lines


def render_diagnostic(diagnostic: Diagnostic, folder: Path) -> list[str]:
    where = display_path(diagnostic.path)
    if (span := diagnostic.span) is not None:
        where += f":{span.line}:{span.column}-{span.end_line}:{span.end_column}"
    lines = [f"{where} {diagnostic.severity.value} {diagnostic.code}"]
    for label, text in (("message", diagnostic.message), ("hint", diagnostic.hint)):
        if text is not None:
            for name in {os.path.realpath(folder), str(folder.absolute())}:
                text = text.replace(name, "<case>")
            # model.py parses with the Python that runs the tests (PL660 names it)
            text = text.replace(f"Python {platform.python_version()}", "Python <running>")
            lines.append(f"  {label}: " + "\n    ".join(map(visible, text.split("\n"))))
    if diagnostic.fix is not None:
        lines += render_fix(diagnostic.fix, diagnostic.path)
    return lines


def case_diagnostics(
    case: Case, scratch: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, list[Diagnostic]]:
    """The case's folder and what `check` reports in it, in report order."""
    folder = materialize(case, scratch)
    monkeypatch.chdir(folder)
    diagnostics = check_diagnostics(case.args)
    return folder, sorted(diagnostics, key=lambda d: (*d.sort_key(), d.message))


def render_case(case: Case, diagnostics: list[Diagnostic], folder: Path) -> list[str]:
    lines = [f"== {case.name}" + (f" ({' '.join(case.args)})" if case.args else "")]
    for diagnostic in diagnostics:
        lines += render_diagnostic(diagnostic, folder)
    return [*lines, "(no diagnostics)"] if not diagnostics else lines


def render_rule(code: str, scratch: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The snapshot of a rule's cases; fails if a `fail` case reports nothing of `code`
    (a rule that did not run, or a case that does not trigger it, is never recorded)."""
    lines = [
        f"# What pbtxt-lint reports on each fixture case of {code} (tests/test_snapshots.py).",
        "# Rewritten by `make snapshots`; review the changes like code.",
    ]
    silent = []
    for case in (c for c in CASES if c.code == code):
        folder, diagnostics = case_diagnostics(case, scratch, monkeypatch)
        if case.should_fail and all(d.code != code for d in diagnostics):
            silent.append(case.name)
        lines += ["", *render_case(case, diagnostics, folder)]
    if silent:
        pytest.fail(
            f"{code} reports nothing on its failing case(s) {', '.join(silent)}; nothing "
            f"recorded (is the rule's code right? `make test-rule CODE={code}` shows more)",
            pytrace=False,
        )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("code", CODES)
def test_snapshot(
    code: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = SNAPSHOTS / f"{code}.txt"
    now = render_rule(code, tmp_path, monkeypatch)
    committed = path.read_bytes().decode() if path.exists() else ""
    if now == committed:
        return
    if request.config.getoption("snapshot_update"):
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_bytes(now.encode())
        return
    diff = difflib.unified_diff(
        committed.splitlines(keepends=True),
        now.splitlines(keepends=True),
        f"{path.name} (committed)",
        f"{path.name} (now)",
    )
    pytest.fail(
        f"the diagnostics of {code} changed; if that is intended, run `make snapshots` and "
        f"review the diff of tests/snapshots/{path.name}:\n{''.join(diff)}",
        pytrace=False,
    )


def test_every_snapshot_belongs_to_a_rule_with_cases(request: pytest.FixtureRequest) -> None:
    stale = sorted(p for p in SNAPSHOTS.glob("*.txt") if p.stem not in CODES)
    if request.config.getoption("snapshot_update"):
        for path in stale:
            path.unlink()
        return
    assert not stale, f"snapshots of no fixture case (`make snapshots` deletes them): {stale}"
