"""Where each axis of an ONNX graph's outputs comes from: which input dim, or which node.

With `max_batch_size > 0` Triton treats axis 0 of every input and output as the batch:
it checks that every input of a request has the same dim 0
(`InferenceRequest::Normalize`), concatenates requests along it (dynamic batching) and
splits each output along it, one slice per request
(`BackendOutputResponder::ProcessTensor`). A graph may disagree: a second input whose
dim 0 counts boxes, an output whose dim 0 counts the detections NonMaxSuppression
selected over the whole batch, a sequence model whose batch sits at axis 1. The
declared dim names hint at it; this module follows the graph to show it.

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
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pbtxt_lint.artifacts.onnx_graph import INT32, INT64, Graph, Node

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.onnx import _Type
    from pbtxt_lint.artifacts.signature import Dim


@dataclass(frozen=True, slots=True)
class InputDim:
    """A dynamic dim of a graph input: every dim named `name` shares it; an unnamed one
    is its own (`input`, `axis`)."""

    key: str
    name: str = field(compare=False)
    input: str = field(compare=False)
    axis: int = field(compare=False)

    @property
    def label(self) -> str:
        return self.name or f"dim {self.axis} of '{self.input}'"


@dataclass(frozen=True, slots=True)
class DataCount:
    """A size a node computes from the data: how many boxes NonMaxSuppression keeps."""

    node: str
    op: str

    @property
    def label(self) -> str:
        return f"node '{self.node}' ({self.op})" if self.node != self.op else self.op


Origin = int | InputDim | DataCount | None
"""A fixed size, an input's dynamic dim, a data-dependent count, or unknown."""
Axes = tuple[Origin, ...]

MAX_RANK = 64
"""Longest axes or shape-tensor elements followed: past it a value is unknown (a chain of
Concat nodes that each double a shape tensor took 24 GB in a few dozen nodes)."""
MAX_SECONDS = 1.0
"""Wall time of one trace; a graph that takes longer is not traced (no finding)."""
DATA_COUNTS = frozenset({"NonMaxSuppression", "NonZero", "Compress", "Unique"})
"""Ops whose output size depends on the values of their inputs."""


@dataclass(frozen=True)
class AxisTrace:
    """The origin of every axis of the graph's inputs and outputs."""

    inputs: Mapping[str, Axes | None]
    outputs: Mapping[str, Axes | None]
    equal: frozenset[frozenset[InputDim]] = frozenset()
    """Pairs of input dims the graph combines in a way that requires them equal."""
    recurrent_batch: Mapping[InputDim, str] = field(default_factory=dict)
    """Input dims a recurrent node reads as its batch axis (not axis 0 of its input),
    with the node's label."""
    counting: tuple[str, ...] = ()
    """Labels of the nodes that compute a size from the data."""

    def same(self, a: Origin, b: Origin) -> bool:
        """Whether two origins are one size: the same dim, or dims the graph equates."""
        if a == b:
            return True
        return (
            isinstance(a, InputDim)
            and isinstance(b, InputDim)
            and (frozenset((a, b)) in self.equal)
        )


@dataclass(slots=True)
class _Value:
    axes: Axes | None
    elements: Axes | None = None
    """For a small integer tensor of rank 0 or 1 (a shape being computed): the origin
    of each element's value."""


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
    return any(node.op in DATA_COUNTS or node.op in _RECURRENT for node in graph.nodes)


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
            tracer.env[name] = _bounded(_Value(declared[name]))
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


def _bounded(value: _Value) -> _Value:
    """`value`, with axes and elements past `MAX_RANK` unknown."""
    if value.axes is not None and len(value.axes) > MAX_RANK:
        return _Value(None)
    if value.elements is not None and len(value.elements) > MAX_RANK:
        return _Value(value.axes)
    return value


_BROADCAST = frozenset(
    {"Add", "Sub", "Mul", "Div", "Pow", "Mod", "Equal", "Less", "Greater", "LessOrEqual",
     "GreaterOrEqual", "And", "Or", "Xor", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
     "Max", "Min", "Sum", "Mean", "Where"}
)  # fmt: skip
_REDUCE = frozenset(
    {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
     "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin"}
)  # fmt: skip
_RECURRENT = frozenset({"LSTM", "GRU", "RNN"})


