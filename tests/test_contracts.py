"""The tensor contract of a model (analysis/contract.py) and what reads it.

The axis trace of ONNX graphs (artifacts/onnx_axis_trace.py) and the batch facts it gives
(analysis/batch_axis.py), on the fixture models of PL900-PL902; `--deep`
(artifacts/onnx_probe.py) on the same files with onnxruntime; the BLS reader
(artifacts/python_bls_io.py); and the client half in `pbtxt-lint request`: a
decoupled ensemble, a sequence step, a step that takes one batch size, an input whose
dim 0 the model file counts otherwise.
"""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from pbtxt_lint.analysis.batch_axis import Batch, onnx_batch_facts
from pbtxt_lint.artifacts.onnx import read_onnx
from pbtxt_lint.artifacts.onnx_axes import DataCount, InputDim
from pbtxt_lint.artifacts.python_bls_io import bls_requests
from pbtxt_lint.request import check_request, load_model
from pbtxt_lint.schema import ModelConfig

RULES = Path(__file__).parent / "fixtures" / "rules"


def _signature(case: str):  # type: ignore[no-untyped-def]
    path = RULES / case / "m" / "1" / "model.onnx"
    return path, read_onnx(path, path.parent.parent)


def _batched(inputs: list[str], outputs: list[str]) -> ModelConfig:
    config = ModelConfig(max_batch_size=8)
    for name in inputs:
        config.input.add(name=name)
    for name in outputs:
        config.output.add(name=name)
    return config


def test_trace_follows_nms_to_the_output() -> None:
    _, signature = _signature("PL901/fail_nms_inside")
    trace = signature.axes
    assert trace is not None
    first = trace.outputs["output"]
    assert first is not None and isinstance(first[0], DataCount)
    assert first[0].op == "NonMaxSuppression"
    facts = onnx_batch_facts(signature, _batched(["images"], ["output"]))
    assert facts[("input", "images")].kind is Batch.DIM0
    assert facts[("output", "output")].kind is Batch.OTHER
    assert facts[("output", "output")].certain


def test_second_input_counting_rois() -> None:
    _, signature = _signature("PL900/fail_roi_head")
    config = _batched(["images", "rois", "batch_indices"], ["roi_features"])
    facts = onnx_batch_facts(signature, config)
    assert facts[("input", "images")].kind is Batch.DIM0
    assert facts[("input", "rois")].kind is Batch.OTHER
    assert facts[("input", "rois")].counts == "num_rois"
    assert not facts[("input", "rois")].certain  # the names say it, not the graph
    assert facts[("output", "roi_features")].follows == "num_rois"


def test_batch_named_per_input_is_one_batch() -> None:
    _, signature = _signature("PL900/pass_batch_named_per_input")
    trace = signature.axes
    assert trace is not None
    ids, mask = trace.inputs["input_ids"], trace.inputs["attention_mask"]
    assert ids is not None and mask is not None
    assert trace.same(ids[0], mask[0])  # the Add broadcasts them: the graph equates them
    config = _batched(["input_ids", "attention_mask", "token_type_ids"], ["logits"])
    kinds = {key: fact.kind for key, fact in onnx_batch_facts(signature, config).items()}
    assert set(kinds.values()) == {Batch.DIM0}


def test_time_major_lstm_and_its_batch_first_twin() -> None:
    _, major = _signature("PL902/fail_lstm_time_major")
    facts = onnx_batch_facts(major, _batched(["features"], ["encoder_out"]))
    fact = facts[("input", "features")]
    assert (fact.kind, fact.axis, fact.certain) == (Batch.AXIS, 1, True)
    _, first = _signature("PL902/pass_lstm_batch_first")
    facts = onnx_batch_facts(first, _batched(["features"], ["encoder_out"]))
    assert facts[("input", "features")].kind is Batch.DIM0
    assert first.axes is not None
    out = first.axes.outputs["encoder_out"]
    assert out is not None and isinstance(out[0], InputDim) and out[0].name == "batch"


def test_common_exports_are_not_traced() -> None:
    """One `batch` name at axis 0 everywhere: nothing to trace (and no cost)."""
    path = RULES / "PL618" / "pass_both_fixed" / "m" / "1" / "model.onnx"
    signature = read_onnx(path, path.parent.parent)
    assert signature.axes is None


