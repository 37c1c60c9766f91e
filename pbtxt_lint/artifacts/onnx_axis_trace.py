"""The walk of an ONNX graph that gives every value the origin of each of its axes.

`trace_axes` walks the nodes once, in topological order, and gives every value the
origin of each of its axes (`Origin`): a fixed size, an input's dim (dims sharing a
`dim_param` share an origin), a count a node computes from the data
(NonMaxSuppression, NonZero, TopK with a computed k, ...), or unknown. Shapes are not
computed (ONNX Runtime's inference is `onnx_infer`): only which input dim or node an
axis follows, through the ops that keep, move or drop axes (element-wise ops,
convolutions and pools, MatMul, Gemm, Transpose, Reshape to a shape built from
`Shape`, Concat, Gather, Squeeze, Unsqueeze, Slice, Split, reductions, LSTM/GRU/RNN).
An op it does not know gives unknown axes, which never produce a finding. It also
records which input dims the graph requires equal (broadcasting, concatenation,
matrix products) and which axis a recurrent op reads as its batch.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from pbtxt_lint.artifacts.onnx_axes import (
    DATA_COUNTS,
    RECURRENT,
    Axes,
    AxisTrace,
    DataCount,
    InputDim,
    Origin,
)
from pbtxt_lint.artifacts.onnx_axis_ops import HANDLERS, Value, attr_int
from pbtxt_lint.artifacts.onnx_graph import INT32, INT64, Graph, Node

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.onnx import _Type
    from pbtxt_lint.artifacts.signature import Dim

MAX_SECONDS = 1.0
"""Wall time of one trace; a graph that takes longer is not traced (no finding)."""


def declared_axes(name: str, ty: _Type | None) -> Axes | None:
    """The origins of a graph input's declared dims."""
    if ty is None or ty.dims is None:
        return None
    return tuple(_declared_dim(name, axis, d) for axis, d in enumerate(ty.dims))


def _declared_dim(name: str, axis: int, d: Dim) -> Origin:
    if isinstance(d, int) and d >= 0:
        return d
    if isinstance(d, str) and d:
        return InputDim(d, d, name, axis)
    return InputDim(f"\0{name}:{axis}", "", name, axis)


def worth_tracing(
    graph: Graph,
    inputs: Sequence[tuple[str, _Type | None]],
    outputs: Sequence[tuple[str, _Type | None]],
) -> bool:
    """Whether the declarations leave axis 0 in doubt: inputs whose dim 0 have different
    names, a dim 0 name at another axis, an output whose dim 0 is no input's, or a node
    that counts from the data or runs over a sequence. The common export (one `batch`
    name at axis 0 everywhere) is not traced."""
    firsts = {_dim0(ty) for _, ty in inputs}
    if any(isinstance(d, int) and d >= 0 for d in firsts) or None in firsts:
        return False  # a fixed dim 0 cannot batch at all (PL612)
    if len(firsts) > 1:
        return True
    for _, ty in (*inputs, *outputs):
        dims = ty.dims if ty is not None and ty.dims is not None else ()
        if any(isinstance(d, str) and (d in firsts or "batch" in d.lower()) for d in dims[1:]):
            return True
    if any(_dim0(ty) not in firsts for _, ty in outputs):
        return True
    return any(node.op in DATA_COUNTS or node.op in RECURRENT for node in graph.nodes)


def _dim0(ty: _Type | None) -> Dim | None:
    return ty.dims[0] if ty is not None and ty.dims else None


def trace_axes(
    graph: Graph,
    inputs: Sequence[tuple[str, _Type | None]],
    output_names: Sequence[str],
) -> AxisTrace | None:
    """Follow every input axis through the graph to its outputs (None: over the time
    budget, `MAX_SECONDS`)."""
    deadline = time.monotonic() + MAX_SECONDS
    tracer = _Tracer(graph)
    declared: dict[str, Axes | None] = {}
    for name, ty in inputs:
        if name not in tracer.env:
            declared[name] = declared_axes(name, ty)
            tracer.env[name] = Value(declared[name])
    for count, node in enumerate(_ordered(graph.nodes, set(tracer.env))):
        if count % 1024 == 0 and time.monotonic() > deadline:
            return None
        tracer.node(node)
    outputs = {name: tracer.axes(name) for name in output_names}
    return AxisTrace(
        declared,
        outputs,
        frozenset(tracer.equal),
        dict(tracer.recurrent),
        tuple(tracer.counting),
    )


def _ordered(nodes: Sequence[Node], defined: set[str]) -> Iterator[Node]:
    """The nodes in an order where each comes after the nodes it reads (a node that
    reads a name nothing defines, or sits on a cycle, is left out)."""
    made: dict[str, int] = {}
    for node in nodes:
        for out in node.outputs:
            if out:
                made.setdefault(out, node.index)
    waiting = [0] * len(nodes)
    readers: dict[int, list[int]] = {}
    for node in nodes:
        for name in dict.fromkeys(node.inputs):
            if name and name not in defined and name in made:
                waiting[node.index] += 1
                readers.setdefault(made[name], []).append(node.index)
    ready = [n.index for n in nodes if waiting[n.index] == 0]
    while ready:
        index = ready.pop()
        yield nodes[index]
        for reader in readers.get(index, ()):
            waiting[reader] -= 1
            if waiting[reader] == 0:
                ready.append(reader)


