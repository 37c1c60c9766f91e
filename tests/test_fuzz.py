"""Fuzzing: whatever bytes a config holds, pbtxt-lint answers with diagnostics.

Properties, on random bytes, random pbtxt-like text, truncations and mutations of every
fixture and example config:

* no exception escapes the tokenizer, the syntax tree, the binder or ``parse_config``;
* tokens are exact slices of the text, with the line and column of their offset;
* every problem's span lies in the file (1 <= line <= lines + 1, columns within the
  line, the end not before the start);
* ``lint()`` on a repository holding such a config returns, with no internal error, and
  its diagnostics on the config have spans in the file.

And time and memory stay bounded: a 100 MB config is refused without being read, a
10,000-deep nesting and a 1 MB single-line config are parsed in a child process with a
time limit, which reports its peak memory. The ONNX reader has its own fuzz tests
(``test_onnx_reader.py``); what is added here is the path through ``lint()``.

Hypothesis runs derandomized (the same examples on every run, so CI is deterministic),
with bounded ``max_examples`` so the file runs in well under a minute.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from child_process import run_measured
from fixture_cases import corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx_builders import build_model

from pbtxt_lint.diagnostics import Span
from pbtxt_lint.linter import LintResult, lint
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.binder import Binder
from pbtxt_lint.textproto.parse import parse_config
from pbtxt_lint.textproto.tokenizer import TokenKind, tokenize
from pbtxt_lint.textproto.tree import parse_tree

SEED_CONFIGS: list[bytes] = sorted({path.read_bytes() for path in corpus("*.pbtxt").values()})
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=150,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
STRICT = Settings(auto_complete=False, config_only=True)
DEFAULT = Settings()

# --------------------------------------------------------------------------- inputs

PIECES = [
    "{", "}", "[", "]", "<", ">", ":", ",", ";", '"', "'", "#", "\n", " ", "\t", "\\",
    "name", "input", "output", "dims", "data_type", "max_batch_size", "platform",
    "backend", "dynamic_batching", "preferred_batch_size", "parameters", "key", "value",
    "string_value", "instance_group", "kind", "KIND_GPU", "TYPE_FP32", "TYPE_FLOAT32",
    "ensemble_scheduling", "step", "model_name", "input_map", "sequence_batching",
    "0", "1", "-1", "-2", "8", "0x10", "1.5", "1e3", "-", "+", '"x"', "'y'", "${x}",
    "\ufeff", "\u00a0", "é", "\x00", "\r", "true", "t",
]  # fmt: skip
pbtxt_like = st.lists(st.sampled_from(PIECES), max_size=80).map("".join)
seed_config = st.sampled_from(SEED_CONFIGS)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    """A fixture config with a few byte-level edits: delete, insert, replace, duplicate."""
    data = bytearray(draw(seed_config))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        length = draw(st.integers(1, 12))
        if action == "delete":
            del data[at : at + length]
        elif action == "insert":
            data[at:at] = draw(st.sampled_from(PIECES)).encode("utf-8")
        elif action == "replace" and at < len(data):
            data[at] = draw(st.integers(0, 255))
        else:
            data[at:at] = data[at : at + length]
    return bytes(data)


@st.composite
def truncated(draw: st.DrawFn) -> bytes:
    data = draw(seed_config)
    return data[: draw(st.integers(0, len(data)))]


any_config = st.one_of(st.binary(max_size=600), pbtxt_like.map(str.encode), mutated(), truncated())

# --------------------------------------------------------------------------- checks


def assert_span_in_file(span: Span, text: str, where: str) -> None:
    lines = text.split("\n")
    assert 1 <= span.line <= len(lines) + 1, f"{where}: line {span.line} of {len(lines)}"
    assert span.column >= 1, f"{where}: column {span.column}"
    if span.line <= len(lines):
        assert span.column <= len(lines[span.line - 1]) + 2, f"{where}: column past the line"
    assert (span.end_line, span.end_column) >= (span.line, span.column), f"{where}: ends early"
    assert span.end_line <= len(lines) + 1, f"{where}: end line {span.end_line}"


def check_parse(data: bytes) -> None:
    parsed = parse_config(data)
    for problem in parsed.problems:
        assert_span_in_file(problem.span, parsed.text, f"{problem.kind}: {problem.message}")
        assert problem.message
    if parsed.config is not None:  # a config protobuf accepts has no blocking problem left
        assert all(p.kind.value in ("duplicate-map-key", "undeclared-enum-number", "not-utf8")
                   for p in parsed.problems)  # fmt: skip


@FUZZ
@given(st.text(max_size=400) | pbtxt_like)
def test_tokens_are_exact_slices(text: str) -> None:
    tokens = list(tokenize(text))
    assert tokens[-1].kind is TokenKind.EOF
    previous_end = 0
    for token in tokens[:-1]:
        assert token.start >= previous_end and token.text
        assert text[token.start : token.end] == token.text
        assert token.line == text.count("\n", 0, token.start) + 1
        assert token.column == token.start - (text.rfind("\n", 0, token.start) + 1) + 1
        previous_end = token.end


@FUZZ
@given(st.text(max_size=400) | pbtxt_like)
def test_tree_and_binder_never_raise(text: str) -> None:
    document = parse_tree(text)
    for issue in document.issues:
        assert_span_in_file(issue.span, text, issue.message)
    binder = Binder(MODEL_CONFIG_DESCRIPTOR)
    binder.bind(document)
    for problem in binder.problems:
        assert_span_in_file(problem.span, text, problem.message)


@FUZZ
@given(any_config)
def test_parse_config_never_raises_and_spans_stay_in_the_file(data: bytes) -> None:
    check_parse(data)


@pytest.mark.parametrize("separator", ["\f", "\v", "\r", "\x1c", "\u2028"])
def test_placeholder_lines_count_only_newlines(separator: str) -> None:
    data = f"# a{separator}b\nmax_batch_size: ${{x}}\n".encode()
    spans = [p.span for p in parse_config(data).problems if p.kind.value == "placeholder"]
    assert spans == [Span(2, 17, 2, 21)]


def test_every_truncation_of_every_example_parses() -> None:
    for data in SEED_CONFIGS[:: max(1, len(SEED_CONFIGS) // 12)]:
        for cut in range(len(data) + 1):
            check_parse(data[:cut])


# --------------------------------------------------------------------------- lint()


@pytest.fixture(scope="module")
def repository(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One model folder whose config each example overwrites (a python model)."""
    root = tmp_path_factory.mktemp("fuzz-repo")
    (root / "m" / "1").mkdir(parents=True)
    (root / "m" / "1" / "model.py").write_text("raise SystemExit('never imported')\n")
    return root


