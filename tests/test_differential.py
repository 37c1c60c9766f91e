"""Differential tests: pbtxt-lint against the real tritonserver on generated configs.

``test_differential_run`` is the CI-sized run of ``differential.py`` (a fixed seed,
about 1,400 models: random configs from the schema and mutations of every fixture
case); the long run is ``scripts/differential.py``. The lexical table pins, spelling by
spelling, what Triton's C++ text parser accepts, and checks our parser against it.

Skips only when tritonserver cannot be fetched, and never under CI=true.
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from differential import (
    CONFIG,
    SETTINGS,
    STRAY_NAMES,
    Group,
    Outcome,
    Report,
    classify,
    crash_reasons,
    describe,
    effective_verdicts,
    full_report,
    mutation_groups,
    random_groups,
    rename_references,
    run_differential,
    summary,
    write_repository,
)
from google.protobuf import text_format
from oracle import TritonServer, Verdict, require_tritonserver

from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.linter import lint
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.textproto.parse import parse_config

SEED = 20240611
RANDOM_GROUPS = 500
MUTATIONS_PER_CONFIG = 1


def _uses(outcome: Outcome, *words: str) -> bool:
    """The model's config or file names mention one of `words` (to match KNOWN entries)."""
    files = outcome.group.models[outcome.model]
    text = files.get(CONFIG, b"").decode("utf-8", "replace")
    return any(word in text or any(path.endswith(word) for path in files) for word in words)


KNOWN: dict[str, tuple[str, Callable[[Outcome], bool]]] = {}
"""Disagreements tolerated while the bug behind them is open: remove the entry when it
is fixed, and the run proves the fix. Any other disagreement fails the run."""


@pytest.fixture(scope="module")
def server() -> TritonServer:
    return require_tritonserver()


# --------------------------------------------------------------------------- the run


def test_differential_run(server: TritonServer) -> None:
    groups = random_groups(SEED, RANDOM_GROUPS) + mutation_groups(SEED, MUTATIONS_PER_CONFIG)
    report = run_differential(server, groups)
    print(full_report(report))
    assert len(report.outcomes) > 800, "the run judged fewer models than it generated"
    assert report.counts()["agree"] > 200 and report.counts()["passed_poll"] > 200
    assert not report.new_crashes, full_report(report)
    assert not report.lint_crashes, full_report(report)
    failing = [  # one that follows from its composing model's counts there
        o
        for o in report.disagreements
        if o.cause in ("", "parser") and not any(known(o) for _, known in KNOWN.values())
    ]
    assert not failing, "\n\n".join(_describe_all(failing, report))
    for name, (reason, known) in KNOWN.items():
        if not any(known(o) for o in report.disagreements):
            message = f"this run met no '{name}' disagreement; once fixed, remove it: {reason}"
            warnings.warn(message, stacklevel=1)


def _describe_all(failing: list[Outcome], report: Report) -> list[str]:
    return [describe(o) for o in failing] + [summary(report)]


# --------------------------------------------------------------------------- the generator


def test_generation_is_deterministic() -> None:
    assert random_groups(3, 40) == random_groups(3, 40)
    assert random_groups(3, 40) != random_groups(4, 40)
    assert mutation_groups(3, 1) == mutation_groups(3, 1)


def test_random_configs_have_no_name_or_their_folder_name() -> None:
    for group in random_groups(SEED, 200):
        for model, files in group.models.items():
            config = ModelConfig()
            text_format.Parse(files[CONFIG].decode(), config)
            assert config.name in ("", model), group.origin


def test_random_ensembles_mostly_refer_to_their_siblings() -> None:
    steps = siblings = 0
    for group in random_groups(SEED, 200):
        for files in group.models.values():
            config = ModelConfig()
            text_format.Parse(files[CONFIG].decode(), config)
            for step in config.ensemble_scheduling.step:
                steps += 1
                siblings += step.model_name in group.models
    assert steps > 20 and siblings / steps > 0.8


