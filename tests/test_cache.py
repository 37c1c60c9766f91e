"""The result cache: a warm run reports exactly what a cold run reports, whatever changed.

Each test lints cold (no cache) and warm (a cache filled by an earlier run) and compares
every field of every diagnostic, after the kinds of change a repository goes through:
a config, a composing model of an ensemble, a model file, the settings, pbtxt-lint's
own code; a damaged cache file is ignored.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from fixture_cases import all_cases, materialize

from pbtxt_lint import cache as cache_module
from pbtxt_lint.cache import ResultCache, code_identity, settings_key
from pbtxt_lint.diagnostics import Diagnostic
from pbtxt_lint.linter import LintResult, lint
from pbtxt_lint.settings import Settings

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "model_repository"


def everything(result: LintResult) -> list[tuple[object, ...]]:
    """Every field of every diagnostic, and the counts."""

    def fields(d: Diagnostic) -> tuple[object, ...]:
        fix = None if d.fix is None else (d.fix.description, d.fix.safe, d.fix.edits)
        return (d.code, d.severity, d.message, str(d.path), d.span, d.model, d.hint, fix,
                d.stage, d.trailer)  # fmt: skip

    internal = [(e.rule, e.model, e.error) for e in result.internal_errors]
    return [
        (result.models, result.files, result.suppressed, internal),
        *(fields(d) for d in result.diagnostics),
    ]


def check_same(paths: list[Path], settings: Settings, cache: Path) -> LintResult:
    """Cold and warm (twice: filling, then reading) agree; returns the warm result."""
    cold = lint(paths, settings, jobs=1)
    first = lint(paths, settings, jobs=1, cache_dir=cache)
    warm = lint(paths, settings, jobs=1, cache_dir=cache)
    assert everything(first) == everything(cold)
    assert everything(warm) == everything(cold)
    return warm


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    target = tmp_path / "models"
    shutil.copytree(EXAMPLES, target)
    return target


def test_a_warm_run_reads_every_model_from_the_cache(repository: Path, tmp_path: Path) -> None:
    warm = check_same([repository], Settings(), tmp_path / "cache")
    assert warm.cached == warm.models > 0
    assert (tmp_path / "cache" / ".gitignore").read_text().strip().endswith("*")


def test_every_fixture_and_mode_is_the_same_warm(tmp_path: Path) -> None:
    cases = all_cases()
    for number, case in enumerate(cases):
        root = materialize(case, tmp_path / f"case{number}")
        settings = Settings(config_only="--config-only" in case.args)
        check_same([root], settings, tmp_path / "cache")


def test_a_config_edit_re_lints_that_model_only(repository: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    config = repository / "resnet50" / "config.pbtxt"
    config.write_text(config.read_text().replace("max_batch_size: 16", "max_batch_size: 0"))
    warm = check_same([repository], Settings(), cache)
    models = warm.models
    # the second warm run of check_same reads everything; the first re-linted one model
    first = lint([repository], Settings(), jobs=1, cache_dir=cache)
    assert first.cached == models


def test_an_edit_of_a_composing_model_reaches_the_ensemble(
    repository: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    tokenizer = repository / "tokenizer" / "config.pbtxt"
    text = tokenizer.read_text()
    assert "TYPE_INT64" in text
    tokenizer.write_text(text.replace("TYPE_INT64", "TYPE_INT32"))
    before = {d.message for d in lint([repository], Settings(), jobs=1).diagnostics}
    warm = check_same([repository], Settings(), cache)
    assert {d.message for d in warm.diagnostics} == before


def test_an_edit_of_a_model_a_bls_model_calls_reaches_it(tmp_path: Path) -> None:
    """PL831 reads the callee's config from the BLS model's checks: the BLS model's
    cached result must follow the callee."""
    case = next(c for c in all_cases() if c.code == "PL831" and c.name == "pass_same_release")
    root = tmp_path / "case"
    shutil.copytree(materialize(case, tmp_path / "scratch"), root)
    cache = tmp_path / "cache"
    assert not check_same([root], Settings(), cache).diagnostics
    preprocessing = root / "preprocessing" / "config.pbtxt"
    preprocessing.write_text(preprocessing.read_text().replace("IS_VIDEO_INPUT", "IS_VIDEO"))
    warm = check_same([root], Settings(), cache)
    assert [d.code for d in warm.diagnostics] == ["PL831"]


def test_a_model_file_change_is_seen(tmp_path: Path) -> None:
    case = next(c for c in all_cases() if c.code == "PL601" and not c.should_fail)
    root = tmp_path / "case"
    shutil.copytree(materialize(case, tmp_path / "scratch"), root)  # never the fixture itself
    cache = tmp_path / "cache"
    check_same([root], Settings(), cache)
    model_file = next(p for p in root.rglob("*") if p.is_file() and p.parent.name == "1")
    model_file.write_bytes(b"")
    check_same([root], Settings(), cache)
    os.utime(model_file, ns=(1, 1))
    check_same([root], Settings(), cache)


def test_settings_are_part_of_the_key(repository: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    for settings in (
        Settings(gpus=0),
        Settings(config_only=True),
        Settings(auto_complete=False),
        Settings(ignore=frozenset({"PL5"})),
    ):
        check_same([repository], settings, cache)


def test_another_version_of_the_code_invalidates_everything(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    monkeypatch.setattr(cache_module, "__version__", "999.0")
    fresh = lint([repository], Settings(), jobs=1, cache_dir=cache)
    assert fresh.cached == 0


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # truncated (a killed run)
        lambda text: text.replace('"severity":"error"', '"severity":"info"'),  # tampered
        lambda text: "not json at all",
        lambda text: json.dumps({"format": 1, "checksum": "0", "body": []}),
    ],
    ids=["truncated", "tampered", "garbage", "wrong-shape"],
)
def test_a_damaged_cache_file_is_ignored(repository: Path, tmp_path: Path, damage: object) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    (stored,) = cache.glob("*.json")
    stored.write_text(damage(stored.read_text()))  # type: ignore[operator]
    again = lint([repository], Settings(), jobs=1, cache_dir=cache)
    assert again.cached == 0
    assert everything(again) == everything(lint([repository], Settings(), jobs=1))


def test_an_unwritable_cache_folder_does_not_fail_the_run(repository: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be")
    result = lint([repository], Settings(), jobs=1, cache_dir=blocker / "cache")
    assert everything(result) == everything(lint([repository], Settings(), jobs=1))


def test_the_cache_folder_stays_bounded(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    roots = []
    for index in range(cache_module.MAX_FILES + 5):
        root = tmp_path / f"r{index}"
        (root / "m" / "1").mkdir(parents=True)
        (root / "m" / "config.pbtxt").write_text('backend: "python"\n')
        roots.append(root)
        lint([root], Settings(config_only=True), jobs=1, cache_dir=cache)
    assert len(list(cache.glob("*.json"))) == cache_module.MAX_FILES


def test_workers_fill_the_cache_like_one_process(tmp_path: Path) -> None:
    root = tmp_path / "models"
    for index in range(60):
        (root / f"m{index:02d}" / "1").mkdir(parents=True)
        (root / f"m{index:02d}" / "config.pbtxt").write_text(
            'backend: "python"\nmax_batch_size: 4\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 3 ] } ]\n'
        )
    cold = lint([root], Settings(config_only=True), jobs=1)
    lint([root], Settings(config_only=True), jobs=2, cache_dir=tmp_path / "cache")
    warm = lint([root], Settings(config_only=True), jobs=2, cache_dir=tmp_path / "cache")
    assert warm.cached == 60
    assert everything(warm) == everything(cold)


def test_entries_of_removed_models_are_dropped(repository: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    shutil.rmtree(repository / "postprocess")
    check_same([repository], Settings(), cache)
    stored = ResultCache(cache, repository.resolve(), settings_key(Settings()), code_identity())
    assert stored.entry("postprocess") is None


def test_a_differential_corpus_is_the_same_warm(tmp_path: Path) -> None:
    import differential

    groups = differential.random_groups(5, 80) + differential.mutation_groups(5, 1)[:120]
    for number, batch in enumerate(differential.pack(groups, 100)):
        root = tmp_path / f"r{number}"
        differential.write_repository(root, batch)
        for settings in (Settings(), Settings(auto_complete=False, config_only=True)):
            check_same([root], settings, tmp_path / "cache")


def test_the_command_line_caches_by_default_and_says_where(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from pbtxt_lint.cli import cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PBTXT_LINT_NO_CACHE", raising=False)
    runner = CliRunner()
    first = runner.invoke(cli, ["check", str(repository), "--format", "json"])
    assert (tmp_path / ".pbtxt_lint_cache" / ".gitignore").exists()
    second = runner.invoke(cli, ["check", str(repository), "--format", "json"])
    assert second.stdout == first.stdout and second.exit_code == first.exit_code
    elsewhere = tmp_path / "elsewhere"
    runner.invoke(cli, ["check", str(repository), "--cache-dir", str(elsewhere)])
    assert list(elsewhere.glob("*.json"))
    none = tmp_path / "none"
    none.mkdir()
    monkeypatch.chdir(none)
    runner.invoke(cli, ["check", str(repository), "--no-cache"])
    assert list(none.iterdir()) == []
