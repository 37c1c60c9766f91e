"""The sizes each operation of the model.py flow (`python_flow`) gives its result.

`python_sizes` is the algebra of sizes; this module applies it to the operations a
model.py writes: the axes `reshape`, a reduction, `np.pad`, `np.concatenate`,
`np.array(list)` and `@` give an array, and the int `range(...)` and `+ - * / // % **`
give. Each returns None where it cannot follow the operation, and None never produces
a finding. A size keeps why it has its value (`MAX_LENGTH = 256 (line 5)`), which the
messages cite.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from pbtxt_lint.artifacts import python_sizes as sz
from pbtxt_lint.artifacts.python_sizes import Dims, Size
from pbtxt_lint.artifacts.python_syntax import int_literal, source_text
from pbtxt_lint.artifacts.python_values import Arr, Seq, Value, as_int, size_of


def flat_dims(dims: Dims | None, why: str) -> Dims | None:
    """The one axis of a flattened array: the product of its axes."""
    if dims is None:
        return None
    total: Size | None = Size(1)
    for size in dims:
        total = sz.multiply(total, size, why)
    return (total,)


def reduced_dims(
    array: Arr, axis_node: ast.expr | None, keepdims: bool, node: ast.AST
) -> Dims | None:
    """The dims after reducing `axis_node` (every axis when None)."""
    dims = array.dims
    if dims is None:
        return None
    one = Size(1, (), f"{source_text(node)} (line {getattr(node, 'lineno', 0)})")
    if axis_node is None or (isinstance(axis_node, ast.Constant) and axis_node.value is None):
        return tuple(one for _ in dims) if keepdims else ()
    nodes = axis_node.elts if isinstance(axis_node, ast.Tuple | ast.List) else [axis_node]
    axes = [int_literal(a) for a in nodes]
    if None in axes:
        return None
    normal = {a + len(dims) if a < 0 else a for a in axes if a is not None}
    if not all(0 <= a < len(dims) for a in normal):
        return None
    if keepdims:
        return tuple(one if a in normal else d for a, d in enumerate(dims))
    return tuple(d for a, d in enumerate(dims) if a not in normal)


def reshaped_dims(array: Arr, sizes: Sequence[Value] | None, node: ast.AST) -> Dims | None:
    """The dims `reshape(*sizes)` gives (one -1 is inferred from the element count)."""
    if sizes is None:
        return None
    given = [size_of(as_int(s)) for s in sizes]
    minus = [i for i, g in enumerate(given) if g is not None and g.constant == -1]
    if len(minus) > 1:
        return None
    if minus:
        why = f"{source_text(node)} (line {getattr(node, 'lineno', 0)})"
        total = sz.product(array.dims or (None,))
        rest = sz.product(g for i, g in enumerate(given) if i != minus[0])
        inferred = sz.constant(total // rest, why) if total is not None and rest else None
        given[minus[0]] = inferred
    return tuple(given)


def shape_dims(shape: Value) -> Dims | None:
    """The dims a shape argument (`(len(x), 256)`, `n`) asks for."""
    if isinstance(shape, Seq):
        if shape.elements is None:
            return None
        return tuple(size_of(as_int(e)) for e in shape.elements)
    size = size_of(as_int(shape))
    return (size,) if size is not None else None


def padded_dims(dims: Dims | None, width: Value, node: ast.AST) -> Dims | None:
    """The dims after `np.pad(array, width)`: an int, a (before, after) pair for every
    axis, or one pair per axis."""
    if dims is None:
        return None
    why = f"{source_text(node)} (line {getattr(node, 'lineno', 0)})"

    def pair(value: Value) -> tuple[Size | None, Size | None]:
        if isinstance(value, Seq) and value.elements is not None and len(value.elements) == 2:
            return size_of(as_int(value.elements[0])), size_of(as_int(value.elements[1]))
        if isinstance(value, Seq) and value.elements is not None and len(value.elements) == 1:
            return pair(value.elements[0])
        size = size_of(as_int(value))
        return size, size

    pairs: list[tuple[Size | None, Size | None]]
    parts = width.elements if isinstance(width, Seq) else None
    if parts is not None and len(parts) == len(dims) and all(isinstance(p, Seq) for p in parts):
        pairs = [pair(p) for p in parts]
    else:
        pairs = [pair(width)] * len(dims)
    return tuple(
        sz.add(sz.add(d, before, why), after, why)
        for d, (before, after) in zip(dims, pairs, strict=True)
    )


def seq_dims(seq: Seq) -> Dims | None:
    """The dims of `np.array(seq)`: its length, its items' lengths, and the dims of the
    arrays it holds."""
    dims: list[Size | None] = [seq.size]
    item = seq.item
    while isinstance(item, Seq):
        dims.append(item.size)
        item = item.item
    if isinstance(item, Arr):
        if item.dims is None:
            return None
        dims.extend(item.dims)
    return tuple(dims)


def concatenated(arrays: Seq, axis: int, node: ast.AST) -> Dims | None:
    """The dims of `np.concatenate(arrays, axis)`: the other axes as every array has
    them, the axis summed over the arrays when they are written out."""
    item = arrays.item
    if not isinstance(item, Arr) or item.dims is None or arrays.elements is None:
        return None
    at = axis + len(item.dims) if axis < 0 else axis
    if not 0 <= at < len(item.dims):
        return None
    why = f"{source_text(node)} (line {getattr(node, 'lineno', 0)})"
    total: Size | None = Size(0)
    for element in arrays.elements:
        if (
            not isinstance(element, Arr)
            or element.dims is None
            or len(element.dims) != len(item.dims)
        ):
            return None
        total = sz.add(total, element.dims[at], why)
    return (*item.dims[:at], total, *item.dims[at + 1 :])


def range_length(bounds: Sequence[Size | None], why: str) -> Size | None:
    """len(range(*bounds)), assuming the range is not empty when it is symbolic."""
    if len(bounds) == 1:
        return bounds[0]
    if len(bounds) == 2:
        x, y = bounds
        if x is not None and y is not None and x.constant is not None and y.constant is not None:
            return sz.constant(max(0, y.constant - x.constant), why)
        return sz.add(y, x, why, sign=-1)
    values = [b.constant if b is not None else None for b in bounds]
    if len(values) == 3 and None not in values and values[2]:
        start, stop, step = (v or 0 for v in values)
        return sz.constant(len(range(start, stop, step or 1)), why)
    return None


def arithmetic(op: ast.operator, a: Size | None, b: Size | None, why: str) -> Size | None:
    if isinstance(op, ast.Add):
        return sz.add(a, b, why)
    if isinstance(op, ast.Sub):
        return sz.add(a, b, why, sign=-1)
    if isinstance(op, ast.Mult):
        return sz.multiply(a, b, why)
    if isinstance(op, ast.Div):
        x, y = (a.constant, b.constant) if a and b else (None, None)
        if x is not None and y and x % y == 0:
            return sz.constant(x // y, why)
        return sz.opaque("div", (a, b), why)
    names = {ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}
    name = names.get(type(op))
    return sz.integer_operation(name, a, b, why) if name else None


def matmul_dims(left: Dims | None, right: Dims | None) -> Dims | None:
    """The dims of `left @ right` when both have rank 2 or more, or one has rank 1."""
    if left is None or right is None or not left or not right:
        return None
    if len(left) == 1 and len(right) == 1:
        return ()
    if len(right) == 1:
        return left[:-1]
    if len(left) == 1:
        return (*right[:-2], right[-1])
    stacked = sz.broadcast(left[:-2], right[:-2])
    return None if stacked is None else (*stacked, left[-2], right[-1])


def matmul_rank(left: int | None, right: int | None) -> int | None:
    if left is None or right is None:
        return None
    if left >= 2 and right >= 2:
        return max(left, right)
    if right == 1:
        return left - 1
    if left == 1:
        return right - 1
    return None
