"""The header-only ONNX reader must agree with ``onnx.load`` and fail only with ArtifactError."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import onnx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper
from onnx.external_data_helper import set_external_data
from onnx_builders import (
    IO,
    build_model,
    len_field,
    set_external_location,
    value_info,
    varint,
    weight,
    write_big_embedded,
    write_big_external,
    write_external_data,
    write_initializer_inputs,
    write_model,
    write_sequence_input,
)

from pbtxt_lint.artifacts.onnx import read_onnx
from pbtxt_lint.artifacts.onnx_signature import declared_shape
from pbtxt_lint.artifacts.signature import ArtifactError, Dim, Signature, TensorSpec

REPO = Path(__file__).resolve().parent.parent
GiB = 1 << 30

# ONNX element type -> Triton config type, written out independently from triton-rules.md §4.
TRITON: dict[int, str] = {
    TensorProto.FLOAT: "TYPE_FP32",
    TensorProto.UINT8: "TYPE_UINT8",
    TensorProto.INT8: "TYPE_INT8",
    TensorProto.UINT16: "TYPE_UINT16",
    TensorProto.INT16: "TYPE_INT16",
    TensorProto.INT32: "TYPE_INT32",
    TensorProto.INT64: "TYPE_INT64",
    TensorProto.STRING: "TYPE_STRING",
    TensorProto.BOOL: "TYPE_BOOL",
    TensorProto.FLOAT16: "TYPE_FP16",
    TensorProto.DOUBLE: "TYPE_FP64",
    TensorProto.UINT32: "TYPE_UINT32",
    TensorProto.UINT64: "TYPE_UINT64",
    TensorProto.BFLOAT16: "TYPE_BF16",
}


# --- expected signature computed from onnx's own parse -------------------------------------


def _elem_name(elem: int) -> str:
    if elem in TensorProto.DataType.values():
        return str(TensorProto.DataType.Name(elem))
    return f"UNKNOWN({elem})"


def _text(value: str | bytes) -> str:
    """protobuf hands back invalid UTF-8 as bytes; the reader replaces bad sequences."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _dim(d: onnx.TensorShapeProto.Dimension) -> Dim:
    which = d.WhichOneof("value")
    if which == "dim_value":
        return d.dim_value if d.dim_value >= 0 else -1
    if which == "dim_param":
        return _text(d.dim_param) or -1
    return -1


def _type_name(t: onnx.TypeProto) -> str:
    which = t.WhichOneof("value")
    if which == "tensor_type":
        return _elem_name(t.tensor_type.elem_type)
    if which == "sequence_type":
        return f"seq({_type_name(t.sequence_type.elem_type)})"
    if which == "optional_type":
        return f"optional({_type_name(t.optional_type.elem_type)})"
    if which == "map_type":
        key = _elem_name(t.map_type.key_type)
        return f"map({key},{_type_name(t.map_type.value_type)})"
    if which == "sparse_tensor_type":
        return f"sparse_tensor({_elem_name(t.sparse_tensor_type.elem_type)})"
    if which == "opaque_type":
        parts = [_text(p) for p in (t.opaque_type.domain, t.opaque_type.name) if p]
        return f"opaque({'.'.join(parts)})"
    return "<no type>"


def _spec(vi: onnx.ValueInfoProto, optional: bool = False) -> TensorSpec:
    if not vi.HasField("type") or vi.type.WhichOneof("value") is None:
        return TensorSpec(_text(vi.name), None, "<no type>", None, optional, is_tensor=False)
    if vi.type.WhichOneof("value") != "tensor_type":
        return TensorSpec(
            _text(vi.name), None, _type_name(vi.type), None, optional, is_tensor=False
        )
    tt = vi.type.tensor_type
    shape = tuple(_dim(d) for d in tt.shape.dim) if tt.HasField("shape") else None
    return TensorSpec(
        _text(vi.name), TRITON.get(tt.elem_type), _type_name(vi.type), shape, optional
    )


