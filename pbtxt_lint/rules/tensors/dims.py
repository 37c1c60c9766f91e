"""PL204-PL207: dims and reshape.

`ValidateIOShape` (core's src/model_config_utils.cc, for every input and output)
refuses a dimension below 1 other than -1, an empty reshape on a model without
batching, and a reshape that does not regroup the same elements as dims.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pbtxt_lint.rules.api import (
    ERROR,
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    backend_of,
    config_dims,
    rule,
)
from pbtxt_lint.rules.tensors.common import may_complete_batching, tensors

INT64_MAX = 2**63 - 1


def _invalid(values: Sequence[int]) -> list[int]:
    """Positions of dimensions Triton refuses: below 1 and not -1."""
    return [i for i, v in enumerate(values) if v < 1 and v != -1]


def _invalid_dim_findings(context: ModelContext, field: str) -> Iterator[Finding]:
    """PL204/PL205: dims (`field` "dims") or reshape shapes with a value below 1, not -1."""
    config = context.effective
    if config is None:
        return
    where = ("dims",) if field == "dims" else ("reshape", "shape")
    for tensor in tensors(config):
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
    effective=True,
)
def empty_reshape_without_batching(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
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
    if config.max_batch_size != 0:
        return
    maybe = may_complete_batching(context, config)
    note = f" (unless backend '{backend_of(config)}' fills max_batch_size from the model)"
    for tensor in tensors(config):
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


def reshape_problem(dims: Sequence[int], shape: Sequence[int]) -> str | None:
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
    effective=True,
)
def reshape_size_mismatch(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """`reshape` only changes how the same elements are laid out: the element counts
    must match, both or neither must contain -1, with the same number of -1s and the
    same product of fixed sizes between them ([2, 4, -1, 6] -> [8, -1, 1, 6] is fine).
    An empty reshape needs dims with exactly one element.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] reshape: { shape: [ 2, 3 ] } } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 6 ] reshape: { shape: [ 2, 3 ] } } ]
    """
    for tensor in tensors(config):
        dims, shape = list(tensor.io.dims), list(tensor.io.reshape.shape)
        if not tensor.io.HasField("reshape") or not dims or _invalid(dims) or _invalid(shape):
            continue  # PL203/PL204/PL205 report those
        problem = reshape_problem(dims, shape)
        if problem:
            yield Finding(
                f"{tensor.label}: {problem}; Triton refuses the model",
                at=(*tensor.path, "reshape"),
                hint="reshape must regroup the same elements as dims (the model file's shape "
                "goes in reshape, the client's shape in dims)",
            )
