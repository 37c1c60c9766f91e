"""PL2xx: inputs, outputs, reshape and batch inputs/outputs.

Most of these are Triton's `ValidateModelIOConfig` (catalog R200-R221). It runs at the
repository poll with `--disable-auto-complete-config` (strict mode) and, in the default
auto-complete mode, after the backend has completed the config, when the model is
loaded. Either way the model is refused; only the moment differs. Ensembles go
through the same checks for their own inputs and outputs.

The rest are backend facts that the config alone decides (optional inputs, data types
a backend cannot take, what a backend auto-completes) and the known gaps Triton
accepts silently (duplicate names, ragged batching that cannot happen, ...).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from google.protobuf.descriptor import EnumDescriptor

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import config_dims, type_name
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.schema.datatypes import DATA_TYPES
from pbtxt_lint.schema.model_config_pb2 import (
    BatchInput,
    BatchOutput,
    ModelInput,
    ModelInstanceGroup,
    ModelOutput,
)
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath
from pbtxt_lint.triton.autofill import backend_of

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
INT64_MAX = 2**63 - 1
TENSORRT_PLATFORM = "tensorrt_plan"
_IMAGE_FORMATS = (ModelInput.FORMAT_NHWC, ModelInput.FORMAT_NCHW)


@dataclass(frozen=True)
class _Tensor:
    """One `input` or `output` entry and where it is written."""

    kind: str  # "input" or "output"
    index: int
    io: ModelInput | ModelOutput

    @property
    def path(self) -> FieldPath:
        return (self.kind, self.index)

    @property
    def label(self) -> str:
        if self.io.name:
            return f"{self.kind} '{self.io.name}'"
        return f"{self.kind} #{self.index + 1} (unnamed)"


def _tensors(config: ModelConfig) -> Iterator[_Tensor]:
    """Every input, then every output: the order Triton validates them in."""
    for index, model_input in enumerate(config.input):
        yield _Tensor("input", index, model_input)
    for index, model_output in enumerate(config.output):
        yield _Tensor("output", index, model_output)


def _enum_name(descriptor: EnumDescriptor, value: int) -> str:
    """The enum value's name, or its number when it is not declared (proto3 enums are open)."""
    known = descriptor.values_by_number.get(value)
    return known.name if known else str(value)


def _runs_on(config: ModelConfig) -> str:
    backend = backend_of(config)
    return f"this model runs on backend '{backend}'" if backend else "this model is an ensemble"


def _first_group_may_be_gpu(config: ModelConfig) -> bool:
    """TensorRT auto-completes only when the first instance group is KIND_GPU."""
    if not config.instance_group:
        return True
    return config.instance_group[0].kind not in (
        ModelInstanceGroup.KIND_CPU,
        ModelInstanceGroup.KIND_MODEL,
    )


def _fills_empty_lists(context: ModelContext, config: ModelConfig) -> bool:
    """Does the backend's auto-complete add a missing input or output list from the model?"""
    if context.strict:
        return False
    backend = backend_of(config)
    if backend == "tensorrt":
        return _first_group_may_be_gpu(config)
    return backend in ("onnxruntime", "openvino", "tensorflow", "dali")


def _may_complete_batching(context: ModelContext, config: ModelConfig) -> bool:
    """May the backend's auto-complete set max_batch_size and add dynamic_batching?

    TensorRT, OpenVINO, TensorFlow and DALI may always; ONNX Runtime only when the
    config lacks inputs (and batch inputs) or outputs (it skips complete configs).
    """
    if not _fills_empty_lists(context, config):
        return False
    if backend_of(config) != "onnxruntime":
        return True
    return not (config.input or config.batch_input) or not config.output


def _missing_field(
    context: ModelContext, config: ModelConfig, field: str
) -> tuple[Severity, str] | None:
    """How sure it is that a missing data_type/dims on a listed tensor fails, and why.

    Strict mode: nothing fills it, an error. Auto-complete mode: TensorRT fills both
    from the engine (when its first instance group is on GPU), DALI fills data_type;
    ONNX Runtime and OpenVINO fill only a config with no inputs or no outputs at all,
    PyTorch and FIL never, and Python only through model.py's `auto_complete_config`
    (judged on the model file, not here), so for them it is an error. Ensembles are
    never completed. Other backends (TensorFlow, Python-based ones such as vllm,
    custom C++ backends) may complete the config themselves: a warning.
    """
    if context.strict:
        return ERROR, "with --disable-auto-complete-config nothing fills it in"
    backend = backend_of(config)
    if backend == "tensorrt":
        if _first_group_may_be_gpu(config):
            return None
        return ERROR, "TensorRT auto-completes only when the first instance group is KIND_GPU"
    if backend == "dali":
        if field == "data_type":
            return None
        return WARNING, "DALI fills dims only when the pipeline declares the output's ndim"
    if not backend:
        return ERROR, "ensembles are never auto-completed"
    if backend == "python":
        return ERROR, "only an auto_complete_config in model.py could fill it in"
    if backend in ("pytorch", "onnxruntime", "openvino", "fil"):
        return ERROR, f"backend '{backend}' does not fill it in for a tensor the config lists"
    return WARNING, f"unless backend '{backend}' fills it in from the model"


@rule(
    "PL201",
    "tensor-name-missing",
    ERROR,
    "An input or output without a name.",
    triton="model input must specify 'name' for <model>",
)
def tensor_name_missing(context: ModelContext) -> Iterator[Finding]:
    """Every input and output needs the tensor name the model uses; Triton refuses the
    model otherwise (backends match config tensors to the model by name).

    Bad:
        input [ { data_type: TYPE_FP32 dims: [ 3 ] } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } ]
    """
    config = context.effective
    if config is None:
        return
    for tensor in _tensors(config):
        if not tensor.io.name:
            yield Finding(
                f"{tensor.kind} #{tensor.index + 1} has no name; Triton requires every "
                f"{tensor.kind} to name its tensor and refuses the model",
                at=tensor.path,
                hint='add name: "..." with the tensor name the model file uses',
            )