def expected(
    model: onnx.ModelProto,
) -> tuple[tuple[TensorSpec, ...], tuple[TensorSpec, ...], dict[str, str]]:
    """What ONNX Runtime would expose, derived from ``onnx.load``'s full parse."""
    g = model.graph
    inits = {_text(t.name) for t in g.initializer}
    inits |= {_text(s.values.name) for s in g.sparse_initializer}
    overridable = model.ir_version >= 4
    inputs = tuple(
        _spec(vi, optional=_text(vi.name) in inits)
        for vi in g.input
        if _text(vi.name) not in inits or overridable
    )
    outputs = tuple(_spec(vi) for vi in g.output)
    facts: dict[str, str] = {}
    if model.HasField("ir_version"):
        facts["ir_version"] = str(model.ir_version)
    for field in ("producer_name", "producer_version", "domain"):
        if model.HasField(field):
            facts[field] = _text(getattr(model, field))
    if model.HasField("model_version"):
        facts["model_version"] = str(model.model_version)
    for opset in model.opset_import:
        facts[f"opset:{_text(opset.domain) or 'ai.onnx'}"] = str(opset.version)
    return inputs, outputs, facts


def as_declared(specs: tuple[TensorSpec, ...]) -> tuple[TensorSpec, ...]:
    """The specs with the declared shapes (read_onnx reports ONNX Runtime's for outputs,
    which tests/test_onnx_infer.py checks)."""
    return tuple(replace(s, shape=declared_shape(s), inferred=None) for s in specs)


def assert_matches_onnx(sig: Signature, path: Path) -> None:
    model = onnx.load(path, load_external_data=False)
    inputs, outputs, facts = expected(model)
    assert sig.inputs == inputs
    assert as_declared(sig.outputs) == outputs
    assert dict(sig.facts) == facts
    assert sig.format == "onnx"


def read(path: Path, model_dir: Path | None = None) -> Signature:
    return read_onnx(path, model_dir or path.parent.parent)


# --- agreement with onnx.load on generated models ------------------------------------------

ALL_ELEMS = [v for v in TensorProto.DataType.values() if v != TensorProto.UNDEFINED]

