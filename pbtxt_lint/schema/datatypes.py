"""Triton tensor data types and their names in the other places a linter looks.

A config.pbtxt names a type by the ``inference.DataType`` enum (``TYPE_FP32``), the
KServe v2 HTTP/gRPC protocol by a short string (``FP32``, but ``BYTES`` for
``TYPE_STRING``), an ONNX model by a ``TensorProto`` element type number and a TensorRT
engine by an ``nvinfer1::DataType`` number. Rules that compare a config with a request
or a model artifact need one table joining them, and this is it.

The module imports no protobuf so it stays cheap to use; tests check that its names
and numbers agree with the generated schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final


@dataclass(frozen=True)
class DataTypeInfo:
    """One config data type and its counterparts (None where there is none)."""

    config_type: str
    """Enum name used in config.pbtxt, e.g. ``TYPE_FP32``."""
    enum_value: int
    """Number of the value in ``inference.DataType``."""
    protocol: str | None
    """KServe v2 / Triton API datatype string, e.g. ``FP32``."""
    byte_size: int | None
    """Bytes per element; None when not fixed (strings are length-prefixed)."""
    onnx_elem_type: int | None
    """``onnx.TensorProto.DataType`` number."""
    tensorrt_type: int | None
    """``nvinfer1::DataType`` number; None where TensorRT cannot represent the type."""


DATA_TYPES: Final[tuple[DataTypeInfo, ...]] = (
    # TYPE_INVALID is what an unset data_type reads as; it has no counterpart.
    DataTypeInfo("TYPE_INVALID", 0, None, None, None, None),
    DataTypeInfo("TYPE_BOOL", 1, "BOOL", 1, 9, 4),
    DataTypeInfo("TYPE_UINT8", 2, "UINT8", 1, 2, 5),
    DataTypeInfo("TYPE_UINT16", 3, "UINT16", 2, 4, None),
    DataTypeInfo("TYPE_UINT32", 4, "UINT32", 4, 12, None),
    DataTypeInfo("TYPE_UINT64", 5, "UINT64", 8, 13, None),
    DataTypeInfo("TYPE_INT8", 6, "INT8", 1, 3, 2),
    DataTypeInfo("TYPE_INT16", 7, "INT16", 2, 5, None),
    DataTypeInfo("TYPE_INT32", 8, "INT32", 4, 6, 3),
    DataTypeInfo("TYPE_INT64", 9, "INT64", 8, 7, 8),
    DataTypeInfo("TYPE_FP16", 10, "FP16", 2, 10, 1),
    DataTypeInfo("TYPE_FP32", 11, "FP32", 4, 1, 0),
    DataTypeInfo("TYPE_FP64", 12, "FP64", 8, 11, None),
    DataTypeInfo("TYPE_STRING", 13, "BYTES", None, 8, None),
    DataTypeInfo("TYPE_BF16", 14, "BF16", 2, 16, 7),
)
"""Every ``inference.DataType`` value, in enum order."""

BY_CONFIG_TYPE: Final[Mapping[str, DataTypeInfo]] = MappingProxyType(
    {info.config_type: info for info in DATA_TYPES}
)
"""Lookup by config enum name."""

_VALID: Final = tuple(info for info in DATA_TYPES if info.config_type != "TYPE_INVALID")
_BY_PROTOCOL: Final = {info.protocol: info.config_type for info in _VALID if info.protocol}
_BY_ONNX: Final = {
    info.onnx_elem_type: info.config_type for info in _VALID if info.onnx_elem_type is not None
}
_BY_TENSORRT: Final = {
    info.tensorrt_type: info.config_type for info in _VALID if info.tensorrt_type is not None
}


def config_type_from_protocol(protocol: str) -> str | None:
    """Config enum name for a protocol datatype ("BYTES" -> "TYPE_STRING"); exact match."""
    return _BY_PROTOCOL.get(protocol)


def protocol_from_config_type(config_type: str) -> str | None:
    """Protocol datatype for a config enum name; None for TYPE_INVALID or unknown names."""
    info = BY_CONFIG_TYPE.get(config_type)
    return info.protocol if info else None


def config_type_from_onnx(elem_type: int) -> str | None:
    """Config enum name for an ONNX element type; None when Triton has no such type."""
    return _BY_ONNX.get(elem_type)


def onnx_from_config_type(config_type: str) -> int | None:
    """ONNX element type for a config enum name; None for TYPE_INVALID or unknown names."""
    info = BY_CONFIG_TYPE.get(config_type)
    return info.onnx_elem_type if info else None


def config_type_from_tensorrt(data_type: int) -> str | None:
    """Config enum name for a TensorRT DataType; None for kFP8, kINT4 and other gaps."""
    return _BY_TENSORRT.get(data_type)


def byte_size(config_type: str) -> int | None:
    """Bytes per element; None for TYPE_STRING, TYPE_INVALID and unknown names."""
    info = BY_CONFIG_TYPE.get(config_type)
    return info.byte_size if info else None


def _misspellings() -> dict[str, str]:
    """Build the misspelling table: frequent wrong spellings, then foreign type names."""
    wrong = {
        "TYPE_FLOAT": "TYPE_FP32",
        "TYPE_FLOAT32": "TYPE_FP32",
        "TYPE_F32": "TYPE_FP32",
        "TYPE_FLOAT16": "TYPE_FP16",
        "TYPE_HALF": "TYPE_FP16",
        "TYPE_F16": "TYPE_FP16",
        "TYPE_FLOAT64": "TYPE_FP64",
        "TYPE_DOUBLE": "TYPE_FP64",
        "TYPE_F64": "TYPE_FP64",
        "TYPE_BFLOAT16": "TYPE_BF16",
        "TYPE_INT": "TYPE_INT32",
        "TYPE_SHORT": "TYPE_INT16",
        "TYPE_LONG": "TYPE_INT64",
        "TYPE_BYTES": "TYPE_STRING",
        "TYPE_STR": "TYPE_STRING",
        "TYPE_BOOLEAN": "TYPE_BOOL",
    }
    # The same words without the prefix (FLOAT32, HALF, DOUBLE: numpy and ONNX names).
    table = dict(wrong)
    table.update({name.removeprefix("TYPE_"): fixed for name, fixed in wrong.items()})
    for info in _VALID:
        bare = info.config_type.removeprefix("TYPE_")
        table[bare] = info.config_type  # STRING, FP32, INT64 ...
        if info.protocol:
            table[info.protocol] = info.config_type  # KServe names: BYTES ...
    # TensorFlow names (DT_FLOAT ...), since TensorFlow models are served too.
    tensorflow = {"FLOAT": "TYPE_FP32", "HALF": "TYPE_FP16", "DOUBLE": "TYPE_FP64"}
    tensorflow.update({"BFLOAT16": "TYPE_BF16", "STRING": "TYPE_STRING", "BOOL": "TYPE_BOOL"})
    for bits in ("8", "16", "32", "64"):
        tensorflow[f"INT{bits}"] = f"TYPE_INT{bits}"
        tensorflow[f"UINT{bits}"] = f"TYPE_UINT{bits}"
    table.update({f"DT_{name}": fixed for name, fixed in tensorflow.items()})
    return table


MISSPELLINGS: Final[Mapping[str, str]] = MappingProxyType(_misspellings())
"""Upper-case wrong spelling -> correct config enum name ("TYPE_FLOAT32" -> "TYPE_FP32").

Keys are never valid enum names, so a hit always means the spelling is wrong.
"""


def suggest_config_type(word: str) -> str | None:
    """Correct config enum name for a possibly misspelt, quoted or lower-case word."""
    key = word.strip().strip("\"'").strip().upper()
    if key in BY_CONFIG_TYPE:
        return key
    return MISSPELLINGS.get(key)
