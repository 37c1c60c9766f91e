"""The part of an ONNX graph that shape inference reads, collected within fixed bounds.

`read_onnx`'s first pass reads only the graph's interface. When a declared graph output has
a dim that is not a fixed size, ONNX Runtime may still report one (its shape inference runs
over the nodes), so this second pass walks the same mmap again for what that inference
needs: every node (op type, domain, name, inputs, outputs and its scalar, list, string and
tensor attributes), the value_info declarations, and the initializers' element types and
dims. Tensor *values* are kept only for small integer tensors (shape, axes, repeats,
starts/ends, scalars), the ones shape inference reads; every other payload, weights
included, is skipped by its length prefix, so its pages are never touched. Subgraphs
(If/Loop/Scan bodies) are not entered.

Every limit below makes `collect` raise `GraphTooLarge` (the caller then keeps the
declared shapes), so a hostile node list costs bounded time and memory.
"""

from __future__ import annotations

import struct
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.onnx import _Model, _Type

MAX_NODES = 100_000
"""Nodes kept; exported transformers have thousands to a few tens of thousands."""
MAX_EDGES = 1_000_000
"""Node inputs plus outputs plus attribute list items, summed over the graph."""
MAX_TEXT = 32 << 20
"""Bytes of names, op types and string attributes kept, summed over the graph."""
MAX_VALUES = 1024
"""Elements of one integer tensor whose values are kept (a shape tensor has a handful)."""
MAX_ENTRIES = 2 * MAX_EDGES
"""Length-delimited fields of the graph messages walked (nodes, initializers, value_info
and the fields skipped), so a file of millions of tiny fields stops early. A count, not a
clock: the same file gets the same answer on a busy machine."""

# TensorProto.DataType values whose payload is read as integers.
INT64, INT32, INT16, INT8, UINT8, UINT16, BOOL, UINT32, UINT64 = 7, 6, 5, 3, 2, 4, 9, 12, 13
_RAW_FORMAT = {INT64: "<q", INT32: "<i", INT16: "<h", INT8: "<b", UINT8: "<B", UINT16: "<H"}
_EXTERNAL = 1


class GraphTooLarge(Exception):
    """The graph exceeds a bound; the message says which (shown as the fallback reason)."""


@dataclass(frozen=True, slots=True)
class Tensor:
    """A constant tensor: an initializer, or a Constant node's or attribute's value."""

    elem: int
    dims: tuple[int, ...]
    values: tuple[int, ...] | None
    """The elements (row-major) for a small integer tensor stored in the file; else None."""


@dataclass(slots=True)
class Attr:
    """One AttributeProto; unset fields are None, as protobuf's has_*() would say."""

    i: int | None = None
    f: float | None = None
    s: str | None = None
    ints: list[int] = field(default_factory=list)
    floats: list[float] = field(default_factory=list)
    t: Tensor | None = None
    graph: bool = False
    """The attribute holds a subgraph (not collected)."""


_NO_ATTRS: dict[str, Attr] = {}


@dataclass(slots=True)
class Node:
    index: int
    op: str
    domain: str
    name: str
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    attrs: dict[str, Attr]
    """Shared empty dict for the many nodes without attributes: do not mutate it."""

    @property
    def label(self) -> str:
        """How messages name the node: its name, or its op type and position when unnamed."""
        return self.name or f"{self.op} #{self.index}"


@dataclass(slots=True)
class Graph:
    """What `collect` found; repeated graph fields merge in file order, as protobuf does."""

    nodes: list[Node] = field(default_factory=list)
    initializers: dict[str, Tensor] = field(default_factory=dict)
    value_info: dict[str, _Type | None] = field(default_factory=dict)


class _Budget:
    __slots__ = ("edges", "text")

    def __init__(self) -> None:
        self.edges = 0
        self.text = 0

    def left(self) -> int:
        """Items that may still be decoded, plus one to trip the limit."""
        return MAX_EDGES - self.edges + 1

    def spend(self, edges: int, text: int) -> None:
        self.edges += edges
        self.text += text
        if self.edges > MAX_EDGES:
            raise GraphTooLarge(f"more than {MAX_EDGES:,} node inputs, outputs and attributes")
        if self.text > MAX_TEXT:
            raise GraphTooLarge(f"more than {MAX_TEXT >> 20} MiB of names and attributes")


def collect(model: _Model, ranges: list[tuple[int, int]]) -> Graph:
    """Walk the graph messages at `ranges` (byte offsets in the model's buffer).

    Raises `GraphTooLarge`, or the reader's `ArtifactError` when a node is corrupt.
    """
    graph = Graph()
    budget = _Budget()
    w = model.wire
    seen = 0
    for start, end in ranges:
        for number, wire, a, b in w.fields(start, end, "graph"):
            if wire != 2:
                continue
            seen += 1
            if seen > MAX_ENTRIES:
                raise GraphTooLarge(f"more than {MAX_ENTRIES:,} graph entries")
            if number == 1:
                if len(graph.nodes) >= MAX_NODES:
                    raise GraphTooLarge(f"more than {MAX_NODES:,} nodes")
                graph.nodes.append(_node(model, a, b, len(graph.nodes), budget))
            elif number == 5:
                name, tensor = _tensor(model, a, b, "initializer", budget)
                budget.spend(1, len(name))
                graph.initializers[name] = tensor
            elif number == 13:
                name, ty = model.read_value(a, b, "value_info")
                budget.spend(1 + len(ty.dims or ()) if ty else 1, len(name))
                graph.value_info.setdefault(name, ty)  # the first one wins
    return graph