def _missing_findings(context: ModelContext, field: str, hint: str) -> Iterator[Finding]:
    """PL202/PL203: tensors whose `field` (data_type or dims) is unset."""
    config = context.effective
    if config is None:
        return
    verdict = _missing_field(context, config, field)
    if verdict is None:
        return
    severity, note = verdict
    what = "dimension" if field == "dims" else "data type"
    for tensor in _tensors(config):
        if not getattr(tensor.io, field):
            outcome = "refuses the model" if severity is ERROR else "refuses the model if not"
            yield Finding(
                f"{tensor.label} has no {field} ({note}); Triton requires a {what} and " + outcome,
                at=(*tensor.path, field),
                hint=hint,
                severity=severity,
            )


@rule(
    "PL202",
    "tensor-data-type-missing",
    ERROR,
    "An input or output without data_type that no backend fills in.",
    triton="model input '<name>' must specify 'data_type' for <model>",
)
def tensor_data_type_missing(context: ModelContext) -> Iterator[Finding]:
    """A tensor's `data_type` is required. In strict mode (--disable-auto-complete-config)
    a missing one is always an error. In the default auto-complete mode TensorRT fills
    it from the engine (when the first instance group is KIND_GPU) and DALI from the
    pipeline; ONNX Runtime and OpenVINO only complete a config that lists no inputs or
    no outputs at all, never a tensor the config already lists; PyTorch never
    completes; Python only through model.py's `auto_complete_config` (an error here,
    the model file is judged elsewhere); ensembles never. Backends that may complete
    on their own (TensorFlow, Python-based and custom backends) get a warning.

    Bad:
        input [ { name: "x" dims: [ 3 ] } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } ]
    """
    return _missing_findings(
        context, "data_type", "add data_type: TYPE_FP32 (or the tensor's type in the model file)"
    )


@rule(
    "PL203",
    "tensor-dims-missing",
    ERROR,
    "An input or output without dims (or with dims: [ ]) that no backend fills in.",
    triton="model input '<name>' must specify 'dims' for <model>",
)
def tensor_dims_missing(context: ModelContext) -> Iterator[Finding]:
    """Every tensor needs at least one dim; `dims: [ ]` counts as missing. A scalar is
    written `dims: [ 1 ]` with `reshape: { shape: [ ] }`. Which backends fill missing
    dims follows PL202, except that DALI does not fill dims.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ ] } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] reshape: { shape: [ ] } } ]
    """
    return _missing_findings(
        context,
        "dims",
        "list the dimensions without the batch dimension (-1 for a variable size); for a "
        "scalar write dims: [ 1 ] and reshape: { shape: [ ] } (with max_batch_size > 0)",
    )


def _invalid(values: Sequence[int]) -> list[int]:
    """Positions of dimensions Triton refuses: below 1 and not -1."""
    return [i for i, v in enumerate(values) if v < 1 and v != -1]


def _invalid_dim_findings(context: ModelContext, field: str) -> Iterator[Finding]:
    """PL204/PL205: dims (`field` "dims") or reshape shapes with a value below 1, not -1."""
    config = context.effective
    if config is None:
        return
    where = ("dims",) if field == "dims" else ("reshape", "shape")
    for tensor in _tensors(config):
        values = list(tensor.io.dims if field == "dims" else tensor.io.reshape.shape)
        bad = _invalid(values)
        if not bad:
            continue
        listed = ", ".join(str(values[i]) for i in bad)
        yield Finding(
            f"{tensor.label}: {' '.join(where)} {config_dims(values)} has {listed}; Triton "
            "requires every dim to be >= 1 or -1 (variable), so it refuses the model",
            at=(*tensor.path, *where, bad[0]),
            hint="use -1 for a dimension of variable size; 0 does not mean 'any size'"
            if 0 in (values[i] for i in bad)
            else "-1 is the only negative value allowed (a variable-size dimension)",
        )


@rule(
    "PL204",
    "dims-not-positive",
    ERROR,
    "A dimension that is neither >= 1 nor -1.",
    triton="model input '<name>' dimension must be integer >= 1, or -1 to indicate a "
    "variable-size dimension for <model>",
)
def dims_not_positive(context: ModelContext) -> Iterator[Finding]:
    """Dimensions are sizes: a positive number, or -1 for a size that varies per
    request. 0 (often meant as "any") and other negative numbers are refused.

    Bad:
        input [ { name: "ids" data_type: TYPE_INT64 dims: [ 0, 128 ] } ]
    Good:
        input [ { name: "ids" data_type: TYPE_INT64 dims: [ -1, 128 ] } ]
    """
    return _invalid_dim_findings(context, "dims")


@rule(
    "PL205",
    "reshape-dims-not-positive",
    ERROR,
    "A reshape dimension that is neither >= 1 nor -1.",
    triton="model input '<name>' reshape dimensions must be integer >= 1, or -1 to "
    "indicate a variable-size dimension for <model>",
)
def reshape_dims_not_positive(context: ModelContext) -> Iterator[Finding]:
    """`reshape.shape` follows the same rule as `dims`: positive sizes or -1.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] reshape: { shape: [ 0, 4 ] } } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] reshape: { shape: [ 1, 4 ] } } ]
    """
    return _invalid_dim_findings(context, "reshape")