CASES: dict[str, tuple[list[IO], list[IO]]] = {
    "fp32-batch": ([("INPUT0", TensorProto.FLOAT, ["batch", 3, 224, 224])],
                   [("OUTPUT0", TensorProto.FLOAT, ["batch", 1000])]),
    "fixed-and-unknown-dims": ([("x", TensorProto.INT64, [None, 7, "seq"])],
                               [("y", TensorProto.INT64, [None, 7, "seq"])]),
    "scalar-and-unknown-rank": ([("s", TensorProto.INT32, []), ("u", TensorProto.BOOL, None)],
                                [("o", TensorProto.INT32, [])]),
    "strings-bf16-fp16": ([("text", TensorProto.STRING, [-1]), ("h", TensorProto.FLOAT16, [2]),
                           ("b", TensorProto.BFLOAT16, [2])],
                          [("out", TensorProto.STRING, [-1])]),
    "no-triton-type": ([("c", TensorProto.COMPLEX64, [4]), ("f8", TensorProto.FLOAT8E4M3FN, [4]),
                        ("i4", TensorProto.INT4, [8])],
                       [("d", TensorProto.DOUBLE, [4])]),
    "unicode-names": ([("入力:0", TensorProto.UINT8, [1]), ("a b/c", TensorProto.UINT16, [1])],
                      [("出力", TensorProto.UINT32, [1]), ("z", TensorProto.UINT64, [1])]),
    "big-dims": ([("x", TensorProto.FLOAT, [2**40, 0, 1])], [("y", TensorProto.FLOAT, [2**62])]),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_onnx_load(tmp_path: Path, case: str) -> None:
    inputs, outputs = CASES[case]
    path = write_model(build_model(inputs, outputs), tmp_path / "m" / "1" / "model.onnx")
    sig = read(path)
    assert_matches_onnx(sig, path)
    assert sig.path == path
    assert sig.problems == ()


def test_every_element_type(tmp_path: Path) -> None:
    ios: list[IO] = [(f"t{e}", e, [1]) for e in ALL_ELEMS]
    path = write_model(build_model(ios, ios[:1]), tmp_path / "1" / "model.onnx")
    sig = read(path)
    assert_matches_onnx(sig, path)
    by_name = {s.name: s for s in sig.inputs}
    assert by_name["t1"].data_type == "TYPE_FP32"
    assert by_name["t8"].data_type == "TYPE_STRING"
    assert by_name["t16"].data_type == "TYPE_BF16"
    assert by_name["t17"].source_type == "FLOAT8E4M3FN"
    assert by_name["t17"].data_type is None


def test_facts(tmp_path: Path) -> None:
    model = build_model(
        [("x", TensorProto.FLOAT, [1])],
        [("y", TensorProto.FLOAT, [1])],
        ir_version=7,
        opsets=[("", 13), ("ai.onnx.ml", 2), ("com.microsoft", 1)],
        producer_name="pytorch",
    )
    model.producer_version = "2.3.0"
    model.domain = "ai.example"
    model.model_version = 42
    path = write_model(model, tmp_path / "1" / "model.onnx")
    sig = read(path)
    assert_matches_onnx(sig, path)
    assert sig.facts == {
        "ir_version": "7",
        "producer_name": "pytorch",
        "producer_version": "2.3.0",
        "domain": "ai.example",
        "model_version": "42",
        "opset:ai.onnx": "13",
        "opset:ai.onnx.ml": "2",
        "opset:com.microsoft": "1",
    }


def test_explicit_ai_onnx_domain_is_the_default_domain(tmp_path: Path) -> None:
    model = build_model([], [("y", TensorProto.FLOAT, [1])], opsets=[("ai.onnx", 18)])
    sig = read(write_model(model, tmp_path / "1" / "model.onnx"))
    assert sig.facts["opset:ai.onnx"] == "18"


@pytest.mark.parametrize("ir_version", [3, 4, 8])
def test_initializer_backed_inputs(tmp_path: Path, ir_version: int) -> None:
    path = write_initializer_inputs(tmp_path / "1" / "model.onnx", ir_version)
    sig = read(path)
    assert_matches_onnx(sig, path)
    if ir_version < 4:  # ORT: constants, neither required nor overridable
        assert [(s.name, s.optional) for s in sig.inputs] == [("X", False)]
    else:  # ORT: overridable initializers, i.e. optional inputs
        assert [(s.name, s.optional) for s in sig.inputs] == [
            ("X", False),
            ("W", True),
            ("B", True),
        ]


def test_initializers_not_listed_as_inputs(tmp_path: Path) -> None:
    """IR >= 4 need not list initializers as inputs; then they are not inputs at all."""
    model = build_model(
        [("X", TensorProto.FLOAT, ["batch", 4])],
        [("Y", TensorProto.FLOAT, ["batch", 4])],
        initializers=[weight("W", [4, 4])],
    )
    sig = read(write_model(model, tmp_path / "1" / "model.onnx"))
    assert [s.name for s in sig.inputs] == ["X"]


def test_sparse_initializer_backed_input(tmp_path: Path) -> None:
    values = helper.make_tensor("S", TensorProto.FLOAT, [2], [1.0, 2.0])
    indices = helper.make_tensor("S_idx", TensorProto.INT64, [2], [0, 3])
    model = build_model([("X", TensorProto.FLOAT, [4])], [("Y", TensorProto.FLOAT, [4])])
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [4]))
    model.graph.input.append(value_info("S", TensorProto.FLOAT, [4]))
    path = write_model(model, tmp_path / "1" / "model.onnx")
    sig = read(path)
    assert_matches_onnx(sig, path)
    assert [(s.name, s.optional) for s in sig.inputs] == [("X", False), ("S", True)]


