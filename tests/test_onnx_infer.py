"""ONNX Runtime's output shapes, emulated by read_onnx, compared with onnxruntime itself.

The tests that need onnxruntime (an optional, test-only dependency) skip with a reason when
it is not installed; the others check the emulation's own behaviour: which shapes it fixes,
where it gives up, what it says about provenance, and that hostile graphs stop at the
emulation's counted budgets (nodes, edges) in bounded memory and fail only with
ArtifactError.
"""

from __future__ import annotations

import importlib.util
import os
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import onnx
import pytest
from child_process import run_measured
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper
from onnx_builders import len_field, varint, write_model, write_sparse
from onnx_graphs import graphs
from script_modules import load_script

from pbtxt_lint.artifacts import onnx_graph, onnx_infer
from pbtxt_lint.artifacts.onnx import read_onnx
from pbtxt_lint.artifacts.onnx_signature import (
    DISABLE_ALL,
    OnnxSignature,
    as_served,
    inference_note,
)
from pbtxt_lint.artifacts.signature import ArtifactError, Signature

ROOT = Path(__file__).resolve().parent.parent
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64
Reported = dict[str, list[int]]
"""Tensor name -> dims as the backend sees them (-1 for a dynamic dim); [] for no shape."""


def vi(name: str, shape: Sequence[int | str | None] | None, elem: int = FLOAT) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def ints(name: str, values: Sequence[int] | int) -> TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def zeros(name: str, dims: Sequence[int]) -> TensorProto:
    return numpy_helper.from_array(np.zeros(dims, np.float32), name)


def model(
    nodes: Sequence[onnx.NodeProto],
    inputs: Sequence[Any],
    outputs: Sequence[Any],
    inits: Sequence[TensorProto] = (),
    opset: int = 17,
    ir: int = 8,
    value_info: Sequence[Any] = (),
) -> onnx.ModelProto:
    graph = helper.make_graph(
        list(nodes), "g", list(inputs), list(outputs), list(inits), value_info=list(value_info)
    )
    return helper.make_model(graph, ir_version=ir, opset_imports=[helper.make_opsetid("", opset)])


def node(op: str, ins: Sequence[str], outs: Sequence[str], **attrs: Any) -> onnx.NodeProto:
    return helper.make_node(op, list(ins), list(outs), name=f"/{op}", **attrs)


def read(m: onnx.ModelProto | bytes, tmp_path: Path) -> OnnxSignature:
    path = tmp_path / "m" / "1" / "model.onnx"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(m if isinstance(m, bytes) else m.SerializeToString())
    return read_onnx(path, path.parent.parent)


def dims(shape: Sequence[int | str] | None) -> list[int]:
    return [d if isinstance(d, int) and d >= 0 else -1 for d in shape or ()]


def ours(signature: Signature, level: int = 0) -> tuple[Reported, Reported]:
    """(inputs, outputs) as pbtxt-lint reports them for a config's graph level."""
    served = as_served(signature, level)
    inputs = {s.name: dims(s.shape) for s in served.inputs if not s.optional}
    return inputs, {s.name: dims(s.shape) for s in served.outputs}


# --- a catalogue of graphs, each checked against onnxruntime below ----------------------------

Case = tuple[Callable[[], onnx.ModelProto], Reported, Reported]
"""(model, outputs with graph optimizations on, outputs with them off)."""