def test_deep_confirms_and_refutes() -> None:
    pytest.importorskip("onnxruntime", reason="the onnxruntime extra is not installed")
    from pbtxt_lint.artifacts import onnx_probe

    path, signature = _signature("PL900/fail_roi_head")
    verdict = onnx_probe.input_count(path, signature.inputs, ["rois", "batch_indices"])
    assert not verdict.refuted and verdict.words.startswith("confirmed by --deep")
    path, signature = _signature("PL900/pass_batch_named_per_input")
    assert onnx_probe.input_count(path, signature.inputs, ["attention_mask"]).refuted
    path, signature = _signature("PL901/fail_nms_inside")
    verdict = onnx_probe.output_count(path, signature.inputs, "output")
    assert not verdict.refuted and "for a batch of 2" in verdict.words
    path, signature = _signature("PL902/pass_lstm_batch_first")
    assert onnx_probe.output_count(path, signature.inputs, "encoder_out").refuted


BLS = """
import numpy as np
import triton_python_backend_utils as pb_utils

LLM = "llm"


class TritonPythonModel:
    def _ids(self, ids):
        return [pb_utils.Tensor("input_ids", ids)]

    def execute(self, requests):
        for request in requests:
            inputs = self._ids(np.array([[1, 2]]))
            inputs.append(pb_utils.Tensor("end_id", np.array([[2]])))
            request_ = pb_utils.InferenceRequest(
                model_name=LLM, requested_output_names=["output_ids"], inputs=inputs
            )
            response = request_.exec()
            ids = pb_utils.get_output_tensor_by_name(response, "output_ids")
            other = pb_utils.InferenceRequest(
                model_name="ranker",
                requested_output_names=["score"],
                inputs=[pb_utils.Tensor(name, x) for name, x in self.pairs],
                correlation_id=request.correlation_id(),
            )
            response = other.exec()
            score = pb_utils.get_output_tensor_by_name(response, "score")
"""


def test_bls_requests_follow_helpers_appends_and_responses() -> None:
    first, second = bls_requests(ast.parse(textwrap.dedent(BLS)))
    assert first.model_name == "llm"
    assert [t.name for t in first.inputs] == ["input_ids", "end_id"]
    assert first.complete and first.correlation is False
    assert first.requested == ("output_ids",)
    assert [r.name for r in first.reads] == ["output_ids"]  # not the later "score"
    assert second.model_name == "ranker" and not second.complete
    assert second.correlation is True
    assert [r.name for r in second.reads] == ["score"]