@rule(
    "PL206",
    "empty-reshape-without-batching",
    ERROR,
    "reshape: { shape: [ ] } (a scalar) on a model with max_batch_size 0.",
    triton="model input '<name>' cannot have empty reshape for non-batching model as "
    "scalar tensors are not supported for <model>",
)
def empty_reshape_without_batching(context: ModelContext) -> Iterator[Finding]:
    """An empty reshape turns the tensor into a scalar for the model. Without batching
    the tensor Triton passes would then have no dimension at all, which Triton does not
    support. With max_batch_size > 0 the batch dimension remains. In auto-complete
    mode a backend that may fill max_batch_size from the model (TensorRT, OpenVINO,
    ...) can still make it valid: a warning then.

    Bad:
        max_batch_size: 0
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] reshape: { shape: [ ] } } ]
    Good:
        max_batch_size: 8
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 1 ] reshape: { shape: [ ] } } ]
    """
    config = context.effective
    if config is None or config.max_batch_size != 0:
        return
    maybe = _may_complete_batching(context, config)
    note = f" (unless backend '{backend_of(config)}' fills max_batch_size from the model)"
    for tensor in _tensors(config):
        if tensor.io.HasField("reshape") and not tensor.io.reshape.shape:
            yield Finding(
                f"{tensor.label}: reshape: {{ shape: [ ] }} makes it a scalar, and with "
                f"max_batch_size 0 Triton refuses scalar tensors{note if maybe else ''}",
                at=(*tensor.path, "reshape"),
                hint="set max_batch_size > 0 (the batch dimension remains), or remove the "
                "reshape and keep dims: [ 1 ]",
                severity=WARNING if maybe else None,
            )


def _element_count(values: Sequence[int]) -> int | None:
    """Triton's GetElementCount: -1 (variable) as soon as a -1 is met, None on overflow."""
    count = 0
    for position, value in enumerate(values):
        if value == -1:
            return -1
        count = value if position == 0 else count * value
        if count > INT64_MAX:
            return None
    return count


def _fixed_runs(values: Sequence[int]) -> list[int]:
    """Products of the fixed dimensions between the -1s ([2, 4, -1, 6] -> [8, 6])."""
    runs = [1]
    for value in values:
        if value == -1:
            runs.append(1)
        else:
            runs[-1] *= value
    return runs


def _reshape_problem(dims: Sequence[int], shape: Sequence[int]) -> str | None:
    """Why Triton refuses this dims/reshape pair (ValidateIOShape), or None."""
    dims_count, shape_count = _element_count(dims), _element_count(shape)
    for what, values, count in (("dims", dims, dims_count), ("reshape", shape, shape_count)):
        if count is None:
            return f"the element count of {what} {config_dims(values)} exceeds {INT64_MAX}"
    if dims_count != shape_count and not (shape_count == 0 and dims_count == 1):
        if not shape:
            return f"an empty reshape needs dims of exactly 1 element, not {config_dims(dims)}"
        if dims_count == -1 or shape_count == -1:
            varying = "dims" if dims_count == -1 else "reshape"
            return (
                f"only {varying} vary in size (-1): dims {config_dims(dims)}, "
                f"reshape {config_dims(shape)}"
            )
        return (
            f"dims {config_dims(dims)} hold {dims_count} elements but reshape {config_dims(shape)} "
            f"holds {shape_count}"
        )
    if dims_count != -1:
        return None
    dims_runs, shape_runs = _fixed_runs(dims), _fixed_runs(shape)
    if len(dims_runs) != len(shape_runs):
        return (
            f"dims {config_dims(dims)} have {len(dims_runs) - 1} variable-size (-1) dimensions "
            f"but reshape {config_dims(shape)} has {len(shape_runs) - 1}"
        )
    if dims_runs != shape_runs:
        return (
            f"the fixed sizes between the -1s differ: dims {config_dims(dims)} group into "
            f"{config_dims(dims_runs)}, reshape {config_dims(shape)} into {config_dims(shape_runs)}"
        )
    return None


@rule(
    "PL207",
    "reshape-size-mismatch",
    ERROR,
    "dims and reshape do not describe the same number of elements.",
    triton="model input '<name>' has different size for dims and reshape for <model> / "
    "... has different number of variable-size dimensions for dims and reshape / element "
    "count for tensor '<name> dims' exceeds maximum size of 9223372036854775807",
)
def reshape_size_mismatch(context: ModelContext) -> Iterator[Finding]:
    """`reshape` only changes how the same elements are laid out: the element counts
    must match, both or neither must contain -1, with the same number of -1s and the
    same product of fixed sizes between them ([2, 4, -1, 6] -> [8, -1, 1, 6] is fine).
    An empty reshape needs dims with exactly one element.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] reshape: { shape: [ 2, 3 ] } } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 6 ] reshape: { shape: [ 2, 3 ] } } ]
    """
    config = context.effective
    if config is None:
        return
    for tensor in _tensors(config):
        dims, shape = list(tensor.io.dims), list(tensor.io.reshape.shape)
        if not tensor.io.HasField("reshape") or not dims or _invalid(dims) or _invalid(shape):
            continue  # PL203/PL204/PL205 report those
        problem = _reshape_problem(dims, shape)
        if problem:
            yield Finding(
                f"{tensor.label}: {problem}; Triton refuses the model",
                at=(*tensor.path, "reshape"),
                hint="reshape must regroup the same elements as dims (the model file's shape "
                "goes in reshape, the client's shape in dims)",
            )