CATALOGUE: dict[str, Case] = {
    # a constant target shape fixes the dim the exporter declared dynamic
    "reshape": (
        lambda: model(
            [node("Reshape", ["x", "s"], ["y"])],
            [vi("x", ["batch", 4])], [vi("y", ["batch", 4])], [ints("s", [1, 4])],
        ),
        {"y": [1, 4]}, {"y": [1, 4]},
    ),
    "reshape-13-no-rank": (  # before Reshape-14 only a constant target is read
        lambda: model(
            [node("Reshape", ["x", "s"], ["y"])],
            [vi("x", ["batch", 4]), vi("s", [2], INT64)], [vi("y", None)], opset=13,
        ),
        {"y": []}, {"y": []},
    ),
    "concat-const": (
        lambda: model(
            [node("Concat", ["x", "c"], ["y"], axis=1)],
            [vi("x", ["batch", 4])], [vi("y", ["batch", "n"])], [zeros("c", [1, 2])],
        ),
        {"y": [1, 6]}, {"y": [1, 6]},
    ),
    "expand-keeps-broadcast-one": (
        lambda: model(
            [node("Expand", ["x", "s"], ["y"])],
            [vi("x", ["batch", 1])], [vi("y", ["batch", "n"])], [ints("s", [1, 5])],
        ),
        {"y": [-1, 5]}, {"y": [-1, 5]},
    ),
    "tile": (
        lambda: model(
            [node("Tile", ["x", "r"], ["y"])],
            [vi("x", [1, "n"])], [vi("y", ["b", "m"])], [ints("r", [8, 1])],
        ),
        {"y": [8, -1]}, {"y": [8, -1]},
    ),
    "gemm-bias-does-not-pin": (
        lambda: model(
            [node("Gemm", ["x", "w", "b"], ["y"])],
            [vi("x", ["batch", 4])], [vi("y", ["batch", "classes"])],
            [zeros("w", [4, 10]), zeros("b", [1, 10])],
        ),
        {"y": [-1, 10]}, {"y": [-1, 10]},
    ),
    "matmul-broadcast": (
        lambda: model(
            [node("MatMul", ["x", "w"], ["y"])],
            [vi("x", ["b", "s", 4])], [vi("y", ["b", "s", "h"])], [zeros("w", [3, 4, 6])],
        ),
        {"y": [3, -1, 6]}, {"y": [3, -1, 6]},
    ),
    "squeeze-unsqueeze": (
        lambda: model(
            [node("Squeeze", ["x", "a"], ["t"]), node("Unsqueeze", ["t", "b"], ["y"])],
            [vi("x", ["batch", 1, 4])], [vi("y", ["p", "q", "r"])],
            [ints("a", [1]), ints("b", [0])],
        ),
        {"y": [1, -1, 4]}, {"y": [1, -1, 4]},
    ),
    "slice-known-and-symbolic": (
        lambda: model(
            [node("Slice", ["x", "st", "en", "ax"], ["y"])],
            [vi("x", ["batch", 16])], [vi("y", ["p", "q"])],
            [ints("st", [0, 2]), ints("en", [1, -2]), ints("ax", [0, 1])],
        ),
        {"y": [-1, 12]}, {"y": [-1, 12]},
    ),
    "constant-of-shape": (
        lambda: model(
            [node("ConstantOfShape", ["s"], ["c"]), node("Add", ["x", "c"], ["y"])],
            [vi("x", ["batch", "n"])], [vi("y", ["p", "q"])], [ints("s", [1, 6])],
        ),
        {"y": [-1, 6]}, {"y": [-1, 6]},
    ),
    "constant-node": (
        lambda: model(
            [
                node("Constant", [], ["s"], value=helper.make_tensor("v", INT64, [2], [1, 4])),
                node("Reshape", ["x", "s"], ["y"]),
            ],
            [vi("x", ["batch", 4])], [vi("y", ["batch", 4])],
        ),
        {"y": [1, 4]}, {"y": [1, 4]},
    ),
    "reduce-argmax": (
        lambda: model(
            [
                node("ReduceMean", ["x"], ["m"], axes=[0], keepdims=1),
                node("ArgMax", ["m"], ["y"], axis=1, keepdims=0),
            ],
            [vi("x", ["batch", 4])], [vi("y", ["b"], INT64)], opset=13,
        ),
        {"y": [1]}, {"y": [1]},
    ),
    "value-info-pins": (
        lambda: model(
            [node("Relu", ["x"], ["t"]), node("Sigmoid", ["t"], ["y"])],
            [vi("x", ["batch", 4])], [vi("y", ["batch", 4])], value_info=[vi("t", [1, 4])],
        ),
        {"y": [1, 4]}, {"y": [1, 4]},
    ),
    "undeclared-shape-inferred": (
        lambda: model(
            [node("Transpose", ["x"], ["y"], perm=[1, 0])],
            [vi("x", ["batch", 4])], [vi("y", None)],
        ),
        {"y": [4, -1]}, {"y": [4, -1]},
    ),
    "declared-names-kept": (
        lambda: model(
            [node("Relu", ["x"], ["y"])], [vi("x", ["batch", 4])], [vi("y", ["N", "M"])]
        ),
        {"y": [-1, 4]}, {"y": [-1, 4]},
    ),
    "output-is-an-input": (  # the input's declaration, not the output's, is reported
        lambda: model(
            [node("Relu", ["x"], ["y"])], [vi("x", ["batch", 4])],
            [vi("x", [1, 4]), vi("y", ["b", 4])],
        ),
        {"x": [-1, 4], "y": [-1, 4]}, {"x": [-1, 4], "y": [-1, 4]},
    ),
    "output-is-an-initializer": (
        lambda: model(
            [node("Relu", ["x"], ["y"])], [vi("x", ["a"])],
            [vi("y", ["a"]), vi("w", ["p", "q"])], [zeros("w", [2, 3])],
        ),
        {"y": [-1], "w": [2, 3]}, {"y": [-1], "w": [2, 3]},
    ),
    "overridable-target-is-not-constant": (
        lambda: model(
            [node("Reshape", ["x", "s"], ["y"])],
            [vi("x", ["batch", 4]), vi("s", [2], INT64)], [vi("y", ["batch", 4])],
            [ints("s", [1, 4])],
        ),
        {"y": [-1, 4]}, {"y": [-1, 4]},
    ),
    "inputs-are-never-pinned": (
        lambda: model(
            [node("Add", ["x", "c"], ["y"])], [vi("x", ["batch", 4])], [vi("y", ["batch", 4])],
            [zeros("c", [3, 4])],
        ),
        {"y": [3, 4]}, {"y": [3, 4]},
    ),
    "folded-only-when-optimizing": (
        lambda: model(
            [node("Concat", ["a", "b"], ["s"], axis=0), node("Reshape", ["x", "s"], ["y"])],
            [vi("x", ["batch", 4])], [vi("y", ["batch", 4])], [ints("a", [1]), ints("b", [4])],
        ),
        {"y": [1, 4]}, {"y": [-1, 4]},
    ),
    "folded-gather-of-constant": (
        lambda: model(
            [
                node("Gather", ["s", "i"], ["g"], axis=0),
                node("ConstantOfShape", ["g"], ["c"]),
                node("Add", ["x", "c"], ["y"]),
            ],
            [vi("x", ["batch", "n"])], [vi("y", ["p", "q"])],
            [ints("s", [2, 5, 7]), ints("i", [0, 2])],
        ),
        {"y": [2, 7]}, {"y": [-1, -1]},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CATALOGUE))
