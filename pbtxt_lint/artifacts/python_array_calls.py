"""What the library calls in a model.py's `execute` give the flow (`python_flow`):
NumPy's functions and an array's methods, a Hugging Face tokenizer, `cv2.resize`.

Each call is followed as its library documents it: the dtype it returns (NumPy's rules
are `python_numpy`: `np.mean` of int32 is float64, `np.argmax` returns int64), its rank,
whether axis 0 is still the request's batch axis (a reduction along axis 0 or a
reshape to a literal shape drops it), and the size of each axis (`python_dims`). A call
this module does not know gives an unknown value, which never produces a finding.
`ArrayCalls` works for the interpreter, whose arithmetic `np.add`, `np.matmul` and
`np.where` share with `+` and `@`, and which records each reshape of a batched array
to a literal shape.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from pbtxt_lint.artifacts import python_numpy as npt
from pbtxt_lint.artifacts import python_sizes as sz
from pbtxt_lint.artifacts.python_dims import (
    concatenated,
    flat_dims,
    padded_dims,
    range_length,
    reduced_dims,
    reshaped_dims,
    seq_dims,
    shape_dims,
)
from pbtxt_lint.artifacts.python_operators import binop
from pbtxt_lint.artifacts.python_sizes import Dims, Size
from pbtxt_lint.artifacts.python_syntax import argument, int_literal, source_text
from pbtxt_lint.artifacts.python_values import (
    NUMBERS,
    Arr,
    Encoding,
    Py,
    PyKind,
    Reshape,
    Seq,
    Tag,
    TagKind,
    Value,
    as_int,
    size_of,
    with_dims,
)

_SAME = frozenset(
    {"abs", "absolute", "negative", "positive", "clip", "round", "around", "rint", "floor",
     "ceil", "trunc", "sign", "sort", "flip", "fliplr", "flipud", "roll", "ascontiguousarray",
     "asfortranarray", "copy", "nan_to_num", "square", "pad", "sigmoid"}
)  # fmt: skip
_FLOAT_FUNCTIONS = frozenset(
    {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos",
     "tan", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "arctanh", "deg2rad",
     "rad2deg", "erf"}
)  # fmt: skip
_BINARY = frozenset({"add", "subtract", "multiply", "maximum", "minimum", "power", "fmax", "fmin"})
_INDEX_FUNCTIONS = frozenset({"argmax", "argmin", "nanargmax", "nanargmin"})
_REDUCE_SAME = frozenset({"max", "min", "amax", "amin", "nanmax", "nanmin", "ptp"})
_REDUCE_MEAN = frozenset({"mean", "average", "std", "var", "median", "nanmean", "nanstd"})
_REDUCE_SUM = frozenset({"sum", "prod", "nansum", "nanprod"})
_BOOL_FUNCTIONS = frozenset(
    {"isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not", "greater",
     "less", "equal", "not_equal", "greater_equal", "less_equal", "isclose"}
)  # fmt: skip
_CREATE = frozenset({"zeros", "ones", "empty"})
_LIKE = frozenset({"zeros_like", "ones_like", "empty_like", "full_like"})
_ARRAY = frozenset({"array", "asarray", "asanyarray"})
_DTYPE_POSITION: Mapping[str, int] = {
    **dict.fromkeys(("array", "asarray", "asanyarray", "zeros", "ones", "empty"), 1),
    **dict.fromkeys(("zeros_like", "ones_like", "empty_like", "frombuffer", "fromstring"), 1),
    "full": 2,
    "full_like": 2,
}
"""Where each creation function takes `dtype` positionally."""


class Interpreter(Protocol):
    """The interpreter (`python_flow`) as the array calls need it."""

    reshapes: list[Reshape]
    """Each reshape of a batched array to a literal shape, as recorded."""

    def whole(self, array: Arr) -> bool:
        """Whether `array` still has the rank of the input it comes from."""


@dataclass(frozen=True)
class ArrayCalls:
    """NumPy's functions (`np.mean(x, axis=1)`) and an array's methods (`x.reshape(...)`)."""

    flow: Interpreter

    def array_method(
        self, array: Arr, name: str, node: ast.Call, args: list[Value], kwargs: Mapping[str, Value]
    ) -> Value:
        line = node.lineno
        if name in ("astype", "view"):
            dtype = _dtype(args[0] if args else kwargs.get("dtype"))
            shown = source_text(node.args[0]) if node.args else "?"
            why = f".{name}({shown}) makes it {dtype} (line {line})" if dtype else ""
            same = name == "astype" or dtype == array.dtype
            return replace(array, dtype=dtype, why=why, dims=array.dims if same else None)
        if name == "reshape":
            shape = args[0] if len(args) == 1 and isinstance(args[0], Seq) else None
            first = args[0] if args and shape is None else None
            sizes = shape.elements if shape is not None else tuple(args)
            result = self.reshape(array, node, node.args if shape is None else None, shape, first)
            return with_dims(result, reshaped_dims(array, sizes, node))
        if name == "transpose":
            axes = [int_literal(a) for a in node.args]
            if len(node.args) == 1 and isinstance(node.args[0], ast.Tuple | ast.List):
                axes = [int_literal(a) for a in node.args[0].elts]
            keeps = bool(axes) and axes[0] == 0
            batch = array.batch if keeps or array.rank == 1 else None
            return replace(array, batch=batch, dims=sz.permuted(array.dims, axes))
        if name in ("copy", "clip", "round", "squeeze_", "__array__"):
            return array
        if name in ("flatten", "ravel"):
            where = f"{source_text(node)} (line {line})"
            return with_dims(self.merge_axes(array, 1, where), flat_dims(array.dims, where))
        if name == "squeeze":
            axis = int_literal(argument(node, 0, "axis"))
            if axis is None:
                return replace(array, rank=None, batch=None, size=None)
            return self.reduce(
                array, array.dtype, array.why, node, axis_node=argument(node, 0, "axis")
            )
        if name in ("sum", "prod", "cumsum"):
            dtype = npt.sum_dtype(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f".{name}() of {array.dtype} is {dtype} (line {line})"
            )
            if name == "cumsum":
                along = argument(node, 0, "axis") is not None
                return replace(array, dtype=dtype, why=why, dims=array.dims if along else None)
            return self.reduce(array, dtype, why, node)
        if name in ("mean", "std", "var"):
            dtype = npt.mean_dtype(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f".{name}() of {array.dtype} is {dtype} (line {line})"
            )
            return self.reduce(array, dtype, why, node)
        if name in ("max", "min", "any", "all"):
            dtype = "bool" if name in ("any", "all") else array.dtype
            return self.reduce(array, dtype, array.why if dtype == array.dtype else "", node)
        if name in ("argmax", "argmin"):
            why = f".{name}() returns int64 (line {line})"
            return self.reduce(array, "int64", why, node)
        if name == "argsort":
            return replace(array, dtype="int64", why=f".argsort() returns int64 (line {line})")
        if name == "tolist":
            return Seq(None, length=array.dims[0] if array.dims else None)
        if name == "decode" and array.rank in (0, None):
            where = f"{source_text(node)} (line {line})"
            size = sz.symbol(f"r:text@{line}:{node.col_offset}", where) if array.source else None
            return Py(PyKind.STR, size=size)  # an item of a TYPE_STRING input
        return None

    def reshape(
        self,
        array: Arr,
        node: ast.Call,
        arg_nodes: Sequence[ast.expr] | None,
        shape: Seq | None,
        first_value: Value = None,
    ) -> Value:
        """`array.reshape(...)`: a literal shape, or one that keeps (or invents) axis 0."""
        if shape is not None:
            literal, rank = shape.ints, shape.items if shape.items >= 0 else None
        elif arg_nodes is not None and not any(isinstance(a, ast.Starred) for a in arg_nodes):
            ints = [int_literal(a) for a in arg_nodes]
            literal = tuple(i for i in ints if i is not None) if None not in ints else None
            rank = len(arg_nodes)
        else:
            return replace(array, rank=None, batch=None, size=None)
        where = f"{source_text(node)} (line {node.lineno})"
        if literal is not None:
            size = math.prod(literal) if all(d > 0 for d in literal) else None
            if array.batch is True and size is not None and size == array.size and array.source:
                self.flow.reshapes.append(Reshape(node.lineno, array.source, literal, size))
            if array.batch is True:
                return replace(array, rank=rank, batch=False, size=size, dropped=where)
            return replace(array, rank=rank, batch=False, size=size)
        first = (
            first_value.ref
            if isinstance(first_value, Tag) and first_value.kind == TagKind.DIM0
            else None
        )
        if first is not None:
            if first.batch is True:
                return replace(array, rank=rank, batch=True, size=None)
            if first.batch is False and first.source and self.flow.whole(first):
                return replace(array, rank=rank, batch=None, size=None, axis0=first.axis0 or where)
        return replace(array, rank=rank, batch=None, size=None)

    def merge_axes(self, array: Arr, rank: int, where: str) -> Arr:
        if array.batch is True:
            return replace(array, rank=rank, batch=False, size=None, dropped=where)
        return replace(array, rank=rank, batch=None, size=None)

    def reduce(
        self,
        array: Arr,
        dtype: str | None,
        why: str,
        node: ast.Call,
        axis_node: ast.expr | None = None,
        first_arg: int = 0,
    ) -> Arr:
        """A reduction along `axis` (all axes without one)."""
        axis_node = axis_node if axis_node is not None else argument(node, first_arg, "axis")
        keep = argument(node, 99, "keepdims")
        keepdims = isinstance(keep, ast.Constant) and keep.value is True
        result = self.reduced(array, dtype, why, node, axis_node, keepdims)
        return replace(result, dims=reduced_dims(array, axis_node, keepdims, node))

    def reduced(
        self,
        array: Arr,
        dtype: str | None,
        why: str,
        node: ast.Call,
        axis_node: ast.expr | None,
        keepdims: bool,
    ) -> Arr:
        """The rank and batch axis after a reduction."""
        where = f"{source_text(node)} (line {node.lineno})"
        base = replace(array, dtype=dtype, why=why if dtype is not None else "")
        if axis_node is None or (isinstance(axis_node, ast.Constant) and axis_node.value is None):
            if keepdims:
                return replace(base, batch=None, size=None)
            return self.merge_axes(replace(base), 0, where) if array.batch else replace(
                base, rank=0, batch=None, size=None
            )  # fmt: skip
        axes = (
            [int_literal(a) for a in axis_node.elts]
            if isinstance(axis_node, ast.Tuple | ast.List)
            else [int_literal(axis_node)]
        )
        if None in axes or array.rank is None:
            return replace(base, rank=None if not keepdims else array.rank, batch=None, size=None)
        normal = {a if a is not None and a >= 0 else (a or 0) + array.rank for a in axes}
        rank = array.rank if keepdims else array.rank - len(normal)
        if 0 in normal:
            if keepdims:
                return replace(base, batch=None, size=None)
            return self.merge_axes(base, rank, where)
        return replace(base, rank=rank, size=None)

    def numpy_call(
        self, name: str, node: ast.Call, args: list[Value], kwargs: Mapping[str, Value]
    ) -> Value:
        line = node.lineno
        first = args[0] if args else None
        array = first if isinstance(first, Arr) else None
        label = f"np.{name}(...)"
        dtype: str | None
        at = _DTYPE_POSITION.get(name)
        if at is not None and "dtype" not in kwargs and len(args) > at:
            kwargs = {**kwargs, "dtype": args[at]}  # np.array(x, np.float32)
        if name in npt.DTYPE_NAMES:  # np.float32(x)
            dtype = npt.DTYPE_NAMES[name]
            why = f"np.{name}(...) (line {line})"
            if array is not None:
                return replace(array, dtype=dtype, why=why)
            return Arr(dtype, why, 0, False)
        if name in _ARRAY:
            return self.array_of(first, kwargs, node, label)
        if name in _CREATE or name == "full":
            given = "dtype" in kwargs
            dtype = _dtype(kwargs.get("dtype")) if given else None
            why = ""
            if not given:
                fill = args[1] if name == "full" and len(args) > 1 else None
                dtype = "float64" if name != "full" else _literal_dtype(fill)
                why = f"{label} without dtype= is {dtype} (line {line})" if dtype else ""
            shape = first
            rank = shape.items if isinstance(shape, Seq) and shape.items >= 0 else None
            if isinstance(shape, Py | Tag) and not isinstance(shape, Seq):
                rank = 1 if isinstance(shape, Py) and shape.kind == PyKind.INT else rank
            return Arr(dtype, why, rank, None, dims=shape_dims(shape))
        if name in _LIKE:
            if array is None:
                return None
            if "dtype" in kwargs:
                return replace(array, dtype=_dtype(kwargs["dtype"]), why="")
            return array
        if name in ("arange", "linspace", "frombuffer", "fromstring", "eye", "identity"):
            numbers = [as_int(a) for a in args]
            length = None
            if name == "arange" and "step" not in kwargs:
                length = range_length(
                    [size_of(n) for n in numbers], f"{source_text(node)} (line {line})"
                )
            elif name == "linspace":
                length = size_of(as_int(args[2] if len(args) > 2 else kwargs.get("num")))
            if "dtype" in kwargs:
                dtype = _dtype(kwargs["dtype"])
                why = f"{label} with dtype= (line {line})" if dtype else ""
                if name in ("arange", "linspace"):
                    return Arr(dtype, why, 1, False, dims=(length,))
                return Arr(dtype, why, None)
            if name == "arange":
                kinds = [n.kind if isinstance(n, Py) else None for n in numbers]
                if args and all(kind in NUMBERS for kind in kinds):
                    dtype = "float64" if PyKind.FLOAT in kinds else "int64"
                    what = "floats" if dtype == "float64" else "ints"
                    why = f"{label} of Python {what} is {dtype} (line {line})"
                    return Arr(dtype, why, 1, False, dims=(length,))
                return None
            if name == "linspace":
                why = f"{label} without dtype= is float64 (line {line})"
                return Arr("float64", why, 1, False, dims=(length,))
            return Arr("float64", f"{label} without dtype= is float64 (line {line})", None)
        if array is None and name not in ("stack", "concatenate", "vstack", "hstack", "where",
                                          "einsum", "matmul", "dot"):  # fmt: skip
            return None
        if name in _SAME or name == "transpose":
            if name == "transpose":
                axes = argument(node, 1, "axes")
                keeps = isinstance(axes, ast.Tuple | ast.List) and axes.elts and int_literal(
                    axes.elts[0]
                ) == 0  # fmt: skip
                order = [int_literal(a) for a in axes.elts] if isinstance(
                    axes, ast.Tuple | ast.List
                ) else None  # fmt: skip
                if array is None or (axes is not None and order is None):
                    return replace(array, batch=None, dims=None) if array else None
                dims = sz.permuted(array.dims, order)
                return replace(array, batch=array.batch if keeps else None, dims=dims)
            if name == "pad" and array is not None:
                width = args[1] if len(args) > 1 else kwargs.get("pad_width")
                return replace(array, dims=padded_dims(array.dims, width, node))
            flat = argument(node, 1, "axis")
            if name == "sort" and isinstance(flat, ast.Constant) and flat.value is None:
                return replace(array, rank=1, batch=None, size=None) if array else None
            return array
        if name in _FLOAT_FUNCTIONS and array is not None:
            dtype = npt.float_function(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f"{label} of {array.dtype} is {dtype} (line {line})"
            )
            return replace(array, dtype=dtype, why=why)
        if name in _BINARY and len(args) >= 2:
            return binop(ast.Mult(), args[0], args[1], node)
        if name in ("divide", "true_divide") and len(args) >= 2:
            return binop(ast.Div(), args[0], args[1], node)
        if name in ("matmul", "dot") and len(args) >= 2:
            return binop(ast.MatMult(), args[0], args[1], node)
        if name in _INDEX_FUNCTIONS and array is not None:
            return self.reduce(
                array, "int64", f"{label} returns int64 (line {line})", node, first_arg=1
            )
        if name == "argsort" and array is not None:
            return replace(array, dtype="int64", why=f"{label} returns int64 (line {line})")
        if name in ("argwhere", "nonzero", "flatnonzero"):
            return Arr(
                "int64", f"{label} returns int64 (line {line})", 2 if name == "argwhere" else None
            )
        if name in _REDUCE_SAME and array is not None:
            return self.reduce(array, array.dtype, array.why, node, first_arg=1)
        promote = (
            npt.mean_dtype
            if name in _REDUCE_MEAN
            else npt.sum_dtype
            if name in _REDUCE_SUM
            else None
        )
        if promote is not None and array is not None:
            dtype = promote(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f"{label} of {array.dtype} is {dtype} (line {line})"
            )
            return self.reduce(array, dtype, why, node, first_arg=1)
        if name in _BOOL_FUNCTIONS and array is not None:
            other = args[1] if len(args) > 1 else None
            dims = sz.broadcast(array.dims, other.dims) if isinstance(other, Arr) else array.dims
            if len(args) > 1 and not isinstance(other, Arr | Py):
                dims = None
            return replace(array, dtype="bool", why=f"{label} gives bool (line {line})", dims=dims)
        if name == "expand_dims" and array is not None:
            axis = int_literal(argument(node, 1, "axis"))
            rank = array.rank + 1 if array.rank is not None else None
            dims = None
            if axis is not None and array.dims is not None and rank is not None:
                at = axis + rank if axis < 0 else axis
                one = Size(1, (), f"{source_text(node)} (line {line})")
                dims = (*array.dims[:at], one, *array.dims[at:]) if 0 <= at < rank else None
            if axis == 0:
                return replace(array, rank=rank, batch=None, size=None, dropped="", dims=dims)
            return replace(array, rank=rank, size=None, dims=dims)
        if name == "squeeze" and array is not None:
            squeezed = argument(node, 1, "axis")
            if squeezed is None:
                return replace(array, rank=None, batch=None, size=None)
            return self.reduce(array, array.dtype, array.why, node, axis_node=squeezed)
        if name == "reshape" and array is not None:
            shape = args[1] if len(args) > 1 and isinstance(args[1], Seq) else None
            if shape is None:
                return replace(array, rank=None, batch=None, size=None)
            result = self.reshape(array, node, None, shape)
            return with_dims(result, reshaped_dims(array, shape.elements, node))
        if name in ("stack", "concatenate", "vstack", "hstack"):
            return self.joined(name, first, node, kwargs)
        if name == "where" and len(args) == 3:
            result = binop(ast.Add(), args[1], args[2], node)
            if isinstance(result, Arr) and isinstance(args[0], Arr):
                result = replace(result, dims=sz.broadcast(result.dims, args[0].dims))
            return result
        return None

    def array_of(
        self, value: Value, kwargs: Mapping[str, Value], node: ast.Call, label: str
    ) -> Value:
        """`np.array(value, dtype=...)`."""
        line = node.lineno
        if isinstance(value, Tag) and value.kind == TagKind.DIM0:
            value = Py(PyKind.INT)  # np.array(len(x))
        given = "dtype" in kwargs
        dtype = _dtype(kwargs.get("dtype")) if given else None
        why = (
            f"{label} with dtype={source_text(argument(node, 1, 'dtype'))} (line {line})"
            if dtype
            else ""
        )
        if isinstance(value, Arr):
            return replace(value, dtype=dtype, why=why) if given else value
        if isinstance(value, Py):
            if given:
                return Arr(dtype, why, 0, False)
            inferred = _python_dtype(value.kind)
            return Arr(inferred, _python_why(label, value.kind, inferred, line), 0, False)
        if isinstance(value, Seq):
            item = value.item
            while isinstance(item, Seq):
                item = item.item
            rank: int | None = value.depth
            if isinstance(item, Arr):
                rank = value.depth + item.rank if item.rank is not None else None
            if item is None:
                rank = None  # items unknown (an empty list filled where the flow cannot see)
            dims = seq_dims(value)
            if given:
                return Arr(dtype, why, rank, None, dims=dims)
            if isinstance(item, Arr):
                return Arr(item.dtype, item.why, rank, None, item.source, dropped="", dims=dims)
            if isinstance(item, Py):
                inferred = _python_dtype(item.kind)
                why = _python_why(label, item.kind, inferred, line)
                return Arr(inferred, why, rank, None, dims=dims)
            return Arr(None, "", rank, None, dims=dims)
        return Arr(dtype, why, None, None) if given else None

    def joined(self, name: str, first: Value, node: ast.Call, kwargs: Mapping[str, Value]) -> Value:
        """np.stack / np.concatenate of a list of arrays."""
        item = first.item if isinstance(first, Seq) else None
        if not isinstance(item, Arr):
            return None
        axis = int_literal(argument(node, 1, "axis"))
        if "dtype" in kwargs:
            item = replace(item, dtype=_dtype(kwargs["dtype"]), why="")
        assert isinstance(first, Seq)
        count, dims = first.size, item.dims
        if name == "stack":
            rank = item.rank + 1 if item.rank is not None else None
            at = axis if axis is not None else 0
            stacked = None
            if dims is not None and rank is not None and -rank <= at < rank:
                at = at + rank if at < 0 else at
                stacked = (*dims[:at], count, *dims[at:])
            return replace(item, rank=rank, batch=None, size=None, dropped="", dims=stacked)
        if name == "vstack" and item.rank == 1:
            stacked = (count, *dims) if dims is not None else None
            return replace(item, rank=2, batch=None, size=None, dropped="", dims=stacked)
        along = 1 if name == "hstack" and item.rank != 1 else 0 if name != "concatenate" else axis
        flat = argument(node, 1, "axis")
        flattened = isinstance(flat, ast.Constant) and flat.value is None
        dims = None if flattened else concatenated(first, along if along is not None else 0, node)
        if axis not in (0, None) or name == "hstack":
            return replace(item, batch=item.batch, size=None, dims=dims)
        return replace(item, size=None, dims=dims)


def tokenized(node: ast.Call, args: list[Value], kwargs: Mapping[str, Value]) -> Value:
    """A Hugging Face tokenizer call (`tokenizer(texts, padding=..., max_length=...,
    truncation=..., return_tensors="np")`): how many texts, and how many tokens
    each gets. Only padding to a max_length with truncation fixes that length
    (transformers `PreTrainedTokenizerBase._get_padding_truncation_strategies`);
    padding to the longest text, or none, leaves it to the request."""
    tensors = _option(argument(node, 99, "return_tensors"))
    if tensors not in ("", "np", "numpy"):
        return None  # torch or TensorFlow tensors: not followed
    texts = args[0] if args else kwargs.get("text", kwargs.get("batch_text_or_text_pairs"))
    single = isinstance(texts, Py) and texts.kind == PyKind.STR
    count = Size(1) if single else texts.size if isinstance(texts, Seq) else None
    padding = _option(argument(node, 99, "padding"))
    truncation = _option(argument(node, 99, "truncation"))
    limit_node = argument(node, 99, "max_length")
    limit = size_of(as_int(kwargs.get("max_length")))
    line = node.lineno
    truncates = truncation not in ("", "false", "do_not_truncate")
    length: Size | None
    if padding == "?" or truncation == "?":
        length = None
    elif padding == "max_length" and truncates:
        shown = source_text(limit_node)
        if limit is not None and limit.constant is not None:
            value = "" if shown == str(limit.constant) else f" = {limit.constant}"
            why = f'padding="max_length" with max_length={shown}{value} (line {line})'
            length = Size(limit.constant, (), why)
        else:
            length = None  # the tokenizer's own model_max_length, or unknown
    elif padding == "max_length":
        why = f'padding="max_length" without truncation keeps longer texts whole (line {line})'
        length = sz.symbol(f"r:tokens@{line}:{node.col_offset}", why)
    elif padding in ("true", "longest"):
        why = f"the tokenizer pads to the longest text of the request (line {line})"
        length = sz.symbol(f"r:tokens@{line}:{node.col_offset}", why)
    elif padding in ("", "false", "do_not_pad"):
        why = f"the tokenizer does not pad: each text keeps its own length (line {line})"
        length = sz.symbol(f"r:tokens@{line}:{node.col_offset}", why)
    else:
        length = None
    return Encoding(count, length, tensors != "", single)


def encoded(encoding: Encoding, key: str | None, node: ast.AST) -> Value:
    """`encoding["input_ids"]` (or `.input_ids`): [count, length] ints."""
    if key not in ("input_ids", "attention_mask", "token_type_ids"):
        return None
    if encoding.arrays:
        why = f"the tokenizer returns int64 (line {getattr(node, 'lineno', 0)})"
        return Arr("int64", why, 2, None, dims=(encoding.count, encoding.length))
    row = Seq(Py(PyKind.INT), length=encoding.length)
    if encoding.single:
        return row  # a single text: one list of ids
    return Seq(row, 2, length=encoding.count)


def resized(node: ast.Call, args: list[Value], kwargs: Mapping[str, Value]) -> Value:
    """`cv2.resize(image, (width, height))`: [height, width, channels...]."""
    image = args[0] if args else kwargs.get("src")
    size = args[1] if len(args) > 1 else kwargs.get("dsize")
    if not isinstance(image, Arr) or image.rank is None or image.rank < 2:
        return None
    dims: Dims | None = None
    if isinstance(size, Seq) and size.elements is not None and len(size.elements) == 2:
        width, height = (size_of(as_int(e)) for e in size.elements)
        if not (width is not None and width.constant == 0):
            rest = image.dims[2:] if image.dims is not None else (None,) * (image.rank - 2)
            dims = (height, width, *rest)
    return Arr(image.dtype, image.why, image.rank, False, image.source, dims=dims)


_TOKENIZER_OPTIONS = frozenset({"padding", "truncation", "max_length"})


def tokenizer_call(node: ast.Call) -> bool:
    """A call that looks like a Hugging Face tokenizer's: a callee named like one
    (`tokenizer(...)`, `self.tok(...)`, `.encode_plus(...)`, `.batch_encode_plus(...)`)
    with one of its padding options."""
    if not any(k.arg in _TOKENIZER_OPTIONS for k in node.keywords):
        return False
    func = node.func
    name = (
        func.attr
        if isinstance(func, ast.Attribute)
        else func.id
        if isinstance(func, ast.Name)
        else ""
    )
    return "tok" in name.lower() or name in ("encode_plus", "batch_encode_plus", "__call__")


def _option(node: ast.expr | None) -> str:
    """A tokenizer option as lower-case text: "max_length" for `"max_length"` or
    `PaddingStrategy.MAX_LENGTH`, "true" for `True`, "np" for `TensorType.NUMPY`;
    "" when absent, "?" when not literal."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool | str):
        return str(node.value).lower()
    if isinstance(node, ast.Attribute):
        return {"numpy": "np"}.get(node.attr.lower(), node.attr.lower())
    return "?"