@rule(
    "PL208",
    "image-format-rank",
    ERROR,
    "format FORMAT_NHWC/FORMAT_NCHW on an input that does not have exactly 3 dims.",
    triton="model input NHWC/NCHW require 3 dims for <model>",
)
def image_format_rank(context: ModelContext) -> Iterator[Finding]:
    """An image format describes 3 dimensions (channels, height, width in some order),
    without the batch dimension.

    Bad:
        max_batch_size: 8
        input [ { name: "img" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 8, 3, 224, 224 ] } ]
    Good:
        max_batch_size: 8
        input [ { name: "img" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 224, 224 ] } ]
    """
    config = context.effective
    if config is None:
        return
    for index, model_input in enumerate(config.input):
        if model_input.format in _IMAGE_FORMATS and len(model_input.dims) != 3:
            tensor = _Tensor("input", index, model_input)
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
)
def shape_tensor_not_tensorrt(context: ModelContext) -> Iterator[Finding]:
    """Shape tensors are a TensorRT engine feature; every other platform, ensembles
    included, is refused when a tensor is marked `is_shape_tensor: true`.

    Bad:
        backend: "onnxruntime"
        input [ { name: "shape" data_type: TYPE_INT64 dims: [ 2 ] is_shape_tensor: true } ]
    Good:
        backend: "onnxruntime"
        input [ { name: "shape" data_type: TYPE_INT64 dims: [ 2 ] } ]
    """
    config = context.effective
    if config is None or config.platform == TENSORRT_PLATFORM:
        return
    for tensor in _tensors(config):
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
)
def non_linear_io_not_tensorrt(context: ModelContext) -> Iterator[Finding]:
    """Non-linear (vectorized, e.g. CHW32 or HWC8) tensor formats exist only in
    TensorRT engines.

    Bad:
        backend: "python"
        input [ { name: "x" data_type: TYPE_FP16 dims: [ 3, 8, 8 ] is_non_linear_format_io: true } ]
    Good:
        backend: "python"
        input [ { name: "x" data_type: TYPE_FP16 dims: [ 3, 8, 8 ] } ]
    """
    config = context.effective
    if config is None or config.platform == TENSORRT_PLATFORM:
        return
    for tensor in _tensors(config):
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
)
def non_linear_io_rank(context: ModelContext) -> Iterator[Finding]:
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
    config = context.effective
    if config is None or config.platform != TENSORRT_PLATFORM:
        return  # elsewhere PL210 already refuses the flag
    for tensor in _tensors(config):
        if tensor.io.is_non_linear_format_io and len(tensor.io.dims) != 3:
            yield Finding(
                f"{tensor.label} uses a non-linear IO format, which requires exactly 3 dims; "
                f"dims {config_dims(tensor.io.dims)} has {len(tensor.io.dims)}, so Triton refuses "
                "the model",
                at=(*tensor.path, "dims"),
                hint="give the 3 dimensions of the engine tensor without the batch dimension",
            )


def _batch_input_label(index: int, batch_input: BatchInput) -> str:
    targets = ", ".join(repr(t) for t in batch_input.target_name) or f"#{index + 1}"
    return f"batch_input {targets} ({_enum_name(BatchInput.Kind.DESCRIPTOR, batch_input.kind)})"


def _batch_output_label(index: int, batch_output: BatchOutput) -> str:
    kind = _enum_name(BatchOutput.Kind.DESCRIPTOR, batch_output.kind)
    return f"batch_output #{index + 1} ({kind})"


def _batch_sources(config: ModelConfig) -> Iterator[tuple[str, int, str, Sequence[str]]]:
    """(field, index, label, source_input) of every batch_input, then batch_output."""
    for index, batch_input in enumerate(config.batch_input):
        yield "batch_input", index, _batch_input_label(index, batch_input), batch_input.source_input
    for index, batch_output in enumerate(config.batch_output):
        label = _batch_output_label(index, batch_output)
        yield "batch_output", index, label, batch_output.source_input


@rule(
    "PL212",
    "batch-io-source-count",
    ERROR,
    "A batch_input or batch_output without exactly one source_input.",
    triton="batch input kind '<KIND>' expects 1 source input, got <n> for <model>",
)
def batch_io_source_count(context: ModelContext) -> Iterator[Finding]:
    """Every batch input kind, and BATCH_SCATTER_WITH_INPUT_SHAPE outputs, are computed
    from exactly one input of the model, named in `source_input`.

    Bad:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32 } ]
    Good:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "x" } ]
    """
    config = context.effective
    if config is None:
        return
    for field, index, label, sources in _batch_sources(config):
        if len(sources) != 1:
            yield Finding(
                f"{label} has {len(sources)} source_input entries; Triton requires exactly "
                "one and refuses the model",
                at=(field, index, "source_input", 1) if sources else (field, index),
                hint='name the one input it is computed from: source_input: "<input>"',
            )


@rule(
    "PL213",
    "batch-input-data-type",
    ERROR,
    "A batch_input whose data_type is not TYPE_INT32 or TYPE_FP32.",
    triton="batch input data type must be TYPE_INT32 or TYPE_FP32 for <model>",
)
def batch_input_data_type(context: ModelContext) -> Iterator[Finding]:
    """Triton computes batch inputs (element counts, shapes) as INT32 or FP32 tensors
    only; any other type, or none, is refused.

    Bad:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT64
                        source_input: "x" } ]
    Good:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "x" } ]
    """
    config = context.effective
    if config is None:
        return
    allowed = ("TYPE_INT32", "TYPE_FP32")
    for index, batch_input in enumerate(config.batch_input):
        name = type_name(batch_input.data_type)
        if name in allowed:
            continue
        what = "has no data_type" if batch_input.data_type == 0 else f"has data_type {name}"
        yield Finding(
            f"{_batch_input_label(index, batch_input)} {what}; Triton accepts only "
            "TYPE_INT32 or TYPE_FP32 and refuses the model",
            at=("batch_input", index, "data_type"),
            hint="use data_type: TYPE_INT32 (or TYPE_FP32 if the model expects floats)",
        )