def lint_clean(root: Path, settings: Settings) -> LintResult:
    result = lint([root], settings)
    assert not result.internal_errors, result.internal_errors
    assert not result.path_problems, result.path_problems
    return result


@FUZZ
@given(any_config)
def test_lint_returns_without_internal_errors(repository: Path, data: bytes) -> None:
    config = repository / "m" / "config.pbtxt"
    config.write_bytes(data)
    text = parse_config(data).text
    for settings_ in (STRICT, DEFAULT):
        result = lint_clean(repository, settings_)
        for diagnostic in result.diagnostics:
            if diagnostic.path == config and diagnostic.span is not None:
                assert_span_in_file(diagnostic.span, text, diagnostic.code)


ONNX_MODEL = build_model([("x", 1, [1, 3])], [("y", 1, [1, 3])]).SerializeToString()


@settings(FUZZ, max_examples=60)
@given(st.data())
def test_lint_survives_corrupt_onnx_models(tmp_path_factory: pytest.TempPathFactory,
                                           data: st.DataObject) -> None:  # fmt: skip
    """What test_onnx_reader.py does not cover: a corrupt model.onnx through lint()."""
    root = tmp_path_factory.mktemp("onnx-fuzz")
    model = bytearray(ONNX_MODEL)
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(model) - 1))
        model[at] = data.draw(st.integers(0, 255))
    model = model[: data.draw(st.integers(0, len(model)))]
    (root / "m" / "1").mkdir(parents=True)
    (root / "m" / "1" / "model.onnx").write_bytes(bytes(model))
    (root / "m" / "config.pbtxt").write_text(
        'platform: "onnxruntime_onnx"\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ 1, 3 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ 1, 3 ] } ]\n'
    )
    lint_clean(root, Settings(auto_complete=False))
    lint_clean(root, DEFAULT)


