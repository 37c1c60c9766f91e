"""`pbtxt-lint request`: the server's answer to a request body, before a server exists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from google.protobuf import text_format
from onnx import TensorProto
from onnx_builders import IO, build_model, write_model

from pbtxt_lint.cli import cli
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.request import RequestProblem, check_request
from pbtxt_lint.schema import ModelConfig

ENCODER = """
name: "text_encoder"
backend: "onnxruntime"
max_batch_size: 8
input [
  { name: "input_ids" data_type: TYPE_INT64 dims: [ -1 ] },
  { name: "attention_mask" data_type: TYPE_INT64 dims: [ -1 ] },
  { name: "token_type_ids" data_type: TYPE_INT64 dims: [ -1 ] optional: true }
]
output [ { name: "last_hidden_state" data_type: TYPE_FP32 dims: [ -1, 384 ] } ]
"""


def config(text: str = ENCODER) -> ModelConfig:
    return text_format.Parse(text, ModelConfig())


def tensor(name: str, shape: list[int], datatype: str = "INT64", data: Any = None) -> Any:
    if data is None:
        count = 1
        for dim in shape:
            count *= dim
        data = [1] * count
    return {"name": name, "shape": shape, "datatype": datatype, "data": data}


def check(body: Any, model: ModelConfig | None = None) -> list[RequestProblem]:
    text = body if isinstance(body, str) else json.dumps(body, indent=2)
    return check_request(model or config(), "m", text)


def codes(problems: list[RequestProblem]) -> list[str]:
    return [p.code for p in problems]


GOOD = {
    "inputs": [tensor("input_ids", [2, 8]), tensor("attention_mask", [2, 8])],
    "outputs": [{"name": "last_hidden_state"}],
}


def test_a_request_the_server_accepts_has_no_problems() -> None:
    assert check(GOOD) == []
    with_optional = {"inputs": [*GOOD["inputs"], tensor("token_type_ids", [2, 8])]}
    assert check(with_optional) == []


def test_the_classic_missing_batch_dimension() -> None:
    body = {"inputs": [tensor("input_ids", [8]), tensor("attention_mask", [8])]}
    problems = check(body)
    assert codes(problems) == ["shape-mismatch", "shape-mismatch"]
    first = problems[0]
    assert first.triton == (
        "unexpected shape for input 'input_ids' for model 'text_encoder'. Expected [-1,-1], "
        "got [8]. NOTE: Setting a non-zero max_batch_size in the model config requires a "
        "batch dimension to be prepended to each input shape. If you want to specify the full "
        "shape including the batch dim in your input dims config, try setting max_batch_size "
        "to zero. See the model configuration docs for more info on max_batch_size."
    )
    assert first.hint == 'send "shape": [1, 8] (the batch dimension comes first)'
    assert "max_batch_size 8" in first.message
    assert first.span is not None and first.span.line == 5


def test_datatype_mismatch_names_protocol_types() -> None:
    body = {"inputs": [tensor("input_ids", [1, 4], "INT32"), tensor("attention_mask", [1, 4])]}
    [problem] = check(body)
    assert problem.code == "datatype-mismatch"
    assert problem.triton == (
        "inference input 'input_ids' data-type is 'INT32', but model 'text_encoder' expects 'INT64'"
    )
    assert problem.hint is not None and '"INT64"' in problem.hint


def test_unknown_datatype_strings_get_the_protocol_name() -> None:
    body = {"inputs": [tensor("input_ids", [1, 4], "TYPE_INT64"), tensor("attention_mask", [1, 4])]}
    [problem] = check(body)
    assert problem.code == "unknown-datatype"
    assert problem.triton == "invalid datatype for input input_ids"
    assert problem.hint == 'write "datatype": "INT64"'
    lower = {"inputs": [tensor("input_ids", [1, 4], "fp32", [1.0] * 4)]}
    assert (
        check(lower, config('input [ { name: "input_ids" data_type: TYPE_FP32 dims: [ 4 ] } ]'))[
            0
        ].hint
        == 'write "datatype": "FP32"'
    )


def test_unknown_and_missing_inputs() -> None:
    body = {"inputs": [tensor("input_id", [1, 4]), tensor("attention_mask", [1, 4])]}
    problems = check(body)
    assert codes(problems) == ["missing-input", "unknown-input"]
    missing, unknown = problems
    assert unknown.triton == "unexpected inference input 'input_id' for model 'text_encoder'"
    assert unknown.hint == "did you mean 'input_ids'?"
    assert missing.triton is None  # the count is right, so the server names the unknown one
    only_one = check({"inputs": [tensor("attention_mask", [1, 4])]})
    assert codes(only_one) == ["missing-input"]
    assert only_one[0].triton == (
        "expected number of inputs between 2 and 3 but got 1 inputs for model 'text_encoder'. "
        "Got inputs ['attention_mask'], but missing required inputs ['input_ids']. Please "
        "provide all required inputs."
    )


def test_exact_input_count_message_without_optional_inputs() -> None:
    model = config(
        ENCODER.replace(" optional: true", "").replace(
            '{ name: "token_type_ids"', '{ name: "token_type_ids"'
        )
    )
    [problem] = check(
        {"inputs": [tensor("input_ids", [1, 4]), tensor("attention_mask", [1, 4])]}, model
    )
    assert problem.triton is not None and problem.triton.startswith(
        "expected 3 inputs but got 2 inputs for model 'text_encoder'. Got inputs "
        "['input_ids','attention_mask'], but missing required inputs ['token_type_ids']."
    )


def test_batch_size_rules() -> None:
    too_big = {"inputs": [tensor("input_ids", [9, 4]), tensor("attention_mask", [9, 4])]}
    [problem] = check(too_big)
    assert problem.code == "batch-too-large"
    assert problem.triton == "inference request batch-size must be <= 8 for 'text_encoder'"
    mismatch = {"inputs": [tensor("input_ids", [2, 4]), tensor("attention_mask", [3, 4])]}
    [problem] = check(mismatch)
    assert problem.code == "batch-mismatch"
    assert problem.triton == (
        "input 'attention_mask' batch size does not match other inputs for 'text_encoder'"
    )
    empty = {"inputs": [tensor("input_ids", [], data=[1]), tensor("attention_mask", [1, 4])]}
    [problem] = check(empty)
    assert problem.code == "no-batch-dimension"
    assert problem.triton == (
        "input 'input_ids' has no shape but model requires batch dimension for 'text_encoder'"
    )


def test_without_batching_the_whole_shape_is_compared() -> None:
    model = config('name: "m" input [ { name: "x" data_type: TYPE_FP32 dims: [ 2, -1 ] } ]')
    assert check({"inputs": [tensor("x", [2, 5], "FP32", [0.5] * 10)]}, model) == []
    [problem] = check({"inputs": [tensor("x", [1, 2, 5], "FP32", [0.5] * 10)]}, model)
    assert (
        problem.triton
        == "unexpected shape for input 'x' for model 'm'. Expected [2,-1], got [1,2,5]."
    )
    assert problem.hint == 'send "shape": [2, 1]'


def test_reshape_is_not_what_requests_are_checked_against() -> None:
    model = config(
        'max_batch_size: 4 input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] '
        "reshape: { shape: [ ] } } ]"
    )
    assert check({"inputs": [tensor("x", [3, 1], "FP32", [1.0] * 3)]}, model) == []
    [problem] = check({"inputs": [tensor("x", [3], "FP32", [1.0] * 3)]}, model)
    assert "not reshape [ ]" in problem.message.replace("[]", "[ ]")


def test_data_must_fill_the_shape() -> None:
    body = {
        "inputs": [
            tensor("input_ids", [2, 4], data=[[1, 2, 3, 4]]),
            tensor("attention_mask", [2, 4]),
        ]
    }
    [problem] = check(body)
    assert problem.code == "data-count"
    assert (
        problem.triton == "Unable to parse 'data': Shape does not match true shape of 'data' field"
    )
    assert problem.hint is not None and "shape [1, 4]" in problem.hint
    assert problem.message == '"data" has 4 elements but shape [2, 4] holds 8'


def test_bytes_inputs_count_strings() -> None:
    model = config('name: "tok" input [ { name: "TEXT" data_type: TYPE_STRING dims: [ 1 ] } ]')
    assert check({"inputs": [tensor("TEXT", [1], "BYTES", ["hello"])]}, model) == []
    [more] = check({"inputs": [tensor("TEXT", [1], "BYTES", ["a", "b"])]}, model)
    assert more.triton == (
        "unexpected number of string elements 2 for inference input 'TEXT' for model 'tok', "
        "expecting 1"
    )
    [fewer] = check({"inputs": [tensor("TEXT", [2], "BYTES", ["a"])]}, model)
    assert fewer.code == "data-count"
    [wrong] = check({"inputs": [tensor("TEXT", [1], "BYTES", [1])]}, model)
    assert wrong.code == "bad-data" and wrong.hint == "BYTES values are strings"


@pytest.mark.parametrize(
    "datatype,data,hint",
    [
        ("INT64", [1.5, 2], "INT64 values are integers"),
        ("UINT8", [-1, 2], "UINT8 values are integers >= 0"),
        ("FP32", ["1", 2], "FP32 values are numbers"),
        ("BOOL", [1, 0], "BOOL values are true or false"),
    ],
)
def test_data_values_must_fit_the_datatype(datatype: str, data: list[Any], hint: str) -> None:
    model = config(
        'input [ { name: "x" data_type: TYPE_%s dims: [ 2 ] } ]'
        % ("STRING" if datatype == "BYTES" else datatype)
    )
    [problem] = check({"inputs": [tensor("x", [2], datatype, data)]}, model)
    assert problem.code == "bad-data" and problem.hint == hint
    assert problem.triton == "Unable to parse 'data'"


def test_fp16_cannot_travel_as_json() -> None:
    model = config('input [ { name: "x" data_type: TYPE_FP16 dims: [ 2 ] } ]')
    [problem] = check({"inputs": [tensor("x", [2], "FP16", [1.0, 2.0])]}, model)
    assert problem.triton == (
        "receiving FP16 data via JSON is not supported. Please use the binary data format "
        "for input x"
    )
    binary = {"name": "x", "shape": [2], "datatype": "FP16", "parameters": {"binary_data_size": 4}}
    assert check({"inputs": [binary]}, model) == []


def test_exactly_one_kind_of_content() -> None:
    nothing = {"inputs": [{"name": "input_ids", "shape": [1, 1], "datatype": "INT64"}]}
    [problem] = [p for p in check(nothing) if p.code == "input-content"]
    assert problem.triton is not None and problem.triton.endswith("But no field is set")
    both = {"inputs": [{**tensor("input_ids", [1, 1]), "parameters": {"binary_data_size": 8}}]}
    [problem] = [p for p in check(both) if p.code == "input-content"]
    assert problem.triton is not None and problem.triton.endswith(
        "But set 'data' 'binary_data_size'"
    )


def test_wildcards_belong_in_the_config_not_in_requests() -> None:
    body = {"inputs": [tensor("input_ids", [1, -1], data=[1]), tensor("attention_mask", [1, 1])]}
    [problem] = check(body)
    assert problem.code == "bad-shape" and problem.triton == "Unable to parse 'shape'"
    assert "-1 is only for the config" in problem.message


def test_requested_outputs_must_exist() -> None:
    body = {**GOOD, "outputs": [{"name": "last_hidden"}]}
    [problem] = check(body)
    assert problem.code == "unknown-output"
    assert problem.triton == "unexpected inference output 'last_hidden' for model 'text_encoder'"
    assert problem.hint == "did you mean 'last_hidden_state'?"


def test_sequence_models_need_a_correlation_id_and_batch_one() -> None:
    model = config(
        'name: "seq" max_batch_size: 4 sequence_batching { } '
        'input [ { name: "x" data_type: TYPE_INT32 dims: [ 1 ] } ]'
    )
    body: dict[str, Any] = {"inputs": [tensor("x", [2, 1], "INT32")]}
    assert codes(check(body, model)) == ["missing-sequence-id", "sequence-batch"]
    body["parameters"] = {"sequence_id": 7}
    body["inputs"] = [tensor("x", [1, 1], "INT32")]
    [warning] = check(body, model)
    assert warning.code == "sequence-start" and warning.severity is Severity.WARNING
    body["parameters"]["sequence_start"] = True
    assert check(body, model) == []


def test_malformed_bodies() -> None:
    assert codes(check("{ inputs: [] }")) == ["request-not-json"]
    assert codes(check("[]")) == ["request-not-object"]
    assert sorted(codes(check({"outputs": []}))) == ["inputs-missing", "missing-input"]
    entry = {"inputs": [{"shape": "x", "data": [1]}]}
    assert {p.triton for p in check(entry)} >= {"Unable to parse 'name'", "Unable to parse 'shape'"}
    twice = {"inputs": [tensor("input_ids", [1, 1]), tensor("input_ids", [1, 1])]}
    assert "input 'input_ids' already exists in request" in {p.triton for p in check(twice)}


def test_a_config_without_inputs_cannot_be_checked() -> None:
    [problem] = check(GOOD, config('backend: "python"'))
    assert problem.code == "inputs-unknown" and problem.severity is Severity.WARNING


# -- the command --------------------------------------------------------------------------


def make_model(tmp_path: Path, text: str = ENCODER) -> Path:
    model = tmp_path / "text_encoder"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.onnx").write_bytes(b"")
    (model / "config.pbtxt").write_text(text)
    return model


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_request_command_text_and_exit_codes(tmp_path: Path) -> None:
    model = make_model(tmp_path)
    request = tmp_path / "request.json"
    request.write_text(
        json.dumps({"inputs": [tensor("input_ids", [8]), tensor("attention_mask", [8])]}, indent=2)
    )
    code, out, _ = invoke("request", str(model), str(request))
    assert code == 1
    assert "request.json:5:16: error shape-mismatch" in out
    assert "server answers: unexpected shape for input 'input_ids'" in out
    assert 'hint: send "shape": [1, 8]' in out
    assert "Request to model 'text_encoder': 2 errors, 0 warnings." in out
    request.write_text(json.dumps(GOOD))
    code, out, _ = invoke("request", str(model), str(request))
    assert code == 0 and "no problems found" in out


def test_request_command_json_and_stdin(tmp_path: Path) -> None:
    model = make_model(tmp_path)
    body = json.dumps({**GOOD, "outputs": [{"name": "nope"}]})
    code, out, _ = invoke(
        "request", str(model / "config.pbtxt"), "-", "--format", "json", stdin=body
    )
    assert code == 1
    document = json.loads(out)
    [problem] = document["problems"]
    assert problem["code"] == "unknown-output" and problem["path"] == "<stdin>"
    assert problem["server_answer"] == "unexpected inference output 'nope' for model 'text_encoder'"
    assert document["summary"] == {"errors": 1, "warnings": 0}


def test_request_command_usage_problems_exit_two(tmp_path: Path) -> None:
    model = make_model(tmp_path)
    request = tmp_path / "request.json"
    request.write_text(json.dumps(GOOD))
    code, _, err = invoke("request", str(tmp_path / "missing"), str(request))
    assert code == 2 and "no such file or folder" in err
    code, _, err = invoke("request", str(model), str(tmp_path / "nope.json"))
    assert code == 2 and "no such file" in err
    (model / "config.pbtxt").write_text("input [ {")
    code, _, err = invoke("request", str(model), str(request))
    assert code == 2 and "does not parse" in err
    request.write_bytes(b"\xff\xfe")
    (model / "config.pbtxt").write_text(ENCODER)
    code, _, err = invoke("request", str(model), str(request))
    assert code == 2 and "not UTF-8" in err


def test_request_uses_the_config_completed_from_the_model_file(tmp_path: Path) -> None:
    model = tmp_path / "m"
    inputs: list[IO] = [("x", TensorProto.FLOAT, ["batch", 4])]
    outputs: list[IO] = [("y", TensorProto.FLOAT, ["batch", 4])]
    write_model(build_model(inputs, outputs), model / "1" / "model.onnx")
    (model / "config.pbtxt").write_text('backend: "onnxruntime"\n')
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"inputs": [tensor("x", [4], "FP32", [0.0] * 4)]}))
    code, out, _ = invoke("request", str(model), str(request))
    assert code == 1, out
    assert "Expected [-1,4], got [4]" in out
    request.write_text(json.dumps({"inputs": [tensor("x", [1, 4], "FP32", [0.0] * 4)]}))
    code, out, _ = invoke("request", str(model), str(request))
    assert code == 0, out


def test_a_config_triton_cannot_complete_is_used_as_written(tmp_path: Path) -> None:
    model = tmp_path / "m"
    model.mkdir()
    (model / "config.pbtxt").write_text('input [ { name: "x" data_type: TYPE_FP32 dims: [ 2 ] } ]')
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"inputs": [tensor("x", [3], "FP32", [0.0] * 3)]}))
    code, out, _ = invoke("request", str(model), str(request))
    assert code == 1 and "Expected [2], got [3]" in out
    request.write_text("{")
    code, out, _ = invoke("request", str(model), str(request))
    assert code == 1 and "failed to parse the request JSON buffer" in out


@pytest.mark.parametrize(
    ("corrid_type", "sequence_id", "sent", "expected", "model_sees"),
    [
        ("TYPE_UINT64", "session-0001", "BYTES", "UINT64", "its first 4 characters"),
        ("TYPE_INT32", "session-0001", "BYTES", "INT32", "the ID's length alone"),
        ("TYPE_STRING", 42, "UINT64", "BYTES", "raw bytes"),
    ],
)
def test_a_correlation_id_of_the_other_kind_than_the_corrid_control(
    corrid_type: str, sequence_id: Any, sent: str, expected: str, model_sees: str
) -> None:
    """Refused since 25.01 (infer_request.cc); earlier releases mix sequences."""
    model = config(
        'name: "chat" max_batch_size: 4 input [ { name: "x" data_type: TYPE_INT32 dims: [ 1 ] } ] '
        'sequence_batching { control_input [ { name: "CORRID" control [ { kind: '
        f"CONTROL_SEQUENCE_CORRID data_type: {corrid_type} }} ] }} ] }}"
    )
    body: dict[str, Any] = {
        "inputs": [tensor("x", [1, 1], "INT32")],
        "parameters": {"sequence_id": sequence_id, "sequence_start": True},
    }
    [problem] = check(body, model)
    assert problem.code == "correlation-id-type" and problem.severity is Severity.ERROR
    assert problem.triton == (
        f"sequence batching control 'CORRID' data-type is '{sent}', but model 'chat' "
        f"expects '{expected}'"
    )
    assert model_sees in problem.message and "25.01" in problem.message


@pytest.mark.parametrize(
    ("corrid_type", "sequence_id"),
    [("TYPE_UINT64", 7), ("TYPE_INT32", 7), ("TYPE_STRING", "session-0001")],
)
def test_a_correlation_id_of_the_control_s_kind_is_fine(corrid_type: str, sequence_id: Any) -> None:
    model = config(
        'name: "chat" max_batch_size: 4 input [ { name: "x" data_type: TYPE_INT32 dims: [ 1 ] } ] '
        'sequence_batching { control_input [ { name: "CORRID" control [ { kind: '
        f"CONTROL_SEQUENCE_CORRID data_type: {corrid_type} }} ] }} ] }}"
    )
    body = {
        "inputs": [tensor("x", [1, 1], "INT32")],
        "parameters": {"sequence_id": sequence_id, "sequence_start": True},
    }
    assert check(body, model) == []