@rule(
    "PL223",
    "batch-io-unknown-kind",
    ERROR,
    "A batch_input or batch_output kind given as a number that is not a declared kind.",
    triton="unknown batch input kind '' for <model> / unknown batch output kind '' for <model>",
)
def batch_io_unknown_kind(context: ModelContext) -> Iterator[Finding]:
    """`kind` is an enum; written as a number that is not one of its values (proto3
    accepts it), Triton does not know what to compute and refuses the model.

    Bad:
        batch_input [ { kind: 7 target_name: "n" data_type: TYPE_INT32 source_input: "x" } ]
    Good:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "x" } ]
    """
    config = context.effective
    if config is None:
        return
    kinds: list[tuple[str, int, int, EnumDescriptor]] = [
        ("batch_input", i, b.kind, BatchInput.Kind.DESCRIPTOR)
        for i, b in enumerate(config.batch_input)
    ]
    kinds += [
        ("batch_output", i, b.kind, BatchOutput.Kind.DESCRIPTOR)
        for i, b in enumerate(config.batch_output)
    ]
    for field, index, kind, descriptor in kinds:
        if kind not in descriptor.values_by_number:
            known = ", ".join(v.name for v in descriptor.values)
            yield Finding(
                f"{field} #{index + 1} has kind {kind}, which is not a {field} kind; Triton "
                "refuses the model",
                at=(field, index, "kind"),
                hint=f"use one of {known}",
            )


def _not_declared_hint(name: str, declared: Sequence[str], what: str) -> str:
    guess = suggest(name, declared)
    if guess:
        return f"did you mean '{guess}'?"
    listed = ", ".join(repr(d) for d in declared) or "none"
    return f"use one of the model's {what}s ({listed})"


@rule(
    "PL214",
    "batch-io-unknown-source",
    ERROR,
    "A batch_input or batch_output source_input that is not an input of the model.",
    triton="unknown source input name '<name>' for <model>",
)
def batch_io_unknown_source(context: ModelContext) -> Iterator[Finding]:
    """`source_input` names one of the model's own `input` entries (not an output, not
    the batch input's target name).

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "X" } ]
    Good:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "x" } ]
    """
    config = context.effective
    if config is None:
        return
    inputs = [i.name for i in config.input]
    for field, index, label, sources in _batch_sources(config):
        for position, source in enumerate(sources):
            if source not in inputs:
                yield Finding(
                    f"{label}: source_input '{source}' is not an input of this model; "
                    "Triton refuses the model",
                    at=(field, index, "source_input", position),
                    hint=_not_declared_hint(source, inputs, "input"),
                )


@rule(
    "PL215",
    "batch-output-target-invalid",
    ERROR,
    "A batch_output target_name that is not an output, or that is listed twice.",
    triton="unknown target output name '<name>' for <model> / target output name '<name>' "
    "can only be specified once for <model>",
)
def batch_output_target_invalid(context: ModelContext) -> Iterator[Finding]:
    """A batch output scatters a model output back to the requests; its `target_name`
    entries must be declared outputs, each listed once.

    Bad:
        output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
        batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: [ "y", "y" ]
                         source_input: "x" } ]
    Good:
        batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "y"
                         source_input: "x" } ]
    """
    config = context.effective
    if config is None:
        return
    outputs = [o.name for o in config.output]
    for index, batch_output in enumerate(config.batch_output):
        label = _batch_output_label(index, batch_output)
        seen: set[str] = set()
        for position, target in enumerate(batch_output.target_name):
            at = ("batch_output", index, "target_name", position)
            if target not in outputs:
                yield Finding(
                    f"{label}: target_name '{target}' is not an output of this model; Triton "
                    "refuses the model",
                    at=at,
                    hint=_not_declared_hint(target, outputs, "output"),
                )
            elif target in seen:
                yield Finding(
                    f"{label}: target_name '{target}' is listed twice; Triton allows each "
                    "target once and refuses the model",
                    at=at,
                    hint=f"remove the second '{target}'",
                )
            seen.add(target)


@rule(
    "PL216",
    "batch-io-target-suspicious",
    WARNING,
    "A batch_input target_name that is empty, repeated or also a declared input, or a "
    "batch_output with no target.",
)
def batch_io_target_suspicious(context: ModelContext) -> Iterator[Finding]:
    """Triton never checks `batch_input.target_name`, the model input the backend feeds
    the computed tensor to. An empty name matches no model input; a name that is also a
    declared `input`, or shared by two batch inputs, binds two tensors to one model
    input (TensorRT refuses that at load: "has already appeared as an input or output").
    A `batch_output` without `target_name` applies to no output.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
        batch_input [ { kind: BATCH_ACCUMULATED_ELEMENT_COUNT target_name: "x"
                        data_type: TYPE_INT32 source_input: "x" } ]
    Good:
        batch_input [ { kind: BATCH_ACCUMULATED_ELEMENT_COUNT target_name: "x_offsets"
                        data_type: TYPE_INT32 source_input: "x" } ]
    """
    config = context.effective
    if config is None:
        return
    inputs = {i.name for i in config.input}
    targets: Counter[str] = Counter()
    for index, batch_input in enumerate(config.batch_input):
        label = _batch_input_label(index, batch_input)
        if not batch_input.target_name:
            yield Finding(
                f"{label} has no target_name; the backend feeds the computed tensor to the "
                "model input of that name, so it reaches no model input",
                at=("batch_input", index),
                hint='add target_name: "<model input that receives it>"',
            )
        for position, target in enumerate(batch_input.target_name):
            at = ("batch_input", index, "target_name", position)
            if not target:
                problem = "is empty, so it reaches no model input"
            elif target in inputs:
                problem = "is also a declared input, so two tensors are bound to one name"
            elif targets[target]:
                problem = "is already the target of another batch_input"
            else:
                problem = ""
            targets[target] += 1
            if problem:
                yield Finding(
                    f"{label}: target_name '{target}' {problem}; Triton does not check it, "
                    "the backend fails (TensorRT at load, others at inference)",
                    at=at,
                    hint="name the model input that receives the batch input; it must not be "
                    "declared in input",
                )
    for index, batch_output in enumerate(config.batch_output):
        if not batch_output.target_name:
            yield Finding(
                f"{_batch_output_label(index, batch_output)} has no target_name, so it "
                "applies to no output",
                at=("batch_output", index),
                hint='add target_name: "<output to scatter>"',
            )


