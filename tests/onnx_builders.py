"""Builders for tiny (and sparse huge) ONNX models used by tests, benchmarks and fixture scripts.

Small models are made with ``onnx.helper`` so they are exactly what real exporters write. Huge
models are written by hand in the protobuf wire format with the weight payloads left as holes in
a sparse file: a multi-GiB model then costs no disk space and a few milliseconds to create.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

Shape = Sequence[int | str | None] | None
"""Dims: int fixed, str dim_param, None unknown dim; None for the whole shape: unknown rank."""
IO = tuple[str, int, Shape]
"""(name, ONNX elem_type, shape) of a graph input or output."""

DEFAULT_OPSET = 17
DEFAULT_IR = 8
"""ONNX Runtime in recent Triton releases rejects the IR 14 that onnx 1.23 writes by default."""


def value_info(name: str, elem_type: int, shape: Shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem_type, shape)


def build_model(
    inputs: Sequence[IO],
    outputs: Sequence[IO],
    *,
    initializers: Sequence[TensorProto] = (),
    initializers_as_inputs: bool = False,
    ir_version: int = DEFAULT_IR,
    opsets: Sequence[tuple[str, int]] = (("", DEFAULT_OPSET),),
    producer_name: str = "pbtxt-lint-tests",
) -> onnx.ModelProto:
    """A model whose output ``j`` is ``Identity`` (same dtype) or ``Cast`` of input ``j``.

    With no inputs the outputs come from ``Constant`` nodes. Shapes are not reconciled: keep them
    compatible if the model must also load in ONNX Runtime.
    """
    nodes = []
    for j, (name, elem, shape) in enumerate(outputs):
        if inputs:
            src_name, src_elem, _ = inputs[j % len(inputs)]
            if src_elem == elem:
                nodes.append(helper.make_node("Identity", [src_name], [name]))
            else:
                nodes.append(helper.make_node("Cast", [src_name], [name], to=elem))
        else:
            dims = [d if isinstance(d, int) else 1 for d in (shape or [])]
            value = helper.make_tensor(f"{name}_value", elem, dims, [0] * int(np.prod(dims)))
            nodes.append(helper.make_node("Constant", [], [name], value=value))
    graph_inputs = [value_info(*io) for io in inputs]
    if initializers_as_inputs:
        graph_inputs += [value_info(t.name, t.data_type, list(t.dims)) for t in initializers]
    graph = helper.make_graph(
        nodes,
        "g",
        graph_inputs,
        [value_info(*io) for io in outputs],
        initializer=list(initializers),
    )
    return helper.make_model(
        graph,
        ir_version=ir_version,
        opset_imports=[helper.make_opsetid(domain, version) for domain, version in opsets],
        producer_name=producer_name,
    )


NodeSpec = tuple[str, str, Sequence[str], Sequence[str], dict[str, object]]
"""(name, op_type, inputs, outputs, attributes) of one node."""


def build_graph_model(
    inputs: Sequence[IO],
    outputs: Sequence[IO],
    nodes: Sequence[NodeSpec],
    *,
    constants: dict[str, Sequence[int]] | None = None,
    weights: dict[str, Sequence[int]] | None = None,
    value_infos: Sequence[IO] = (),
    opset: int = DEFAULT_OPSET,
    initializers_as_inputs: Sequence[str] = (),
) -> onnx.ModelProto:
    """A model written node by node, the way an exporter writes it.

    ``constants`` are 1-D INT64 initializers (shapes, axes, repeats) by value, ``weights``
    zero-filled FLOAT initializers by dims; ``initializers_as_inputs`` names initializers
    that are also listed as graph inputs (what torch.onnx's ``keep_initializers_as_inputs``
    writes), which ONNX Runtime treats as overridable inputs, not constants.
    """
    initializers = [
        numpy_helper.from_array(np.array(values, dtype=np.int64), name)
        for name, values in (constants or {}).items()
    ]
    initializers += [weight(name, dims) for name, dims in (weights or {}).items()]
    graph = helper.make_graph(
        [
            helper.make_node(op, list(ins), list(outs), name=name, **attrs)
            for name, op, ins, outs, attrs in nodes
        ],
        "g",
        [value_info(*io) for io in inputs]
        + [
            value_info(t.name, t.data_type, list(t.dims))
            for t in initializers
            if t.name in initializers_as_inputs
        ],
        [value_info(*io) for io in outputs],
        initializer=initializers,
        value_info=[value_info(*io) for io in value_infos],
    )
    return helper.make_model(
        graph,
        ir_version=DEFAULT_IR,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="pbtxt-lint-tests",
    )


def write_model(model: onnx.ModelProto, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, path)
    return path


def weight(name: str, shape: Sequence[int], elem_type: int = TensorProto.FLOAT) -> TensorProto:
    """A zero-filled initializer stored as raw_data."""
    dtype = helper.tensor_dtype_to_np_dtype(elem_type)
    return numpy_helper.from_array(np.zeros(shape, dtype=dtype), name)


def write_initializer_inputs(path: Path, ir_version: int) -> Path:
    """``Y = MatMul(X, W) + B`` with ``W`` and ``B`` initializers also listed as graph inputs.

    ONNX Runtime treats them as optional overridable inputs from IR 4, as constants before.
    """
    w = weight("W", [4, 3])
    b = weight("B", [3])
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["X", "W"], ["XW"]),
            helper.make_node("Add", ["XW", "B"], ["Y"]),
        ],
        "g",
        [
            value_info("X", TensorProto.FLOAT, ["batch", 4]),
            value_info("W", TensorProto.FLOAT, [4, 3]),
            value_info("B", TensorProto.FLOAT, [3]),
        ],
        [value_info("Y", TensorProto.FLOAT, ["batch", 3])],
        initializer=[w, b],
    )
    model = helper.make_model(
        graph, ir_version=ir_version, opset_imports=[helper.make_opsetid("", 9)]
    )
    return write_model(model, path)


def write_external_data(path: Path, location: str = "model.onnx.data") -> Path:
    """``Y = MatMul(X, W)`` with ``W`` (and ``W2``) stored in ``location`` next to ``path``."""
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["X", "W"], ["XW"]),
            helper.make_node("MatMul", ["XW", "W2"], ["Y"]),
        ],
        "g",
        [value_info("X", TensorProto.FLOAT, ["batch", 8])],
        [value_info("Y", TensorProto.FLOAT, ["batch", 8])],
        initializer=[weight("W", [8, 8]), weight("W2", [8, 8])],
    )
    model = helper.make_model(
        graph, ir_version=DEFAULT_IR, opset_imports=[helper.make_opsetid("", DEFAULT_OPSET)]
    )
    (path.parent / location).parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, path, save_as_external_data=True, location=location, size_threshold=0)
    return path


def set_external_location(path: Path, location: str) -> None:
    """Point every external initializer of the model at ``path`` to ``location`` (no data moved)."""
    model = onnx.load(path, load_external_data=False)
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location":
                entry.value = location
    onnx.save_model(model, path)


def write_sequence_input(path: Path) -> Path:
    """``Y = SequenceAt(S, I)``: a model with a sequence-typed input, which Triton cannot feed."""
    graph = helper.make_graph(
        [helper.make_node("SequenceAt", ["S", "I"], ["Y"])],
        "g",
        [
            helper.make_tensor_sequence_value_info("S", TensorProto.FLOAT, ["n", 3]),
            value_info("I", TensorProto.INT64, []),
        ],
        [value_info("Y", TensorProto.FLOAT, ["n", 3])],
    )
    model = helper.make_model(
        graph, ir_version=DEFAULT_IR, opset_imports=[helper.make_opsetid("", DEFAULT_OPSET)]
    )
    return write_model(model, path)


# --- hand-written wire format for sparse huge models ---------------------------------------


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def len_field(field: int, payload_len: int) -> bytes:
    """Tag and length prefix of a length-delimited field, without the payload."""
    return varint(field << 3 | 2) + varint(payload_len)


Chunk = bytes | int
"""Bytes to write, or the length of a hole (zeros that take no disk space)."""


def chunks_len(chunks: Sequence[Chunk]) -> int:
    return sum(c if isinstance(c, int) else len(c) for c in chunks)


def write_sparse(path: Path, chunks: Sequence[Chunk]) -> int:
    """Write ``chunks`` to ``path``, seeking over holes; returns the file size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        for chunk in chunks:
            if isinstance(chunk, int):
                f.seek(chunk, os.SEEK_CUR)
            else:
                f.write(chunk)
        size = f.tell()
        f.truncate(size)
    return size