# --------------------------------------------------------------------------- bounds


def test_a_100_mb_config_is_refused_without_being_read(tmp_path: Path) -> None:
    (tmp_path / "m" / "1").mkdir(parents=True)
    with open(tmp_path / "m" / "config.pbtxt", "wb") as handle:
        handle.truncate(100 * 1024 * 1024)  # sparse: no disk used
    tracemalloc.start()
    try:
        result = lint_clean(tmp_path, STRICT)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024, f"{peak / 1e6:.0f} MB allocated"
    assert [d.code for d in result.diagnostics] == ["PL013"]
    assert "100.0 MiB" in result.diagnostics[0].message


CHILD = """
import json, sys
from pathlib import Path
from pbtxt_lint.linter import lint
from pbtxt_lint.settings import Settings
result = lint([Path(sys.argv[1])], Settings(auto_complete=False, config_only=True))
print(json.dumps({
    # VmHWM, not ru_maxrss: the latter starts at the spawning pytest worker's peak.
    "mb": int(next(line for line in open("/proc/self/status")
                   if line.startswith("VmHWM")).split()[1]) / 1024,
    "diagnostics": len(result.diagnostics),
    "internal": [repr(e) for e in result.internal_errors],
}))
"""


def lint_in_child(root: Path, config: bytes) -> dict[str, object]:
    """lint() on a repository holding ``config``, in a child process."""
    (root / "m" / "1").mkdir(parents=True)
    (root / "m" / "config.pbtxt").write_bytes(config)
    measured = run_measured(CHILD, root, f"lint() on a {len(config):,}-byte config")
    assert measured["internal"] == []
    return measured


def nested(depth: int, opener: str, closer: str) -> bytes:
    return ('backend: "python"\n' + opener * depth + closer * depth).encode()


def test_10000_deep_block_nesting(tmp_path: Path) -> None:
    measured = lint_in_child(tmp_path, nested(10_000, "a { ", "} "))
    assert isinstance(measured["mb"], float) and measured["mb"] < 300
    assert measured["diagnostics"], "an unknown field 'a' must be reported"


def test_10000_deep_list_nesting(tmp_path: Path) -> None:
    measured = lint_in_child(tmp_path, nested(10_000, "a: [ ", "] "))
    assert isinstance(measured["mb"], float) and measured["mb"] < 300
    assert measured["diagnostics"], "nested lists must be reported"


def test_1_mb_single_line_config(tmp_path: Path) -> None:
    inputs = ", ".join(
        f'{{ name: "i{i}" data_type: TYPE_FP32 dims: [ 1 ] }}' for i in range(20_000)
    )
    output = '{ name: "o" data_type: TYPE_FP32 dims: [ 1 ] }'
    config = f'backend: "python" input [ {inputs} ] output [ {output} ]'
    assert len(config) > 1_000_000 and "\n" not in config
    measured = lint_in_child(tmp_path, config.encode())
    assert isinstance(measured["mb"], float) and measured["mb"] < 500


def test_1_mb_of_garbage_on_one_line(tmp_path: Path) -> None:
    measured = lint_in_child(tmp_path, b"}" * 1_000_000)
    assert isinstance(measured["mb"], float) and measured["mb"] < 300
    count = measured["diagnostics"]
    assert isinstance(count, int) and 0 < count <= 1000, "a million '}' is one mistake, not 1M"