# ONNX Runtime, Python (and the Python-based backends) and identity opt in to optional
# inputs; backends built on BackendModel without opting in refuse them.
# tensorrtllm's ModelState does not go through BackendModel's optional-input refusal.
_OPTIONAL_ALLOWED = ("onnxruntime", "python", "vllm", "identity", "tensorrtllm")
_OPTIONAL_REFUSED = ("tensorrt", "pytorch", "openvino", "tensorflow", "dali")


def _optional_problem(config: ModelConfig, model_input: ModelInput) -> tuple[str, Severity] | None:
    backend = backend_of(config)
    if not backend:
        return None  # ensembles accept optional inputs
    if backend in _OPTIONAL_REFUSED:
        return (
            f"backend '{backend}' does not support optional inputs, so the model fails to load",
            ERROR,
        )
    if backend == "onnxruntime":
        if config.max_batch_size > 0:
            return (
                "ONNX Runtime refuses optional inputs on a model with max_batch_size > 0 "
                f"(here {config.max_batch_size}), so the model fails to load",
                ERROR,
            )
        if model_input.allow_ragged_batch:
            return (
                "ONNX Runtime refuses an optional input with allow_ragged_batch, so the "
                "model fails to load",
                ERROR,
            )
        return None
    if backend in _OPTIONAL_ALLOWED:
        return None
    return (
        f"backend '{backend}' may not support optional inputs (C++ backends built on "
        "Triton's BackendModel refuse them unless they opt in; Python-based backends "
        "accept them)",
        INFO,
    )


@rule(
    "PL217",
    "optional-input-unsupported",
    ERROR,
    "optional: true on an input of a backend that refuses optional inputs.",
    triton="'optional' is set to true for input '<name>' while the backend model doesn't "
    "support optional input",
    stage=Stage.LOAD,
)
def optional_input_unsupported(context: ModelContext) -> Iterator[Finding]:
    """Only backends that opt in accept `optional: true`: ONNX Runtime (and only with
    max_batch_size 0 and without allow_ragged_batch: "optional input '<name>' is not
    supported for models that support batching"), Python and the identity backend.
    TensorRT, PyTorch, OpenVINO, TensorFlow and DALI refuse the model when it loads.
    Ensembles accept optional inputs. Other backends: a warning.

    Bad:
        backend: "tensorrt"
        input [ { name: "mask" data_type: TYPE_INT32 dims: [ -1 ] optional: true } ]
    Good:
        backend: "tensorrt"
        input [ { name: "mask" data_type: TYPE_INT32 dims: [ -1 ] } ]
    """
    config = context.effective
    if config is None:
        return
    for index, model_input in enumerate(config.input):
        if not model_input.optional:
            continue
        problem = _optional_problem(config, model_input)
        if problem is not None:
            text, severity = problem
            yield Finding(
                f"{_Tensor('input', index, model_input).label} is optional: true, but {text}",
                at=("input", index, "optional"),
                hint="remove optional: true and send the input with every request",
                severity=severity,
            )


def _labelled_twice(config: ModelConfig, tensor: _Tensor) -> bool:
    """An output that repeats an earlier one's name, both with a label_filename."""
    if not isinstance(tensor.io, ModelOutput) or not tensor.io.label_filename:
        return False
    earlier = config.output[: tensor.index]
    return any(o.name == tensor.io.name and o.label_filename for o in earlier)


def _duplicate_consequence(config: ModelConfig, tensor: _Tensor) -> tuple[str, Severity]:
    """What Triton and the backend do with a tensor name used twice."""
    if backend_of(config) == "tensorrt":
        return (
            "TensorRT binds each name once and refuses the model ('has already appeared as "
            "an input or output')",
            ERROR,
        )
    if tensor.kind == "output":
        return (
            "Triton accepts it, keeps the first declaration and ignores the other (its "
            "data_type and dims are dead)",
            WARNING,
        )
    required = sum(1 for i in config.input if not i.optional)
    distinct = len({i.name for i in config.input})
    if required > distinct:
        declared = len(config.input)
        expected = (
            f"{declared} inputs"
            if required == declared
            else f"number of inputs between {required} and {declared}"
        )
        return (
            f"Triton counts {required} required inputs but a request can carry each name "
            f"once, so every request fails ('expected {expected} but got {distinct} inputs')",
            ERROR,
        )
    return (
        "Triton accepts it, keeps the first declaration for request checks and ignores the "
        "other (its data_type and dims are dead)",
        WARNING,
    )


