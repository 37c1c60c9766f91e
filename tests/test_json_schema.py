"""The JSON Schema of ModelConfig: valid 2020-12, accepts every JSON form of every valid
fixture, rejects the JSON forms of invalid ones, and agrees with protobuf's parser."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fixture_cases import all_cases, corpus
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from jsonschema import Draft202012Validator

from pbtxt_lint.cli import cli
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR, ModelConfig
from pbtxt_lint.schema.json_schema import case_insensitive_pattern, model_config_schema
from pbtxt_lint.textproto.binder import is_map, is_repeated, parse_float, parse_int
from pbtxt_lint.textproto.parse import parse_config
from pbtxt_lint.textproto.tokenizer import TokenKind, string_value
from pbtxt_lint.textproto.tree import Block, Field, ListValue, Scalar, parse_tree

VALIDATOR = Draft202012Validator(model_config_schema())
VALID = [
    (label, p, c)
    for label, p in corpus("*.pbtxt").items()
    if (c := parse_config(p.read_bytes()).config) is not None
]


def errors(document: Any) -> list[str]:
    return [error.message for error in VALIDATOR.iter_errors(document)]


def test_the_schema_is_valid_draft_2020_12() -> None:
    schema = model_config_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "inference.ModelConfig" in schema["$defs"]


def test_important_fields_have_our_descriptions_and_the_rest_their_path() -> None:
    properties = model_config_schema()["$defs"]["inference.ModelConfig"]["properties"]
    assert "(batch) dimension" in properties["maxBatchSize"]["description"]
    assert properties["max_batch_size"] is properties["maxBatchSize"]
    assert properties["responseCache"]["description"] == "ModelConfig.response_cache"


@pytest.mark.parametrize("path,config", [v[1:] for v in VALID], ids=[v[0] for v in VALID])
def test_every_json_form_of_every_valid_config_is_accepted(path: Path, config: ModelConfig) -> None:
    forms = [
        json_format.MessageToDict(config),
        json_format.MessageToDict(config, preserving_proto_field_name=True),
        json_format.MessageToDict(
            config, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        ),
        json_format.MessageToDict(config, use_integers_for_enums=True),
    ]
    for form in forms:
        assert errors(form) == []
        assert json_format.ParseDict(form, ModelConfig()) == config


def tree_to_json(fields: list[Field], descriptor: Descriptor | None) -> dict[str, Any]:
    """The JSON a user would write for a pbtxt file, mistakes included."""
    out: dict[str, Any] = {}
    for node in fields:
        name = node.name.text
        fd = descriptor.fields_by_name.get(name) if descriptor else None
        items = node.value.items if isinstance(node.value, ListValue) else [node.value]
        values = [value_to_json(item, fd) for item in items if item is not None]
        if fd is not None and is_map(fd):
            entries = out.setdefault(name, {})
            for entry in values:
                entries[str(entry.get("key", ""))] = entry.get("value")
        elif fd is not None and is_repeated(fd):
            out.setdefault(name, []).extend(values)
        elif values:
            out[name] = values[0]
    return out


def value_to_json(item: Scalar | Block, fd: FieldDescriptor | None) -> Any:
    if isinstance(item, Block):
        return tree_to_json(item.fields, fd.message_type if fd else None)
    token = item.first
    if token.kind is TokenKind.STRING:
        return "".join(string_value(t.text) or "" for t in item.tokens)
    if token.kind is TokenKind.NUMBER:
        number = parse_int(token.text)
        return number if number is not None else parse_float(token.text)
    return {"true": True, "false": False}.get(token.text, token.text)


@pytest.mark.parametrize("code", ["PL002", "PL003", "PL007", "PL008"])
def test_the_json_forms_of_invalid_fixtures_are_rejected(code: str) -> None:
    configs = [
        (case.should_fail, path)
        for case in all_cases()
        if case.code == code
        for path in sorted(case.path.glob("**/config.pbtxt"))
    ]
    failing = [path for should_fail, path in configs if should_fail]
    passing = [path for should_fail, path in configs if not should_fail]
    assert failing and passing
    for path in failing:
        document = tree_to_json(parse_tree(path.read_text()).fields, MODEL_CONFIG_DESCRIPTOR)
        assert errors(document), path
    for path in passing:
        document = tree_to_json(parse_tree(path.read_text()).fields, MODEL_CONFIG_DESCRIPTOR)
        assert errors(document) == [], path


ACCEPTED = [
    {"maxBatchSize": "8"},
    {"max_batch_size": 8.0},
    {"input": [{"name": "x", "dataType": "type_fp32", "dims": ["-1", 3]}]},
    {"input": [{"dataType": 11}]},
    {"dynamicBatching": None, "sequenceBatching": {}},
    {
        "dynamic_batching": {
            "priorityQueuePolicy": {"1": {"defaultTimeoutMicroseconds": "18446744073709551615"}}
        }
    },
    {"parameters": {"k": {"string_value": "v"}}},
    {"optimization": {"cuda": {"graphSpec": [{"batchSize": 1}]}}},
    {"modelWarmup": [{"inputs": {"x": {"dataType": "TYPE_FP32", "dims": [1], "zeroData": True}}}]},
    {"instance_group": [{"kind": "KIND_GPU", "gpus": [0, 1]}]},
    {"sequence_batching": {"control_input": [{"control": [{"fp32_false_true": [0, 1.5]}]}]}},
    {"version_policy": {"latest": {"num_versions": 2}}},
]
REJECTED = [
    {"maxBatchSize": 1, "max_batch_size": 1},  # one field, two names
    {"dynamicBatching": {}, "sequence_batching": {}},  # two members of a oneof
    {"input": [{"dataType": "TYPE_FLOAT32"}]},  # not an enum name
    {"input": [{"dims": ["x"]}]},  # not an integer
    {"input": [{"dims": [1.5]}]},
    {"input": [{"dims": [2**63]}]},  # out of int64
    {"input": {"name": "x"}},  # a repeated field takes a list
    {"input": [None]},  # no null elements
    {"maxBatch": 8},  # unknown field
    {"parameters": {"k": "v"}},  # map values are ModelParameter objects
    {"dynamic_batching": {"priority_queue_policy": {"high": {}}}},  # integer map keys
    {"version_policy": {"latest": {"num_versions": -1}}},  # uint32
    {"instance_group": [{"count": True}]},  # no booleans for integers
    {"model_transaction_policy": {"decoupled": "true"}},  # no strings for booleans
    [],
]


@pytest.mark.parametrize("document", ACCEPTED, ids=[json.dumps(d)[:60] for d in ACCEPTED])
def test_what_protobuf_and_triton_accept(document: Any) -> None:
    assert errors(document) == []
    upper = json.loads(json.dumps(document).replace("type_fp32", "TYPE_FP32"))
    json_format.ParseDict(upper, ModelConfig())


@pytest.mark.parametrize("document", REJECTED, ids=[json.dumps(d)[:60] for d in REJECTED])
def test_what_triton_rejects(document: Any) -> None:
    assert errors(document)


def test_case_insensitive_enum_patterns_are_portable() -> None:
    pattern = case_insensitive_pattern(["KIND_GPU", "TYPE_FP32"])
    assert pattern == "^(?:[Kk][Ii][Nn][Dd]_[Gg][Pp][Uu]|[Tt][Yy][Pp][Ee]_[Ff][Pp]32)$"


def test_schema_command_prints_the_schema() -> None:
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == model_config_schema()