def _dtype(value: Value) -> str | None:
    """The dtype a `dtype=` argument names."""
    if isinstance(value, Tag) and value.kind == TagKind.DTYPE:
        return value.name or None
    if isinstance(value, Tag) and value.kind == TagKind.PYTYPE:
        return npt.BUILTIN_DTYPES.get(value.name)
    if isinstance(value, Py) and value.kind == PyKind.STR and value.text:
        return npt.STRING_DTYPES.get(value.text.lstrip("<|="))
    return None


def _literal_dtype(value: Value) -> str | None:
    if isinstance(value, Py):
        return _python_dtype(value.kind)
    return value.dtype if isinstance(value, Arr) else None


_PYTHON_DTYPES = {
    PyKind.FLOAT: "float64",
    PyKind.INT: "int64",
    PyKind.BOOL: "bool",
    PyKind.STR: "str",
    PyKind.BYTES: "bytes",
}
"""The dtype NumPy gives an array of Python scalars of a kind."""


def _python_dtype(kind: PyKind) -> str | None:
    return _PYTHON_DTYPES.get(kind)


def _python_why(label: str, kind: PyKind, dtype: str | None, line: int) -> str:
    if dtype is None:
        return ""
    if dtype == "str":
        return f"{label} of Python str is a unicode <U array (line {line})"
    return f"{label} of Python {kind.value}s is {dtype} (line {line})"
