"""PL643: config shapes against an OpenVINO IR, a SavedModel's serving signature or a
deserialized TensorRT engine.

Each backend has its own comparison: openvino_backend `openvino_utils.cc`
CompareDimsSupported (with doesMatch for dynamic and bounded dims), tensorflow_backend
`tensorflow_utils.cc` CompareDims (the same rules as ONNX Runtime's), and tensorrt_backend
`tensorrt_utils.cc` CompareDimsSupported and ValidateDimension (optimization profiles).
One function per comparison below; the rule reports the first reason each finds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.artifacts.signature import Dim
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import ModelView, io_shape, per_model_view, triton_shape
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import config_dims
from pbtxt_lint.schema.model_config_pb2 import ModelInput
from pbtxt_lint.triton.parameters import parameter

if TYPE_CHECKING:  # the TensorRT reader loads with the first plan
    from pbtxt_lint.artifacts.tensorrt import PlanSignature

ERROR = Severity.ERROR
LOAD = Stage.LOAD


def _ov_match(model: Dim, value: int) -> bool:
    """openvino_utils.cc doesMatch: static equal, unbounded anything, interval strict."""
    if isinstance(model, int):
        return model == -1 or model == value
    low, _, high = model.partition("..")
    if not high:
        return True
    return int(low or 0) < value < int(high)


def _ov_problem(view: ModelView, kind: str, model: tuple[Dim, ...], shape: list[int]) -> str | None:
    """The OpenVINO backend's CompareDimsSupported, as a reason or None."""
    exact = kind == "output"
    if view.mbs > 0:
        if not model:
            return (
                f"the model tensor has no dims, but with max_batch_size {view.mbs} it must "
                'have a batch dim ("for the model to support batching the shape should have '
                'at least 1 dimension")'
            )
        full = [view.mbs, *shape]
        same = len(model) == len(full) and all(
            _ov_match(m, c)
            for i, (m, c) in enumerate(zip(model, full, strict=True))
            if exact or (i != 0 and c != -1)
        )
        if same:
            return None
        return (
            f"the model expects {len(model)} dimensions (shape {triton_shape(model)}) but the "
            f"model configuration specifies {len(full)} dimensions (an initial batch dimension "
            f"because max_batch_size > 0 followed by the explicit tensor shape, making complete "
            f"shape {triton_shape(full)})"
        )
    same = len(model) == len(shape) and all(
        _ov_match(m, c) for m, c in zip(model, shape, strict=True)
    )
    if same:
        return None
    return (
        f"the model expects {len(model)} dimensions (shape {triton_shape(model)}) but the model "
        f"configuration specifies {len(shape)} dimensions (shape {triton_shape(shape)})"
    )


def _wildcard_problem(
    view: ModelView, kind: str, model: tuple[Dim, ...], shape: list[int]
) -> str | None:
    """TensorFlow's CompareDims (as ONNX Runtime's) and TensorRT's CompareDimsSupported."""
    dims = [d if isinstance(d, int) else -1 for d in model]
    exact = kind == "output"
    batched = view.mbs > 0
    if batched and (not dims or (view.backend == "tensorflow" and dims[0] != -1)):
        return (
            f"for the model to support batching the shape should have at least 1 dimension"
            f"{' and the first dimension must be -1' if view.backend == 'tensorflow' else ''}; "
            f"but shape expected by the model is {triton_shape(model)}"
        )
    full = [-1, *shape] if batched else shape
    if len(dims) == len(full):
        start = 1 if batched and view.backend == "tensorrt" else 0
        if all(
            m == c
            or (m == -1 and not exact)
            or (c == -1 and not exact and view.backend == "tensorrt")
            for m, c in list(zip(dims, full, strict=True))[start:]
        ):
            return None
    if batched:
        return (
            f"the model expects {len(dims)} dimensions (shape {triton_shape(model)}) but the model "
            f"configuration specifies {len(full)} dimensions (an initial batch dimension because "
            f"max_batch_size > 0 followed by the explicit tensor shape, making complete shape "
            f"{triton_shape(full)})"
        )
    return (
        f"the model expects {len(dims)} dimensions (shape {triton_shape(model)}) but the model "
        f"configuration specifies {len(shape)} dimensions (shape {triton_shape(shape)})"
    )


