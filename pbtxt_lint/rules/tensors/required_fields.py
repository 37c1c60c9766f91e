"""PL201-PL203: the name, data_type and dims every input and output needs.

`ValidateIOShape` (called by `ValidateModelInput` and `ValidateModelOutput` in core's
src/model_config_utils.cc) refuses a tensor without them. In the default auto-complete
mode some backends fill a missing data_type or dims from the model file first; which
ones is read from `pbtxt_lint.triton.backends` (`fills_listed_types`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    BACKENDS,
    ERROR,
    INFO,
    Finding,
    ModelConfig,
    ModelContext,
    Severity,
    Stage,
    backend_of,
    rule,
)
from pbtxt_lint.rules.tensors.common import first_group_may_be_gpu, tensors


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
    if not context.auto_complete:
        return ERROR, "with --disable-auto-complete-config nothing fills it in"
    backend = backend_of(config)
    if not backend:
        return ERROR, "ensembles are never auto-completed"
    entry = BACKENDS.get(backend)
    if entry is None or not entry.fills_listed_types_known:
        return INFO, f"unless backend '{backend}' fills it in from the model"
    if backend == "tensorrt" and not first_group_may_be_gpu(config):
        return ERROR, "TensorRT auto-completes only when the first instance group is KIND_GPU"
    if field in entry.fills_listed_types:
        return None
    if backend == "dali":
        return INFO, "DALI fills dims only when the pipeline declares the output's ndim"
    if entry.completes_in_model_py:
        return ERROR, "only an auto_complete_config in model.py could fill it in"
    return ERROR, f"backend '{backend}' does not fill it in for a tensor the config lists"


@rule(
    "PL201",
    "tensor-name-missing",
    ERROR,
    "An input or output without a name.",
    triton="model input must specify 'name' for <model>",
    effective=True,
)
def tensor_name_missing(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Every input and output needs the tensor name the model uses; Triton refuses the
    model otherwise (backends match config tensors to the model by name).

    Bad:
        input [ { data_type: TYPE_FP32 dims: [ 3 ] } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } ]
    """
    for tensor in tensors(config):
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
    filled = _filled_by_model_py(context, config, field)
    if filled is None:
        return  # model.py's auto_complete_config fails: PL664 says why
    for tensor in tensors(config):
        if not getattr(tensor.io, field) and (tensor.kind, tensor.io.name) not in filled:
            outcome = "refuses the model" if severity is ERROR else "refuses the model if not"
            yield Finding(
                f"{tensor.label} has no {field} ({note}); Triton requires a {what} and " + outcome,
                at=(*tensor.path, field),
                hint=hint,
                severity=severity,
                # With auto-complete on, Triton checks inputs and outputs only after the
                # backend has completed the config, when the model loads.
                stage=None if not context.auto_complete else Stage.LOAD,
            )


def _filled_by_model_py(
    context: ModelContext, config: ModelConfig, field: str
) -> set[tuple[str, str]] | None:
    """The (kind, name) of tensors whose `field` a Python model's auto_complete_config
    fills in (emulated from model.py; empty when it was not read or is not literal);
    None when auto_complete_config fails, which is reported on its own."""
    entry = BACKENDS.get(backend_of(config))
    if not context.auto_complete or entry is None or not entry.completes_in_model_py:
        return set()
    completed = context.completed
    if completed.error is not None:
        return None
    if completed.config is None or not completed.io_known:
        return set()
    return {
        (kind, io.name)
        for kind, ios in (("input", completed.config.input), ("output", completed.config.output))
        for io in ios
        if getattr(io, field)
    }


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
    completes; Python only through model.py's `auto_complete_config` (emulated when
    model.py is read: a field it fills is not missing); ensembles never. Backends that may complete
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
