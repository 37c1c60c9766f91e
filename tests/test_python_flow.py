"""The model.py readers behind PL663-PL669 and PL691-PL699: the tensors Triton hands a
model (analysis/tensors.py), NumPy's dtype rules (artifacts/python_numpy.py, checked
against NumPy itself), the facts of execute (artifacts/python_execute.py) and the
value flow (artifacts/python_flow.py)."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

from pbtxt_lint.analysis.tensors import model_tensors
from pbtxt_lint.artifacts import python_numpy as npt
from pbtxt_lint.artifacts.python_flow import analyse_flow
from pbtxt_lint.artifacts.python_model import PythonSignature, read_python_model
from pbtxt_lint.artifacts.python_values import InputFacts
from pbtxt_lint.schema import ModelConfig

NUMERIC = sorted(npt.NUMERIC)


def config(text: str) -> ModelConfig:
    return text_format.Parse(text, ModelConfig())


def read(tmp_path: Path, source: str) -> PythonSignature:
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source).lstrip())
    return read_python_model(path, tmp_path)


# --- NumPy's rules, against NumPy -----------------------------------------------------------


@pytest.mark.parametrize(("left", "right"), list(itertools.product(NUMERIC, NUMERIC)))
def test_promote_is_numpys_result_type(left: str, right: str) -> None:
    assert npt.promote(left, right) == str(np.result_type(np.dtype(left), np.dtype(right)))


@pytest.mark.parametrize(("dtype", "scalar"), list(itertools.product(NUMERIC, [True, 2, 2.5])))
def test_python_scalars_are_weak(dtype: str, scalar: object) -> None:
    array = np.ones(2, dtype=dtype)
    kind = type(scalar).__name__
    assert npt.with_scalar(dtype, kind) == str((array * scalar).dtype)
    if dtype != "bool":
        assert npt.true_divide(npt.with_scalar(dtype, kind)) == str((array / scalar).dtype)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_functions_and_reductions(dtype: str) -> None:
    array = np.ones((2, 3), dtype=dtype)
    if dtype != "bool":
        assert npt.float_function(dtype) == str(np.exp(array).dtype)
        assert npt.mean_dtype(dtype) == str(array.mean(axis=1).dtype)
    assert npt.sum_dtype(dtype) == str(array.sum(axis=1).dtype)


def test_dtype_tables_agree_with_numpy() -> None:
    for name, dtype in npt.DTYPE_NAMES.items():
        if name in ("str_", "unicode_", "bytes_", "string_", "object_"):
            continue
        if hasattr(np, name):
            assert str(np.dtype(getattr(np, name))) == dtype, name
    assert np.array(["a"]).dtype.kind == "U" and np.array([b"a"]).dtype.kind == "S"
    assert str(np.array([1.5]).dtype) == "float64" and str(np.argmax(np.ones(2)).dtype) == "int64"


# --- the tensors Triton hands a model ------------------------------------------------------


STATEFUL = """
name: "m" max_batch_size: 4
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] optional: true } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                source_input: "x" } ]
sequence_batching {
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
    { name: "ID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] },
    { name: "NOTHING" }
  ]
  state [ { input_name: "s_in" output_name: "s_out" data_type: TYPE_FP32 dims: [ 4 ] } ]
}
"""


def test_python_model_gets_controls_and_state_but_no_batch_inputs() -> None:
    tensors = model_tensors(config(f'backend: "python"\n{STATEFUL}'))
    assert set(tensors.handed) == {"x", "START", "ID", "s_in"}
    assert set(tensors.returned) == {"y", "s_out"}
    assert set(tensors.not_handed) == {"n"}
    assert tensors.requestable == {"x"} and tensors.sequence
    assert tensors.handed["x"].optional
    assert tensors.handed["ID"].described == "CONTROL_SEQUENCE_CORRID control tensor"
    assert [t.name for t in tensors.controls] == ["START", "ID"]
    assert [t.name for t in tensors.states] == ["s_in"]
    assert tensors.handed["START"].at == ("sequence_batching", "control_input", 0, "name")


def test_onnx_model_gets_batch_inputs_too() -> None:
    tensors = model_tensors(config(f'backend: "onnxruntime"\n{STATEFUL}'))
    assert set(tensors.handed) == {"x", "START", "ID", "s_in", "n"} and not tensors.not_handed
    custom = model_tensors(config(f'backend: "custom"\n{STATEFUL}'))
    assert "n" in custom.handed  # unknown backend: assume it feeds them (no warning)


# --- execute's facts -----------------------------------------------------------------------


def test_execute_facts(tmp_path: Path) -> None:
    signature = read(
        tmp_path,
        """
        import triton_python_backend_utils as pb_utils


        def bls(model, tensors):
            return pb_utils.InferenceRequest(model_name=model, inputs=tensors).exec()


        class TritonPythonModel:
            def execute(self, requests):
                return self.stream(requests)

            def stream(self, requests):
                for request in requests:
                    sender = request.get_response_sender()
                    a = pb_utils.get_input_tensor_by_name(request, "A").as_numpy()
                    b = pb_utils.get_input_tensor_by_name(request, "B")
                    c = pb_utils.get_input_tensor_by_name(request, "C")
                    d = pb_utils.get_input_tensor_by_name(request, "D")
                    e = c.as_numpy() if c is not None else a
                    f = d[0]
                    g = pb_utils.get_input_tensor_by_name(request, "G")
                    use(g)
                    bls("other", [pb_utils.Tensor("to_other", a)])
                    for token in a:
                        sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", token)]))
                    sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
                    b.as_numpy()
        """,
    )
    facts = signature.execute_facts
    guards = {r.name: (r.guard, r.error) for r in facts.input_reads}
    assert guards["A"] == (
        "unchecked",
        "AttributeError: 'NoneType' object has no attribute 'as_numpy'",
    )
    assert guards["B"][0] == "unchecked" and guards["C"] == ("checked", "")
    assert guards["D"] == ("unchecked", "TypeError: 'NoneType' object is not subscriptable")
    assert guards["G"] == ("", "")
    assert [r.kind for r in facts.returns] == ["none"]  # what stream() returns
    assert [(s.response, s.flags, s.repeated) for s in facts.sends] == [
        (True, False, True),
        (False, True, False),
    ]
    assert facts.final_flag and facts.per_request and not facts.reads_policy
    assert [u.name for u in signature.outputs_made] == ["OUT"]  # to_other is another model's


# --- the value flow ------------------------------------------------------------------------


def flow_of(tmp_path: Path, body: str, batched: bool = True, dims: int = 1) -> dict[str, object]:
    """{output: (dtype, rank, dropped or axis0)} of `body`, run in a request loop."""
    source = (
        "import numpy as np\nimport triton_python_backend_utils as pb_utils\n\n\n"
        "class TritonPythonModel:\n    def execute(self, requests):\n"
        "        for request in requests:\n"
        '            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()\n'
        + textwrap.indent(textwrap.dedent(body).strip(), " " * 12)
        + "\n"
    )
    signature = read(tmp_path, source)
    facts = InputFacts("uint8", dims + batched, 12, batched)
    flow = analyse_flow(signature.module, {"X": facts}, {})
    assert flow.complete
    return {
        o.name: (o.value.dtype, o.value.rank, o.value.dropped or o.value.axis0) if o.value else None
        for o in flow.outputs
    }


def test_dtypes_follow_numpy(tmp_path: Path) -> None:
    found = flow_of(
        tmp_path,
        """
        f = x / 255.0
        pb_utils.Tensor("div", f)
        pb_utils.Tensor("cast", f.astype(np.float32))
        pb_utils.Tensor("arg", np.argmax(f, axis=1))
        pb_utils.Tensor("exp", np.exp(x))
        pb_utils.Tensor("py", np.array([[0.5, 1.0]]))
        pb_utils.Tensor("str", np.array([["a"]]))
        pb_utils.Tensor("obj", np.array([[b"a"]], np.object_))
        pb_utils.Tensor("keep", (x * 2).astype("int16") + np.int16(1))
        """,
    )
    assert found == {
        "div": ("float64", 2, ""),
        "cast": ("float32", 2, ""),
        "arg": ("int64", 1, ""),
        "exp": ("float16", 2, ""),
        "py": ("float64", 2, ""),
        "str": ("str", 2, ""),
        "obj": ("object", 2, ""),
        "keep": ("int16", 2, ""),
    }


def test_batch_axis_is_tracked(tmp_path: Path) -> None:
    found = flow_of(
        tmp_path,
        """
        pb_utils.Tensor("first", x[0])
        pb_utils.Tensor("slice", x[:, :2])
        pb_utils.Tensor("newaxis", x[0][np.newaxis])
        pb_utils.Tensor("stacked", np.stack([row * 2 for row in x]))
        pb_utils.Tensor("mean0", x.mean(axis=0))
        pb_utils.Tensor("unknown", helper(x))
        """,
    )
    assert found["first"] == ("uint8", 1, "x[0] (line 9)")
    assert found["slice"] == ("uint8", 2, "")
    assert found["newaxis"] == ("uint8", 2, "")
    assert found["stacked"] == ("uint8", 2, "")
    assert found["mean0"] == ("float64", 1, "x.mean(axis=0) (line 13)")
    assert found["unknown"] is None


def test_axis0_of_an_unbatched_input(tmp_path: Path) -> None:
    found = flow_of(
        tmp_path,
        """
        flat = x.reshape(x.shape[0], -1)
        pb_utils.Tensor("rows", flat)
        pb_utils.Tensor("one", x.reshape(1, -1))
        """,
        batched=False,
        dims=3,
    )
    assert found["rows"] == ("uint8", 2, "x.reshape(x.shape[0], -1) (line 9)")
    assert found["one"] == ("uint8", 2, "")


def test_budget_runs_out_on_huge_functions(tmp_path: Path) -> None:
    body = "\n".join(f"v{i} = x + {i}\nif v{i}:\n    v{i} = x" for i in range(20_000))
    signature = read(
        tmp_path,
        "import triton_python_backend_utils as pb_utils\n\n\n"
        "class TritonPythonModel:\n    def execute(self, requests):\n"
        + textwrap.indent(body, " " * 8)
        + "\n",
    )
    assert signature.problems or not analyse_flow(signature.module, {}, {}).complete