def test_mutations_cover_every_fixture_with_fresh_names() -> None:
    groups = mutation_groups(SEED, 1)
    names = [name for group in groups for name in group.models]
    renamed = [name for name in names if name not in STRAY_NAMES]
    assert len(renamed) == len(set(renamed)), "folder names must be unique across groups"
    assert sum(1 for g in groups if g.origin.startswith("mutation of examples/")) >= 4
    notes = {g.origin.split(": ", 1)[1].split(":")[0] for g in groups}
    assert {"change a data type", "remove a field", "message edit"} <= notes


def test_rename_references() -> None:
    text = 'name: "m"\nensemble_scheduling { step [ { model_name: "a" } ] }\n'
    renamed = rename_references(text, "m", "c1_m", {"m": "c1_m", "a": "c1_a"})
    assert renamed == 'name: "c1_m"\nensemble_scheduling { step [ { model_name: "c1_a" } ] }\n'
    # a name that is not the folder's stays (a name-mismatch case keeps its mistake)
    assert rename_references('name: "other"', "m", "c1_m", {}) == 'name: "other"'


# --------------------------------------------------------------------------- known crashes


def _group(origin: str, configs: dict[str, str]) -> Group:
    return Group(
        origin, {name: {CONFIG: text.encode(), "1/": b""} for name, text in configs.items()}
    )


def _ensemble(step: str) -> str:
    """A valid one-step ensemble over ``step`` (an invalid one never reaches the graph)."""
    return (
        'platform: "ensemble"\n'
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        f'ensemble_scheduling {{ step [ {{ model_name: "{step}" model_version: -1\n'
        '  input_map { key: "IN" value: "IN" } output_map { key: "OUT" value: "OUT" } } ] }\n'
    )


CRASHING = [
    _group("empty agents", {"agents": 'backend: "python"\nmodel_repository_agents { }'}),
    _group(
        "ensemble over a cycle",
        {"app": _ensemble("a"), "a": _ensemble("b"), "b": _ensemble("a")},
    ),
]


@pytest.mark.parametrize("group", CRASHING, ids=[g.origin for g in CRASHING])
def test_known_crashes_are_kept_out(group: Group, server: TritonServer, tmp_path: Path) -> None:
    assert list(crash_reasons([group])) == [0]
    write_repository(tmp_path / "repo", [group])
    run = server.run(tmp_path / "repo", timeout=60)
    assert not run.completed, "tritonserver 2.51 no longer crashes here: drop the guard"


def test_a_cycle_alone_is_not_a_crash() -> None:
    assert crash_reasons([_group("cycle", {"a": _ensemble("b"), "b": _ensemble("a")})]) == {}


# --------------------------------------------------------------------------- the rule


def _error(code: str) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, "", Path("m/config.pbtxt"), model="m")


def test_classify() -> None:
    rejected = Verdict("m", "rejected", "x", "poll")
    assert classify(rejected, [_error("PL204")]) == "agree"
    assert classify(rejected, []) == "missed"
    loaded = Verdict("m", "backend_missing", "unable to find backend library", "load")
    assert classify(loaded, [_error("PL204")]) == "false_alarm"
    assert classify(loaded, [_error("PL402")]) == "passed_poll"  # a load-stage rule
    agent = Verdict("m", "backend_missing", "for repo agent 'x'", "poll")
    assert classify(agent, [_error("PL204")]) == "passed_poll"  # Triton stopped before it
    assert classify(agent, [_error("PL001")]) == "false_alarm"  # but had parsed the file
    ensemble = Verdict("e", "backend_missing", "depends on 'm'", "ensemble", upstream="m")
    assert classify(ensemble, [_error("PL107")]) == "passed_poll"
    assert classify(ensemble, [_error("PL508")]) == "false_alarm"
    assert classify(Verdict("m", "crashed", "", ""), [_error("PL204")]) == "skipped"


def test_an_ensemble_over_a_rejected_model_is_rejected() -> None:
    verdicts = {
        "e": Verdict("e", "backend_missing", "depends on 'ok'", "ensemble", upstream="ok"),
        "ok": Verdict("ok", "backend_missing", "unable to find backend library", "load"),
        "bad": Verdict("bad", "rejected", "dims", "poll"),
    }
    result = effective_verdicts({"e": ["ok", "bad"]}, verdicts)
    assert result["e"].status == "rejected" and result["e"].upstream == "bad"
    assert effective_verdicts({"e": ["ok"]}, verdicts)["e"].status == "backend_missing"