class _Tracer:
    def __init__(self, graph: Graph) -> None:
        self.env: dict[str, _Value] = {}
        for name, tensor in graph.initializers.items():
            small = tensor.values is not None and tensor.elem in (INT64, INT32)
            elements = tensor.values if small and len(tensor.dims) <= 1 else None
            self.env[name] = _bounded(_Value(tuple(tensor.dims), elements))
        self.equal: set[frozenset[InputDim]] = set()
        self.recurrent: dict[InputDim, str] = {}
        self.counting: list[str] = []

    def value(self, name: str) -> _Value | None:
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
                self.env[name] = _bounded(results[k]) if k < len(results) else _Value(None)

    def results(self, node: Node) -> list[_Value]:
        op = node.op
        first = self.value(node.inputs[0]) if node.inputs else None
        axes = first.axes if first is not None else None
        if op in _SAME:
            return [_Value(axes, first.elements if first is not None else None)] * 2
        if op in _KEEP_AXIS0:
            return [_Value((axes[0],) + (None,) * (len(axes) - 1) if axes else None)]
        if op in _BROADCAST:
            shapes = [self.axes(name) for name in node.inputs if name]
            if any(s is None for s in shapes) or not shapes:
                return [_Value(None)]
            return [_Value(self.broadcast([s for s in shapes if s is not None]))]
        if op in DATA_COUNTS:
            return self.data_count(node, axes)
        if op in _RECURRENT:
            return self.recurrent_node(node, axes)
        handler = _HANDLERS.get(op)
        return handler(self, node, axes) if handler is not None else []

    def data_count(self, node: Node, axes: Axes | None) -> list[_Value]:
        count = DataCount(node.label, node.op)
        self.counting.append(count.label)
        if node.op == "NonMaxSuppression":
            return [_Value((count, 3))]
        if node.op == "NonZero":
            return [_Value((len(axes) if axes is not None else None, count))]
        if node.op == "Compress":
            axis = _attr_int(node, "axis")
            if axis is None or axes is None:
                return [_Value((count,))]
            axis %= max(len(axes), 1)
            return [_Value(axes[:axis] + (count,) + axes[axis + 1 :])]
        return [_Value((count,)), _Value((count,)), _Value((count,)), _Value((count,))]

    def recurrent_node(self, node: Node, axes: Axes | None) -> list[_Value]:
        """LSTM/GRU/RNN: X is [seq, batch, input] (layout 0) or [batch, seq, input]."""
        if axes is None or len(axes) != 3:
            return []
        batch_first = _attr_int(node, "layout") == 1
        seq, batch = (axes[1], axes[0]) if batch_first else (axes[0], axes[1])
        if not batch_first and isinstance(batch, InputDim):
            self.recurrent[batch] = f"node '{node.label}' ({node.op})"
        if batch_first:
            return [_Value((batch, seq, None, None)), _Value((batch, None, None))] * 2
        return [_Value((seq, None, batch, None)), _Value((None, batch, None))] * 2


# --- ops that move, add or drop axes ---------------------------------------------------------


def _attr_int(node: Node, name: str) -> int | None:
    attr = node.attrs.get(name)
    return attr.i if attr is not None else None


def _attr_ints(node: Node, name: str) -> list[int] | None:
    """A list of axes (None: no such attribute, or longer than any rank followed)."""
    attr = node.attrs.get(name)
    return list(attr.ints) if attr is not None and len(attr.ints) <= MAX_RANK else None


def _axes_argument(t: _Tracer, node: Node, index: int) -> list[int] | None:
    """`axes` as an attribute (older opsets) or as input `index` (newer)."""
    found = _attr_ints(node, "axes")
    if found is not None:
        return found
    if len(node.inputs) > index and node.inputs[index]:
        values = t.ints(node.inputs[index])
        return list(values) if values is not None else None
    return None