def test_non_tensor_types(tmp_path: Path) -> None:
    path = write_sequence_input(tmp_path / "1" / "model.onnx")
    sig = read(path)
    assert_matches_onnx(sig, path)
    assert sig.inputs[0] == TensorSpec("S", None, "seq(FLOAT)", None, is_tensor=False)

    seq_of_map = helper.make_sequence_type_proto(
        helper.make_map_type_proto(TensorProto.STRING, helper.make_tensor_type_proto(1, None))
    )
    opt = helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.INT64, [2]))
    sparse = helper.make_sparse_tensor_type_proto(TensorProto.FLOAT, [3, 3])
    opaque = onnx.TypeProto()
    opaque.opaque_type.domain = "com.example"
    opaque.opaque_type.name = "Thing"
    model = build_model([], [("y", TensorProto.FLOAT, [1])])
    for name, tp in [("sm", seq_of_map), ("opt", opt), ("sp", sparse), ("op", opaque)]:
        model.graph.input.append(helper.make_value_info(name, tp))
    model.graph.input.append(onnx.ValueInfoProto(name="untyped"))
    path = write_model(model, tmp_path / "2" / "model.onnx")
    sig = read(path)
    assert_matches_onnx(sig, path)
    assert [s.source_type for s in sig.inputs] == [
        "seq(map(STRING,FLOAT))",
        "optional(INT64)",
        "sparse_tensor(FLOAT)",
        "opaque(com.example.Thing)",
        "<no type>",
    ]
    assert not any(s.is_tensor for s in sig.inputs)


def test_negative_dims_and_empty_dim_param_are_unknown(tmp_path: Path) -> None:
    vi = value_info("x", TensorProto.FLOAT, [1, 2, 3])
    vi.type.tensor_type.shape.dim[0].dim_value = -7
    vi.type.tensor_type.shape.dim[1].dim_param = ""
    model = build_model([], [("y", TensorProto.FLOAT, [1])])
    model.graph.input.append(vi)
    path = write_model(model, tmp_path / "1" / "model.onnx")
    sig = read(path)
    assert_matches_onnx(sig, path)
    assert sig.inputs[0].shape == (-1, -1, 3)


# --- protobuf merge semantics, checked against onnx's parse of the very same bytes ---------

_NAMES = st.text(alphabet="abcXYZ_:/.0é", min_size=1, max_size=6)
_DIMS = st.one_of(st.integers(0, 2**62), st.text(alphabet="nbs_", max_size=4), st.none())
_SHAPES = st.one_of(st.none(), st.lists(_DIMS, max_size=4))
_ELEMS = st.sampled_from([*ALL_ELEMS, 0, 99])


_TYPES = st.recursive(
    st.builds(helper.make_tensor_type_proto, _ELEMS, _SHAPES),
    lambda inner: st.one_of(
        st.builds(helper.make_sequence_type_proto, inner),
        st.builds(helper.make_optional_type_proto, inner),
        st.builds(helper.make_map_type_proto, st.sampled_from([7, 8]), inner),
    ),
    max_leaves=3,
)


