"""PL881: the data types TensorRT takes for shape tensors.

A shape tensor carries the values of a shape, not data: TensorRT binds a shape tensor
input from TYPE_INT32 or TYPE_INT64 values and returns a shape tensor output as
TYPE_INT64 (`ModelInstanceState::InitializeShapeInputBinding` and
`InitializeConfigShapeOutputBindings` in tensorrt_backend's src/instance_state.cc). The
config's `is_shape_tensor` must agree with the engine, so a shape tensor of another type
fails the load either way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pbtxt_lint.rules.api import ERROR, Finding, ModelContext, Stage, rule, type_name
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput

SHAPE_INPUT_TYPES = ("TYPE_INT32", "TYPE_INT64")
SHAPE_OUTPUT_TYPES = ("TYPE_INT64",)


@rule(
    "PL881",
    "tensorrt-shape-tensor-type",
    ERROR,
    "A TensorRT shape tensor input that is not TYPE_INT32/TYPE_INT64, or a shape tensor "
    "output that is not TYPE_INT64.",
    triton="unexpected datatype TYPE_<X> in model configuration for shape input '<name>', "
    "expecting TYPE_INT32 or TYPE_INT64 for <instance> / unexpected datatype '<TYPE_X> in model "
    "configuration for shape output '<name>', expecting TYPE_INT64 for <instance>",
    stage=Stage.LOAD,
    backend="tensorrt",
)
def tensorrt_shape_tensor_type(context: ModelContext) -> Iterator[Finding]:
    """TensorRT reads a shape tensor input's values as 32- or 64-bit integers and writes a
    shape tensor output as 64-bit integers; a shape tensor of any other type fails the
    load when the instance binds it.

    Bad:
        input [ { name: "shape" data_type: TYPE_FP32 dims: [ 2 ] is_shape_tensor: true } ]
    Good:
        input [ { name: "shape" data_type: TYPE_INT32 dims: [ 2 ] is_shape_tensor: true } ]
    """
    config = context.effective
    if config is None or config.backend != "tensorrt":
        return
    sides: tuple[tuple[str, Sequence[ModelInput | ModelOutput], tuple[str, ...]], ...] = (
        ("input", config.input, SHAPE_INPUT_TYPES),
        ("output", config.output, SHAPE_OUTPUT_TYPES),
    )
    for kind, tensors, allowed in sides:
        for index, tensor in enumerate(tensors):
            written = type_name(tensor.data_type)
            if not tensor.is_shape_tensor or not tensor.data_type or written in allowed:
                continue
            yield Finding(
                f"shape tensor {kind} '{tensor.name}' of TensorRT model '{context.model.name}' "
                f"is {written}; TensorRT takes a shape {kind} only as "
                f"{' or '.join(allowed)}, so the model fails to load",
                at=(kind, index, "data_type"),
                hint=f"data_type: {allowed[-1]} (and build the engine's shape {kind} with it)",
            )
