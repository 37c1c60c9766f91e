"""What each op does to the axes of its inputs: keeps, moves, adds or drops them
(Transpose, MatMul, Gemm, Reshape to a shape built from `Shape`, Concat, Gather,
Squeeze, Unsqueeze, Slice, Split, reductions, ...).

One function per op, apart from the walk (`onnx_axis_trace`), which calls them through
`HANDLERS` and serves them what it knows of each value so far (`Tracer`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from pbtxt_lint.artifacts.onnx_axes import Axes, Origin
from pbtxt_lint.artifacts.onnx_graph import INT32, INT64, Node


@dataclass(slots=True)
class Value:
    axes: Axes | None
    elements: Axes | None = None
    """For a small integer tensor of rank 0 or 1 (a shape being computed): the origin
    of each element's value."""


class Tracer(Protocol):
    """The walk (`onnx_axis_trace`) as the ops need it: each value traced so far."""

    def value(self, name: str) -> Value | None:
        """The traced value named `name` (None: not traced, or no name)."""

    def axes(self, name: str) -> Axes | None:
        """The origins of the value's axes."""

    def elements(self, name: str) -> Axes | None:
        """For a small integer tensor (a shape being computed): each element's origin."""

    def ints(self, name: str) -> tuple[int, ...] | None:
        """The elements, when every one is a known integer."""

    def join(self, a: Origin, b: Origin) -> Origin:
        """One axis where two values meet (the graph requires them equal)."""

    def broadcast(self, shapes: Sequence[Axes]) -> Axes:
        """The shape numpy broadcasting gives `shapes`, each axis joined."""


def attr_int(node: Node, name: str) -> int | None:
    attr = node.attrs.get(name)
    return attr.i if attr is not None else None


def _attr_ints(node: Node, name: str) -> list[int] | None:
    attr = node.attrs.get(name)
    return list(attr.ints) if attr is not None else None


def _axes_argument(t: Tracer, node: Node, index: int) -> list[int] | None:
    """`axes` as an attribute (older opsets) or as input `index` (newer)."""
    found = _attr_ints(node, "axes")
    if found is not None:
        return found
    if len(node.inputs) > index and node.inputs[index]:
        values = t.ints(node.inputs[index])
        return list(values) if values is not None else None
    return None


