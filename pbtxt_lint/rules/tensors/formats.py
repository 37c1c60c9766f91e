"""PL208-PL211 and PL221: tensor formats, and the flags only TensorRT engines have.

`ValidateModelInput` and `ValidateModelOutput` (core's src/model_config_utils.cc)
require 3 dims for an image format (FORMAT_NHWC/FORMAT_NCHW) and refuse shape
tensors outside TensorRT; `ValidateNonLinearFormatIO` does the same for non-linear IO
formats. No backend acts on an image format.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    TENSORRT_PLATFORM,
    Finding,
    ModelConfig,
    ModelContext,
    backend_of,
    config_dims,
    rule,
)
from pbtxt_lint.rules.tensors.common import Tensor, tensors
from pbtxt_lint.schema.model_config_pb2 import ModelInput

_IMAGE_FORMATS = (ModelInput.FORMAT_NHWC, ModelInput.FORMAT_NCHW)


def _runs_on(config: ModelConfig) -> str:
    backend = backend_of(config)
    return f"this model runs on backend '{backend}'" if backend else "this model is an ensemble"


@rule(
    "PL208",
    "image-format-rank",
    ERROR,
    "format FORMAT_NHWC/FORMAT_NCHW on an input that does not have exactly 3 dims.",
    triton="model input NHWC/NCHW require 3 dims for <model>",
    effective=True,
)
def image_format_rank(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """An image format describes 3 dimensions (channels, height, width in some order),
    without the batch dimension.

    Bad:
        max_batch_size: 8
        input [ { name: "img" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 8, 3, 224, 224 ] } ]
    Good:
        max_batch_size: 8
        input [ { name: "img" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 224, 224 ] } ]
    """
    for index, model_input in enumerate(config.input):
        if model_input.format in _IMAGE_FORMATS and len(model_input.dims) != 3:
            tensor = Tensor("input", index, model_input)
            yield Finding(
                f"{tensor.label}: format {ModelInput.Format.Name(model_input.format)} "
                f"requires exactly 3 dims, dims {config_dims(model_input.dims)} has "
                f"{len(model_input.dims)}; Triton refuses the model",
                at=(*tensor.path, "format"),
                hint="leave the batch dimension out of dims (max_batch_size adds it), or "
                "remove format",
            )


@rule(
    "PL209",
    "shape-tensor-not-tensorrt",
    ERROR,
    "is_shape_tensor on a model that is not TensorRT.",
    triton="shape tensors are only supported for TensorRT platform for <model>",
    effective=True,
)
def shape_tensor_not_tensorrt(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Shape tensors are a TensorRT engine feature; every other platform, ensembles
    included, is refused when a tensor is marked `is_shape_tensor: true`.

    Bad:
        backend: "onnxruntime"
        input [ { name: "shape" data_type: TYPE_INT64 dims: [ 2 ] is_shape_tensor: true } ]
    Good:
        backend: "onnxruntime"
        input [ { name: "shape" data_type: TYPE_INT64 dims: [ 2 ] } ]
    """
    if config.platform == TENSORRT_PLATFORM:
        return
    for tensor in tensors(config):
        if tensor.io.is_shape_tensor:
            yield Finding(
                f"{tensor.label} is marked is_shape_tensor, but shape tensors exist only in "
                f"TensorRT and {_runs_on(config)}; Triton refuses the model",
                at=(*tensor.path, "is_shape_tensor"),
                hint="remove is_shape_tensor: true (a plain INT32/INT64 tensor carries the "
                "shape values)",
            )