# --------------------------------------------------------------------------- lexical table

BASE = 'backend: "python"\n'
FLOAT = "sequence_batching {{ direct {{ minimum_slot_utilization: {} }} }}"
STRING = 'parameters {{ key: "k" value {{ string_value: "{}" }} }}'
BOOL = "model_transaction_policy {{ decoupled: {} }}"
DTYPE = 'input [{{ name: "I" data_type: {} dims: [1] }}]'
DIMS = 'input [{{ name: "I" data_type: TYPE_FP32 dims: [{}] }}]'
UINT = "dynamic_batching {{ max_queue_delay_microseconds: {} }}"

LEXICAL: list[tuple[str, str, bool]] = [
    # (case, config text after `backend: "python"`, does tritonserver 2.51 parse it?)
    ("int -0", "max_batch_size: -0", True),
    ("int hex", "max_batch_size: 0x1F", True),
    ("int octal", "max_batch_size: 017", True),
    ("int 08", "max_batch_size: 08", False),
    ("int 1e3", "max_batch_size: 1e3", False),
    ("int 1.0", "max_batch_size: 1.0", False),
    ("int32 overflow", "max_batch_size: 2147483648", False),
    ("uint -0", UINT.format("-0"), False),
    ("int +1", "max_batch_size: +1", False),
    ("int 1_000", "max_batch_size: 1_000", False),
    ("int - 1", "max_batch_size: - 1", True),
    ("int -newline 1", "max_batch_size: -\n1", True),
    ("dims +1", DIMS.format("+1"), False),
    ("dims - 1", DIMS.format("- 1"), True),
    ("float .5", FLOAT.format(".5"), True),
    ("float 1f", FLOAT.format("1f"), True),
    ("float -inf", FLOAT.format("-inf"), True),
    ("float 0x10", FLOAT.format("0x10"), False),
    ("float +1", FLOAT.format("+1"), False),
    ("float - 1", FLOAT.format("- 1"), True),
    ("float inff", FLOAT.format("inff"), False),
    ("float 0.5ff", FLOAT.format("0.5ff"), False),
    ("bool t", BOOL.format("t"), True),
    ("bool TRUE", BOOL.format("TRUE"), False),
    ("bool 2", BOOL.format("2"), False),
    ("bool 0x1", BOOL.format("0x1"), True),
    ("bool 01", BOOL.format("01"), True),
    ("enum number", DTYPE.format("11"), True),
    ("enum hex", DTYPE.format("0x0b"), True),
    ("enum octal", DTYPE.format("013"), True),
    ("enum +1", DTYPE.format("+1"), False),
    ("enum - 1", DTYPE.format("- 1"), True),
    ("string \\x41", STRING.format("\\x41"), True),
    ("string \\q", STRING.format("\\q"), False),
    ("string \\8", STRING.format("\\8"), False),
    ("string \\e", STRING.format("\\e"), False),
    ("string \\X41", STRING.format("\\X41"), False),
    ("string \\777", STRING.format("\\777"), True),
    ("string \\ud800", STRING.format("\\ud800"), True),
    ("string \\xff", STRING.format("\\xff"), True),
    ("string raw NUL", STRING.format("a\x00b"), False),
    ("string crosses lines", STRING.format("a\nb"), False),
    ("non-breaking space", "max_batch_size:\u00a01", False),
    ("list trailing comma", DIMS.format("1,"), False),
    ("empty list", DIMS.format(""), True),
    ("angle brackets", "dynamic_batching < >", True),
    ("separators", 'max_batch_size: 1; platform: "",', True),
    ("double separator", 'max_batch_size: 1;; platform: ""', False),
    ("int - comment newline 1", "max_batch_size: - # c\n1", True),
    ("int --1", "max_batch_size: --1", False),
    ("int -0x10", "max_batch_size: -0x10", True),
    ("int 1u", "max_batch_size: 1u", False),
    ("int32 min", "max_batch_size: -2147483648", True),
    (
        "uint64 max",
        "dynamic_batching { default_queue_policy { max_queue_size: 18446744073709551615 } }",
        False,
    ),
    ("float 1e400", FLOAT.format("1e400"), True),
    ("float 01.5", FLOAT.format("01.5"), False),
    ("float 1e", FLOAT.format("1e"), False),
    ("float Infinity", FLOAT.format("Infinity"), True),
    ("float +inf", FLOAT.format("+inf"), False),
    ("bool 00", BOOL.format("00"), True),
    ("bool 0X1", BOOL.format("0X1"), True),
    ("bool -1", BOOL.format("-1"), False),
    ("enum 2147483648", DTYPE.format("2147483648"), False),
    ("enum 11.0", DTYPE.format("11.0"), False),
    ("string \\u0041", STRING.format("\\u0041"), True),
    ("string \\U00110000", STRING.format("\\U00110000"), True),
    ("string \\x1", STRING.format("\\x1"), True),
    ("string \\x", STRING.format("\\x"), False),
    ("string raw DEL", STRING.format("a\x7fb"), True),
    ("raw control character", "max_batch_size: 1\x01", False),
    ("unterminated string", 'name: "abc', False),
    ("identifier with -", DTYPE.format("TYPE_FP32-"), False),
    ("field number", "6: 1", False),
    (
        "list of blocks, trailing comma",
        'input [{ name: "I" data_type: TYPE_FP32 dims: [1] },]',
        False,
    ),
]