def embedded_weight_chunks(
    name: str, payload_bytes: int, dims: Sequence[int] | None = None
) -> list[Chunk]:
    """A graph ``initializer`` field: a FLOAT tensor (1-D by default) whose raw_data is a hole."""
    shape = list(dims) if dims is not None else [payload_bytes // 4]
    header = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=shape)
    tensor: list[Chunk] = [header.SerializeToString(), len_field(9, payload_bytes), payload_bytes]
    return [len_field(5, chunks_len(tensor)), *tensor]


LAYER = 4096 * 4096 * 4
"""Bytes of one 4096x4096 FLOAT weight: ``layers=True`` models multiply X by such weights."""


def write_big_embedded(
    path: Path,
    weight_bytes: Sequence[int],
    layout: str = "onnx",
    ir_version: int = DEFAULT_IR,
    layers: bool = False,
) -> int:
    """A model ``Y = Identity(X)`` carrying unused embedded FLOAT weights of the given sizes.

    ``layers``: an MLP instead, ``Y = X @ W0 @ W1 ...`` over the weights of ``LAYER`` bytes
    (declared 4096x4096), so that shape inference walks nodes that read the big tensors.

    ``layout`` orders the fields the way different writers do:
    ``"onnx"``: one graph, weights before inputs (``onnx.save`` order);
    ``"io-first"``: one graph, inputs/outputs before the weights;
    ``"split"``: a graph field with the weights, the model header, then a second graph field with
    the inputs/outputs (protobuf merges the two);
    ``"training-first"``: the weights sit in a ``training_info`` field (20) before the graph.
    Returns the file size.
    """
    square = [i for i, size in enumerate(weight_bytes) if layers and size == LAYER]
    names = ["X", *(f"H{i}" for i in square[:-1]), "Y"]
    nodes = [
        helper.make_node("MatMul", [names[k], f"W{i}"], [names[k + 1]], name=f"/layer{k}/MatMul")
        for k, i in enumerate(square)
    ]
    io = helper.make_graph(
        nodes or [helper.make_node("Identity", ["X"], ["Y"])],
        "g",
        [value_info("X", TensorProto.FLOAT, ["batch", 4096])],
        [value_info("Y", TensorProto.FLOAT, ["batch", 4096])],
    ).SerializeToString()
    weights: list[Chunk] = []
    for i, size in enumerate(weight_bytes):
        dims = [4096, 4096] if i in square else [size // 4]
        weights += embedded_weight_chunks(f"W{i}", size, dims)
    header = helper.make_model(
        helper.make_graph([], "g", [], []),
        ir_version=ir_version,
        opset_imports=[helper.make_opsetid("", DEFAULT_OPSET)],
        producer_name="pbtxt-lint-tests",
    )
    header.ClearField("graph")
    head = header.SerializeToString()

    def graph(parts: list[Chunk]) -> list[Chunk]:
        return [len_field(7, chunks_len(parts)), *parts]

    if layout == "onnx":
        chunks = [head, *graph([*weights, io])]
    elif layout == "io-first":
        chunks = [head, *graph([io, *weights])]
    elif layout == "split":
        chunks = [*graph(weights), head, *graph([io])]
    elif layout == "training-first":
        init = [len_field(1, chunks_len(weights)), *weights]  # TrainingInfoProto.initialization
        chunks = [len_field(20, chunks_len(init)), *init, head, *graph([io])]
    else:
        raise ValueError(f"unknown layout {layout!r}")
    return write_sparse(path, chunks)


def write_big_external(
    path: Path, weight_bytes: Sequence[int], location: str = "model.onnx.data"
) -> int:
    """Like :func:`write_big_embedded` but the weights live in one sparse external data file.

    Returns the size of the data file; ``path`` itself stays a few KiB.
    """
    initializers = []
    offset = 0
    for i, size in enumerate(weight_bytes):
        tensor = TensorProto(name=f"W{i}", data_type=TensorProto.FLOAT, dims=[size // 4])
        tensor.data_location = TensorProto.EXTERNAL
        for key, value in (("location", location), ("offset", offset), ("length", size)):
            tensor.external_data.add(key=key, value=str(value))
        initializers.append(tensor)
        offset += size
    graph = helper.make_graph(
        [helper.make_node("Identity", ["X"], ["Y"])],
        "g",
        [value_info("X", TensorProto.FLOAT, ["batch", 4096])],
        [value_info("Y", TensorProto.FLOAT, ["batch", 4096])],
        initializer=initializers,
    )
    model = helper.make_model(
        graph, ir_version=DEFAULT_IR, opset_imports=[helper.make_opsetid("", DEFAULT_OPSET)]
    )
    write_model(model, path)
    return write_sparse(path.parent / location, [offset])