@rule(
    "PL218",
    "duplicate-tensor-name",
    ERROR,
    "Two inputs or two outputs with the same name, or an input and an output sharing one.",
    triton="input '<name>'  has already appeared as an input or output for <instance> / "
    "expected <n> inputs but got <k> inputs for model '<model>'",
    stage=Stage.LOAD,
)
def duplicate_tensor_name(context: ModelContext) -> Iterator[Finding]:
    """Triton's core does not check tensor names for uniqueness at load: it keeps the
    first declaration and ignores the rest, but still counts every non-optional input
    as required, so with a duplicated required input no request can ever be complete
    and every request fails. TensorRT refuses the model when it binds a name twice
    (an input and an output sharing a name included). Two outputs of one name that both
    have a label_filename are refused too (PL716). Elsewhere a duplicated output loads
    and only confuses clients (warning); an input and an output sharing a name is a
    legitimate pass-through outside TensorRT and is not reported.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] },
                { name: "x" data_type: TYPE_INT32 dims: [ 4 ] } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] },
                { name: "x_ids" data_type: TYPE_INT32 dims: [ 4 ] } ]
    """
    config = context.effective
    if config is None:
        return
    input_names = {i.name for i in config.input}
    seen: dict[str, set[str]] = {"input": set(), "output": set()}
    for tensor in _tensors(config):
        name = tensor.io.name
        duplicate = name in seen[tensor.kind]
        clash = tensor.kind == "output" and name in input_names
        seen[tensor.kind].add(name)
        if not name or not (duplicate or clash):
            continue  # unnamed tensors are PL201's
        text, severity = _duplicate_consequence(config, tensor)
        if clash and not duplicate and severity is not ERROR:
            continue  # a pass-through tensor (input and output "LEN") is legitimate
        if duplicate and _labelled_twice(config, tensor):
            continue  # PL716: Triton refuses two label files for one output
        if duplicate:
            problem = f"{tensor.label} is declared twice; {text}"
        else:
            problem = f"{tensor.label} has the same name as an input; {text}"
        yield Finding(
            problem,
            at=(*tensor.path, "name"),
            hint="give every input and output its own name (the tensor name in the model "
            "file), or delete the copy",
            severity=severity,
        )


@rule(
    "PL219",
    "no-inputs-or-outputs",
    ERROR,
    "A model that declares no inputs or no outputs (and no backend completes them).",
    triton="model configuration must contain at least one input, none were specified.",
    stage=Stage.LOAD,
)
def no_inputs_or_outputs(context: ModelContext) -> Iterator[Finding]:
    """Triton's core accepts a config without inputs or outputs; the backend decides.
    PyTorch (TorchScript) refuses it when the model loads. In auto-complete mode ONNX
    Runtime, TensorRT, OpenVINO, TensorFlow and DALI fill the missing list from the
    model file; in strict mode they cannot, and their comparison with the model then
    fails (warning). Python models without inputs exist, and Python's
    `auto_complete_config` may add them; custom backends such as identity load an
    empty config (info). Ensembles are checked by PL5xx.

    Bad:
        platform: "pytorch_libtorch"
        output [ { name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    Good:
        platform: "pytorch_libtorch"
        input [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 4 ] } ]
        output [ { name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    """
    config = context.effective
    if config is None:
        return
    backend = backend_of(config)
    if not backend or _fills_empty_lists(context, config):
        return
    if backend == "pytorch" and config.platform == "pytorch_libtorch":
        severity = ERROR
        why = "the PyTorch backend requires at least one and refuses the model when it loads"
    elif backend == "pytorch":
        severity = WARNING
        why = (
            "the PyTorch backend refuses TorchScript models without them, and torch_aoti "
            "models most likely fail too"
        )
    elif backend in ("onnxruntime", "tensorrt", "openvino", "tensorflow", "dali"):
        severity = WARNING
        reason = (
            "--disable-auto-complete-config"
            if context.strict
            else "it auto-completes only when the first instance group is KIND_GPU"
        )
        why = (
            f"backend '{backend}' cannot fill them in from the model file ({reason}), and "
            "the load fails unless the model really has none"
        )
    else:
        severity = INFO
        why = (
            f"backend '{backend}' accepts that; clients then send or receive nothing for "
            "it unless the backend adds them (Python: auto_complete_config in model.py)"
        )
    # batch inputs count as inputs for the completing backends, not for PyTorch
    has_inputs = bool(config.input) or (backend != "pytorch" and bool(config.batch_input))
    missing = [
        kind
        for kind, present in (("inputs", has_inputs), ("outputs", bool(config.output)))
        if not present
    ]
    for kind in missing:
        yield Finding(
            f"model '{context.model.name}' declares no {kind}; {why}",
            at=(kind[:-1],),
            hint=f"declare the model's {kind} (name, data_type, dims)",
            severity=severity,
        )


@rule(
    "PL220",
    "ragged-batch-without-batching",
    WARNING,
    "allow_ragged_batch on a model that never batches requests.",
)
def ragged_batch_without_batching(context: ModelContext) -> Iterator[Finding]:
    """`allow_ragged_batch` lets the dynamic batcher combine requests whose shapes
    differ. With max_batch_size 0, or without dynamic_batching or sequence_batching,
    Triton never combines requests, and on an ensemble's inputs the flag is ignored
    (set it on the composing model). Triton accepts all of these silently. Not reported
    in auto-complete mode when the backend may fill max_batch_size and dynamic_batching
    from the model (TensorRT, ...).

    Bad:
        max_batch_size: 0
        input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
    Good:
        max_batch_size: 8
        input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
        dynamic_batching { }
    """
    config = context.effective
    if config is None or _may_complete_batching(context, config):
        return
    if not backend_of(config):
        why = "Triton ignores it on an ensemble's inputs; set it on the composing model's input"
    elif config.max_batch_size == 0:
        why = "max_batch_size is 0, so Triton never batches requests and it has no effect"
    elif not (config.HasField("dynamic_batching") or config.HasField("sequence_batching")):
        why = "without dynamic_batching Triton does not combine requests, so it has no effect"
    else:
        return
    for index, model_input in enumerate(config.input):
        if model_input.allow_ragged_batch:
            yield Finding(
                f"{_Tensor('input', index, model_input).label} sets allow_ragged_batch, but {why}",
                at=("input", index, "allow_ragged_batch"),
                hint="set max_batch_size > 0 and add dynamic_batching { }, or remove "
                "allow_ragged_batch",
            )