_SAME = frozenset(
    {"Identity", "Cast", "CastLike", "Abs", "Neg", "Relu", "LeakyRelu", "Elu", "Selu", "Celu",
     "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Floor",
     "Ceil", "Round", "Erf", "Sin", "Cos", "Not", "IsNaN", "IsInf", "Mish", "Gelu", "Softplus",
     "Softsign", "Sign", "Softmax", "LogSoftmax", "Hardmax", "LRN", "LpNormalization",
     "MeanVarianceNormalization", "InstanceNormalization", "BatchNormalization",
     "LayerNormalization", "GroupNormalization", "Dropout", "Clip", "PRelu", "CumSum",
     "QuantizeLinear", "DequantizeLinear", "Trilu", "ScatterND", "ScatterElements", "Scatter",
     "ThresholdedRelu", "Shrink", "DynamicQuantizeLinear"}
)  # fmt: skip
"""Output 0 has input 0's shape."""
_KEEP_AXIS0 = frozenset(
    {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool",
     "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool", "Resize", "Upsample", "Pad",
     "DepthToSpace", "SpaceToDepth", "MaxRoiPool", "GridSample", "Col2Im"}
)  # fmt: skip
"""Output 0 keeps input 0's rank and axis 0 (the batch of an image); the other axes
change size."""
_BROADCAST = frozenset(
    {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "Greater", "LessOrEqual",
     "GreaterOrEqual", "And", "Or", "Xor", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
     "Max", "Min", "Sum", "Mean", "Where"}
)  # fmt: skip


class _Tracer:
    def __init__(self, graph: Graph) -> None:
        self.env: dict[str, Value] = {}
        for name, tensor in graph.initializers.items():
            small = tensor.values is not None and tensor.elem in (INT64, INT32)
            elements = tensor.values if small and len(tensor.dims) <= 1 else None
            self.env[name] = Value(tuple(tensor.dims), elements)
        self.equal: set[frozenset[InputDim]] = set()
        self.recurrent: dict[InputDim, str] = {}
        self.counting: list[str] = []

    def value(self, name: str) -> Value | None:
        return self.env.get(name) if name else None

    def axes(self, name: str) -> Axes | None:
        value = self.value(name)
        return value.axes if value is not None else None

    def elements(self, name: str) -> Axes | None:
        value = self.value(name)
        return value.elements if value is not None else None

    def ints(self, name: str) -> tuple[int, ...] | None:
        found = self.elements(name)
        if found is None or not all(isinstance(e, int) and not isinstance(e, bool) for e in found):
            return None
        return tuple(e for e in found if isinstance(e, int))

    def join(self, a: Origin, b: Origin) -> Origin:
        """One axis where two values meet (broadcasting, concatenation): they must be
        equal, so two input dims meeting here are recorded as equal."""
        if a is None or a == 1:
            return b
        if b is None or b == 1:
            return a
        if isinstance(a, InputDim) and isinstance(b, InputDim) and a != b:
            self.equal.add(frozenset((a, b)))
        return a if not isinstance(a, int) or isinstance(b, int) else b

    def broadcast(self, shapes: Sequence[Axes]) -> Axes:
        rank = max(len(s) for s in shapes)
        result: list[Origin] = []
        for k in range(rank):
            found: Origin = 1
            for shape in shapes:
                offset = rank - len(shape)
                if k >= offset:
                    found = self.join(found, shape[k - offset])
            result.append(found)
        return tuple(result)

    # --- one node --------------------------------------------------------------------------

    def node(self, node: Node) -> None:
        results = self.results(node) if node.domain in ("", "ai.onnx") else []
        for k, name in enumerate(node.outputs):
            if name:
                self.env[name] = results[k] if k < len(results) else Value(None)

    def results(self, node: Node) -> list[Value]:
        op = node.op
        first = self.value(node.inputs[0]) if node.inputs else None
        axes = first.axes if first is not None else None
        if op in _SAME:
            return [Value(axes, first.elements if first is not None else None)] * 2
        if op in _KEEP_AXIS0:
            return [Value((axes[0],) + (None,) * (len(axes) - 1) if axes else None)]
        if op in _BROADCAST:
            shapes = [self.axes(name) for name in node.inputs if name]
            if any(s is None for s in shapes) or not shapes:
                return [Value(None)]
            return [Value(self.broadcast([s for s in shapes if s is not None]))]
        if op in DATA_COUNTS:
            return self.data_count(node, axes)
        if op in RECURRENT:
            return self.recurrent_node(node, axes)
        handler = HANDLERS.get(op)
        return handler(self, node, axes) if handler is not None else []

    def data_count(self, node: Node, axes: Axes | None) -> list[Value]:
        count = DataCount(node.label, node.op)
        self.counting.append(count.label)
        if node.op == "NonMaxSuppression":
            return [Value((count, 3))]
        if node.op == "NonZero":
            return [Value((len(axes) if axes is not None else None, count))]
        if node.op == "Compress":
            axis = attr_int(node, "axis")
            if axis is None or axes is None:
                return [Value((count,))]
            axis %= max(len(axes), 1)
            return [Value(axes[:axis] + (count,) + axes[axis + 1 :])]
        return [Value((count,)), Value((count,)), Value((count,)), Value((count,))]

    def recurrent_node(self, node: Node, axes: Axes | None) -> list[Value]:
        """LSTM/GRU/RNN: X is [seq, batch, input] (layout 0) or [batch, seq, input]."""
        if axes is None or len(axes) != 3:
            return []
        batch_first = attr_int(node, "layout") == 1
        seq, batch = (axes[1], axes[0]) if batch_first else (axes[0], axes[1])
        if not batch_first and isinstance(batch, InputDim):
            self.recurrent[batch] = f"node '{node.label}' ({node.op})"
        if batch_first:
            return [Value((batch, seq, None, None)), Value((batch, None, None))] * 2
        return [Value((seq, None, batch, None)), Value((None, batch, None))] * 2