def _profile_problem(view: ModelView, io: ModelInput, shape: list[int]) -> str | None:
    """TensorRT: fixed config dims must lie in profile 0's [min, max] for the input."""
    if view.backend != "tensorrt":
        return None
    profiles = cast("PlanSignature", view.signature).profiles.get(io.name, ())
    if not profiles:
        return None
    profile = profiles[0]
    offset = 1 if view.mbs > 0 else 0
    for k, value in enumerate(shape):
        dim = k + offset
        if value == -1 or dim >= len(profile.minimum) or dim >= len(profile.maximum):
            continue
        low, high = profile.minimum[dim], profile.maximum[dim]
        if not low <= value <= high:
            return (
                f"model configuration specified invalid shape for input '{io.name}' for model "
                f"{view.config.name}. Error details: model expected the shape of dimension "
                f"{dim} to be between {low} and {high} but received {value}"
            )
    return None


@rule(
    "PL643",
    "model-shape-mismatch",
    ERROR,
    "dims (or reshape) that do not match the OpenVINO, SavedModel or TensorRT model's shape.",
    triton="model '<model>', tensor '<name>': the model expects <r> dimensions (shape <[..]>) "
    "but the model configuration specifies <k> dimensions (shape <[..]>)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend=("tensorrt", "openvino", "tensorflow"),
)
def model_shape_mismatch(context: ModelContext) -> Iterator[Finding]:
    """Each backend compares `[batch] + dims` (max_batch_size > 0) or `dims` with the
    model, using `reshape.shape` when present. OpenVINO: the batch dim and -1 input
    dims are not compared, a dynamic model dim matches anything, a bounded one
    (`1..10`) only values strictly inside it, and outputs are compared in full (the
    batch dim against max_batch_size). TensorFlow, like ONNX Runtime: the model's first
    dim must be -1 when batching, a dynamic model dim accepts any input value, outputs
    are exact. TensorRT: the engine's first dim is not compared, -1 is a wildcard on
    either side for inputs, and fixed input dims must fit optimization profile 0.
    `RESHAPE_IO_LAYERS: yes` makes OpenVINO reshape inputs instead of comparing them.

    Bad:
        max_batch_size: 8
        input [ { name: "x" dims: [ -1, 4 ] ... } ]   (model.xml: x is [?,4])
    Good:
        max_batch_size: 8
        input [ { name: "x" dims: [ 4 ] ... } ]
    """

    def check(view: ModelView) -> Iterator[Finding]:
        reshaped = (parameter(view.config, "RESHAPE_IO_LAYERS") or "").lower() == "yes"
        for kind in ("input", "output"):
            specs = {spec.name: spec for spec in view.specs(kind)}
            for index, io in view.config_tensors(kind):
                spec = specs.get(io.name)
                shape, field = io_shape(io)
                if spec is None or spec.shape is None or not io.dims:
                    continue
                if any(d == 0 or d < -1 for d in shape):
                    continue  # the core rejects it first
                if view.backend == "openvino":
                    if kind == "input" and reshaped:
                        continue
                    reason = _ov_problem(view, kind, spec.shape, shape)
                else:
                    reason = _wildcard_problem(view, kind, spec.shape, shape)
                    if reason is None and view.backend == "tensorrt" and isinstance(io, ModelInput):
                        reason = _profile_problem(view, io, shape)
                if reason is None:
                    continue
                where = "reshape.shape" if field != ("dims",) else "dims"
                yield Finding(
                    f'{kind} "{io.name}": {view.file} declares {triton_shape(spec.shape)}, {where} '
                    f"are {config_dims(shape)} with max_batch_size {view.mbs}; Triton fails with "
                    f"\"model '{view.config.name}', tensor '{io.name}': {reason}\"",
                    at=(kind, index, *field),
                    hint=_shape_hint(view, spec.shape, where, reason),
                )

    yield from per_model_view(context, check)


def _shape_hint(view: ModelView, model: tuple[Dim, ...], where: str, reason: str) -> str:
    """The fix for the reason the backend gives."""
    dims = [d if isinstance(d, int) else -1 for d in model]
    if reason.startswith("for the model to support batching"):
        return (
            "re-export the model with a dynamic batch dim, or set max_batch_size: 0 and "
            f"{where}: {config_dims(dims)}"
        )
    if reason.startswith("model configuration specified invalid shape"):
        return "use a size inside the engine's optimization profile, or rebuild the engine"
    if view.mbs > 0 and dims:
        return f"{where}: {config_dims(dims[1:])} (the model's shape without its batch dim)"
    return f"{where}: {config_dims(dims)} (with max_batch_size 0, dims are the complete shape)"
