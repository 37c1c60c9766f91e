"""The fix engine: real diagnostics, real files, byte-exact results, refusals."""

from __future__ import annotations

import inspect
import os
import re
import shutil
import stat
from collections import Counter
from pathlib import Path

import pytest
from fixture_cases import Case, all_cases

from pbtxt_lint.diagnostics import Diagnostic, Edit, Fix, Severity
from pbtxt_lint.fixes import FixOutcome, apply_edits, apply_fixes, write_atomically
from pbtxt_lint.linter import lint
from pbtxt_lint.rules.index import INDEX as RULES
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.parse import parse_config

FIXABLE = [
    case
    for case in all_cases()
    if not case.fifos
    and any(
        d.fix is not None
        for d in lint([case.path], Settings(config_only="--config-only" in case.args)).diagnostics
    )
]


def settings_for(case: Case) -> Settings:
    return Settings(
        config_only="--config-only" in case.args,
        auto_complete="--disable-auto-complete-config" not in case.args,
    )


def copy_case(case: Case, tmp_path: Path) -> Path:
    target = tmp_path / case.name
    shutil.copytree(case.path, target, symlinks=True)
    return target


def snapshot(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def fixed_keys(diagnostics: list[Diagnostic]) -> Counter[tuple[Path, str, int]]:
    return Counter(
        (d.path, d.code, d.span.line if d.span else 0) for d in diagnostics if d.fix is not None
    )


def test_there_are_fixable_fixtures() -> None:
    codes = {case.code for case in FIXABLE}
    assert {"PL002", "PL003", "PL004", "PL005", "PL010"} <= codes


def test_every_rule_that_builds_a_fix_offers_it_on_a_fixture() -> None:
    """A fix that no fixture sees may never fire (PL103's did not: it looked for the
    value under the wrong node)."""
    offered = {
        d.code
        for case in FIXABLE
        for d in lint([case.path], settings_for(case)).diagnostics
        if d.fix is not None
    }
    builders = {
        row.code
        for row in RULES
        if re.search(r"\bFix\(", inspect.getsource(inspect.getmodule(row.load().check) or ""))
        and re.search(r"\bfix=", inspect.getsource(row.load().check))
    }
    assert builders, "no rule builds a fix: the search above is broken"
    assert sorted(builders - offered) == []


@pytest.mark.parametrize("case", FIXABLE, ids=[c.id for c in FIXABLE])
def test_fix_then_check_reports_none_of_the_fixed_problems(case: Case, tmp_path: Path) -> None:
    root = copy_case(case, tmp_path)
    settings = settings_for(case)
    before = lint([root], settings).diagnostics
    outcomes = apply_fixes(before, unsafe=True, write=True)
    assert outcomes
    after = lint([root], settings).diagnostics
    for outcome in outcomes:
        if outcome.refused is not None:
            # Never make things worse: a refused file is left exactly as it was.
            assert outcome.written is False and outcome.applied == 0
            original = (case.path / outcome.path.relative_to(root)).read_bytes()
            assert outcome.path.read_bytes() == original
            continue
        assert outcome.written and outcome.applied > 0
        assert outcome.diff.startswith("--- a/")
        parsed = parse_config(outcome.path.read_bytes())
        assert parsed.config is not None, parsed.problems
        fixed_here = [d for d in before if d.path == outcome.path and d.fix is not None]
        remaining = [(d.code, d.message) for d in after if d.path == outcome.path]
        for diagnostic in fixed_here:
            assert (diagnostic.code, diagnostic.message) not in remaining


@pytest.mark.parametrize("case", FIXABLE, ids=[c.id for c in FIXABLE])
def test_fixing_twice_changes_nothing_more(case: Case, tmp_path: Path) -> None:
    root = copy_case(case, tmp_path)
    settings = settings_for(case)
    apply_fixes(lint([root], settings).diagnostics, unsafe=True, write=True)
    once = snapshot(root)
    second = apply_fixes(lint([root], settings).diagnostics, unsafe=True, write=True)
    assert snapshot(root) == once
    assert all(not outcome.written for outcome in second)


def test_at_least_one_fixture_is_fixed_and_one_refused(tmp_path: Path) -> None:
    outcomes: list[FixOutcome] = []
    for case in FIXABLE:
        root = copy_case(case, tmp_path)
        outcomes += apply_fixes(
            lint([root], settings_for(case)).diagnostics, unsafe=True, write=False
        )
    assert any(o.refused is None and o.applied for o in outcomes)
    assert any(o.refused is not None for o in outcomes)


# -- byte-exact edits --------------------------------------------------------------

GOOD = (
    'name: "m"\nbackend: "python"\nmax_batch_size: 0\n'
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


def make_model(root: Path, config: bytes, name: str = "m") -> Path:
    model = root / name
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text("")
    path = model / "config.pbtxt"
    path.write_bytes(config)
    return path


def test_crlf_comments_and_foreign_bytes_survive_a_fix(tmp_path: Path) -> None:
    text = GOOD.replace("TYPE_FP32 dims", "TYPE_FLOAT32 dims", 1).replace("\n", "  # note\r\n")
    data = b"# caf\xe9 (Latin-1)\r\n" + text.encode()
    path = make_model(tmp_path, data)
    diagnostics = lint([tmp_path], Settings()).diagnostics
    assert any(d.code == "PL003" for d in diagnostics)
    [outcome] = apply_fixes(diagnostics, unsafe=False, write=True)
    assert outcome.written, outcome.refused
    assert path.read_bytes() == data.replace(b"TYPE_FLOAT32", b"TYPE_FP32")


def test_byte_order_mark_removal_is_a_fix(tmp_path: Path) -> None:
    path = make_model(tmp_path, b"\xef\xbb\xbf" + GOOD.encode())
    [outcome] = apply_fixes(lint([tmp_path], Settings()).diagnostics, unsafe=False, write=True)
    assert outcome.written
    assert path.read_bytes() == GOOD.encode()


def test_a_file_that_would_still_not_parse_is_refused_and_untouched(tmp_path: Path) -> None:
    broken = GOOD.replace("TYPE_FP32 dims", "TYPE_FLOAT32 dims", 1).replace(
        'backend: "python"', 'backend: "python" {'
    )
    path = make_model(tmp_path, broken.encode())
    diagnostics = lint([tmp_path], Settings()).diagnostics
    assert any(d.fix is not None for d in diagnostics)
    [outcome] = apply_fixes(diagnostics, unsafe=False, write=True)
    assert outcome.refused is not None and "still not parse" in outcome.refused
    assert not outcome.written and outcome.diff == ""
    assert path.read_bytes() == broken.encode()


def test_a_fix_that_would_break_a_parsing_file_is_refused(tmp_path: Path) -> None:
    path = make_model(tmp_path, GOOD.encode())
    start = GOOD.index("TYPE_FP32")
    bad = Fix("break it", (Edit(start, start + 9, "{"),))
    diagnostic = Diagnostic("PL999", Severity.WARNING, "x", path, fix=bad)
    [outcome] = apply_fixes([diagnostic], unsafe=False, write=True)
    assert outcome.refused is not None and "break" in outcome.refused
    assert path.read_bytes() == GOOD.encode()


def test_unsafe_fixes_need_the_opt_in(tmp_path: Path) -> None:
    path = make_model(tmp_path, GOOD.encode())
    start = GOOD.index("0\n")
    unsafe = Fix("batch", (Edit(start, start + 1, "8"),), safe=False)
    diagnostic = Diagnostic("PL999", Severity.WARNING, "x", path, fix=unsafe)
    assert apply_fixes([diagnostic], unsafe=False, write=True) == []
    [outcome] = apply_fixes([diagnostic], unsafe=True, write=True)
    assert outcome.written
    assert b"max_batch_size: 8" in path.read_bytes()


def test_diff_mode_writes_nothing(tmp_path: Path) -> None:
    path = make_model(tmp_path, GOOD.replace("TYPE_FP32 dims", "TYPE_FLOAT32 dims", 1).encode())
    before = path.read_bytes()
    [outcome] = apply_fixes(lint([tmp_path], Settings()).diagnostics, unsafe=False, write=False)
    assert not outcome.written and outcome.applied == 1
    assert '-input [ { name: "x" data_type: TYPE_FLOAT32' in outcome.diff
    assert '+input [ { name: "x" data_type: TYPE_FP32' in outcome.diff
    assert path.read_bytes() == before


def test_a_file_that_vanished_is_reported_not_raised(tmp_path: Path) -> None:
    path = tmp_path / "gone.pbtxt"
    diagnostic = Diagnostic("PL999", Severity.ERROR, "x", path, fix=Fix("f", (Edit(0, 0, "a"),)))
    [outcome] = apply_fixes([diagnostic], unsafe=False, write=True)
    assert outcome.refused is not None and "cannot read" in outcome.refused


# -- choosing edits -----------------------------------------------------------------


def fix(*edits: tuple[int, int, str]) -> Fix:
    return Fix("f", tuple(Edit(*e) for e in edits))


def test_overlapping_fixes_keep_the_first_and_skip_the_rest() -> None:
    text = "abcdef"
    result, applied = apply_edits(text, [fix((1, 3, "X")), fix((2, 4, "Y")), fix((4, 5, "Z"))])
    assert (result, applied) == ("aXdZf", 2)


def test_a_fix_is_applied_whole_or_not_at_all() -> None:
    text = "abcdef"
    result, applied = apply_edits(text, [fix((0, 1, "A")), fix((1, 2, "B"), (0, 1, "C"))])
    assert (result, applied) == ("Abcdef", 1)


def test_the_same_fix_reported_twice_counts_once() -> None:
    assert apply_edits("abc", [fix((1, 2, "X")), fix((1, 2, "X"))]) == ("aXc", 1)


def test_two_insertions_at_one_place_and_edits_out_of_range_are_skipped() -> None:
    text = "abc"
    result, applied = apply_edits(text, [fix((1, 1, "X")), fix((1, 1, "Y")), fix((2, 9, "Z"))])
    assert (result, applied) == ("aXbc", 1)
    assert apply_edits(text, [fix((1, 2, "X")), fix((2, 2, "Y"))]) == ("aXc", 1)


def test_write_atomically_keeps_mode_and_symlink(tmp_path: Path) -> None:
    target = tmp_path / "real.pbtxt"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.pbtxt"
    link.symlink_to(target.name)
    write_atomically(link, b"new")
    assert link.is_symlink()
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["link.pbtxt", "real.pbtxt"]


def test_json_configs_are_fixed_and_rechecked_as_json(tmp_path: Path) -> None:
    from pbtxt_lint.jsonconfig import parse_json_config

    path = tmp_path / "config.json"
    data = b'{"name": "m", "max_batch": 8, "input": [{"name": "x", "dataType": "TYPE_FLOAT32"}]}'
    path.write_bytes(data)
    parsed = parse_json_config(data)
    diagnostics = [
        Diagnostic("PL0", Severity.ERROR, p.message, path, p.span, fix=p.fix)
        for p in parsed.problems
    ]
    [outcome] = apply_fixes(diagnostics, unsafe=False, write=True)
    assert outcome.written and outcome.applied == 2
    assert parse_json_config(path.read_bytes()).config is not None
    assert b'"max_batch_size": 8' in path.read_bytes()
    assert b'"TYPE_FP32"' in path.read_bytes()


def test_one_file_named_two_ways_is_fixed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = make_model(tmp_path, GOOD.replace("TYPE_FP32 dims", "TYPE_FLOAT32 dims", 1).encode())
    [diagnostic] = [d for d in lint([tmp_path], Settings()).diagnostics if d.fix]
    monkeypatch.chdir(tmp_path)
    relative = Diagnostic(
        diagnostic.code, diagnostic.severity, "x", Path("m/config.pbtxt"), fix=diagnostic.fix
    )
    outcomes = apply_fixes([diagnostic, relative], unsafe=False, write=True)
    assert len(outcomes) == 1 and outcomes[0].applied == 1
    assert path.read_bytes() == GOOD.encode()
