"""NumPy's dtype rules, as far as a model.py's data flow needs them, without NumPy.

`pb_utils.Tensor(name, array)` sends the array's own dtype (python_backend
`pb_stub_utils.cc` numpy_to_triton_type): the Python backend never converts to the
config's data_type, so the dtype NumPy computes is the dtype the client gets. These
tables follow NumPy's documented promotion (`np.result_type`; Python scalars are
"weak", NEP 50, which agrees with NumPy 1.x value-based casting for the operations
below). A dtype is a NumPy name ("float32", "int64", "object"; "str" is a unicode
`<U` array, "bytes" an `|S` array) or None when unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

FLOATS = ("float16", "float32", "float64")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
NUMERIC = frozenset({"bool", *FLOATS, *SIGNED, *UNSIGNED})

CONFIG_TO_NUMPY: Mapping[str, str] = MappingProxyType(
    {
        "TYPE_BOOL": "bool",
        "TYPE_UINT8": "uint8",
        "TYPE_UINT16": "uint16",
        "TYPE_UINT32": "uint32",
        "TYPE_UINT64": "uint64",
        "TYPE_INT8": "int8",
        "TYPE_INT16": "int16",
        "TYPE_INT32": "int32",
        "TYPE_INT64": "int64",
        "TYPE_FP16": "float16",
        "TYPE_FP32": "float32",
        "TYPE_FP64": "float64",
        "TYPE_STRING": "object",
    }
)
"""What `as_numpy()` returns for an input of each config type (`triton_to_numpy_type`)."""

SENT_AS: Mapping[str, str] = MappingProxyType(
    {
        "bool": "TYPE_BOOL",
        "uint8": "TYPE_UINT8",
        "uint16": "TYPE_UINT16",
        "uint32": "TYPE_UINT32",
        "uint64": "TYPE_UINT64",
        "int8": "TYPE_INT8",
        "int16": "TYPE_INT16",
        "int32": "TYPE_INT32",
        "int64": "TYPE_INT64",
        "float16": "TYPE_FP16",
        "float32": "TYPE_FP32",
        "float64": "TYPE_FP64",
        "object": "TYPE_STRING",
        "bytes": "TYPE_STRING",
    }
)
"""The Triton type `pb_utils.Tensor` sends an array of each dtype as
(`numpy_to_triton_type`); a dtype not listed ("str", complex) fails the request."""

DTYPE_NAMES: Mapping[str, str] = MappingProxyType(
    {
        **{name: name for name in NUMERIC},
        "bool_": "bool",
        "single": "float32",
        "double": "float64",
        "half": "float16",
        "float_": "float64",
        "int_": "int64",
        "intc": "int32",
        "longlong": "int64",
        "ubyte": "uint8",
        "byte": "int8",
        "short": "int16",
        "ushort": "uint16",
        "object_": "object",
        "bytes_": "bytes",
        "string_": "bytes",
        "str_": "str",
        "unicode_": "str",
    }
)
"""`np.<name>` attributes that are dtypes, by NumPy name."""

STRING_DTYPES: Mapping[str, str] = MappingProxyType(
    {
        "float32": "float32",
        "float": "float64",
        "float64": "float64",
        "f4": "float32",
        "f8": "float64",
        "float16": "float16",
        "f2": "float16",
        "int32": "int32",
        "i4": "int32",
        "int64": "int64",
        "i8": "int64",
        "int": "int64",
        "int16": "int16",
        "int8": "int8",
        "uint8": "uint8",
        "u1": "uint8",
        "uint16": "uint16",
        "uint32": "uint32",
        "uint64": "uint64",
        "bool": "bool",
        "object": "object",
        "O": "object",
        "str": "str",
        "U": "str",
        "S": "bytes",
        "bytes": "bytes",
    }
)
"""dtype strings (`astype("float32")`, `dtype="int64"`), by NumPy name."""

BUILTIN_DTYPES: Mapping[str, str] = MappingProxyType(
    {
        "float": "float64",
        "int": "int64",
        "bool": "bool",
        "object": "object",
        "str": "str",
        "bytes": "bytes",
    }
)
"""Python types used as dtypes (`dtype=float`)."""


def _bits(dtype: str) -> int:
    return int("".join(c for c in dtype if c.isdigit()) or 0)


def promote(left: str | None, right: str | None) -> str | None:
    """`np.result_type` of two array dtypes (None if either is unknown or not numeric)."""
    if left is None or right is None:
        return None
    if left == right:
        return left
    if left not in NUMERIC or right not in NUMERIC:
        return None
    if left == "bool":
        return right
    if right == "bool":
        return left
    lf, rf = left in FLOATS, right in FLOATS
    if lf and rf:
        return left if _bits(left) >= _bits(right) else right
    if lf or rf:
        floating, integer = (left, right) if lf else (right, left)
        needed = {8: 16, 16: 32}.get(_bits(integer), 64)
        return f"float{max(needed, _bits(floating))}"
    lu, ru = left in UNSIGNED, right in UNSIGNED
    if lu == ru:
        wider = max(_bits(left), _bits(right))
        return f"{'uint' if lu else 'int'}{wider}"
    unsigned, signed = (left, right) if lu else (right, left)
    if _bits(signed) > _bits(unsigned):
        return signed
    if _bits(unsigned) >= 64:
        return "float64"
    return f"int{_bits(unsigned) * 2}"


def with_scalar(array: str | None, scalar: str) -> str | None:
    """The dtype of `array <op> scalar` for a Python scalar of kind "bool", "int" or
    "float" (a weak scalar keeps the array's kind and size unless its kind is higher)."""
    if array is None or array not in NUMERIC:
        return None
    if scalar == "float" and array not in FLOATS:
        return "float64"
    if scalar == "int" and array == "bool":
        return "int64"
    return array


def true_divide(dtype: str | None) -> str | None:
    """The dtype of `a / b` once the operands are promoted to `dtype`."""
    if dtype is None or dtype not in NUMERIC:
        return None
    return dtype if dtype in FLOATS else "float64"


def float_function(dtype: str | None) -> str | None:
    """The dtype of `np.exp`, `np.log`, `np.sqrt`, ... of an array (the smallest float
    that holds its integers: uint8 gives float16)."""
    if dtype is None or dtype not in NUMERIC:
        return None
    if dtype in FLOATS:
        return dtype
    return {8: "float16", 16: "float32"}.get(_bits(dtype), "float64")


def mean_dtype(dtype: str | None) -> str | None:
    """The dtype of `np.mean` / `np.average` / `np.std` (integers give float64)."""
    if dtype is None or dtype not in NUMERIC:
        return None
    return dtype if dtype in FLOATS else "float64"


def sum_dtype(dtype: str | None) -> str | None:
    """The dtype of `np.sum` / `np.cumsum` / `np.prod` (small integers widen to 64 bits)."""
    if dtype is None or dtype not in NUMERIC:
        return None
    if dtype == "bool" or dtype in SIGNED:
        return "int64"
    if dtype in UNSIGNED:
        return "uint64"
    return dtype