@rule(
    "PL210",
    "non-linear-io-not-tensorrt",
    ERROR,
    "is_non_linear_format_io on a model that is not TensorRT.",
    triton="Non-linear IO format is only supported for the TensorRT platform for <model>",
    effective=True,
)
def non_linear_io_not_tensorrt(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Non-linear (vectorized, e.g. CHW32 or HWC8) tensor formats exist only in
    TensorRT engines.

    Bad:
        backend: "python"
        input [ { name: "x" data_type: TYPE_FP16 dims: [ 3, 8, 8 ] is_non_linear_format_io: true } ]
    Good:
        backend: "python"
        input [ { name: "x" data_type: TYPE_FP16 dims: [ 3, 8, 8 ] } ]
    """
    if config.platform == TENSORRT_PLATFORM:
        return
    for tensor in tensors(config):
        if tensor.io.is_non_linear_format_io:
            yield Finding(
                f"{tensor.label} is marked is_non_linear_format_io, which only TensorRT "
                f"engines have, and {_runs_on(config)}; Triton refuses "
                "the model",
                at=(*tensor.path, "is_non_linear_format_io"),
                hint="remove is_non_linear_format_io: true",
            )


@rule(
    "PL211",
    "non-linear-io-rank",
    ERROR,
    "A TensorRT non-linear format tensor without exactly 3 dims.",
    triton="Non-linear IO format input requires 3 dims for <model>",
    effective=True,
)
def non_linear_io_rank(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """TensorRT's vectorized formats (CHW2/4/16/32, HWC8, ...) are 3-dimensional
    images, batch dimension excluded.

    Bad:
        platform: "tensorrt_plan"
        input [ { name: "x" data_type: TYPE_FP16 dims: [ 224, 224 ]
                  is_non_linear_format_io: true } ]
    Good:
        platform: "tensorrt_plan"
        input [ { name: "x" data_type: TYPE_FP16 dims: [ 3, 224, 224 ]
                  is_non_linear_format_io: true } ]
    """
    if config.platform != TENSORRT_PLATFORM:
        return  # elsewhere PL210 already refuses the flag
    for tensor in tensors(config):
        if tensor.io.is_non_linear_format_io and len(tensor.io.dims) != 3:
            yield Finding(
                f"{tensor.label} uses a non-linear IO format, which requires exactly 3 dims; "
                f"dims {config_dims(tensor.io.dims)} has {len(tensor.io.dims)}, so Triton refuses "
                "the model",
                at=(*tensor.path, "dims"),
                hint="give the 3 dimensions of the engine tensor without the batch dimension",
            )


_CHANNELS = (1, 3, 4)
"""Channel counts of images (grey, RGB, RGBA): how a dimension reads as channels."""


def _layout(dims: tuple[int, ...]) -> str | None:
    """`NHWC` or `NCHW` when 3 dims read unambiguously as channels last or first."""

    def spatial(size: int) -> bool:  # a height or width: variable, or over 4
        return size == -1 or size > max(_CHANNELS)

    if dims[0] in _CHANNELS and spatial(dims[-1]):
        return "NCHW"
    if dims[-1] in _CHANNELS and spatial(dims[0]):
        return "NHWC"
    return None


@rule(
    "PL221",
    "image-format-ignored",
    INFO,
    "format FORMAT_NHWC/FORMAT_NCHW whose dims read as the other layout; no backend acts on "
    "the format.",
    effective=True,
)
def image_format_ignored(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton only checks that a formatted input has 3 dims (PL208) and reports the
    format in the model metadata for clients; no backend transposes or interprets it,
    so the model itself must expect the layout its dims have. Reported when the dims
    contradict the format: FORMAT_NHWC (channels last) on dims whose first size looks
    like a channel count (1, 3 or 4) and whose last does not, or FORMAT_NCHW the other
    way round. Clients that lay out images by the format (Triton's image_client reads
    NHWC dims as height, width, channels) then send a layout the model does not take.
    A format that agrees with its dims is left alone: it changes nothing on the server.

    Bad:
        input [ { name: "img" data_type: TYPE_FP32 format: FORMAT_NHWC dims: [ 3, 224, 224 ] } ]
    Good:
        input [ { name: "img" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 224, 224 ] } ]
    """
    for index, model_input in enumerate(config.input):
        if model_input.format not in _IMAGE_FORMATS or len(model_input.dims) != 3:
            continue
        name = ModelInput.Format.Name(model_input.format)
        layout = _layout(tuple(model_input.dims))
        if layout is None or name == f"FORMAT_{layout}":
            continue
        yield Finding(
            f"{Tensor('input', index, model_input).label}: format {name} says channels "
            f"{'last' if name == 'FORMAT_NHWC' else 'first'}, but dims "
            f"{config_dims(model_input.dims)} read as {layout}; no backend converts the "
            "layout, so clients that lay out images by the format send the wrong one",
            at=("input", index, "format"),
            hint=f"write format: FORMAT_{layout} (or reorder dims to match {name})",
        )