def test_catalogue(tmp_path: Path, case: str) -> None:
    build, optimized, unoptimized = CATALOGUE[case]
    signature = read(build(), tmp_path)
    assert signature.inference.status == "inferred", signature.inference
    assert ours(signature)[1] == optimized
    assert ours(signature, DISABLE_ALL)[1] == unoptimized


# --- onnxruntime itself ----------------------------------------------------------------------


def onnxruntime() -> ModuleType:
    if importlib.util.find_spec("onnxruntime") is None:
        pytest.skip(
            "onnxruntime is not installed (optional, test-only: pip install onnxruntime) so "
            "the shapes cannot be compared with what it reports"
        )
    import onnxruntime as ort

    ort.set_default_logger_severity(3)
    return ort


def session_shapes(data: bytes, level: int = 0) -> tuple[Reported, Reported]:
    """(inputs, outputs) of InferenceSession(...).get_inputs()/get_outputs(), with graph
    optimizations as the Triton backend sets them (ORT_ENABLE_ALL, or DISABLE_ALL)."""
    ort = onnxruntime()
    options = ort.SessionOptions()
    if level == DISABLE_ALL:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])

    def reported(values: list[Any]) -> Reported:
        return {v.name: [d if isinstance(d, int) else -1 for d in v.shape] for v in values}

    return reported(session.get_inputs()), reported(session.get_outputs())