def _transpose(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    if axes is None:
        return [_Value(None)]
    perm = _attr_ints(node, "perm") if "perm" in node.attrs else list(range(len(axes)))[::-1]
    if perm is None or sorted(perm) != list(range(len(axes))):
        return [_Value(None)]
    return [_Value(tuple(axes[p] for p in perm))]


def _matmul(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    """numpy.matmul: [..., M, K] x [..., K, N] -> [..., M, N]; a rank-1 side loses its axis."""
    other = t.axes(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or other is None or not axes or not other:
        return [_Value(None)]
    if len(axes) == 1 and len(other) == 1:
        t.join(axes[0], other[0])
        return [_Value(())]
    if len(axes) == 1:
        t.join(axes[0], other[-2])
        return [_Value(other[:-2] + other[-1:])]
    if len(other) == 1:
        t.join(axes[-1], other[0])
        return [_Value(axes[:-1])]
    t.join(axes[-1], other[-2])
    batch = t.broadcast([axes[:-2], other[:-2]]) if len(axes) > 2 or len(other) > 2 else ()
    return [_Value(batch + (axes[-2], other[-1]))]


def _gemm(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    other = t.axes(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or len(axes) != 2 or other is None or len(other) != 2:
        return [_Value(None)]
    rows = axes[1] if _attr_int(node, "transA") else axes[0]
    columns = other[0] if _attr_int(node, "transB") else other[1]
    return [_Value((rows, columns))]


def _reshape(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    target = t.elements(node.inputs[1]) if len(node.inputs) > 1 else None
    if target is None:
        return [_Value(None)]
    keep_zero = _attr_int(node, "allowzero") == 1
    result: list[Origin] = []
    for k, element in enumerate(target):
        if element == 0 and not keep_zero:
            result.append(axes[k] if axes is not None and k < len(axes) else None)
        elif element == -1:
            result.append(None)
        else:
            result.append(element)
    if axes is not None and len(axes) == len(result) and None in result:
        # [-1, 85] of a [batch, 25200, 85] tensor is not known to be the batch, but a -1
        # that stands where every other dim is carried over is that axis.
        missing = [k for k, r in enumerate(result) if r is None]
        if len(missing) == 1 and all(r == axes[k] for k, r in enumerate(result) if r is not None):
            result[missing[0]] = axes[missing[0]]
    return [_Value(tuple(result))]


def _flatten(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    axis = _attr_int(node, "axis")
    axis = 1 if axis is None else axis
    if axes is None:
        return [_Value(None)]
    if axis < 0:
        axis += len(axes)
    first = axes[0] if axis == 1 else None if axis != 0 else 1
    return [_Value((first, None))]


def _concat(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    values = [t.value(name) for name in node.inputs if name]
    if any(v is None for v in values) or not values:
        return [_Value(None)]
    if all(v is not None and v.elements is not None for v in values):
        joined = tuple(e for v in values if v is not None and v.elements for e in v.elements)
        return [_Value((len(joined),), joined)]
    shapes = [v.axes for v in values if v is not None]
    if any(s is None for s in shapes):
        return [_Value(None)]
    rank = len(shapes[0] or ())
    axis = _attr_int(node, "axis") or 0
    axis = axis + rank if axis < 0 else axis
    if any(len(s or ()) != rank for s in shapes) or not 0 <= axis < rank:
        return [_Value(None)]
    result: list[Origin] = []
    for k in range(rank):
        if k == axis:
            result.append(None)
            continue
        found: Origin = None
        for shape in shapes:
            assert shape is not None
            found = shape[k] if found is None else t.join(found, shape[k])
        result.append(found)
    return [_Value(tuple(result))]


def _split(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    if axes is None:
        return []
    axis = _attr_int(node, "axis") or 0
    axis = axis + len(axes) if axis < 0 else axis
    if not 0 <= axis < len(axes):
        return []
    part = _Value(axes[:axis] + (None,) + axes[axis + 1 :])
    return [part] * len(node.outputs)


def _squeeze(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    dropped = _axes_argument(t, node, 1)
    first = t.value(node.inputs[0]) if node.inputs else None
    if axes is None or dropped is None:
        return [_Value(None)]
    dropped = [a + len(axes) if a < 0 else a for a in dropped]
    elements = first.elements if first is not None and len(axes) == 1 else None
    return [_Value(tuple(o for k, o in enumerate(axes) if k not in dropped), elements)]


def _unsqueeze(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    added = _axes_argument(t, node, 1)
    first = t.value(node.inputs[0]) if node.inputs else None
    if axes is None or added is None:
        return [_Value(None)]
    rank = len(axes) + len(added)
    added = sorted(a + rank if a < 0 else a for a in added)
    result = list(axes)
    for a in added:
        result.insert(a, 1)
    elements = first.elements if first is not None and not axes else None
    return [_Value(tuple(result), elements)]


def _slice(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    if axes is None:
        return [_Value(None)]
    sliced = _axes_argument(t, node, 3)
    starts = _attr_ints(node, "starts") or (
        t.ints(node.inputs[1]) if len(node.inputs) > 1 else None
    )
    ends = _attr_ints(node, "ends") or (t.ints(node.inputs[2]) if len(node.inputs) > 2 else None)
    if sliced is None:
        sliced = list(range(len(starts))) if starts is not None else None
    if sliced is None:
        return [_Value(tuple(None for _ in axes))]
    sliced = [a + len(axes) if a < 0 else a for a in sliced]
    first = t.value(node.inputs[0])
    elements = None
    if first is not None and first.elements is not None and starts and ends and sliced == [0]:
        elements = first.elements[slice(starts[0], ends[0])]
    whole = (
        [s == 0 and e >= 1 << 31 for s, e in zip(starts, ends, strict=False)]
        if starts is not None and ends is not None
        else [False] * len(sliced)
    )
    result = list(axes)
    for k, a in enumerate(sliced):
        if 0 <= a < len(result) and not (k < len(whole) and whole[k]):
            result[a] = None
    return [_Value(tuple(result), elements)]


def _gather(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    indices = t.value(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or indices is None or indices.axes is None:
        return [_Value(None)]
    axis = _attr_int(node, "axis") or 0
    axis = axis + len(axes) if axis < 0 else axis
    if not 0 <= axis < len(axes):
        return [_Value(None)]
    first = t.value(node.inputs[0])
    elements = None
    if first is not None and first.elements is not None and indices.elements is not None:
        picked = [first.elements[i] for i in indices.elements if isinstance(i, int)
                  and -len(first.elements) <= i < len(first.elements)]  # fmt: skip
        elements = tuple(picked) if len(picked) == len(indices.elements) else None
    return [_Value(axes[:axis] + indices.axes + axes[axis + 1 :], elements)]


def _shape(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    if axes is None:
        return [_Value(None)]
    start = _attr_int(node, "start") or 0
    end = _attr_int(node, "end")
    picked = axes[start:end] if end is not None else axes[start:]
    return [_Value((len(picked),), picked)]


def _constant(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    attr = node.attrs.get("value")
    if attr is not None and attr.t is not None:
        tensor = attr.t
        small = (
            tensor.values is not None and tensor.elem in (INT64, INT32) and len(tensor.dims) <= 1
        )
        return [_Value(tuple(tensor.dims), tensor.values if small else None)]
    ints = _attr_ints(node, "value_ints")
    if ints:
        return [_Value((len(ints),), tuple(ints))]
    single = _attr_int(node, "value_int")
    if single is not None:
        return [_Value((), (single,))]
    return [_Value(None)]


def _constant_of_shape(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    return [_Value(t.elements(node.inputs[0]) if node.inputs else None)]


def _expand(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    target = t.elements(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or target is None:
        return [_Value(None)]
    return [_Value(t.broadcast([axes, target]))]


def _tile(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    repeats = t.ints(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or repeats is None or len(repeats) != len(axes):
        return [_Value(None)]
    return [_Value(tuple(o if r == 1 else None for o, r in zip(axes, repeats, strict=True)))]


def _reduce(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    if axes is None:
        return [_Value(None)]
    if node.op in ("ArgMax", "ArgMin"):
        axis = _attr_int(node, "axis") or 0
        reduced: list[int] | None = [axis]
    else:
        reduced = _axes_argument(t, node, 1)
        if reduced is None or not reduced:
            return [_Value(None)]
    assert reduced is not None
    reduced = [a + len(axes) if a < 0 else a for a in reduced]
    keep = _attr_int(node, "keepdims") != 0
    result = [1 if k in reduced else o for k, o in enumerate(axes)] if keep else [
        o for k, o in enumerate(axes) if k not in reduced
    ]  # fmt: skip
    return [_Value(tuple(result))]


def _top_k(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    if axes is None:
        return [_Value(None), _Value(None)]
    axis = _attr_int(node, "axis")
    axis = -1 if axis is None else axis
    axis = axis + len(axes) if axis < 0 else axis
    if not 0 <= axis < len(axes):
        return [_Value(None), _Value(None)]
    k = t.ints(node.inputs[1]) if len(node.inputs) > 1 else None
    size: Origin = k[0] if k is not None and len(k) == 1 else None
    if size is None and len(node.inputs) > 1:
        count = t.elements(node.inputs[1])
        size = count[0] if count is not None and len(count) == 1 else None
    shaped = _Value(axes[:axis] + (size,) + axes[axis + 1 :])
    return [shaped, shaped]


def _roi_align(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    rois = t.axes(node.inputs[1]) if len(node.inputs) > 1 else None
    channels = axes[1] if axes is not None and len(axes) == 4 else None
    return [_Value(((rois[0] if rois else None), channels, None, None))]


def _size(t: _Tracer, node: Node, axes: Axes | None) -> list[_Value]:
    return [_Value((), (None,))]


_HANDLERS: dict[str, Callable[[_Tracer, Node, Axes | None], list[_Value]]] = {
    "Transpose": _transpose,
    "MatMul": _matmul,
    "MatMulInteger": _matmul,
    "Gemm": _gemm,
    "Reshape": _reshape,
    "Flatten": _flatten,
    "Concat": _concat,
    "Split": _split,
    "Squeeze": _squeeze,
    "Unsqueeze": _unsqueeze,
    "Slice": _slice,
    "Gather": _gather,
    "Shape": _shape,
    "Size": _size,
    "Constant": _constant,
    "ConstantOfShape": _constant_of_shape,
    "Expand": _expand,
    "Tile": _tile,
    "TopK": _top_k,
    "RoiAlign": _roi_align,
    **dict.fromkeys(_REDUCE, _reduce),
}
