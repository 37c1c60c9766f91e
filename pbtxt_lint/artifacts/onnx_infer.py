"""The shapes ONNX Runtime reports for a graph's outputs, computed without ONNX Runtime.

ONNX Runtime resolves the graph when it creates a session: it runs each node's shape
inference function (onnx's own, `OpSchema::TypeAndShapeInferenceFunction`) in
topological order and merges every inferred output shape into the declared one (graph
output or value_info) with onnx's `mergeInShapeInfo`, falling back to `UnionShapeInfo`
when they conflict (onnxruntime `graph.cc`, `MergeShapeInfo`). Its graph optimizations
(on unless the config sets `optimization { graph { level: 2 } }`) then fold constant
subgraphs, `Shape` of a fully known shape included, and resolve again; the session's
input and output metadata are taken after that (`InferenceSession::SaveModelMetadata`).

This module emulates those steps for the ops whose inference a graph needs to fix a
dimension: the shape-only ops (Reshape, Expand, Tile, Concat, Squeeze, Unsqueeze, Slice,
Gather, Transpose, Flatten, Shape, ConstantOfShape, Constant, Range, reductions, ArgMax,
MatMul, Gemm), broadcasting element-wise ops and the ops whose output has their first
input's shape. Each follows the onnx function's branches; an op it does not know yields
an output of unknown shape, which can only leave a declared dim as it is. Evidence that it
matches ONNX Runtime: tests/test_onnx_infer.py compares it with `InferenceSession` on
every fixture model and on random graphs. Why not `onnx.shape_inference`: importing onnx
costs ~30 MiB and ~0.2 s, and its results are not ONNX Runtime's (it keeps a declared
size that conflicts with the graph, reads overridable initializers as constants, does
not fold, and with `data_prop` it pins sizes ONNX Runtime leaves dynamic).

Folding is emulated for small integer tensors only (shape arithmetic). Not emulated, so
such a size stays as declared here (never the other way round): ONNX Runtime's rewrite of
`Shape -> Gather -> Unsqueeze -> Concat -> Reshape` chains (ReshapeFusion), and the
symbolic data propagation of releases after 1.19 with optimizations off. Where a
declaration contradicts the graph (two sizes, two ranks), ONNX Runtime reports the dim
as unknown or, if a later rewrite makes it infer the node again, as inferred; that cannot
be told without its whole optimizer, so every output the conflict reaches keeps its
declared shape (`InferenceReport.kept`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

from pbtxt_lint.artifacts import onnx_graph
from pbtxt_lint.artifacts.onnx_graph import INT32, INT64, Attr, Graph, Node, Tensor
from pbtxt_lint.artifacts.onnx_signature import DimSource, Inference, InferenceReport
from pbtxt_lint.artifacts.signature import Dim, TensorSpec

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.onnx import _Type

MIN_OPSET = 11
"""Ops of older opsets take their axes, starts and shapes from attributes (not emulated)."""
MAX_RANK = 64
"""Rank an inferred shape may have (ONNX Runtime's kernels stop far below)."""
MAX_FOLDED = 1024
"""Elements of a tensor the folding emulation computes."""
_INTS = (INT64, INT32)

Val = int | str | None
"""One dim: a size, a dim_param, or unknown."""


class _D(NamedTuple):
    """A dim in flight: its value and, for a size, where the size comes from."""

    v: Val
    src: DimSource | None


Shape = tuple[_D, ...]


@dataclass(slots=True)
class _Info:
    """What is known about one value: a type is known even when its shape is not."""

    shape: Shape | None
    elem: int = 0
    value: tuple[int, ...] | None = None
    """The elements of a constant integer tensor (initializer, Constant, folded)."""


class _Fail(Exception):
    """An onnx inference function fails here, so ONNX Runtime refuses the model."""


class GiveUp(Exception):
    """The emulation cannot finish; the message says why (the declared shapes are kept)."""


@dataclass(frozen=True)
class Result:
    outputs: tuple[TensorSpec, ...]
    unoptimized: tuple[TensorSpec, ...] | None
    report: InferenceReport


# --- entry point -------------------------------------------------------------------------------


def infer(
    graph: Graph,
    inputs: Sequence[tuple[str, _Type | None]],
    outputs: Sequence[TensorSpec],
    output_types: Sequence[_Type | None],
    initializer_names: set[str],
    ir_version: int | None,
    opset: int | None,
) -> Result:
    """Merge ONNX Runtime's inferred shapes into the declared `outputs`.

    `inputs`/`output_types` are the declared graph inputs and outputs as the reader decoded
    them, `initializer_names` every initializer (sparse ones included). Raises `GiveUp`.
    """
    start = time.monotonic()
    if opset is None:
        raise GiveUp("the model imports no opset of the default ONNX domain")
    if opset < MIN_OPSET:
        raise GiveUp(f"opset {opset} is older than the emulation covers ({MIN_OPSET})")
    engine = _Engine(graph, inputs, outputs, output_types, initializer_names, ir_version, opset)
    first = engine.run(fold=False)
    second = engine.run(fold=True, existing=engine.env) if engine.foldable else first
    optimized = _specs(outputs, engine, second, first)
    unoptimized = _specs(outputs, engine, first, None) if second is not first else optimized
    kept = tuple(s.name for s in outputs if s.is_tensor and s.name in engine.tainted)
    report = InferenceReport(
        "inferred", nodes=len(graph.nodes), seconds=time.monotonic() - start, kept=kept
    )
    return Result(optimized, None if unoptimized == optimized else unoptimized, report)


def _specs(
    outputs: Sequence[TensorSpec],
    engine: _Engine,
    final: dict[str, _Info],
    baseline: dict[str, _Info] | None,
) -> tuple[TensorSpec, ...]:
    return tuple(
        _merged_spec(spec, engine, final, baseline) if spec.is_tensor else spec for spec in outputs
    )


def _merged_spec(
    spec: TensorSpec, engine: _Engine, final: dict[str, _Info], baseline: dict[str, _Info] | None
) -> TensorSpec:
    info = final.get(spec.name)
    if info is None or spec.name in engine.defined_outside:
        return _reported_from(spec, engine)
    if spec.name in engine.tainted:
        return spec
    shape = info.shape
    declared = spec.shape
    made_by = engine.producer.get(spec.name)
    here = _source(made_by) if made_by is not None else None
    if shape is None and declared is None:
        return spec
    if shape is None or declared is None or len(shape) != len(declared):
        source = here or DimSource(spec.name, "")
        reported = None if shape is None else tuple(_dim(d.v) for d in shape)
        return replace(spec, shape=reported, inferred=Inference(declared, (), source))
    before = baseline.get(spec.name) if baseline is not None else None
    unfolded = before.shape if before is not None else None
    sources: list[DimSource | None] = []
    dims: list[Dim] = []
    for k, (d, written) in enumerate(zip(shape, declared, strict=True)):
        dim = _dim(d.v)
        dims.append(dim)
        fixed_before = written if isinstance(written, int) and written >= 0 else None
        if not isinstance(d.v, int) or d.v == fixed_before:
            sources.append(None)
            continue
        source = d.src or here or DimSource(spec.name, "")
        # Compared with the pass without folding (baseline None: this is that pass).
        folded = baseline is not None and (
            unfolded is None or len(unfolded) != len(shape) or unfolded[k].v != d.v
        )
        sources.append(replace(source, optimized=folded))
    if all(s is None for s in sources):
        return spec
    return replace(spec, shape=tuple(dims), inferred=Inference(declared, tuple(sources)))


def _reported_from(spec: TensorSpec, engine: _Engine) -> TensorSpec:
    """An output that is a graph input (or initializer): ONNX Runtime reports that value's
    type, not the output declaration (its NodeArg exists before outputs are read)."""
    info = engine.defined_outside.get(spec.name)
    if info is None:
        return spec
    reported = None if info.shape is None else tuple(_dim(d.v) for d in info.shape)
    if reported == spec.shape:
        return spec
    what = "input" if spec.name in engine.input_names else "initializer"
    source = DimSource(f"the graph {what} of the same name", "")
    return replace(spec, shape=reported, inferred=Inference(spec.shape, (), source))


def _dim(v: Val) -> Dim:
    return -1 if v is None else v


# --- the engine ----------------------------------------------------------------------------------


class _Engine:
    def __init__(
        self,
        graph: Graph,
        inputs: Sequence[tuple[str, _Type | None]],
        outputs: Sequence[TensorSpec],
        output_types: Sequence[_Type | None],
        initializer_names: set[str],
        ir_version: int | None,
        opset: int,
    ) -> None:
        self.graph = graph
        self.opset = opset
        overridable = ir_version is not None and ir_version >= 4
        self.input_names = {name for name, _ in inputs}
        base: dict[str, _Info] = {}
        # onnxruntime Graph::Graph: inputs first, then initializers (constant unless an
        # IR >= 4 input overrides them), then outputs, then value_info; first one wins.
        for name, ty in inputs:
            if name not in base:
                base[name] = _Info(_declared(ty, f"input '{name}'"), _elem(ty))
        for name in initializer_names:
            tensor = graph.initializers.get(name)
            if name in self.input_names and overridable:
                continue
            if tensor is None:
                base[name] = _Info(None)
            else:
                base[name] = _Info(_tensor_shape(tensor), tensor.elem, tensor.values)
        self.defined_outside = dict(base)
        self.base = base
        self.declared: dict[str, Shape | None] = {}
        for spec, ty in zip(outputs, output_types, strict=True):
            if spec.is_tensor:
                self.declared.setdefault(spec.name, _declared(ty, ""))
        for name, ty in graph.value_info.items():
            self.declared.setdefault(name, _declared(ty, f"value_info '{name}'"))
        self.order = self._sort()
        self.producer: dict[str, Node] = {}
        self.tainted: set[str] = set()
        """Values a declaration conflicts with, and every value computed from them."""
        self.foldable = False
        self.env: dict[str, _Info] = {}

    def _sort(self) -> list[Node]:
        """Kahn's order; a name read but never defined, defined twice, or a cycle makes
        ONNX Runtime refuse the model, and the emulation give up."""
        made: dict[str, int] = {}
        for node in self.graph.nodes:
            for out in node.outputs:
                if not out:
                    continue
                if out in made or out in self.base:
                    raise GiveUp(f"'{out}' is defined twice")
                made[out] = node.index
        waiting = [0] * len(self.graph.nodes)
        readers: dict[int, list[int]] = {}
        for node in self.graph.nodes:
            for name in dict.fromkeys(node.inputs):
                if not name or name in self.base:
                    continue
                if name not in made:
                    raise GiveUp(f"node '{node.label}' reads '{name}', which nothing defines")
                waiting[node.index] += 1
                readers.setdefault(made[name], []).append(node.index)
        ready = [n.index for n in self.graph.nodes if waiting[n.index] == 0]
        order = []
        while ready:
            index = ready.pop()
            order.append(self.graph.nodes[index])
            for reader in readers.get(index, ()):
                waiting[reader] -= 1
                if waiting[reader] == 0:
                    ready.append(reader)
        if len(order) != len(self.graph.nodes):
            raise GiveUp("the graph has a cycle")
        return order

    def run(self, fold: bool, existing: dict[str, _Info] | None = None) -> dict[str, _Info]:
        """One resolve of the graph; `existing` holds the previous pass's merged types."""
        env = dict(self.base)
        for node in self.order:
            ins = [env.get(name) if name else None for name in node.inputs]
            call = _Call(node, ins, self.opset)
            try:
                results = self._node(call, fold)
            except _Fail as exc:
                raise GiveUp(f"ONNX shape inference fails on node '{node.label}': {exc}") from None
            except (ArithmeticError, ValueError, IndexError) as exc:
                raise GiveUp(f"node '{node.label}' has invalid values ({exc})") from None
            tainted = any(name in self.tainted for name in node.inputs)
            for k, name in enumerate(node.outputs):
                if not name:
                    continue
                self.producer[name] = node
                got = results[k] if k < len(results) else _Info(None)
                if got.shape is not None:
                    if len(got.shape) > MAX_RANK:
                        raise GiveUp(f"node '{node.label}' makes a tensor of rank {len(got.shape)}")
                    got.shape = tuple(_own(d, node) for d in got.shape)
                before = existing[name].shape if existing is not None else self.declared.get(name)
                got.shape, conflict = _merge(got.shape, before)
                if tainted or conflict:
                    self.tainted.add(name)
                env[name] = got
        self.env = env
        return env

    def _node(self, call: _Call, fold: bool) -> list[_Info]:
        node = call.node
        if node.domain not in ("", "ai.onnx"):
            return []
        if node.op == "Constant":
            return _constant(call)
        handler = _HANDLERS.get(node.op)
        shapes = handler(call) if handler is not None else []
        infos = [_Info(s) for s in shapes]
        if node.op in _FOLD and not fold and not self.foldable:
            self.foldable = _can_fold(call)
        if fold and node.op in _FOLD and _can_fold(call):
            folded = _FOLD[node.op](call)
            if folded is not None:
                dims, values, elem = folded
                shape = tuple(_D(d, None) for d in dims)
                return [_Info(shape, elem, values)]
        return infos


def _can_fold(call: _Call) -> bool:
    """onnxruntime ConstantFolding: every input a constant; Shape needs a fully known shape."""
    if call.node.op == "Shape":
        shape = call.shape(0)
        return shape is not None and all(isinstance(d.v, int) for d in shape)
    present = [i for i, name in enumerate(call.node.inputs) if name]
    return bool(present) and all(call.value(i) is not None for i in present)


def _source(node: Node) -> DimSource:
    return DimSource(node.label, node.op)


def _own(d: _D, node: Node) -> _D:
    """A size with no source yet (from an initializer's dims, or computed) is this node's."""
    if not isinstance(d.v, int):
        return d if d.src is None else _D(d.v, None)
    if d.src is None:
        return _D(d.v, _source(node))
    if not d.src.node:
        return _D(d.v, DimSource(node.label, node.op, d.src.declared_by))
    return d


def _merge(inferred: Shape | None, existing: Shape | None) -> tuple[Shape | None, bool]:
    """onnx mergeInShapeInfo of the inferred shape into the existing type: (merged, conflict).

    On a conflict (two sizes, or two ranks) ONNX Runtime falls back to UnionShapeInfo and
    reports the dim, or the shape, as unknown, unless a later graph transformation makes
    it infer the node again, which depends on the whole graph; the caller then keeps the
    declaration of every output the conflict reaches.
    """
    if inferred is None:
        return existing, False
    if existing is None:
        return inferred, False
    if len(inferred) != len(existing):
        return None, True
    target = list(existing)
    for k, (s, t) in enumerate(zip(inferred, existing, strict=True)):
        if isinstance(s.v, int):
            if isinstance(t.v, int):
                if t.v != s.v:
                    return None, True
            else:
                target[k] = s
        elif t.v is None and isinstance(s.v, str):
            target[k] = s
    return tuple(target), False


def _declared(ty: _Type | None, declared_by: str) -> Shape | None:
    if ty is None or ty.dims is None:
        return None
    source = DimSource("", "", declared_by) if declared_by else None
    return tuple(
        _D(d, source) if isinstance(d, int) and d >= 0 else _D(_symbol(d), None) for d in ty.dims
    )


def _symbol(d: Dim) -> str | None:
    return d if isinstance(d, str) else None


def _elem(ty: _Type | None) -> int:
    return ty.elem if ty is not None else 0


def _tensor_shape(tensor: Tensor) -> Shape:
    return tuple(_D(d if d >= 0 else None, None) for d in tensor.dims)


# --- one node ---------------------------------------------------------------------------------


class _Call:
    """A node with its inputs' types: what an onnx InferenceContext offers."""

    __slots__ = ("ins", "node", "opset")

    def __init__(self, node: Node, ins: list[_Info | None], opset: int) -> None:
        self.node = node
        self.ins = ins
        self.opset = opset

    def info(self, i: int) -> _Info | None:
        """Input `i`, None when the node has no such input or it is absent ("")."""
        return self.ins[i] if i < len(self.ins) else None

    def shape(self, i: int) -> Shape | None:
        """hasInputShape: the input is present, typed, and has a shape."""
        info = self.info(i)
        return info.shape if info is not None else None

    def shapes(self, n: int) -> list[Shape] | None:
        """hasNInputShapes(n)."""
        found = [self.shape(i) for i in range(n)]
        return None if any(s is None for s in found) else [s for s in found if s is not None]

    def present(self, i: int) -> bool:
        return i < len(self.ins) and self.ins[i] is not None

    def value(self, i: int) -> tuple[int, ...] | None:
        """getInputData: the input is a constant (initializer, Constant or folded)."""
        info = self.info(i)
        return info.value if info is not None else None

    def ints(self, i: int, *elems: int) -> tuple[int, ...] | None:
        """ParseData of a constant input, which must have one of `elems` as its type."""
        info = self.info(i)
        if info is None or info.value is None:
            return None
        if info.elem not in (elems or (INT64,)):
            raise _Fail("ParseData type mismatch")
        return info.value

    def attr(self, name: str) -> Attr | None:
        return self.node.attrs.get(name)

    def attr_i(self, name: str, default: int) -> int:
        attr = self.node.attrs.get(name)
        return attr.i if attr is not None and attr.i is not None else default

    def attr_ints(self, name: str) -> list[int] | None:
        attr = self.node.attrs.get(name)
        return list(attr.ints) if attr is not None else None

    def shape_input(self, i: int, no_negative: bool = False) -> Shape | None:
        """onnx getShapeInput: the constant's values, else a rank from the input's shape."""
        values = self.ints(i)
        if values is not None:
            if len(values) > MAX_RANK:
                raise GiveUp(f"a shape of {len(values)} dims")
            if no_negative and any(v < 0 for v in values):
                raise _Fail("negative value in shape input")
            return tuple(_D(v, None) for v in values)
        shape = self.shape(i)
        if shape is None:
            return None
        if len(shape) != 1:
            raise _Fail("shape input must be 1D tensor")
        n = shape[0].v
        if not isinstance(n, int) or n > MAX_RANK:
            return None
        return tuple(_D(None, None) for _ in range(n))


_UNKNOWN = _D(None, None)
Handler = Callable[[_Call], list["Shape | None"]]


def _copy(call: _Call) -> list[Shape | None]:
    """propagateShapeFromInputToOutput(0, 0) (and the same for a second output)."""
    shape = call.shape(0)
    return [shape, shape] if call.node.op == "Dropout" else [shape]


def _broadcast(shapes: Sequence[Shape]) -> Shape:
    """onnx multidirectionalBroadcastShapeInference."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(rank):
        value, value_dim = 1, None
        symbolic: _D | None = None
        distinct = 0
        for shape in shapes:
            k = i - rank + len(shape)
            if k < 0:
                continue
            d = shape[k]
            if isinstance(d.v, int):
                if d.v != 1:
                    if value not in (d.v, 1):
                        raise _Fail("Incompatible dimensions")
                    value, value_dim = d.v, d
            elif symbolic is None:
                symbolic, distinct = d, 1
            elif d.v != symbolic.v:
                distinct += 1
        if value != 1 or distinct == 0:
            out.append(value_dim if value_dim is not None else _D(1, None))
        elif distinct == 1 and symbolic is not None:
            out.append(symbolic)
        else:
            out.append(_UNKNOWN)
    return tuple(out)


def _binary(call: _Call) -> list[Shape | None]:
    shapes = call.shapes(2)
    return [_broadcast(shapes)] if shapes is not None else [None]


def _variadic(call: _Call) -> list[Shape | None]:
    shapes = call.shapes(len(call.node.inputs))
    return [_broadcast(shapes)] if shapes is not None and shapes else [None]


def _where(call: _Call) -> list[Shape | None]:
    shapes = call.shapes(3)
    return [_broadcast(shapes)] if shapes is not None else [None]


def _matmul(call: _Call) -> list[Shape | None]:
    """onnx MatMulShapeInference."""
    shapes = call.shapes(2)
    if shapes is None:
        return [None]
    a, b = shapes
    if not a or not b:
        raise _Fail("Input tensors of wrong rank (0).")
    left = (_D(1, None), a[0]) if len(a) == 1 else a
    right = (b[0], _D(1, None)) if len(b) == 1 else b
    k1, k2 = left[-1].v, right[-2].v
    if isinstance(k1, int) and isinstance(k2, int) and k1 != k2:
        raise _Fail("Incompatible dimensions for matrix multiplication")
    out = list(_broadcast([left[:-2], right[:-2]]))
    if len(a) != 1:
        out.append(left[-2])
    if len(b) != 1:
        out.append(right[-1])
    return [tuple(out)]


def _gemm(call: _Call) -> list[Shape | None]:
    shapes = call.shapes(2)
    if shapes is None:
        return [None]
    a, b = shapes
    if len(a) != 2 or len(b) != 2:
        raise _Fail("Gemm inputs must have rank 2")
    trans_a = call.attr_i("transA", 0) != 0
    trans_b = call.attr_i("transB", 0) != 0
    return [(a[1] if trans_a else a[0], b[0] if trans_b else b[1])]


def _reshape(call: _Call) -> list[Shape | None]:
    """onnx Reshape inference; before Reshape-14 only a constant target shape is read."""
    if call.opset >= 14:
        target = call.shape_input(1)
    else:
        values = call.ints(1)
        target = tuple(_D(v, None) for v in values) if values is not None else None
    if target is None:
        return [None]
    if not call.present(0):
        raise _Fail("Reshape data has no type")
    data = call.shape(0)
    allowzero = call.attr_i("allowzero", 0)
    out: list[_D] = []
    minus_one: int | None = None
    unresolved = [False] * len(target)
    product, product_valid = 1, True
    for i, t in enumerate(target):
        if isinstance(t.v, str):
            out.append(t)
            product_valid = False
        elif t.v is None:
            out.append(_UNKNOWN)
            product_valid = False
        elif t.v == -1:
            if minus_one is not None:
                raise _Fail("Target shape may not have multiple -1 dimensions.")
            minus_one = i
            out.append(_UNKNOWN)
        elif t.v == 0:
            if allowzero:
                out.append(_D(0, None))
                product = 0
                continue
            unresolved[i] = True
            new = _UNKNOWN
            if data is not None:
                if i >= len(data):
                    raise _Fail("Invalid position of 0.")
                size = data[i].v
                if isinstance(size, int):
                    new = data[i]
                    product *= size
                    unresolved[i] = False
                elif isinstance(size, str):
                    new = data[i]
            out.append(new)
        elif t.v > 0:
            out.append(_D(t.v, None))
            product *= t.v
        else:
            raise _Fail(f"Invalid dimension value: {t.v}")
    if minus_one is not None and product_valid:
        if product == 0:
            raise _Fail("Invalid Target shape product of 0.")
        known = data is not None
        total = 1
        for i, d in enumerate(data or ()):
            if isinstance(d.v, int):
                total *= d.v
            elif i >= len(unresolved) or not unresolved[i]:
                known = False
                break
        if known:
            if total % product:
                raise _Fail("Dimension could not be inferred: incompatible shapes")
            out[minus_one] = _D(total // product, None)
    return [tuple(out)]


def _expand(call: _Call) -> list[Shape | None]:
    shapes = call.shapes(2)
    if shapes is None:
        return [None]
    target = call.shape_input(1)
    if target is None:
        return [None]
    if any(isinstance(d.v, int) and d.v < 0 for d in target):
        raise GiveUp("Expand to a negative size")
    return [_broadcast([shapes[0], target])]


def _tile(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [None]
    repeats = call.value(1)
    repeats_shape = call.shape(1)
    if repeats is not None and repeats_shape is not None:
        if len(repeats_shape) != 1:
            raise _Fail("'Repeats' input must be 1D tensor of type int64")
        repeats = call.ints(1)
        if repeats is None or len(repeats) != len(data):
            raise _Fail("'Repeats' input has incorrect number of values.")
        if any(r < 0 for r in repeats):
            raise _Fail("'Repeats' input must not contain negative values")
        return [
            tuple(
                _D(d.v * r, None) if isinstance(d.v, int) else _UNKNOWN
                for d, r in zip(data, repeats, strict=True)
            )
        ]
    return [tuple(_UNKNOWN for _ in data)]


def _concat(call: _Call) -> list[Shape | None]:
    if call.opset < 4:
        return [None]
    n = len(call.node.inputs)
    shapes = call.shapes(n)
    if n < 1 or shapes is None:
        return [None]
    rank = len(shapes[0])
    attr = call.attr("axis")
    if attr is None:
        raise _Fail("Required attribute axis is missing")
    axis = attr.i or 0
    if not -rank <= axis < rank:
        raise _Fail("axis must be in [-rank, rank-1].")
    axis %= rank
    if n == 1:
        return [shapes[0]]
    out: list[_D] = [_UNKNOWN] * rank
    total: int | None = 0
    for shape in shapes:
        if len(shape) != rank:
            raise _Fail("All inputs to Concat must have same rank.")
        for j, d in enumerate(shape):
            if j == axis:
                if isinstance(d.v, int) and total is not None:
                    total += d.v
                elif not isinstance(d.v, int):
                    total = None
            else:
                out[j] = _merge_dim(d, out[j])
    if total is not None:
        out[axis] = _D(total, None)
    return [tuple(out)]


def _merge_dim(source: _D, target: _D) -> _D:
    """onnx mergeInDimensionInfo, which fails on two different sizes."""
    if isinstance(source.v, int):
        if isinstance(target.v, int):
            if target.v != source.v:
                raise _Fail("Can't merge shape info.")
            return target
        return source
    if target.v is not None:
        return target
    return source if isinstance(source.v, str) else target


def _axes(call: _Call, input_index: int, since: int) -> tuple[list[int] | None, bool]:
    """Axes from the input (opset >= `since`) or the attribute; (axes, given)."""
    if call.opset >= since:
        if input_index < len(call.node.inputs) and call.node.inputs[input_index]:
            values = call.ints(input_index)
            return (list(values), True) if values is not None else (None, True)
        return [], False
    found = call.attr_ints("axes")
    return (found, True) if found is not None else ([], False)


def _normalize(axes: list[int], rank: int) -> list[int]:
    if any(not -rank <= a < rank for a in axes):
        raise _Fail("axis out of range")
    return [a % rank if rank else a for a in axes]


def _squeeze(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [None]
    axes, given = _axes(call, 1, 13)
    if axes is None:
        return [None]
    axes = _normalize(axes, len(data))
    if not given and any(not isinstance(d.v, int) for d in data):
        return [None]
    out = []
    for i, d in enumerate(data):
        if not given and d.v == 1:
            continue
        if given and i in axes:
            if isinstance(d.v, int) and d.v != 1:
                raise _Fail(f"Dimension of input {i} must be 1 instead of {d.v}")
            continue
        out.append(d)
    return [tuple(out)]


def _unsqueeze(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [None]
    axes, given = _axes(call, 1, 13)
    if axes is None or not given:
        return [None]
    rank = len(data) + len(axes)
    if rank > MAX_RANK:
        raise GiveUp(f"Unsqueeze to rank {rank}")
    axes = sorted(_normalize(axes, rank))
    if len(set(axes)) != len(axes):
        raise _Fail("duplicate axes")
    out: list[_D] = []
    source = iter(data)
    for i in range(rank):
        out.append(_D(1, None) if i in axes else next(source))
    return [tuple(out)]


def _slice(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [None]
    rank = len(data)
    if call.opset < 10:
        starts_attr, ends_attr = call.attr_ints("starts"), call.attr_ints("ends")
        if starts_attr is None or ends_attr is None:
            return [None]
        axes_attr = call.attr_ints("axes")
        starts, ends = tuple(starts_attr), tuple(ends_attr)
        axes = tuple(axes_attr) if axes_attr is not None else tuple(range(len(starts)))
        steps: tuple[int, ...] = (1,) * len(starts)
    else:
        has_axes = call.shape(3) is not None
        has_steps = call.shape(4) is not None
        got = [call.ints(1, INT64, INT32), call.ints(2, INT64, INT32)]
        if has_axes:
            got.append(call.ints(3, INT64, INT32))
        if has_steps:
            got.append(call.ints(4, INT64, INT32))
        if any(g is None for g in got):
            return [tuple(_UNKNOWN for _ in data)]
        starts, ends = got[0] or (), got[1] or ()
        if len(starts) != len(ends):
            raise _Fail("Incorrect or missing input value for starts and ends")
        axes = (got[2] or ()) if has_axes else tuple(range(len(starts)))
        if len(axes) != len(starts):
            raise _Fail("Input axes has incorrect length")
        steps = (got[-1] or ()) if has_steps else (1,) * len(starts)
        if len(steps) != len(axes):
            raise _Fail("Input steps has incorrect length")
    norm = _normalize(list(axes), rank)
    if len(set(norm)) != len(norm):
        raise _Fail("duplicate axes")
    out = list(data)
    for axis, start, end, step in zip(norm, starts, ends, steps, strict=False):
        d = data[axis]
        if not isinstance(d.v, int) or (d.v == 0 and step < 0):
            # An empty dim sliced backwards: onnx releases disagree (ONNX Runtime 1.19
            # reports 1, later ones 0), so the size is left unknown.
            out[axis] = _UNKNOWN
            continue
        out[axis] = _D(_slice_len(d.v, start, end, step), None)
    return [tuple(out)]


def _slice_bounds(size: int, start: int, end: int, step: int) -> tuple[int, int]:
    """onnx processSliceInputs: negative positions counted from the end, then clamped."""
    if step == 0:
        raise _Fail("'step' cannot be 0 for Slice")
    if size == 0:
        return 0, 0
    if start < 0:
        start += size
    start = min(max(start, 0), size - 1) if step < 0 else min(max(start, 0), size)
    if end < 0:
        end += size
    end = min(max(end, -1), size - 1) if step < 0 else min(max(end, 0), size)
    return start, end


def _slice_len(size: int, start: int, end: int, step: int) -> int:
    """ceil((end - start) / step) in double precision, as onnx computes it, at least 0."""
    start, end = _slice_bounds(size, start, end, step)
    return max(math.ceil(float(end - start) / float(step)), 0)


def _gather(call: _Call) -> list[Shape | None]:
    shapes = call.shapes(2)
    if shapes is None:
        return [None]
    data, indices = shapes
    r = len(data)
    if r < 1:
        raise _Fail("data tensor must have rank >= 1")
    axis = call.attr_i("axis", 0)
    if not -r <= axis < r:
        raise _Fail("axis must be in [-r, r-1]")
    axis %= r
    return [data[:axis] + indices + data[axis + 1 :]]


def _transpose(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [None]
    perm = call.attr_ints("perm")
    if perm is None:
        perm = list(range(len(data) - 1, -1, -1))
    if any(not 0 <= p < len(data) for p in perm) or len(set(perm)) != len(perm):
        raise _Fail("Invalid attribute perm")
    return [tuple(data[p] for p in perm)]


def _multiply(dims: Sequence[_D]) -> _D:
    """onnx multiplyDims: a product of sizes, or the one non-size among ones."""
    result = _D(1, None)
    for d in dims:
        if isinstance(result.v, int) and isinstance(d.v, int):
            result = _D(result.v * d.v, None)
        elif result.v == 1:
            result = d
        elif d.v == 1:
            continue
        else:
            result = _UNKNOWN
    return result


def _flatten(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [None]
    rank = len(data)
    axis = call.attr_i("axis", 1)
    if axis < 0:
        axis += rank
    if not 0 <= axis <= rank:
        raise _Fail("Invalid value for attribute 'axis'")
    return [(_multiply(data[:axis]), _multiply(data[axis:]))]


def _shape_range(call: _Call, rank: int) -> tuple[int, int]:
    start, end = 0, rank
    if call.opset >= 15:
        start = call.attr_i("start", 0)
        end = call.attr_i("end", rank)
    if start < 0:
        start += rank
    start = min(max(start, 0), rank)
    if end < 0:
        end += rank
    end = min(max(end, 0), rank)
    return start, end


def _shape(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [(_UNKNOWN,)]
    start, end = _shape_range(call, len(data))
    return [(_D(max(end - start, 0), None),)]


def _size(call: _Call) -> list[Shape | None]:
    return [()]


def _constant_of_shape(call: _Call) -> list[Shape | None]:
    return [call.shape_input(0, no_negative=True)]


def _range_scalars(call: _Call) -> tuple[int, int, int] | None:
    """Start, limit and delta when all three are constant integer scalars of one type."""
    infos = [call.info(i) for i in range(3)]
    if any(i is None or i.value is None for i in infos):
        return None
    found = [i for i in infos if i is not None]
    if len({i.elem for i in found}) != 1:
        raise _Fail("All inputs to 'Range' op must be of the same type")
    if any(i.shape != () or i.value is None or len(i.value) != 1 for i in found):
        raise _Fail("Input to 'Range' op should be scalars")
    if found[0].elem not in _INTS:
        return None
    start, limit, delta = (i.value[0] for i in found if i.value is not None)
    return start, limit, delta


def _range(call: _Call) -> list[Shape | None]:
    scalars = _range_scalars(call)
    if scalars is None:
        return [(_UNKNOWN,)]
    start, limit, delta = scalars
    if delta == 0:
        raise GiveUp("Range with a delta of 0")
    return [(_D(max(math.ceil(float(limit - start) / float(delta)), 0), None),)]


def _reduce(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [None]
    keepdims = call.attr_i("keepdims", 1)
    noop = call.attr_i("noop_with_empty_axes", 0)
    if len(call.node.inputs) > 1 and call.node.inputs[1]:
        if call.attr("axes") is not None:
            raise _Fail("axes as an input and attribute cannot be specified at the same time.")
        values = call.ints(1)
        if values is None:
            return [None]
        axes = list(values)
    else:
        axes = call.attr_ints("axes") or []
    if noop and not axes:
        return [data]
    axes = _normalize(axes, len(data))
    out = []
    for i, d in enumerate(data):
        if axes and i not in axes:
            out.append(d)
        elif keepdims == 1:
            out.append(_D(1, None))
    return [tuple(out)]


def _arg_reduce(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    if data is None:
        return [None]
    axis = 0
    if call.attr("axis") is not None:
        axis = call.attr_i("axis", 0)
        if not -len(data) <= axis < len(data):
            raise _Fail("'axis' must be in [-rank(indices), rank(indices)-1]")
        axis %= len(data)
    keepdims = call.attr_i("keepdims", 1)
    out = []
    for i, d in enumerate(data):
        if i != axis:
            out.append(d)
        elif keepdims == 1:
            out.append(_D(1, None))
    return [tuple(out)]


def _nonzero(call: _Call) -> list[Shape | None]:
    data = call.shape(0)
    first = _D(len(data), None) if data is not None else _UNKNOWN
    return [(first, _UNKNOWN)]


def _constant(call: _Call) -> list[_Info]:
    """A Constant node: ONNX Runtime turns it into an initializer when it loads the model."""
    attrs = call.node.attrs
    if len(attrs) != 1:
        raise GiveUp(f"Constant node '{call.node.label}' has {len(attrs)} attributes")
    ((name, attr),) = attrs.items()
    if name == "value" and attr.t is not None:
        tensor = attr.t
        if any(d < 0 for d in tensor.dims):
            raise GiveUp("a Constant with a negative dim")
        return [_Info(tuple(_D(d, None) for d in tensor.dims), tensor.elem, tensor.values)]
    if name == "value_int" and attr.i is not None:
        return [_Info((), INT64, (attr.i,))]
    if name == "value_ints":
        values = tuple(attr.ints) if len(attr.ints) <= onnx_graph.MAX_VALUES else None
        return [_Info((_D(len(attr.ints), None),), INT64, values)]
    if name == "value_float":
        return [_Info((), 1)]
    if name == "value_floats":
        return [_Info((_D(len(attr.floats), None),), 1)]
    return [_Info(None)]


_COPY_OPS = (
    "Identity",
    "Cast",
    "CastLike",
    "Abs",
    "Neg",
    "Relu",
    "LeakyRelu",
    "Elu",
    "Selu",
    "Celu",
    "Sigmoid",
    "HardSigmoid",
    "HardSwish",
    "Tanh",
    "Exp",
    "Log",
    "Sqrt",
    "Reciprocal",
    "Floor",
    "Ceil",
    "Round",
    "Erf",
    "Sin",
    "Cos",
    "Tan",
    "Asin",
    "Acos",
    "Atan",
    "Sinh",
    "Cosh",
    "Asinh",
    "Acosh",
    "Atanh",
    "Softplus",
    "Softsign",
    "Sign",
    "Not",
    "IsNaN",
    "IsInf",
    "Mish",
    "Gelu",
    "ThresholdedRelu",
    "Shrink",
    "Softmax",
    "LogSoftmax",
    "Hardmax",
    "LRN",
    "LpNormalization",
    "MeanVarianceNormalization",
    "InstanceNormalization",
    "BatchNormalization",
    "LayerNormalization",
    "Dropout",
    "Clip",
    "PRelu",
    "CumSum",
    "QuantizeLinear",
    "DequantizeLinear",
    "Trilu",
)
_BINARY_OPS = (
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Pow",
    "Mod",
    "Equal",
    "Less",
    "Greater",
    "LessOrEqual",
    "GreaterOrEqual",
    "And",
    "Or",
    "Xor",
    "BitShift",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
)
_REDUCE_OPS = (
    "ReduceMean",
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceSumSquare",
)

_HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(_COPY_OPS, _copy),
    **dict.fromkeys(_BINARY_OPS, _binary),
    **dict.fromkeys(("Max", "Min", "Sum", "Mean"), _variadic),
    **dict.fromkeys(_REDUCE_OPS, _reduce),
    "ArgMax": _arg_reduce,
    "ArgMin": _arg_reduce,
    "Where": _where,
    "MatMul": _matmul,
    "Gemm": _gemm,
    "Reshape": _reshape,
    "Expand": _expand,
    "Tile": _tile,
    "Concat": _concat,
    "Squeeze": _squeeze,
    "Unsqueeze": _unsqueeze,
    "Slice": _slice,
    "Gather": _gather,
    "Transpose": _transpose,
    "Flatten": _flatten,
    "Shape": _shape,
    "Size": _size,
    "ConstantOfShape": _constant_of_shape,
    "Range": _range,
    "NonZero": _nonzero,
}


# --- constant folding (graph optimizations on) ----------------------------------------------------

Folded = tuple[tuple[int, ...], tuple[int, ...], int]
"""(dims, row-major values, element type) of a folded output."""


def _vector(call: _Call, i: int) -> tuple[int, ...] | None:
    """A constant integer input of rank 0 or 1."""
    info = call.info(i)
    if info is None or info.value is None or info.elem not in _INTS or info.shape is None:
        return None
    return info.value if len(info.shape) <= 1 else None


def _fold_shape(call: _Call) -> Folded | None:
    shape = call.shape(0)
    if shape is None:
        return None
    start, end = _shape_range(call, len(shape))
    values = tuple(d.v for d in shape[start:end] if isinstance(d.v, int))
    return (len(values),), values, INT64


def _fold_same(call: _Call) -> Folded | None:
    """Identity, Squeeze, Unsqueeze, Reshape of a constant: same values, inferred dims."""
    info = call.info(0)
    if info is None or info.value is None or info.elem not in _INTS:
        return None
    shape = _HANDLERS[call.node.op](call)[0]
    if shape is None or not all(isinstance(d.v, int) for d in shape):
        return None
    dims = tuple(d.v for d in shape if isinstance(d.v, int))
    if math.prod(dims) != len(info.value):
        return None
    return dims, info.value, info.elem


def _fold_cast(call: _Call) -> Folded | None:
    info = call.info(0)
    to = call.attr_i("to", 0)
    if info is None or info.value is None or info.elem not in _INTS or to not in _INTS:
        return None
    values = info.value
    if to == INT32 and any(not -(2**31) <= v < 2**31 for v in values):
        return None
    dims = tuple(d.v for d in info.shape or () if isinstance(d.v, int))
    return dims, values, to


def _fold_gather(call: _Call) -> Folded | None:
    data, indices = _vector(call, 0), _vector(call, 1)
    info, idx = call.info(0), call.info(1)
    if data is None or indices is None or info is None or idx is None or idx.shape is None:
        return None
    if info.shape is None or len(info.shape) != 1 or call.attr_i("axis", 0) not in (0, -1):
        return None
    n = len(data)
    picked = tuple(data[i + n if i < 0 else i] for i in indices)
    dims = () if len(idx.shape) == 0 else (len(indices),)
    return dims, picked, info.elem


def _fold_concat(call: _Call) -> Folded | None:
    parts = [_vector(call, i) for i in range(len(call.node.inputs))]
    infos = [call.info(i) for i in range(len(call.node.inputs))]
    if any(p is None for p in parts):
        return None
    if any(i is None or i.shape is None or len(i.shape) != 1 for i in infos):
        return None
    elems = {i.elem for i in infos if i is not None}
    if len(elems) != 1:
        return None
    values = tuple(v for p in parts if p is not None for v in p)
    return (len(values),), values, elems.pop()


def _fold_slice(call: _Call) -> Folded | None:
    data = _vector(call, 0)
    info = call.info(0)
    if call.opset < 10 or data is None or info is None or info.shape is None:
        return None
    if len(info.shape) != 1 or _slice(call)[0] is None:
        return None
    starts, ends = call.value(1), call.value(2)
    axes = call.value(3) if call.present(3) else (0,)
    steps = call.value(4) if call.present(4) else (1,)
    if not (starts and ends and axes and steps) or len(starts) != 1 or axes[0] not in (0, -1):
        return None
    step = steps[0]
    start, _ = _slice_bounds(len(data), starts[0], ends[0], step)
    length = _slice_len(len(data), starts[0], ends[0], step)
    picked = tuple(data[start + k * step] for k in range(length))
    return (len(picked),), picked, info.elem


def _fold_arith(call: _Call) -> Folded | None:
    a, b = _vector(call, 0), _vector(call, 1)
    ia, ib = call.info(0), call.info(1)
    if a is None or b is None or ia is None or ib is None or ia.elem != ib.elem:
        return None
    if not (len(a) == len(b) or len(a) == 1 or len(b) == 1):
        return None
    shape = _binary(call)[0]
    if shape is None or not all(isinstance(d.v, int) for d in shape):
        return None
    n = max(len(a), len(b))
    op = call.node.op
    out = []
    for k in range(n):
        x, y = a[k if len(a) > 1 else 0], b[k if len(b) > 1 else 0]
        if op == "Add":
            out.append(x + y)
        elif op == "Sub":
            out.append(x - y)
        elif op == "Mul":
            out.append(x * y)
        else:
            if y == 0:
                return None
            q = abs(x) // abs(y)
            out.append(q if (x >= 0) == (y >= 0) else -q)
    if any(not -(2**63) <= v < 2**63 for v in out):
        return None
    dims = tuple(d.v for d in shape if isinstance(d.v, int))
    return dims, tuple(out), ia.elem


def _fold_range(call: _Call) -> Folded | None:
    scalars = _range_scalars(call)
    info = call.info(0)
    if scalars is None or info is None:
        return None
    start, _, delta = scalars
    n = _range(call)[0]
    size = n[0].v if n is not None else None
    if not isinstance(size, int) or size > MAX_FOLDED:
        return None
    return (size,), tuple(start + k * delta for k in range(size)), info.elem


_FOLD: dict[str, Callable[[_Call], Folded | None]] = {
    "Shape": _fold_shape,
    "Identity": _fold_same,
    "Squeeze": _fold_same,
    "Unsqueeze": _fold_same,
    "Reshape": _fold_same,
    "Cast": _fold_cast,
    "Gather": _fold_gather,
    "Concat": _fold_concat,
    "Slice": _fold_slice,
    "Add": _fold_arith,
    "Sub": _fold_arith,
    "Mul": _fold_arith,
    "Div": _fold_arith,
    "Range": _fold_range,
}
"""Ops whose folding is emulated when their inputs are constant integer tensors."""
