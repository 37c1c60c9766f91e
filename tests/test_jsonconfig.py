"""JSON model configurations: positions, problems in our words, the same rules, convert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixture_cases import corpus
from google.protobuf import json_format
from hypothesis import HealthCheck, assume, given, settings
from pbtxt_strategies import configs

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.cli import cli
from pbtxt_lint.diagnostics import Span
from pbtxt_lint.fixes import apply_edits
from pbtxt_lint.jsonconfig import (
    JsonSyntaxError,
    config_to_json,
    parse_json_config,
    read_json,
)
from pbtxt_lint.repository.layout import ConfigFile, load_repository
from pbtxt_lint.rules.registry import ALL_RULES
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.binder import ProblemKind
from pbtxt_lint.textproto.parse import parse_config
from pbtxt_lint.textproto.sourcemap import Key

VALID = [
    (label, p, c)
    for label, p in corpus("*.pbtxt").items()
    if (c := parse_config(p.read_bytes()).config) is not None
]


def kinds(text: str) -> list[tuple[str, int, int]]:
    parsed = parse_json_config(text.encode())
    return [(p.kind.value, p.span.line, p.span.column) for p in parsed.problems]


# -- the reader -----------------------------------------------------------------------


def test_read_json_keeps_positions_and_duplicate_keys() -> None:
    value = read_json('{"a": [1, 2.5, "x"], "a": {"b": null}}')
    assert [m.key for m in value.members] == ["a", "a"]
    first = value.members[0].value
    assert (first.start, first.end) == (6, 19)
    assert [item.value for item in first.items] == [1, 2.5, "x"]
    assert value.to_python() == {"a": {"b": None}}


@pytest.mark.parametrize(
    "text,message,hint",
    [
        ('{"a": 1,}', "trailing ','", "delete the last ','"),
        ("[1, 2,]", "trailing ','", "delete the last ','"),
        ("{'a': 1}", "expected a name in double quotes", "double quotes"),
        ('{"a": 1} // x', "after the end of the JSON value", None),
        ('{"a": True}', "expected a value", "lower case"),
        ('{"a": NaN}', "expected a value", '"NaN"'),
        ('{"a": "x\ty"}', "control character", "escape"),
        ('{"a": "x', "not closed", None),
        ('{"a": "\\q"}', "bad escape", None),
        ('{"a" 1}', "expected ':'", None),
        ('{"a": 1 "b": 2}', "expected ',' or '}'", None),
        ("", "expected a value, found end of the file", None),
        ("[" * 300, "nested deeper", None),
    ],
)
def test_read_json_errors_say_what_and_where(text: str, message: str, hint: str | None) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        read_json(text)
    assert message in caught.value.message
    if hint is not None:
        assert caught.value.hint is not None and hint in caught.value.hint
    assert 0 <= caught.value.offset <= len(text)


# -- round trips -----------------------------------------------------------------------


@pytest.mark.parametrize("path,config", [v[1:] for v in VALID], ids=[v[0] for v in VALID])
def test_every_valid_config_round_trips_through_json(path: Path, config: ModelConfig) -> None:
    for text in (config_to_json(config), json_format.MessageToJson(config)):
        parsed = parse_json_config(text.encode())
        assert parsed.problems == []
        assert parsed.config == config


def test_config_to_json_writes_64_bit_integers_as_numbers() -> None:
    config = ModelConfig(name="m")
    config.input.add(name="x", dims=[-1, 3])
    config.version_policy.specific.versions.extend([1, 3])
    document = json.loads(config_to_json(config))
    assert document["input"][0]["dims"] == [-1, 3]
    assert document["version_policy"]["specific"]["versions"] == [1, 3]


TRITON_GET_CONFIG = {
    "name": "densenet_onnx",
    "platform": "onnxruntime_onnx",
    "backend": "onnxruntime",
    "runtime": "",
    "version_policy": {"latest": {"num_versions": 1}},
    "max_batch_size": 0,
    "input": [
        {
            "name": "data_0",
            "data_type": "TYPE_FP32",
            "format": "FORMAT_NCHW",
            "dims": [3, 224, 224],
            "reshape": {"shape": [1, 3, 224, 224]},
            "is_shape_tensor": False,
            "allow_ragged_batch": False,
            "optional": False,
            "is_non_linear_format_io": False,
        }
    ],
    "output": [
        {
            "name": "fc6_1",
            "data_type": "TYPE_FP32",
            "dims": [1000],
            "reshape": {"shape": [1, 1000, 1, 1]},
            "label_filename": "densenet_labels.txt",
            "is_shape_tensor": False,
            "is_non_linear_format_io": False,
        }
    ],
    "batch_input": [],
    "batch_output": [],
    "optimization": {
        "priority": "PRIORITY_DEFAULT",
        "input_pinned_memory": {"enable": True},
        "output_pinned_memory": {"enable": True},
        "gather_kernel_buffer_threshold": 0,
        "eager_batching": False,
    },
    "instance_group": [
        {
            "name": "densenet_onnx",
            "kind": "KIND_CPU",
            "count": 2,
            "gpus": [],
            "secondary_devices": [],
            "profile": [],
            "passive": False,
            "host_policy": "",
        }
    ],
    "default_model_filename": "model.onnx",
    "cc_model_filenames": {},
    "metric_tags": {},
    "parameters": {},
    "model_warmup": [],
    "model_transaction_policy": {"decoupled": False},
}


def test_the_answer_of_get_model_config_parses() -> None:
    parsed = parse_json_config(json.dumps(TRITON_GET_CONFIG, indent=2).encode())
    assert parsed.problems == []
    assert parsed.config is not None
    assert parsed.config.output[0].label_filename == "densenet_labels.txt"


def test_lower_case_enums_are_accepted_like_triton_does() -> None:
    parsed = parse_json_config(b'{"instance_group": [{"kind": "kind_gpu"}]}')
    assert parsed.problems == []
    assert parsed.config is not None and parsed.config.instance_group[0].kind == 1


# -- problems, positions, fixes ----------------------------------------------------------

BAD = """{
  "name": "m",
  "maxBatchSize": 8,
  "max_batch": 3,
  "input": [
    {"name": "x", "dataType": "TYPE_FLOAT32", "dims": [3, "4"]},
    {"name": "y", "data_type": "TYPE_FP32", "dims": [1.5]}
  ],
  "dynamic_batching": {},
  "sequenceBatching": {},
  "parameters": {"a": {"string_value": "b"}, "a": {"string_value": "c"}},
  "instance_group": [{"kind": "KIND_GPU", "count": "99999999999"}],
  "name": "n",
  "max_batch_size": 8,
  "optimization": "fast"
}
"""


def test_problems_have_the_text_format_kinds_and_json_positions() -> None:
    assert sorted(kinds(BAD)) == sorted(
        [
            ("unknown-field", 4, 3),
            ("unknown-enum", 6, 31),
            ("wrong-type", 7, 54),
            ("oneof-conflict", 10, 3),
            ("duplicate-map-key", 11, 46),
            ("out-of-range", 12, 52),
            ("duplicate-field", 13, 3),
            ("duplicate-field", 14, 3),
            ("wrong-type", 15, 19),
        ]
    )
    assert parse_json_config(BAD.encode()).config is None


def test_unknown_fields_and_enums_carry_safe_fixes_in_the_users_spelling() -> None:
    text = '{"maxBatch": 8, "input": [{"dataType": "TYPE_FLOAT32"}], "instance_group": []}'
    parsed = parse_json_config(text.encode())
    hints = sorted(p.hint or "" for p in parsed.problems)
    assert hints == ['did you mean "maxBatchSize"?', "did you mean TYPE_FP32?"]
    fixed, applied = apply_edits(text, [p.fix for p in parsed.problems if p.fix])
    assert applied == 2
    again = parse_json_config(fixed.encode())
    assert again.problems == [] and again.config is not None
    assert again.config.max_batch_size == 8


def test_syntax_errors_and_byte_order_marks() -> None:
    assert kinds('{\n  "name": "m",\n}') == [("syntax", 2, 15)]  # the trailing ','
    parsed = parse_json_config(b'\xef\xbb\xbf{"name": "m"}')
    assert [p.kind for p in parsed.problems] == [ProblemKind.ENCODING]
    assert parsed.problems[0].fix is not None and parsed.config is None
    assert kinds('{"max_batch_size": ${MBS}}') == [("placeholder", 1, 20)]
    assert kinds("[1]") == [("wrong-type", 1, 1)]


def test_the_source_map_points_into_the_json_text() -> None:
    text = json.dumps(
        {
            "name": "m",
            "input": [{"name": "x", "dims": [4, 8]}],
            "parameters": {"k": {"string_value": "v"}},
            "dynamic_batching": {"max_queue_delay_microseconds": 100},
        },
        indent=2,
    )
    parsed = parse_json_config(text.encode())
    lines = text.splitlines()

    def at(path: tuple[object, ...]) -> str:
        span = parsed.source_map.span(path)  # type: ignore[arg-type]
        assert span is not None and span.line == span.end_line
        return lines[span.line - 1][span.column - 1 : span.end_column - 1]

    assert at(("name",)) == '"m"'
    assert at(("input", 0, "dims", 1)) == "8"
    assert at(("input", 0, "name")) == '"x"'
    assert at(("parameters", Key("k"), "value", "string_value")) == '"v"'
    assert at(("dynamic_batching", "max_queue_delay_microseconds")) == "100"
    assert at(("input", 0, "data_type")) == "{"  # missing: its nearest written parent
    assert at(("parameters", Key("k"))) == '"k"'


def test_a_model_load_request_body_is_checked_at_its_positions() -> None:
    inner = json.dumps({"name": "m", "max_batch_size": "x", "input": [{"dims": [1]}]})
    body = json.dumps({"parameters": {"config": inner}}, indent=2)
    parsed = parse_json_config(body.encode())
    [problem] = parsed.problems
    assert problem.kind is ProblemKind.WRONG_TYPE and problem.fix is None
    line = body.splitlines()[problem.span.line - 1]
    assert line[problem.span.column - 1 : problem.span.end_column - 1] == '\\"x\\"'
    good = json.dumps({"parameters": {"config": json.dumps({"name": "m"})}})
    assert parse_json_config(good.encode()).config == ModelConfig(name="m")


# -- the same rules run on JSON -------------------------------------------------------


def json_model(tmp_path: Path, document: dict[str, object]) -> ModelContext:
    model = tmp_path / "m"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text("")
    path = model / "config.json"
    path.write_text(json.dumps(document, indent=2))
    repository = load_repository(tmp_path, None)
    folder = repository.models["m"]
    folder.config_path = path
    folder._config = ConfigFile(path, parse_json_config(path.read_bytes()))
    return ModelContext.standalone(folder, repository, Settings())


def test_rules_run_on_a_json_config_and_point_into_it(tmp_path: Path) -> None:
    document = {
        "name": "other",
        "backend": "python",
        "max_batch_size": 0,
        "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [4]}],
        "output": [{"name": "y", "data_type": "TYPE_FP32", "dims": [4]}],
    }
    context = json_model(tmp_path, document)
    parsed = context.parsed
    assert parsed is not None and context.config is not None
    found = {}
    for rule in ALL_RULES:
        if rule.needs_config and context.config is None:
            continue
        for finding in rule.run(context):
            found[rule.code] = finding
    finding = found["PL103"]
    assert finding.at == ("name",)
    assert parsed.source_map.span(finding.at) == Span(2, 11, 2, 18)
    assert finding.fix is not None
    fixed, applied = apply_edits(parsed.text, [finding.fix])
    assert applied == 1
    again = parse_json_config(fixed.encode())
    assert again.config is not None and again.config.name == "m"


# -- pbtxt-lint convert -----------------------------------------------------------------------

PBTXT = (
    '# a comment\nname: "m"\nmax_batch_size: 8\n'
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_convert_pbtxt_to_json_and_back(tmp_path: Path) -> None:
    source = tmp_path / "config.pbtxt"
    source.write_text(PBTXT)
    code, out, err = invoke("convert", str(source), "--to", "json")
    assert code == 0 and "comments" in err
    assert json.loads(out)["input"][0]["dims"] == [4]
    target = tmp_path / "config.json"
    target.write_text(out)
    code, back, _ = invoke("convert", str(target), "--to", "pbtxt")
    assert code == 0
    assert parse_config(back.encode()).config == parse_config(PBTXT.encode()).config
    assert back.startswith('name: "m"\nmax_batch_size: 8\ninput [\n  {\n')
    code, same, _ = invoke("convert", str(source), "--to", "pbtxt")
    assert code == 0 and same.startswith("# a comment\n")


def test_convert_refuses_what_does_not_parse(tmp_path: Path) -> None:
    source = tmp_path / "config.json"
    source.write_text('{"name": "m", "maxBatch": 1}')
    code, out, err = invoke("convert", str(source), "--to", "pbtxt")
    assert code == 1 and out == ""
    assert 'config.json:1:15: the model configuration has no field named "maxBatch"' in err
    code, _, err = invoke("convert", str(tmp_path / "missing.pbtxt"), "--to", "json")
    assert code == 2 and "no such file" in err
    code, _, _ = invoke("convert", str(source))
    assert code == 2


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_generated_configs_round_trip_through_json(text: str) -> None:
    config = parse_config(text.encode()).config
    assume(config is not None)
    assert config is not None
    for document in (config_to_json(config), json_format.MessageToJson(config)):
        parsed = parse_json_config(document.encode())
        assert parsed.problems == [] and parsed.config == config