@st.composite
def fragmented_models(draw: st.DrawFn) -> bytes:
    """A model serialized as many concatenated ModelProto fragments in a random order.

    Concatenated protobuf messages merge, so this exercises repeated ``graph`` fields, scalar
    fields that appear twice, and any interleaving of inputs, outputs and initializers.
    """
    names = draw(st.lists(_NAMES, min_size=1, max_size=8, unique=True))
    inputs = [helper.make_value_info(n, draw(_TYPES)) for n in names[: len(names) // 2 + 1]]
    outputs = [helper.make_value_info(n, draw(_TYPES)) for n in draw(st.permutations(names))[:2]]
    init_names = draw(st.lists(st.sampled_from([*names, "other"]), max_size=4, unique=True))
    fragments: list[onnx.ModelProto] = []
    for vi in inputs:
        fragments.append(onnx.ModelProto(graph=onnx.GraphProto(input=[vi])))
    for vi in outputs:
        fragments.append(onnx.ModelProto(graph=onnx.GraphProto(output=[vi])))
    for name in init_names:
        tensor = weight(name, [2])
        if draw(st.booleans()):
            sparse = helper.make_sparse_tensor(tensor, weight(name + "_i", [1], 7), [2])
            fragments.append(onnx.ModelProto(graph=onnx.GraphProto(sparse_initializer=[sparse])))
        else:
            fragments.append(onnx.ModelProto(graph=onnx.GraphProto(initializer=[tensor])))
    for _ in range(draw(st.integers(1, 2))):
        header = onnx.ModelProto(ir_version=draw(st.integers(3, 10)), producer_name=draw(_NAMES))
        for domain in draw(st.lists(st.sampled_from(["", "ai.onnx.ml", "x"]), max_size=2)):
            header.opset_import.append(helper.make_opsetid(domain, draw(st.integers(1, 20))))
        fragments.append(header)
    order = draw(st.permutations(fragments))
    return b"".join(fragment.SerializeToString() for fragment in order)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=fragmented_models())
def test_fragmented_models_match_onnx(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    assert_matches_onnx(read(path), path)


def test_value_info_and_type_fields_merge(tmp_path: Path) -> None:
    """A ValueInfoProto whose ``type`` appears twice: elem_type replaced, shape dims appended."""
    first = value_info("x", TensorProto.FLOAT, ["n"]).SerializeToString()
    second = value_info("x", TensorProto.INT64, [5]).SerializeToString()
    switch = onnx.ValueInfoProto(  # a different oneof member replaces the tensor type
        type=helper.make_sequence_type_proto(helper.make_tensor_type_proto(1, None))
    ).SerializeToString()
    graph = b"".join(
        len_field(11, len(v)) + v for v in (first + second, first + switch, switch + first)
    )
    out = value_info("y", TensorProto.FLOAT, [1]).SerializeToString()
    graph += len_field(12, len(out)) + out
    head = onnx.ModelProto(ir_version=8).SerializeToString()
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.write_bytes(head + len_field(7, len(graph)) + graph)
    sig = read(path)
    assert_matches_onnx(sig, path)
    assert sig.inputs[0].shape == ("n", 5)
    assert sig.inputs[0].source_type == "INT64"
    assert sig.inputs[1].source_type == "seq(FLOAT)"
    assert sig.inputs[2].source_type == "FLOAT"


def test_unknown_fields_and_mismatched_wire_types_are_skipped(tmp_path: Path) -> None:
    model = build_model([("x", TensorProto.FLOAT, [1])], [("y", TensorProto.FLOAT, [1])])
    data = model.SerializeToString()
    # Unknown field 1000 (varint, fixed64, fixed32, bytes) and graph field 7 as a varint.
    junk = (
        varint(1000 << 3) + varint(5)
        + varint(1000 << 3 | 1) + bytes(8)
        + varint(1000 << 3 | 5) + bytes(4)
        + len_field(1000, 3) + b"abc"
        + varint(7 << 3) + varint(1)
    )  # fmt: skip
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.write_bytes(junk + data + junk)
    assert_matches_onnx(read(path), path)


# --- external data ---------------------------------------------------------------------------


def test_external_data_present(tmp_path: Path) -> None:
    path = write_external_data(tmp_path / "m" / "1" / "model.onnx")
    sig = read(path)
    assert_matches_onnx(sig, path)
    assert sig.problems == ()


def test_external_data_missing(tmp_path: Path) -> None:
    path = write_external_data(tmp_path / "m" / "1" / "model.onnx")
    (path.parent / "model.onnx.data").unlink()
    sig = read(path)
    assert [p.kind for p in sig.problems] == ["external-data-missing"]
    assert "model.onnx.data" in sig.problems[0].message
    assert "'W'" in sig.problems[0].message and "'W2'" in sig.problems[0].message


def test_external_data_in_subdirectory_and_dot_dot_inside(tmp_path: Path) -> None:
    path = write_external_data(tmp_path / "m" / "1" / "model.onnx", location="weights/w.bin")
    assert read(path).problems == ()
    (tmp_path / "m" / "shared").mkdir()
    (path.parent / "weights" / "w.bin").rename(tmp_path / "m" / "shared" / "w.bin")
    set_external_location(path, "../shared/w.bin")  # leaves 1/ but stays in the model folder
    assert read(path).problems == ()


def test_external_data_out_of_range(tmp_path: Path) -> None:
    path = write_external_data(tmp_path / "m" / "1" / "model.onnx")
    data = path.parent / "model.onnx.data"
    data.write_bytes(data.read_bytes()[:300])
    sig = read(path)
    assert [p.kind for p in sig.problems] == ["external-data-out-of-range"]
    assert "'W2'" in sig.problems[0].message


def test_external_data_without_location(tmp_path: Path) -> None:
    path = write_external_data(tmp_path / "m" / "1" / "model.onnx")
    model = onnx.load(path, load_external_data=False)
    del model.graph.initializer[0].external_data[:]
    onnx.save_model(model, path)
    assert [p.kind for p in read(path).problems] == ["external-data-invalid"]


_TRACE: list[tuple[str, str]] | None = None
"""Where the audit hook records ("open", path) while a test traces file access."""


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _TRACE is not None and event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
        _TRACE.append(("open", os.fsdecode(args[0])))


@pytest.fixture
def fs_trace(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, str]]]:
    """Record every path opened (audit hook: open, os.open, io.open...) or stat()ed."""
    global _TRACE
    if not getattr(sys, "_pbtxt_lint_audit", False):
        sys.addaudithook(_audit)  # audit hooks cannot be removed, so install it once
        sys._pbtxt_lint_audit = True  # type: ignore[attr-defined]
    trace: list[tuple[str, str]] = []
    for name in ("stat", "lstat"):
        real: Callable[..., Any] = getattr(os, name)

        def traced(p: Any, *a: Any, _real: Callable[..., Any] = real, **k: Any) -> Any:
            if isinstance(p, (str, bytes, os.PathLike)):
                trace.append(("stat", os.fsdecode(p)))
            return _real(p, *a, **k)

        monkeypatch.setattr(os, name, traced)
    _TRACE = trace
    try:
        yield trace
    finally:
        _TRACE = None