def test_lexical_table_is_what_tritonserver_does(server: TritonServer, tmp_path: Path) -> None:
    repository = tmp_path / "repo"
    for index, (_, text, _) in enumerate(LEXICAL):
        (repository / f"x{index}" / "1").mkdir(parents=True)
        (repository / f"x{index}" / CONFIG).write_bytes((BASE + text + "\n").encode())
    verdicts = server.validate(repository)
    wrong = [
        f"{case}: tritonserver {'parses' if not expected else 'refuses'} it "
        f"({verdicts[f'x{index}'].message} {verdicts[f'x{index}'].detail})"
        for index, (case, _, expected) in enumerate(LEXICAL)
        if ("failed to read text proto" not in verdicts[f"x{index}"].message) != expected
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(
    ("text", "triton_parses"),
    [pytest.param(text, parses, id=case) for case, text, parses in LEXICAL],
)
def test_parser_agrees_with_tritonserver(text: str, triton_parses: bool) -> None:
    parsed = parse_config((BASE + text + "\n").encode())
    assert (parsed.config is not None) == triton_parses
    for problem in parsed.problems:  # python's own error text must not leak out
        assert "codec can't" not in problem.message, problem.message


# --------------------------------------------------------------------------- release skew

TORCH_AOTI = {
    "platform_only": ('platform: "torch_aoti"', "model.pt2"),
    "platform_and_backend": ('platform: "torch_aoti" backend: "pytorch"', "model.pt2"),
    "default_file": ('default_model_filename: "model.pt2"', "model.pt2"),
    "inferred_from_file": ("", "model.pt2"),
}


def test_torch_aoti_is_newer_than_2_51(server: TritonServer, tmp_path: Path) -> None:
    io = (
        'input [ { name: "I" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        'output [ { name: "O" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    )
    for name, (head, artifact) in TORCH_AOTI.items():
        (tmp_path / name / "1").mkdir(parents=True)
        (tmp_path / name / "1" / artifact).write_bytes(b"")
        (tmp_path / name / CONFIG).write_text(head + "\n" + io)
    verdicts = server.validate(tmp_path)
    assert {v.status for v in verdicts.values()} == {"rejected"}  # 2.51 refuses them all
    errors = {
        d.model for d in lint([tmp_path], SETTINGS).diagnostics if d.severity is Severity.ERROR
    }
    assert errors == set(TORCH_AOTI)
    newest = dataclasses.replace(SETTINGS, target=None, config_only=True)  # which knows them all
    assert not lint([tmp_path], newest).diagnostics
