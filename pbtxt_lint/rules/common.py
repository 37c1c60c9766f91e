"""Small helpers every rule family uses: how values are printed, what the user wrote."""

from __future__ import annotations

from collections.abc import Iterable

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.schema import DataType
from pbtxt_lint.textproto.sourcemap import FieldPath


def type_name(data_type: int) -> str:
    """TYPE_FP32 for a declared data type; the number for an undeclared one (open enum)."""
    return str(DataType.Name(data_type)) if data_type in DataType.values() else str(data_type)


def config_dims(values: Iterable[int]) -> str:
    """Dims as they are written in config.pbtxt: `[ 3, -1 ]`, `[ ]`."""
    items = ", ".join(str(v) for v in values)
    return f"[ {items} ]" if items else "[ ]"


def written(context: ModelContext, path: FieldPath) -> bool:
    """Whether the user wrote this field (as opposed to a default or Triton's fill): a
    written `count: 0` differs from a missing one."""
    parsed = context.parsed
    return parsed is not None and path in parsed.source_map


BATCH_STRATEGY_PATH = "TRITON_BATCH_STRATEGY_PATH"
"""The `parameters` key the core itself reads, for any backend: the path of a custom
batching library (`TritonModel::Create` in core's src/backend_model.cc)."""


TENSORRT_PLATFORM = "tensorrt_plan"
"""The platform of TensorRT engines, the only one with shape tensors, non-linear IO
formats and instance-group profiles (`ValidateModelInput`, `ValidateNonLinearFormatIO`
and `ValidateInstanceGroup` in core's src/model_config_utils.cc compare with it)."""