@pytest.mark.parametrize("location", ["../../etc/passwd", "/etc/passwd", "../../outside.bin"])
def test_external_data_escaping_the_model_folder(
    tmp_path: Path, location: str, fs_trace: list[tuple[str, str]]
) -> None:
    (tmp_path / "outside.bin").write_bytes(bytes(4096))  # exists, so only the rule can flag it
    model_dir = tmp_path / "m"
    path = write_external_data(model_dir / "1" / "model.onnx")
    set_external_location(path, location)
    fs_trace.clear()
    sig = read_onnx(path, model_dir)
    assert [p.kind for p in sig.problems] == ["external-data-escapes"]
    assert location in sig.problems[0].message
    assert ("open", str(path)) in fs_trace, "the trace should see the model file"
    for _, touched in fs_trace:
        assert os.path.abspath(touched).startswith(str(model_dir) + os.sep), touched


def test_external_data_is_never_opened(tmp_path: Path, fs_trace: list[tuple[str, str]]) -> None:
    path = write_external_data(tmp_path / "m" / "1" / "model.onnx")
    fs_trace.clear()
    read(path)
    data = str(path.parent / "model.onnx.data")
    ops = [op for op, p in fs_trace if p == data]
    # existence and size only: the link check (realpath) and the size, never opened
    assert ops and set(ops) == {"stat"}


def test_model_onnx_directory(tmp_path: Path) -> None:
    """Triton loads ``model.onnx/model.onnx``; external data lives beside it."""
    model_dir = tmp_path / "m"
    inner = write_external_data(model_dir / "1" / "model.onnx" / "model.onnx")
    sig = read_onnx(model_dir / "1" / "model.onnx", model_dir)
    assert sig.path == inner
    assert sig.problems == ()
    assert_matches_onnx(sig, inner)


# --- files that cannot be read --------------------------------------------------------------


def _error(path: Path) -> ArtifactError:
    with pytest.raises(ArtifactError) as info:
        read(path)
    assert str(info.value) == info.value.message
    return info.value


def test_lfs_pointer(tmp_path: Path) -> None:
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        "size 1610614126\n"
    )
    err = _error(path)
    assert err.kind == "lfs-pointer"
    assert "git lfs pull" in err.message and "1610614126" in err.message


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.touch()
    assert _error(path).kind == "empty"


def test_missing_file_and_empty_directory(tmp_path: Path) -> None:
    assert _error(tmp_path / "1" / "model.onnx").kind == "not-a-file"
    (tmp_path / "1" / "model.onnx").mkdir(parents=True)
    err = _error(tmp_path / "1" / "model.onnx")
    assert err.kind == "not-a-file"
    assert "model.onnx/model.onnx" in err.message