def _node(model: _Model, start: int, end: int, index: int, budget: _Budget) -> Node:
    w = model.wire
    inputs: list[str] = []
    outputs: list[str] = []
    attrs = _NO_ATTRS
    op = domain = name = ""
    text = 0
    for number, wire, a, b in w.fields(start, end, "node"):
        if wire != 2:
            continue
        if number != 5:
            text += b - a
        if number in (1, 2):
            (inputs if number == 1 else outputs).append(w.string(a, b, "node input/output name"))
        elif number == 3:
            name = w.string(a, b, "node name")
        elif number == 4:
            op = sys.intern(w.string(a, b, "node op_type"))
        elif number == 7:
            domain = sys.intern(w.string(a, b, "node domain"))
        elif number == 5:
            key, attr = _attribute(model, a, b, budget)
            if attrs is _NO_ATTRS:
                attrs = {}
            attrs[key] = attr  # a repeated name: the last one wins (ONNX Runtime too)
    budget.spend(len(inputs) + len(outputs), text)
    return Node(index, op, domain, name, tuple(inputs), tuple(outputs), attrs)


WANTED = frozenset(
    {"axis", "axes", "perm", "keepdims", "noop_with_empty_axes", "to", "transA", "transB",
     "allowzero", "start", "end", "starts", "ends", "value", "value_int", "value_ints",
     "value_float", "value_floats", "layout"}
)  # fmt: skip
"""Attributes the inference (and `onnx_axis_ops`) reads; any other is recorded by name only."""


def _attribute(model: _Model, start: int, end: int, budget: _Budget) -> tuple[str, Attr]:
    w = model.wire
    name = ""
    for number, wire, a, b in w.fields(start, end, "attribute"):
        if number == 1 and wire == 2:
            name = w.string(a, b, "attribute name")
    budget.spend(1, len(name))
    attr = Attr()
    if name not in WANTED:
        return name, attr
    for number, wire, a, b in w.fields(start, end, "attribute"):
        if number == 2 and wire == 5:
            attr.f = _f32(w.buf[a:b])
        elif number == 3 and wire == 0:
            attr.i = _int64(a)
        elif number == 4 and wire == 2:
            if b - a <= 1024:  # auto_pad, mode, ...: short; longer strings are not read
                attr.s = w.string(a, b, "attribute string")
                budget.spend(0, b - a)
        elif number == 5 and wire == 2:
            attr.t = _tensor(model, a, b, "attribute tensor", budget)[1]
        elif number in (6, 11) and wire == 2:
            attr.graph = True
        elif number == 8:
            values = _varints(model, wire, a, b, "attribute ints", budget.left())
            budget.spend(len(values), 0)
            attr.ints.extend(_int64(v) for v in values)
        elif number == 7:
            if wire == 5:
                attr.floats.append(_f32(w.buf[a:b]))
            elif wire == 2:
                count = (b - a) // 4
                budget.spend(count, 0)  # raises before decoding a hostile length
                attr.floats.extend(_f32(w.buf[a + 4 * k : a + 4 * k + 4]) for k in range(count))
    return name, attr


def _tensor(model: _Model, start: int, end: int, ctx: str, budget: _Budget) -> tuple[str, Tensor]:
    """Name, element type, dims, and the values of a small stored integer tensor."""
    w = model.wire
    name = ""
    elem = 0
    dims: list[int] = []
    raw: tuple[int, int] | None = None
    typed: list[int] = []
    typed_seen = False
    location = 0
    for number, wire, a, b in w.fields(start, end, ctx):
        if number == 1:
            found = _varints(model, wire, a, b, f"{ctx} dims", budget.left())
            budget.spend(len(found), 0)
            dims.extend(_int64(v) for v in found)
        elif number == 2 and wire == 0:
            elem = _int32(a)
        elif number == 8 and wire == 2:
            name = w.string(a, b, f"{ctx} name")
        elif number == 9 and wire == 2:
            raw = (a, b)
        elif number in (5, 7, 11):  # int32_data, int64_data, uint64_data
            typed_seen = True
            if len(typed) <= MAX_VALUES:
                typed.extend(
                    _varints(model, wire, a, b, f"{ctx} data", MAX_VALUES + 1 - len(typed))
                )
        elif number == 14 and wire == 0:
            location = _int32(a)
    count = 1
    for d in dims:
        count *= d if d > 0 else 0
        if count > MAX_VALUES:
            break
    values: tuple[int, ...] | None = None
    if location != _EXTERNAL and 0 <= count <= MAX_VALUES and min(dims, default=0) >= 0:
        if raw is not None and elem in _RAW_FORMAT:
            values = _unpack(w.buf[raw[0] : raw[1]], _RAW_FORMAT[elem], count)
        elif raw is None and typed_seen and elem in (INT64, INT32, INT16, INT8, UINT8, UINT16):
            if len(typed) == count:
                values = tuple(_int64(v) if elem == INT64 else _int32(v) for v in typed)
        elif raw is None and not typed_seen and count == 0:
            values = ()
    return name, Tensor(elem, tuple(dims), values)


def _unpack(data: bytes, fmt: str, count: int) -> tuple[int, ...] | None:
    size = struct.calcsize(fmt)
    if len(data) != size * count:
        return None
    return tuple(v for (v,) in struct.iter_unpack(fmt, data)) if count else ()


def _varints(model: _Model, wire: int, a: int, b: int, ctx: str, limit: int) -> list[int]:
    """One unpacked varint, or a packed run (at most `limit`, the rest is not decoded)."""
    if wire == 0:
        return [a]
    if wire != 2:
        return []
    w = model.wire
    out: list[int] = []
    i = a
    while i < b and len(out) < limit:
        value, i = w.varint(i, b, ctx)
        out.append(value)
    return out


def _f32(data: bytes) -> float:
    value: float = struct.unpack("<f", data)[0]
    return value


def _int64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value
