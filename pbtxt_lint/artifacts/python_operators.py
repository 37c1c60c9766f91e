"""What Python's binary operators give in the model.py flow (`python_flow`).

On NumPy arrays, `a + b`, `a * b`, `a / b`, `a @ b`, ... follow NumPy's type promotion
(`python_numpy`: a float32 array times a Python float stays float32, int32 / int32 is
float64) and broadcasting; on Python ints and floats they compute the size
(`python_dims.arithmetic`); on lists, `+` concatenates and `*` repeats. NumPy's
`np.add`, `np.divide`, `np.matmul` and `np.where` (`python_array_calls`) give what the
operators give.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import replace

from pbtxt_lint.artifacts import python_numpy as npt
from pbtxt_lint.artifacts import python_sizes as sz
from pbtxt_lint.artifacts.python_dims import arithmetic, matmul_dims, matmul_rank
from pbtxt_lint.artifacts.python_syntax import source_text
from pbtxt_lint.artifacts.python_values import (
    NUMBERS,
    Arr,
    Py,
    PyKind,
    Seq,
    Value,
    as_int,
    empty,
    join,
    seq_of,
)


def binop(op: ast.operator, left: Value, right: Value, node: ast.AST) -> Value:
    """The value of `left op right` (`node`: the expression, which messages cite)."""
    line = getattr(node, "lineno", 0)
    symbol = _SYMBOLS.get(type(op), "?")
    left, right = as_int(left), as_int(right)
    sized = any(isinstance(v, Py | Seq) and v.size is not None for v in (left, right))
    why = f"{source_text(node)} (line {line})" if sized else ""
    if isinstance(left, Py) and isinstance(right, Py):
        kinds = {left.kind, right.kind}
        if kinds & {PyKind.STR, PyKind.BYTES}:
            text = left if left.kind in (PyKind.STR, PyKind.BYTES) else right
            joined = isinstance(op, ast.Add) and left.kind == right.kind
            return Py(text.kind, size=sz.add(left.size, right.size, why) if joined else None)
        result_size = arithmetic(op, left.size, right.size, why)
        if isinstance(op, ast.Div) or PyKind.FLOAT in kinds:
            return Py(PyKind.FLOAT, size=result_size)
        return Py(PyKind.INT, size=result_size) if kinds <= {PyKind.INT, PyKind.BOOL} else None
    if isinstance(left, Seq) and isinstance(right, Seq) and isinstance(op, ast.Add):
        length = sz.add(left.size, right.size, why)
        elements = None
        if left.elements is not None and right.elements is not None:
            elements = left.elements + right.elements
        if empty(left) or empty(right):
            kept = right if empty(left) else left
            return replace(seq_of(kept.item), length=length, elements=kept.elements)
        return replace(seq_of(join(left.item, right.item)), length=length, elements=elements)
    if isinstance(op, ast.Mult) and {type(left), type(right)} == {Seq, Py}:
        seq = left if isinstance(left, Seq) else right
        count = right if isinstance(right, Py) else left
        if isinstance(seq, Seq) and isinstance(count, Py) and count.kind == PyKind.INT:
            return replace(seq_of(seq.item), length=sz.multiply(seq.size, count.size, why))
        return None
    if not (isinstance(left, Arr) or isinstance(right, Arr)):
        return None
    arrays = [v for v in (left, right) if isinstance(v, Arr)]
    scalar = next((v for v in (left, right) if isinstance(v, Py)), None)
    if len(arrays) == 2:
        a, b = arrays
        dtype = npt.promote(a.dtype, b.dtype)
        if isinstance(op, ast.MatMult):
            base = a
            rank = matmul_rank(a.rank, b.rank)
        else:
            base = a if (a.rank or 0) >= (b.rank or 0) else b
            rank = max(a.rank, b.rank) if a.rank is not None and b.rank is not None else None
        why = a.why if dtype == a.dtype else b.why if dtype == b.dtype else ""
        if not why and dtype is not None:
            why = f"{a.dtype} {symbol} {b.dtype} gives {dtype} (line {line})"
        size = base.size if a.rank == b.rank and not isinstance(op, ast.MatMult) else None
        dims = (
            matmul_dims(a.dims, b.dims)
            if isinstance(op, ast.MatMult)
            else sz.broadcast(a.dims, b.dims)
        )
        result = replace(base, dtype=dtype, why=why, rank=rank, size=size, dims=dims)
    elif scalar is not None and scalar.kind in NUMBERS:
        array = arrays[0]
        dtype = npt.with_scalar(array.dtype, scalar.kind.value)
        why = array.why if dtype == array.dtype else (
            f"{array.dtype} array {symbol} Python {scalar.kind.value} gives {dtype} (line {line})"
        )  # fmt: skip
        result = replace(array, dtype=dtype, why=why)
    else:
        array = arrays[0]
        return replace(array, dtype=None, why="", rank=None, batch=None, size=None)
    if isinstance(op, ast.Div):
        divided = npt.true_divide(result.dtype)
        if divided != result.dtype:
            operands = " / ".join(
                f"{v.dtype} array" if isinstance(v, Arr) else f"Python {getattr(v, 'kind', '')}"
                for v in (left, right)
            )
            result = replace(result, dtype=divided, why=f"{operands} gives {divided} (line {line})")
    return result


_SYMBOLS: Mapping[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@",
}  # fmt: skip