@rule(
    "PL221",
    "image-format-ignored",
    INFO,
    "format FORMAT_NHWC/FORMAT_NCHW, which no backend acts on.",
)
def image_format_ignored(context: ModelContext) -> Iterator[Finding]:
    """Triton only checks that a formatted input has 3 dims (PL208) and reports the
    format in the model metadata for clients. No backend transposes or interprets it:
    the model itself must expect that layout.

    Bad:
        input [ { name: "img" data_type: TYPE_FP32 format: FORMAT_NHWC dims: [ 3, 224, 224 ] } ]
    Good:
        input [ { name: "img" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
    """
    config = context.effective
    if config is None:
        return
    for index, model_input in enumerate(config.input):
        if model_input.format in _IMAGE_FORMATS and len(model_input.dims) == 3:
            name = ModelInput.Format.Name(model_input.format)
            yield Finding(
                f"{_Tensor('input', index, model_input).label}: format {name} is only "
                "reported to clients; no backend converts the layout, so dims must already be "
                "in the order the model expects",
                at=("input", index, "format"),
                hint="keep it if clients read it from the model metadata; it changes nothing "
                "on the server",
            )


_NO_TENSORRT_TYPE = frozenset(
    info.config_type for info in DATA_TYPES if info.tensorrt_type is None and info.enum_value
)
# Data types each backend refuses at load (TensorRT: no nvinfer1 type; OpenVINO: no
# conversion; libtorch: no unsigned wide types, no bfloat16; TensorFlow: no bfloat16).
_UNSUPPORTED_TYPES: dict[str, frozenset[str]] = {
    "tensorrt": _NO_TENSORRT_TYPE,
    "openvino": frozenset({"TYPE_FP64", "TYPE_STRING", "TYPE_BF16"}),
    "pytorch": frozenset({"TYPE_UINT16", "TYPE_UINT32", "TYPE_UINT64", "TYPE_BF16"}),
    "tensorflow": frozenset({"TYPE_BF16"}),
}


# What to use instead, where the backend lacks the type.
_TYPE_INSTEAD = {
    "TYPE_BF16": "TYPE_FP16 or TYPE_FP32",
    "TYPE_FP64": "TYPE_FP32",
    "TYPE_INT16": "TYPE_INT32",
    "TYPE_UINT16": "TYPE_INT32",
    "TYPE_UINT32": "TYPE_INT64",
    "TYPE_UINT64": "TYPE_INT64",
}


def _data_type_problem(config: ModelConfig, tensor: _Tensor) -> tuple[str, Severity, str] | None:
    """Why this backend cannot take the tensor's data type: (text, severity, hint)."""
    backend = backend_of(config)
    written_type = type_name(tensor.io.data_type)
    if written_type in _UNSUPPORTED_TYPES.get(backend, ()):
        return (
            f"backend '{backend}' does not support {written_type}, so the model fails to "
            f"load ('unsupported datatype {written_type}')",
            ERROR,
            f"use {_TYPE_INSTEAD[written_type]} (and export the model with that type)"
            if written_type in _TYPE_INSTEAD
            else f"backend '{backend}' has no string type: feed it token ids (TYPE_INT32 or "
            "TYPE_INT64) from a Python model or an ensemble step in front of it",
        )
    if backend == "pytorch" and written_type == "TYPE_STRING":
        field = "reshape" if tensor.io.HasField("reshape") else "dims"
        shape = tensor.io.reshape.shape if field == "reshape" else tensor.io.dims
        batched = config.max_batch_size > 0
        rank = len(shape) + batched
        if rank > 1:
            return (
                "PyTorch takes strings only as a 1-dimensional List[str], and "
                f"{'the batch dimension plus ' if batched else ''}{field} {config_dims(shape)} "
                f"make {rank} dimensions, so the model fails to load",
                ERROR,
                "with max_batch_size > 0 write dims: [ 1 ] and reshape: { shape: [ ] }; "
                "with max_batch_size 0 a single dim such as dims: [ -1 ]",
            )
    if backend == "python" and written_type == "TYPE_BF16":
        return (
            "the Python backend cannot convert BF16 to NumPy: as_numpy() fails at inference",
            INFO,
            "read the tensor with to_dlpack() (e.g. into torch)",
        )
    return None


@rule(
    "PL222",
    "data-type-unsupported-by-backend",
    ERROR,
    "An input or output data type the model's backend cannot take.",
    triton="unsupported datatype <TYPE_X> for input '<name>' for model '<model>'",
    stage=Stage.LOAD,
)
def data_type_unsupported_by_backend(context: ModelContext) -> Iterator[Finding]:
    """Triton's core accepts every data type; backends refuse some when the model
    loads. TensorRT has no TYPE_STRING, TYPE_UINT16/32/64, TYPE_INT16 or TYPE_FP64;
    OpenVINO no TYPE_FP64, TYPE_STRING or TYPE_BF16; PyTorch no TYPE_UINT16/32/64 or
    TYPE_BF16, and TYPE_STRING only as a 1-D list (batch dimension included);
    TensorFlow no TYPE_BF16. Python loads TYPE_BF16 but cannot turn it into NumPy
    (info).

    Bad:
        backend: "tensorrt"
        input [ { name: "text" data_type: TYPE_STRING dims: [ 1 ] } ]
    Good:
        backend: "tensorrt"
        input [ { name: "input_ids" data_type: TYPE_INT32 dims: [ -1 ] } ]
    """
    config = context.effective
    if config is None:
        return
    for tensor in _tensors(config):
        problem = _data_type_problem(config, tensor)
        if problem is not None:
            text, severity, hint = problem
            yield Finding(
                f"{tensor.label}: {text}",
                at=(*tensor.path, "data_type"),
                hint=hint,
                severity=severity,
            )