def test_fifo_is_not_opened(tmp_path: Path) -> None:
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    os.mkfifo(path)
    assert _error(path).kind == "not-a-file"  # opening it would block forever


def test_unreadable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_model(
        build_model([], [("y", TensorProto.FLOAT, [1])]), tmp_path / "1" / "model.onnx"
    )

    def denied(*args: object, **kwargs: object) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", denied)  # chmod does not stop root, which CI often is
    err = _error(path)
    assert err.kind == "unreadable"
    assert "Permission denied" in err.message


def test_invalid_wire_type(tmp_path: Path) -> None:
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.write_bytes(b"\x08\x08" + varint(7 << 3 | 3) + b"\x00")
    err = _error(path)
    assert err.kind == "corrupt"
    assert "wire type 3" in err.message


def test_not_onnx_hints_at_what_it_is(tmp_path: Path) -> None:
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.write_bytes(b"PK\x03\x04" + bytes(100))
    err = _error(path)
    assert err.kind == "corrupt"
    assert "ZIP" in err.message


def test_protobuf_without_graph(tmp_path: Path) -> None:
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.write_bytes(onnx.ModelProto(ir_version=8).SerializeToString())
    err = _error(path)
    assert err.kind == "corrupt"
    assert "no ONNX graph" in err.message


def test_hostile_type_nesting(tmp_path: Path) -> None:
    """seq(seq(seq(...))) deeper than Python's recursion limit must be refused cleanly."""
    tp = helper.make_tensor_type_proto(1, [1]).SerializeToString()
    for _ in range(sys.getrecursionlimit() + 100):
        inner = len_field(1, len(tp)) + tp  # Sequence.elem_type
        tp = len_field(4, len(inner)) + inner  # TypeProto.sequence_type
    vi = len_field(1, 1) + b"x" + len_field(2, len(tp)) + tp
    graph = len_field(11, len(vi)) + vi
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.write_bytes(b"\x08\x08" + len_field(7, len(graph)) + graph)
    err = _error(path)
    assert err.kind == "corrupt"
    assert "nesting" in err.message


def test_hostile_string_length(tmp_path: Path) -> None:
    name = b"n" * (2 << 20)
    vi = len_field(1, len(name)) + name
    graph = len_field(11, len(vi)) + vi
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    path.write_bytes(len_field(7, len(graph)) + graph)
    assert _error(path).kind == "corrupt"


def test_truncated_mid_graph(tmp_path: Path) -> None:
    path = write_initializer_inputs(tmp_path / "1" / "model.onnx", 8)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    err = _error(path)
    assert err.kind == "truncated"
    assert "truncated" in err.message


def _rich_model_bytes() -> bytes:
    model = build_model(
        [("x", TensorProto.FLOAT, ["batch", 3]), ("s", TensorProto.STRING, None)],
        [("y", TensorProto.FLOAT, ["batch", 3])],
        initializers=[weight("w", [3]), weight("b", [2], TensorProto.INT64)],
        initializers_as_inputs=True,
        opsets=[("", 17), ("ai.onnx.ml", 3)],
    )
    model.graph.input.append(
        helper.make_value_info(
            "q", helper.make_sequence_type_proto(helper.make_tensor_type_proto(1, ["n"]))
        )
    )
    external = weight("e", [4])
    set_external_data(external, "e.bin", offset=0, length=16)
    external.ClearField("raw_data")
    model.graph.initializer.append(external)
    values = helper.make_tensor("sp", TensorProto.FLOAT, [1], [1.0])
    indices = helper.make_tensor("sp_i", TensorProto.INT64, [1], [0])
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [2]))
    model.graph.input.append(value_info("sp", TensorProto.FLOAT, [2]))
    data: bytes = model.SerializeToString()
    return data