def _repository(tmp_path: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return tmp_path


STEP = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"
ENSEMBLE = """
platform: "ensemble"
max_batch_size: {mbs}
input [ {{ name: "X" data_type: TYPE_FP32 dims: [ 4 ] }} ]
output [ {{ name: "Y" data_type: TYPE_FP32 dims: [ 4 ] }} ]
ensemble_scheduling {{ step [ {{ model_name: "step" model_version: -1
  input_map {{ key: "x" value: "X" }} output_map {{ key: "y" value: "Y" }} }} ] }}
"""


def _problems(tmp_path: Path, step: str, mbs: int, body: dict[str, object]) -> list[str]:
    repository = _repository(
        tmp_path,
        {
            "e/config.pbtxt": ENSEMBLE.format(mbs=mbs),
            "e/1/.keep": "",
            "step/config.pbtxt": step,
            "step/1/model.py": STEP,
        },
    )
    loaded = load_model(repository / "e")
    problems = check_request(loaded.config, loaded.name, json.dumps(body), loaded.contract)
    return [f"{p.code} {p.triton}" for p in problems]


def test_request_to_an_ensemble_with_a_decoupled_step(tmp_path: Path) -> None:
    step = """
    backend: "python"
    max_batch_size: 0
    model_transaction_policy { decoupled: true }
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    """
    body = {"inputs": [{"name": "X", "datatype": "FP32", "shape": [4], "data": [0] * 4}]}
    assert _problems(tmp_path, step, 0, body) == [
        "decoupled-model HTTP end point doesn't support models with decoupled transaction policy"
    ]


def test_request_to_an_ensemble_with_a_sequence_step(tmp_path: Path) -> None:
    step = """
    backend: "python"
    max_batch_size: 1
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    sequence_batching { }
    """
    body = {"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 4], "data": [0] * 4}]}
    assert _problems(tmp_path, step, 1, body) == [
        "missing-sequence-id in ensemble 'e', inference request to model 'step' must specify "
        "a non-zero or non-empty correlation ID"
    ]


def test_request_batch_an_unbatched_step_cannot_take(tmp_path: Path) -> None:
    step = """
    backend: "python"
    max_batch_size: 0
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
    """
    two = {"inputs": [{"name": "X", "datatype": "FP32", "shape": [2, 4], "data": [0] * 8}]}
    assert _problems(tmp_path, step, 8, two) == [
        "ensemble-batch in ensemble 'e', [request id: <id_unknown>] unexpected shape for input "
        "'x' for model 'step'. Expected [4], got [2,4]"
    ]
    one = {"inputs": [{"name": "X", "datatype": "FP32", "shape": [1, 4], "data": [0] * 4}]}
    assert _problems(tmp_path, step, 8, one) == []


def test_request_rows_of_an_input_that_counts_rois(tmp_path: Path) -> None:
    model = tmp_path / "roi_head"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.onnx").write_bytes(
        (RULES / "PL900" / "fail_roi_head" / "m" / "1" / "model.onnx").read_bytes()
    )
    config = (RULES / "PL900" / "fail_roi_head" / "m" / "config.pbtxt").read_text()
    (model / "config.pbtxt").write_text(config.replace("# expect: PL900", ""))
    loaded = load_model(model)
    body = {
        "inputs": [
            {"name": "images", "datatype": "FP32", "shape": [1, 3, 32, 32], "data": [0] * 3072},
            {"name": "rois", "datatype": "FP32", "shape": [1, 4], "data": [0] * 4},
            {"name": "batch_indices", "datatype": "INT64", "shape": [1, 1], "data": [0]},
        ]
    }
    problems = check_request(loaded.config, loaded.name, json.dumps(body), loaded.contract)
    assert [(p.code, p.severity.value) for p in problems] == [
        ("batch-axis", "warning"),
        ("batch-axis", "warning"),
    ]
    assert "dim 0 of 'rois' counts num_rois" in problems[0].message


RANGES = """
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        image = pb_utils.get_input_tensor_by_name(requests[0], "image").as_numpy()
        width = image.shape[1]
        xs = pb_utils.get_input_tensor_by_name(requests[0], "xs").as_numpy()
        scaled = xs * width
        channels = xs * image.shape[2]
        return [
            pb_utils.InferenceResponse(
                [
                    pb_utils.Tensor("x", scaled.astype(np.uint8)),
                    pb_utils.Tensor("y", (xs * 640).round()),
                    pb_utils.Tensor("z", np.clip(xs * 640, 0, 255)),
                    pb_utils.Tensor("c", channels),
                    pb_utils.Tensor("m", (xs * 640) % 256),
                ]
            )
        ]
"""


def test_scaled_values_are_found_and_clips_respected() -> None:
    from pbtxt_lint.artifacts.python_ranges import scaled_tensors

    found = {s.name: s.by for s in scaled_tensors(ast.parse(textwrap.dedent(RANGES)))}
    assert found == {"x": "width = image.shape[1] (line 9)", "y": "640 (line 17)"}


def test_deep_reports_an_input_only_the_run_tells_apart(tmp_path: Path) -> None:
    """Auto-named dims (`input01_dynamic_axes_1`) say nothing; --deep runs the model."""
    pytest.importorskip("onnxruntime", reason="the onnxruntime extra is not installed")
    from pbtxt_lint.linter import lint
    from pbtxt_lint.settings import Settings

    case = Path(__file__).parent / "heldout" / "contracts" / "m_ens_boxes_beside_batched_images"
    cnn = case / "repo" / "cnn_model"
    model = tmp_path / "cnn_model"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.onnx").write_bytes((cnn / "1" / "model.onnx").read_bytes())
    (model / "config.pbtxt").write_text((cnn / "config.pbtxt").read_text())
    default = lint([tmp_path], Settings(select=frozenset({"PL900"})))
    assert [d.code for d in default.diagnostics] == []
    deep = lint([tmp_path], Settings(select=frozenset({"PL900"}), deep=True))
    assert [d.code for d in deep.diagnostics] == ["PL900"]
    assert "confirmed by --deep" in deep.diagnostics[0].message