@pytest.mark.parametrize("case", sorted(CATALOGUE))
def test_catalogue_is_what_onnxruntime_reports(case: str) -> None:
    build, optimized, unoptimized = CATALOGUE[case]
    data = build().SerializeToString()
    assert session_shapes(data)[1] == optimized
    assert session_shapes(data, DISABLE_ALL)[1] == unoptimized


def _generator() -> ModuleType:
    return load_script("make_fixture_artifacts")


GEN = _generator()
GENERATED = {
    f"{base.name}/{name}": spec
    for base, table, _ in GEN.TABLES
    for name, spec in table.items()
    if name.endswith(".onnx") and isinstance(spec, GEN.Graph | GEN.Ops)
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_models_match_onnxruntime(tmp_path: Path, name: str) -> None:
    """Every ONNX model of the fixtures and examples: the inputs and outputs pbtxt-lint
    compares with the config are those of onnxruntime's session, with graph optimizations
    on (the backend's default) and off (optimization { graph { level: 2 } })."""
    path = tmp_path / "m" / "1" / "model.onnx"
    GENERATED[name].write(path)
    signature = read_onnx(path, path.parent.parent)
    assert isinstance(signature, OnnxSignature)
    assert signature.inference.status != "declared", signature.inference
    assert signature.inference.kept == ()
    data = path.read_bytes()
    for level in (0, DISABLE_ALL):
        assert ours(signature, level) == session_shapes(data, level), level


@settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(m=graphs())
def test_random_graphs_match_onnxruntime(tmp_path: Path, m: onnx.ModelProto) -> None:
    """Random valid graphs: every size pbtxt-lint reports is onnxruntime's. Outputs whose
    declaration contradicts the graph keep it (onnxruntime then reports -1 or the inferred
    size depending on later graph rewrites). onnxruntime can know more where its Shape
    data propagation or ReshapeFusion run; without Shape nodes the two agree exactly."""
    onnxruntime()
    signature = read(m, tmp_path)
    data = m.SerializeToString()
    exact = not any(n.op_type == "Shape" for n in m.graph.node)
    for level in (0, DISABLE_ALL):
        theirs_in, theirs_out = session_shapes(data, level)
        mine_in, mine_out = ours(signature, level)
        assert mine_in == theirs_in
        for name, shape in mine_out.items():
            if name in signature.inference.kept:
                continue
            if exact:
                assert shape == theirs_out[name], (name, level)
            else:
                assert len(shape) == len(theirs_out[name]) or not shape, (name, level)
                assert all(a in (b, -1) for a, b in zip(shape, theirs_out[name], strict=False))


# --- behaviour of the emulation ----------------------------------------------------------------


def test_provenance_names_the_node(tmp_path: Path) -> None:
    build = CATALOGUE["reshape"][0]
    signature = read(build(), tmp_path)
    (y,) = signature.outputs
    assert y.shape == (1, 4)
    assert y.inferred is not None and y.inferred.declared == ("batch", 4)
    source = y.inferred.dims[0]
    assert source is not None and (source.node, source.op) == ("/Reshape", "Reshape")
    assert y.inferred.dims[1] is None  # 4 is declared
    assert inference_note(y) == (
        "ONNX Runtime infers dim 0 of 'y' as 1 (node '/Reshape' (Reshape) fixes it) although "
        "the file declares [batch, 4]"
    )


def test_provenance_of_declared_sizes_and_folding(tmp_path: Path) -> None:
    signature = read(CATALOGUE["value-info-pins"][0](), tmp_path)
    note = inference_note(signature.outputs[0], [0])
    assert "value_info 't' declares it and node '/Sigmoid' (Sigmoid) passes it on" in note
    folded = read(CATALOGUE["folded-only-when-optimizing"][0](), tmp_path / "f")
    source = folded.outputs[0].inferred.dims[0]  # type: ignore[union-attr]
    assert source is not None and source.optimized
    assert "once constant folding has run" in inference_note(folded.outputs[0])
    assert folded.unoptimized_outputs is not None
    assert folded.unoptimized_outputs[0].shape == ("batch", 4)


def test_unnamed_nodes_are_named_by_op_and_position(tmp_path: Path) -> None:
    m = CATALOGUE["reshape"][0]()
    m.graph.node[0].name = ""
    source = read(m, tmp_path).outputs[0].inferred.dims[0]  # type: ignore[union-attr]
    assert source is not None and source.node == "Reshape #0"


def test_fast_path_reads_no_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise AssertionError("the graph was read")

    monkeypatch.setattr(onnx_graph, "collect", refuse)
    m = model([node("Relu", ["x"], ["y"])], [vi("x", ["batch", 4])], [vi("y", [2, 4])])
    signature = read(m, tmp_path)
    assert signature.inference.status == "skipped"
    assert signature.outputs[0].shape == (2, 4)


def test_a_conflicting_declaration_is_kept(tmp_path: Path) -> None:
    m = model(
        [
            node("Reshape", ["x", "s"], ["t"]),
            node("Relu", ["t"], ["y"]),
            node("Relu", ["x"], ["z"]),
        ],
        [vi("x", ["batch", 4])],
        [vi("t", ["b", 2, 2]), vi("y", ["b", "n", "k"]), vi("z", ["b", "n"])],
        [ints("s", [1, 4, 1])],
    )
    signature = read(m, tmp_path)
    assert signature.inference.kept == ("t", "y")  # y is computed from t
    by_name = {s.name: s for s in signature.outputs}
    assert by_name["t"].shape == ("b", 2, 2) and by_name["t"].inferred is None
    assert by_name["y"].shape == ("b", "n", "k")
    assert by_name["z"].shape == ("b", 4)


def _undefined_input(m: onnx.ModelProto) -> None:
    m.graph.node[0].input[0] = "nowhere"


def _cycle(m: onnx.ModelProto) -> None:
    m.graph.node[0].input[0] = "y"


def _old_opset(m: onnx.ModelProto) -> None:
    m.opset_import[0].version = 9


def _no_default_opset(m: onnx.ModelProto) -> None:
    m.opset_import[0].domain = "com.example"


def _invalid_target(m: onnx.ModelProto) -> None:
    m.graph.initializer[0].CopyFrom(ints("s", [-3, 4]))


def _defined_twice(m: onnx.ModelProto) -> None:
    m.graph.node.append(node("Relu", ["x"], ["y"]))


@pytest.mark.parametrize(
    ("mutate", "reason"),
    [
        (_undefined_input, "reads 'nowhere', which nothing defines"),
        (_cycle, "the graph has a cycle"),
        (_old_opset, "opset 9 is older than the emulation covers"),
        (_no_default_opset, "imports no opset of the default ONNX domain"),
        (_invalid_target, "ONNX shape inference fails on node '/Reshape': Invalid dimension"),
        (_defined_twice, "'y' is defined twice"),
    ],
)
def test_gives_up_and_keeps_the_declaration(
    tmp_path: Path, mutate: Callable[[onnx.ModelProto], None], reason: str
) -> None:
    m = CATALOGUE["reshape"][0]()
    mutate(m)
    signature = read(m, tmp_path)
    assert signature.inference.status == "declared"
    assert reason in signature.inference.reason
    assert signature.outputs[0].shape == ("batch", 4)
    assert signature.outputs[0].inferred is None


def test_too_many_nodes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(onnx_graph, "MAX_NODES", 3)
    chain = [node("Relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(5)]
    m = model(chain, [vi("t0", ["batch", 4])], [vi("t5", ["batch", 4])])
    signature = read(m, tmp_path)
    assert signature.inference == signature.inference.__class__("declared", "more than 3 nodes")


def test_unsupported_ops_leave_the_declaration(tmp_path: Path) -> None:
    """Outputs of ops the emulation does not know have an unknown shape, so what depends on
    them keeps its declaration."""
    m = model(
        [
            helper.make_node("Attention", ["x"], ["t"], domain="com.microsoft"),
            node("NonMaxSuppression", ["t"], ["u"]),
            node("Relu", ["t"], ["y1"]),
            node("Reshape", ["x", "u"], ["y2"]),
        ],
        [vi("x", ["batch", 4])], [vi("y1", ["batch", "n"]), vi("y2", ["a", "b"])],
    )  # fmt: skip
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    signature = read(m, tmp_path)
    assert signature.inference.status == "inferred"
    assert [s.shape for s in signature.outputs] == [("batch", "n"), ("a", "b")]


def test_served_signature_follows_the_graph_level(tmp_path: Path) -> None:
    signature = read(CATALOGUE["folded-only-when-optimizing"][0](), tmp_path)
    assert as_served(signature, 0) is signature
    assert as_served(signature, -1) is signature  # ORT_ENABLE_BASIC still folds
    served = as_served(signature, DISABLE_ALL)
    assert served.outputs[0].shape == ("batch", 4)
    assert as_served(read(CATALOGUE["reshape"][0](), tmp_path / "r"), DISABLE_ALL).outputs[
        0
    ].shape == (1, 4)


# --- hostile graphs: bounded time and memory, only ArtifactError ----------------------------------

_ERROR_KINDS = {"truncated", "corrupt", "empty"}


def _check(data: bytes, tmp_path: Path) -> None:
    """read_onnx returns a signature or raises ArtifactError; nothing else escapes."""
    try:
        signature = read(data, tmp_path)
    except ArtifactError as exc:
        assert exc.kind in _ERROR_KINDS
        return
    assert signature.inference.status in {"skipped", "inferred", "declared"}
    for spec in signature.outputs:
        assert spec.shape is None or all(
            (isinstance(d, int) and d >= -1) or isinstance(d, str) for d in spec.shape
        )


_OPS = sorted({*onnx_infer._HANDLERS, "Constant", "If", "Unknown"})
_INTS = st.one_of(st.integers(-4, 6), st.sampled_from([2**31, -(2**40), 2**63 - 1]))
_ATTRS = ["axis", "axes", "perm", "keepdims", "to", "transA", "transB", "allowzero", "start",
          "end", "starts", "ends", "noop_with_empty_axes", "value_int", "value_ints"]  # fmt: skip


@st.composite
def hostile_graphs(draw: st.DrawFn) -> bytes:
    """Well-formed graphs of semantically arbitrary nodes: any op, inputs among the values
    defined so far (or absent), any attribute values, integer constants of any values and
    dims, declared outputs of any shape."""
    defined = ["x", "c", "s"]
    nodes = []
    for i in range(draw(st.integers(1, 8))):
        names = draw(st.lists(st.sampled_from(_ATTRS), max_size=3, unique=True))
        attrs = {n: draw(st.one_of(_INTS, st.lists(_INTS, min_size=1, max_size=4))) for n in names}
        op = draw(st.sampled_from(_OPS))
        if op == "Constant" and draw(st.booleans()):
            attrs = {"value": ints("v", draw(st.lists(_INTS, max_size=4)))}
        ins = draw(st.lists(st.sampled_from([*defined, ""]), max_size=4))
        outs = [f"t{i}", *([f"e{i}"] if draw(st.booleans()) else [])]
        nodes.append(helper.make_node(op, ins, outs, **attrs))
        defined += outs
    values = draw(st.lists(_INTS, max_size=5))
    const = ints("c", values)
    if draw(st.booleans()):
        const.ClearField("dims")
        const.dims.extend(draw(st.lists(st.integers(-2, 6), max_size=3)))
    shapes = st.one_of(st.none(), st.lists(st.sampled_from([0, 1, 2, 3, "b", None]), max_size=3))
    m = model(
        nodes,
        [vi("x", draw(shapes))],
        [vi(f"t{i}", draw(shapes)) for i in range(len(nodes))],
        [const, ints("s", draw(st.lists(_INTS, max_size=3)))],
        opset=draw(st.sampled_from([11, 13, 17, 21])),
        value_info=[vi(n, draw(shapes)) for n in draw(st.lists(st.sampled_from(defined)))],
    )
    return m.SerializeToString()


@settings(
    max_examples=400,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=hostile_graphs())
def test_hostile_node_lists(tmp_path: Path, data: bytes) -> None:
    _check(data, tmp_path)


@settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(edits=st.lists(st.tuples(st.integers(0, 4000), st.integers(0, 255)), min_size=1, max_size=4))
def test_mutated_graphs(tmp_path: Path, edits: list[tuple[int, int]]) -> None:
    """Byte flips in a model with nodes, attributes, constants and value_info: ArtifactError
    or a signature, whatever the flipped bytes were."""
    data = bytearray(_RICH)
    for pos, byte in edits:
        data[pos % len(data)] = byte
    _check(bytes(data), tmp_path)


_RICH = model(
    [
        node("Constant", [], ["k"], value=helper.make_tensor("v", INT64, [2], [2, 2])),
        node("Reshape", ["x", "k"], ["r"]),
        node("Concat", ["r", "c"], ["cat"], axis=1),
        node("Slice", ["cat", "st", "en", "ax"], ["sl"]),
        node("Gather", ["sl", "i"], ["g"], axis=1),
        node("Unsqueeze", ["g", "ax"], ["u"]),
        node("MatMul", ["u", "w"], ["mm"]),
        node("Shape", ["mm"], ["sh"]),
        node("ConstantOfShape", ["sh"], ["z"]),
        node("Add", ["mm", "z"], ["y"]),
    ],
    [vi("x", ["batch", 2])],
    [vi("y", ["a", "b", "c"]), vi("cat", None)],
    [zeros("c", [2, 3]), ints("st", [1]), ints("en", [4]), ints("ax", [1]), ints("i", 0),
     zeros("w", [2, 5])],
    value_info=[vi("sl", ["p", "q"])],
).SerializeToString()  # fmt: skip


_PROBE = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from pbtxt_lint.artifacts.onnx import read_onnx
    path = Path(sys.argv[1])
    def peak_kib():
        with open("/proc/self/status") as status:
            return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
    before = peak_kib()
    sig = read_onnx(path, path.parent.parent)
    print(json.dumps({
        "growth_mib": (peak_kib() - before) / 1024,
        "status": sig.inference.status,
        "reason": sig.inference.reason,
        "outputs": [list(s.shape) if s.shape is not None else None for s in sig.outputs],
    }))
    """
)


def _probe(path: Path) -> dict[str, Any]:
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc to measure peak memory")
    return run_measured(_PROBE, path, "read_onnx on a hostile graph")


def _graph_bytes(parts: Sequence[bytes | int]) -> list[bytes | int]:
    """A ModelProto (IR 8, opset 17) whose graph field holds `parts` (bytes, or holes)."""
    head = helper.make_model(
        helper.make_graph([], "g", [], []),
        ir_version=8,
        opset_imports=[helper.make_opsetid("", 17)],
    )
    head.ClearField("graph")
    size = sum(p if isinstance(p, int) else len(p) for p in parts)
    return [head.SerializeToString(), len_field(7, size), *parts]


def _field(number: int, message: bytes) -> bytes:
    return len_field(number, len(message)) + message


def test_huge_constant_tensor_is_not_read(tmp_path: Path) -> None:
    """A Constant node holding a 2 GiB tensor (a hole in a sparse file): its payload is
    skipped, so the reshape it feeds stays unknown and nothing is paged in."""
    header = TensorProto(name="v", data_type=INT64, dims=[1 << 28]).SerializeToString()
    tensor: list[bytes | int] = [header, len_field(9, 1 << 31), 1 << 31]
    tensor_len = sum(p if isinstance(p, int) else len(p) for p in tensor)
    attr: list[bytes | int] = [_field(1, b"value"), varint(5 << 3 | 2), varint(tensor_len)]
    attr += tensor
    attr_len = sum(p if isinstance(p, int) else len(p) for p in attr)
    node_head = _field(2, b"s") + _field(4, b"Constant")
    const_node: list[bytes | int] = [
        len_field(1, len(node_head) + len(len_field(5, attr_len)) + attr_len),
        node_head,
        len_field(5, attr_len),
        *attr,
    ]
    rest = helper.make_graph(
        [node("Reshape", ["x", "s"], ["y"])], "g", [vi("x", ["batch", 4])], [vi("y", ["batch", 4])]
    ).SerializeToString()
    path = tmp_path / "m" / "1" / "model.onnx"
    write_sparse(path, _graph_bytes([*const_node, rest]))
    if os.stat(path).st_blocks * 512 > 16 << 20:
        pytest.skip("the filesystem does not support sparse files")
    result = _probe(path)
    assert result["status"] == "inferred", result
    assert result["outputs"] == [["batch", 4]]
    assert result["growth_mib"] < 16


def test_huge_packed_attribute(tmp_path: Path) -> None:
    """An `axes` attribute of 5 million packed varints: the edge budget stops it early."""
    ints_payload = b"\x01" * 5_000_000
    attr = _field(1, b"axes") + _field(8, ints_payload)
    node_bytes = _field(1, b"x") + _field(2, b"y") + _field(4, b"Unsqueeze") + _field(5, attr)
    io = helper.make_graph(
        [], "g", [vi("x", ["batch", 4])], [vi("y", ["batch", "n", 4])]
    ).SerializeToString()
    path = tmp_path / "m" / "1" / "model.onnx"
    write_sparse(path, _graph_bytes([_field(1, node_bytes), io]))
    result = _probe(path)
    assert result["status"] == "declared"
    assert "more than 1,000,000" in result["reason"]
    assert result["growth_mib"] < 64


def test_deep_graph(tmp_path: Path) -> None:
    """100,000 chained nodes: read and inferred (or given up on) within the time budget."""
    n = 100_000
    nodes = [helper.make_node("Relu", [f"t{i}"], [f"t{i + 1}"]) for i in range(n)]
    m = model(nodes, [vi("t0", [1, 4])], [vi(f"t{n}", ["batch", 4])])
    path = write_model(m, tmp_path / "m" / "1" / "model.onnx")
    result = _probe(path)
    assert result["status"] in {"inferred", "declared"}, result
    if result["status"] == "inferred":
        assert result["outputs"] == [[1, 4]]
    assert result["growth_mib"] < 128


def test_too_many_nodes_in_a_real_file(tmp_path: Path) -> None:
    n = onnx_graph.MAX_NODES + 1
    one = helper.make_node("Relu", ["x"], ["y"]).SerializeToString()
    io = helper.make_graph([], "g", [vi("x", ["b"])], [vi("y", ["b"])]).SerializeToString()
    path = tmp_path / "m" / "1" / "model.onnx"
    write_sparse(path, _graph_bytes([_field(1, one) * n, io]))
    result = _probe(path)
    assert result["status"] == "declared"
    assert result["reason"] == f"more than {onnx_graph.MAX_NODES:,} nodes"