def _transpose(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    if axes is None:
        return [Value(None)]
    perm = _attr_ints(node, "perm") or list(range(len(axes)))[::-1]
    if sorted(perm) != list(range(len(axes))):
        return [Value(None)]
    return [Value(tuple(axes[p] for p in perm))]


def _matmul(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    """numpy.matmul: [..., M, K] x [..., K, N] -> [..., M, N]; a rank-1 side loses its axis."""
    other = t.axes(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or other is None or not axes or not other:
        return [Value(None)]
    if len(axes) == 1 and len(other) == 1:
        t.join(axes[0], other[0])
        return [Value(())]
    if len(axes) == 1:
        t.join(axes[0], other[-2])
        return [Value(other[:-2] + other[-1:])]
    if len(other) == 1:
        t.join(axes[-1], other[0])
        return [Value(axes[:-1])]
    t.join(axes[-1], other[-2])
    batch = t.broadcast([axes[:-2], other[:-2]]) if len(axes) > 2 or len(other) > 2 else ()
    return [Value(batch + (axes[-2], other[-1]))]


def _gemm(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    other = t.axes(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or len(axes) != 2 or other is None or len(other) != 2:
        return [Value(None)]
    rows = axes[1] if attr_int(node, "transA") else axes[0]
    columns = other[0] if attr_int(node, "transB") else other[1]
    return [Value((rows, columns))]


def _reshape(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    target = t.elements(node.inputs[1]) if len(node.inputs) > 1 else None
    if target is None:
        return [Value(None)]
    keep_zero = attr_int(node, "allowzero") == 1
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
    return [Value(tuple(result))]


def _flatten(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    axis = attr_int(node, "axis")
    axis = 1 if axis is None else axis
    if axes is None:
        return [Value(None)]
    if axis < 0:
        axis += len(axes)
    first = axes[0] if axis == 1 else None if axis != 0 else 1
    return [Value((first, None))]


def _concat(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    values = [t.value(name) for name in node.inputs if name]
    if any(v is None for v in values) or not values:
        return [Value(None)]
    if all(v is not None and v.elements is not None for v in values):
        joined = tuple(e for v in values if v is not None and v.elements for e in v.elements)
        return [Value((len(joined),), joined)]
    shapes = [v.axes for v in values if v is not None]
    if any(s is None for s in shapes):
        return [Value(None)]
    rank = len(shapes[0] or ())
    axis = attr_int(node, "axis") or 0
    axis = axis + rank if axis < 0 else axis
    if any(len(s or ()) != rank for s in shapes) or not 0 <= axis < rank:
        return [Value(None)]
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
    return [Value(tuple(result))]


def _split(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    if axes is None:
        return []
    axis = attr_int(node, "axis") or 0
    axis = axis + len(axes) if axis < 0 else axis
    if not 0 <= axis < len(axes):
        return []
    part = Value(axes[:axis] + (None,) + axes[axis + 1 :])
    return [part] * len(node.outputs)


def _squeeze(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    dropped = _axes_argument(t, node, 1)
    first = t.value(node.inputs[0]) if node.inputs else None
    if axes is None or dropped is None:
        return [Value(None)]
    dropped = [a + len(axes) if a < 0 else a for a in dropped]
    elements = first.elements if first is not None and len(axes) == 1 else None
    return [Value(tuple(o for k, o in enumerate(axes) if k not in dropped), elements)]


def _unsqueeze(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    added = _axes_argument(t, node, 1)
    first = t.value(node.inputs[0]) if node.inputs else None
    if axes is None or added is None:
        return [Value(None)]
    rank = len(axes) + len(added)
    added = sorted(a + rank if a < 0 else a for a in added)
    result = list(axes)
    for a in added:
        result.insert(a, 1)
    elements = first.elements if first is not None and not axes else None
    return [Value(tuple(result), elements)]


def _slice(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    if axes is None:
        return [Value(None)]
    sliced = _axes_argument(t, node, 3)
    starts = _attr_ints(node, "starts") or (
        t.ints(node.inputs[1]) if len(node.inputs) > 1 else None
    )
    ends = _attr_ints(node, "ends") or (t.ints(node.inputs[2]) if len(node.inputs) > 2 else None)
    if sliced is None:
        sliced = list(range(len(starts))) if starts is not None else None
    if sliced is None:
        return [Value(tuple(None for _ in axes))]
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
    return [Value(tuple(result), elements)]


def _gather(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    indices = t.value(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or indices is None or indices.axes is None:
        return [Value(None)]
    axis = attr_int(node, "axis") or 0
    axis = axis + len(axes) if axis < 0 else axis
    if not 0 <= axis < len(axes):
        return [Value(None)]
    first = t.value(node.inputs[0])
    elements = None
    if first is not None and first.elements is not None and indices.elements is not None:
        picked = [first.elements[i] for i in indices.elements if isinstance(i, int)
                  and -len(first.elements) <= i < len(first.elements)]  # fmt: skip
        elements = tuple(picked) if len(picked) == len(indices.elements) else None
    return [Value(axes[:axis] + indices.axes + axes[axis + 1 :], elements)]


def _shape(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    if axes is None:
        return [Value(None)]
    start = attr_int(node, "start") or 0
    end = attr_int(node, "end")
    picked = axes[start:end] if end is not None else axes[start:]
    return [Value((len(picked),), picked)]


def _constant(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    attr = node.attrs.get("value")
    if attr is not None and attr.t is not None:
        tensor = attr.t
        small = (
            tensor.values is not None and tensor.elem in (INT64, INT32) and len(tensor.dims) <= 1
        )
        return [Value(tuple(tensor.dims), tensor.values if small else None)]
    ints = _attr_ints(node, "value_ints")
    if ints:
        return [Value((len(ints),), tuple(ints))]
    single = attr_int(node, "value_int")
    if single is not None:
        return [Value((), (single,))]
    return [Value(None)]


def _constant_of_shape(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    return [Value(t.elements(node.inputs[0]) if node.inputs else None)]


def _expand(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    target = t.elements(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or target is None:
        return [Value(None)]
    return [Value(t.broadcast([axes, target]))]


def _tile(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    repeats = t.ints(node.inputs[1]) if len(node.inputs) > 1 else None
    if axes is None or repeats is None or len(repeats) != len(axes):
        return [Value(None)]
    return [Value(tuple(o if r == 1 else None for o, r in zip(axes, repeats, strict=True)))]


def _reduce(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    if axes is None:
        return [Value(None)]
    if node.op in ("ArgMax", "ArgMin"):
        axis = attr_int(node, "axis") or 0
        reduced: list[int] | None = [axis]
    else:
        reduced = _axes_argument(t, node, 1)
        if reduced is None or not reduced:
            return [Value(None)]
    assert reduced is not None
    reduced = [a + len(axes) if a < 0 else a for a in reduced]
    keep = attr_int(node, "keepdims") != 0
    result = [1 if k in reduced else o for k, o in enumerate(axes)] if keep else [
        o for k, o in enumerate(axes) if k not in reduced
    ]  # fmt: skip
    return [Value(tuple(result))]


def _top_k(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    if axes is None:
        return [Value(None), Value(None)]
    axis = attr_int(node, "axis")
    axis = -1 if axis is None else axis
    axis = axis + len(axes) if axis < 0 else axis
    if not 0 <= axis < len(axes):
        return [Value(None), Value(None)]
    k = t.ints(node.inputs[1]) if len(node.inputs) > 1 else None
    size: Origin = k[0] if k is not None and len(k) == 1 else None
    if size is None and len(node.inputs) > 1:
        count = t.elements(node.inputs[1])
        size = count[0] if count is not None and len(count) == 1 else None
    shaped = Value(axes[:axis] + (size,) + axes[axis + 1 :])
    return [shaped, shaped]


def _roi_align(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    rois = t.axes(node.inputs[1]) if len(node.inputs) > 1 else None
    channels = axes[1] if axes is not None and len(axes) == 4 else None
    return [Value(((rois[0] if rois else None), channels, None, None))]


def _size(t: Tracer, node: Node, axes: Axes | None) -> list[Value]:
    return [Value((), (None,))]


_REDUCE = frozenset(
    {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
     "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin"}
)  # fmt: skip

HANDLERS: dict[str, Callable[[Tracer, Node, Axes | None], list[Value]]] = {
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