def _check_agrees(path: Path, data: bytes, *, strict: bool) -> None:
    """read_onnx fails with ArtifactError, or agrees with protobuf's full parse.

    ``strict``: protobuf must accept whatever read_onnx accepts. That holds for truncation, which
    always breaks the outermost length; a corrupted node or weight, which read_onnx skips unseen,
    only breaks protobuf's parse.
    """
    path.write_bytes(data)
    try:
        sig = read(path)
    except ArtifactError as exc:
        assert exc.kind in {"truncated", "corrupt", "empty"}
        return
    try:
        model = onnx.ModelProto()
        model.ParseFromString(data)
    except Exception as exc:  # google.protobuf.message.DecodeError; protobuf ships no stubs
        if type(exc).__name__ != "DecodeError":
            raise
        assert not strict, "read_onnx accepted a prefix that protobuf rejects"
        return
    inputs, outputs, facts = expected(model)
    assert (sig.inputs, as_declared(sig.outputs), dict(sig.facts)) == (inputs, outputs, facts)


def test_truncated_at_every_offset(tmp_path: Path) -> None:
    data = _rich_model_bytes()
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir()
    for cut in range(1, len(data)):
        _check_agrees(path, data[:cut], strict=True)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(min_size=1, max_size=300))
@example(data=b"\x3a\xff\xff\xff\xff\x0f")
@example(data=b"\x08" + b"\xff" * 11)
@example(data=b"\x3a\x00")
def test_garbage_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    try:
        sig = read(path)
    except ArtifactError:
        return
    assert isinstance(sig, Signature)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=4)
)
def test_mutated_models(tmp_path: Path, edits: list[tuple[int, int]]) -> None:
    """Byte flips in a valid model: ArtifactError, or a result onnx.load agrees with."""
    data = bytearray(_rich_model_bytes())
    for pos, byte in edits:
        data[pos % len(data)] = byte
    path = tmp_path / "1" / "model.onnx"
    path.parent.mkdir(exist_ok=True)
    _check_agrees(path, bytes(data), strict=False)


# --- huge sparse files ------------------------------------------------------------------------

_PROBE = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path
    from pbtxt_lint.artifacts.onnx import read_onnx
    path = Path(sys.argv[1])
    def peak_kib():
        # Not ru_maxrss alone: Linux carries the parent's (pytest's) high-water mark across
        # fork+exec into it. VmHWM belongs to this process's own address space.
        try:
            with open("/proc/self/status") as status:
                return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
        except OSError:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    before = peak_kib()
    sig = read_onnx(path, path.parent.parent)
    after = peak_kib()
    print(json.dumps({
        "rss_growth_kib": after - before,
        "inputs": [[s.name, s.data_type, list(s.shape or [])] for s in sig.inputs],
        "problems": [p.kind for p in sig.problems],
    }))
    """
)


def _probe(path: Path) -> dict[str, Any]:
    """Run read_onnx on ``path`` in a fresh interpreter; return its timing and memory report."""
    if os.stat(path).st_blocks * 512 > 16 << 20:
        pytest.skip("the filesystem does not support sparse files")
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=60,
    )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.mark.parametrize("layout", ["onnx", "io-first", "split", "training-first"])
def test_huge_sparse_model(tmp_path: Path, layout: str) -> None:
    """A 2.5 GiB embedded payload is skipped, not read: fast, flat memory, no disk cost."""
    path = tmp_path / "m" / "1" / "model.onnx"
    assert write_big_embedded(path, [5 * GiB // 2], layout=layout) > 5 * GiB // 2
    result = _probe(path)
    assert result["inputs"] == [["X", "TYPE_FP32", ["batch", 4096]]]
    assert result["problems"] == ["protobuf-too-large"]
    assert result["rss_growth_kib"] < 16 * 1024


def test_huge_external_data(tmp_path: Path) -> None:
    path = tmp_path / "m" / "1" / "model.onnx"
    write_big_external(path, [GiB] * 3)
    result = _probe(path)
    assert result["problems"] == []
    assert result["rss_growth_kib"] < 16 * 1024  # 3 GiB of external data are not read
    os.truncate(path.parent / "model.onnx.data", 2 * GiB)
    sig = read(path)
    assert [p.kind for p in sig.problems] == ["external-data-out-of-range"]
    assert "'W2'" in sig.problems[0].message
