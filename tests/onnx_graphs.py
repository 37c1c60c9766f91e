"""Random valid ONNX graphs for differential tests of the shape inference emulation.

Each graph is built around a hidden assignment of sizes to its symbolic dims, so every
op is valid for some real input; the declared output shapes then hide some sizes again
behind `dim_param`s (the way exporters declare dynamic axes), leave some dims unknown or
omit the shape, which is what ONNX Runtime's inference can fill in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import onnx
from hypothesis import strategies as st
from onnx import TensorProto, helper, numpy_helper

FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64
Decl = int | str | None


@dataclass
class _Value:
    name: str
    real: tuple[int, ...]
    """The size of each dim for the hidden assignment."""
    elem: int = FLOAT


@dataclass
class _Builder:
    draw: st.DrawFn
    nodes: list[onnx.NodeProto] = field(default_factory=list)
    inits: list[TensorProto] = field(default_factory=list)
    pool: list[_Value] = field(default_factory=list)
    count: int = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, values: list[int] | int, shape: list[int] | None = None) -> str:
        name = self.name("c")
        array = np.array(values, dtype=np.int64)
        if shape is not None:
            array = array.reshape(shape)
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def weight(self, shape: tuple[int, ...]) -> str:
        name = self.name("w")
        self.inits.append(numpy_helper.from_array(np.zeros(shape, np.float32), name))
        return name

    def node(
        self, op: str, inputs: list[str], real: tuple[int, ...], elem: int = FLOAT, **attrs: object
    ) -> _Value:
        out = _Value(self.name("t"), real, elem)
        self.nodes.append(helper.make_node(op, inputs, [out.name], name=self.name(op), **attrs))
        self.pool.append(out)
        return out

    def pick(self, elem: int = FLOAT, min_rank: int = 0) -> _Value | None:
        choices = [v for v in self.pool if v.elem == elem and len(v.real) >= min_rank]
        return self.draw(st.sampled_from(choices)) if choices else None


SIZES = st.sampled_from([1, 2, 3, 4])


def _op(b: _Builder, opset: int) -> None:
    d = b.draw
    kind = d(
        st.sampled_from(
            [
                "unary",
                "binary_const",
                "binary_pool",
                "reshape",
                "expand",
                "tile",
                "concat",
                "squeeze",
                "unsqueeze",
                "slice",
                "gather",
                "transpose",
                "flatten",
                "matmul",
                "gemm",
                "reduce",
                "argmax",
                "shape_chain",
                "constant_of_shape",
                "range",
                "where",
                "view_chain",
                "expand_like",
                "zeros_like",
                "cast_round_trip",
                "dropout",
            ]
        )
    )
    x = b.pick(min_rank=1 if kind not in ("unary", "binary_const", "binary_pool") else 0)
    if x is None:
        return
    r = x.real
    if kind == "unary":
        b.node(d(st.sampled_from(["Relu", "Sigmoid", "Identity", "Neg"])), [x.name], r)
    elif kind == "binary_const":
        k = d(st.integers(0, len(r) + 1))
        shape = [d(st.sampled_from([1, n])) for n in r[len(r) - min(k, len(r)) :]]
        if k > len(r):
            shape = [d(SIZES)] + shape
        c = b.name("f")
        b.inits.append(numpy_helper.from_array(np.zeros(shape, np.float32), c))
        out = tuple(np.broadcast_shapes(r, tuple(shape)))
        b.node(d(st.sampled_from(["Add", "Mul"])), [x.name, c], out)
    elif kind == "binary_pool":
        y = b.pick()
        if y is None:
            return
        try:
            out = tuple(np.broadcast_shapes(r, y.real))
        except ValueError:
            return
        b.node("Sub", [x.name, y.name], out)
    elif kind == "reshape":
        n = math.prod(r)
        target = list(d(st.sampled_from(_factorizations(n))))
        spec = list(target)
        if target and d(st.booleans()):
            spec[d(st.integers(0, len(spec) - 1))] = -1
        for i in range(min(len(spec), len(r))):
            if spec[i] == r[i] and d(st.booleans()) and -1 not in (spec[i],):
                spec[i] = 0
        if spec.count(-1) > 1:
            return
        b.node("Reshape", [x.name, b.const(spec)], tuple(target))
    elif kind == "expand":
        target = [n if n != 1 else d(SIZES) for n in r]
        if d(st.booleans()):
            target = [d(SIZES)] + target
        spec = [
            1
            if (
                i >= len(target) - len(r)
                and r[i - (len(target) - len(r))] == t
                and d(st.booleans())
            )
            else t
            for i, t in enumerate(target)
        ]
        b.node("Expand", [x.name, b.const(spec)], tuple(target))
    elif kind == "tile":
        reps = [d(st.sampled_from([1, 2])) for _ in r]
        b.node("Tile", [x.name, b.const(reps)], tuple(n * k for n, k in zip(r, reps, strict=True)))
    elif kind == "concat":
        axis = d(st.integers(0, len(r) - 1))
        extra = list(r)
        extra[axis] = d(SIZES)
        c = b.name("f")
        b.inits.append(numpy_helper.from_array(np.zeros(extra, np.float32), c))
        out = list(r)
        out[axis] += extra[axis]
        inputs = [x.name, c] if d(st.booleans()) else [c, x.name]
        b.node("Concat", inputs, tuple(out), axis=axis - len(r) * d(st.integers(0, 1)))
    elif kind == "squeeze":
        ones = [i for i, n in enumerate(r) if n == 1]
        if not ones:
            return
        axes = d(st.lists(st.sampled_from(ones), min_size=1, unique=True))
        out = tuple(n for i, n in enumerate(r) if i not in axes)
        if opset >= 13:
            b.node("Squeeze", [x.name, b.const(axes)], out)
        else:
            b.node("Squeeze", [x.name], out, axes=axes)
    elif kind == "unsqueeze":
        axis = d(st.integers(0, len(r)))
        out = r[:axis] + (1,) + r[axis:]
        if opset >= 13:
            b.node("Unsqueeze", [x.name, b.const([axis])], out)
        else:
            b.node("Unsqueeze", [x.name], out, axes=[axis])
    elif kind == "slice":
        axis = d(st.integers(0, len(r) - 1))
        n = r[axis]
        start = d(st.integers(-n - 1, n))
        end = d(st.sampled_from([d(st.integers(-n - 1, n + 1)), 2**62, -(2**62)]))
        step = d(st.sampled_from([1, 1, 2, -1]))
        length = len(range(n)[slice(start, end, step)])
        out = list(r)
        out[axis] = length
        inputs = [x.name, b.const([start]), b.const([end]), b.const([axis])]
        if step != 1 or d(st.booleans()):
            inputs.append(b.const([step]))
        b.node("Slice", inputs, tuple(out))
    elif kind == "gather":
        axis = d(st.integers(0, len(r) - 1))
        idx_shape = d(st.sampled_from([[], [1], [2]]))
        idx = [0] * (math.prod(idx_shape) if idx_shape else 1)
        ind = b.const(idx if idx_shape else 0, idx_shape if idx_shape else None)
        out = r[:axis] + tuple(idx_shape) + r[axis + 1 :]
        b.node("Gather", [x.name, ind], out, axis=axis)
    elif kind == "transpose":
        perm = d(st.permutations(range(len(r))))
        b.node("Transpose", [x.name], tuple(r[p] for p in perm), perm=list(perm))
    elif kind == "flatten":
        axis = d(st.integers(0, len(r)))
        b.node("Flatten", [x.name], (math.prod(r[:axis]), math.prod(r[axis:])), axis=axis)
    elif kind == "matmul":
        n = d(SIZES)
        w = b.weight((r[-1], n)) if len(r) >= 1 else None
        if w is None:
            return
        out = r[:-1] + (n,)
        b.node("MatMul", [x.name, w], out)
    elif kind == "gemm":
        if len(r) != 2:
            return
        n = d(SIZES)
        trans_b = d(st.booleans())
        w = b.weight((n, r[1]) if trans_b else (r[1], n))
        b.node("Gemm", [x.name, w], (r[0], n), transB=int(trans_b))
    elif kind == "reduce":
        axes = d(st.lists(st.integers(0, len(r) - 1), unique=True, max_size=len(r)))
        keep = d(st.integers(0, 1))
        out = tuple(
            1 if i in axes or not axes else n
            for i, n in enumerate(r)
            if keep or (axes and i not in axes)
        )
        if opset >= 18:
            inputs = [x.name, b.const(axes)] if axes else [x.name]
            b.node("ReduceMean", inputs, out, keepdims=keep)
        else:
            b.node("ReduceMean", [x.name], out, keepdims=keep, **({"axes": axes} if axes else {}))
    elif kind == "argmax":
        axis = d(st.integers(0, len(r) - 1))
        keep = d(st.integers(0, 1))
        out = tuple(1 if i == axis else n for i, n in enumerate(r) if keep or i != axis)
        b.node("ArgMax", [x.name], out, INT64, axis=axis, keepdims=keep)
    elif kind == "shape_chain":
        # Reshape another tensor to (part of) this one's shape, computed in the graph.
        sh = b.node("Shape", [x.name], (len(r),), INT64)
        i = d(st.integers(0, len(r) - 1))
        g = b.node("Gather", [sh.name, b.const([i])], (1,), INT64, axis=0)
        parts = [g.name, b.const([-1])] if d(st.booleans()) else [b.const([1]), g.name]
        cat = b.node("Concat", parts, (2,), INT64, axis=0)
        y = b.pick()
        if y is None:
            return
        n = math.prod(y.real)
        if r[i] == 0 or n % r[i]:
            return
        target = (r[i], n // r[i]) if parts[0] == g.name else (1, n)
        if parts[0] != g.name and n != r[i]:
            return
        b.node("Reshape", [y.name, cat.name], target if parts[0] == g.name else (1, r[i]))
    elif kind == "constant_of_shape":
        dims = d(st.lists(SIZES, min_size=1, max_size=3))
        c = b.node("ConstantOfShape", [b.const(dims)], tuple(dims))
        out = tuple(np.broadcast_shapes(r, c.real)) if _broadcastable(r, c.real) else None
        if out is not None:
            b.node("Add", [x.name, c.name], out)
    elif kind == "range":
        n = d(st.integers(0, 4))
        b.node("Range", [b.const(0, None), b.const(n, None), b.const(1, None)], (n,), INT64)
    elif kind == "view_chain":
        # torch's x.view(x.size(i), -1): Shape -> Gather(scalar) -> Unsqueeze -> Concat -> Reshape
        i = d(st.integers(0, len(r) - 1))
        if r[i] == 0:
            return
        sh = b.node("Shape", [x.name], (len(r),), INT64)
        g = b.node("Gather", [sh.name, b.const(i, None)], (), INT64, axis=0)
        if opset >= 13:
            u = b.node("Unsqueeze", [g.name, b.const([0])], (1,), INT64)
        else:
            u = b.node("Unsqueeze", [g.name], (1,), INT64, axes=[0])
        cat = b.node("Concat", [u.name, b.const([-1])], (2,), INT64, axis=0)
        b.node("Reshape", [x.name, cat.name], (r[i], math.prod(r) // r[i]))
    elif kind == "expand_like":
        sh = b.node("Shape", [x.name], (len(r),), INT64)
        b.node("Expand", [x.name, sh.name], r)
    elif kind == "zeros_like":
        sh = b.node("Shape", [x.name], (len(r),), INT64)
        b.node("ConstantOfShape", [sh.name], r)
    elif kind == "cast_round_trip":
        c = b.node("Cast", [x.name], r, INT64, to=INT64)
        b.node("Cast", [c.name], r, to=FLOAT)
    elif kind == "dropout":
        b.node("Dropout", [x.name], r)
    elif kind == "where":
        cond = b.name("b")
        b.inits.append(numpy_helper.from_array(np.ones(r[-1:], dtype=bool), cond))
        b.node("Where", [cond, x.name, x.name], r)


def _broadcastable(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    try:
        np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return True


def _factorizations(n: int) -> list[tuple[int, ...]]:
    found = [(n,), (1, n), (n, 1)]
    for k in range(2, n):
        if n % k == 0:
            found.append((k, n // k))
    return found


@st.composite
def graphs(draw: st.DrawFn) -> onnx.ModelProto:
    """A random valid model: inputs with dynamic dims, a few ops, declared outputs."""
    opset = draw(st.sampled_from([11, 13, 17, 18, 21]))
    builder = _Builder(draw)
    symbols = {"a": draw(SIZES), "b": draw(SIZES)}
    inputs = []
    for i in range(draw(st.integers(1, 2))):
        declared: list[Decl] = draw(
            st.lists(st.sampled_from([1, 2, 3, 4, "a", "b", None]), min_size=0, max_size=3)
        )
        real = tuple(
            symbols[x] if isinstance(x, str) else (x if x is not None else 2) for x in declared
        )
        name = f"in{i}"
        inputs.append(helper.make_tensor_value_info(name, FLOAT, declared))
        builder.pool.append(_Value(name, real))
    for _ in range(draw(st.integers(1, 6))):
        _op(builder, opset)
    made = [v for v in builder.pool if v.name.startswith("t")]
    if not made:
        builder.node("Identity", [builder.pool[0].name], builder.pool[0].real)
        made = [builder.pool[-1]]
    outputs = []
    value_info = []
    chosen = draw(
        st.lists(st.sampled_from(made), min_size=1, max_size=3, unique_by=lambda v: v.name)
    )
    for v in chosen:
        outputs.append(helper.make_tensor_value_info(v.name, v.elem, _declare(draw, v.real)))
    for v in made:
        if v not in chosen and draw(st.integers(0, 4)) == 0:
            value_info.append(helper.make_tensor_value_info(v.name, v.elem, _declare(draw, v.real)))
    graph = helper.make_graph(
        builder.nodes, "g", inputs, outputs, initializer=builder.inits, value_info=value_info
    )
    return helper.make_model(graph, ir_version=7, opset_imports=[helper.make_opsetid("", opset)])


def _declare(draw: st.DrawFn, real: tuple[int, ...]) -> list[Decl] | None:
    """How an exporter might declare a value of this real shape."""
    how = draw(st.sampled_from(["dynamic", "dynamic", "fixed", "none", "unknown", "wrong"]))
    if how == "none":
        return None
    if how == "fixed":
        return list(real)
    if how == "wrong":  # a stale declaration: other sizes, or another rank
        wrong: list[Decl] = [draw(st.sampled_from([n, n + 1, "w"])) for n in real]
        return [*wrong, "w"] if draw(st.booleans()) or not wrong else [*wrong[:-1], "w"]
    return [
        draw(st.sampled_from([n, f"d{i}", None])) if how == "dynamic" else None
        for i, n in enumerate(real)
    ]
