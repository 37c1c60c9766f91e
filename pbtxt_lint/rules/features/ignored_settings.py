"""PL720-PL721: settings the model's backend silently ignores.

A backend reads the `optimization` fields it implements and the `parameters` keys it
knows (case-sensitively) and ignores the rest without a word. Which backend reads what
is `Backend.reads_fields` and `Backend.parameters` in `pbtxt_lint.triton.backends`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, rule
from pbtxt_lint.rules.common import BATCH_STRATEGY_PATH
from pbtxt_lint.rules.features.common import gpu_instances
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath, Key
from pbtxt_lint.triton.autofill import is_ensemble
from pbtxt_lint.triton.backends import BACKENDS

if TYPE_CHECKING:
    from google.protobuf.message import Message

WARNING = Severity.WARNING
INFO = Severity.INFO

BACKEND_SPECIFIC_FIELDS: tuple[FieldPath, ...] = tuple(
    sorted({at for entry in BACKENDS.values() for at in entry.reads_fields})
)
"""Config fields that only some backends read (`optimization.cuda`, ...)."""


def _readers(at: FieldPath) -> tuple[str, ...]:
    """The backends that read field `at`, in table order."""
    return tuple(entry.name for entry in BACKENDS.values() if at in entry.reads_fields)


def _is_set(config: ModelConfig, path: FieldPath) -> bool:
    """Whether a (message or scalar) field along `path` is set to a non-default value."""
    message: Message = config
    for name in path[:-1]:
        message = getattr(message, str(name))
    field = message.DESCRIPTOR.fields_by_name[str(path[-1])]
    if field.message_type is not None:
        return message.HasField(field.name)
    return bool(getattr(message, field.name))


@rule(
    "PL720",
    "optimization-ignored-by-backend",
    INFO,
    "An optimization setting the model's backend does not implement (it is silently ignored).",
    backend=("onnxruntime", "tensorrt"),
)
def optimization_ignored_by_backend(context: ModelContext) -> Iterator[Finding]:
    """`optimization.cuda`, `priority`, `gather_kernel_buffer_threshold` and
    `eager_batching` are read only by TensorRT; `graph`, `execution_accelerators` and
    `model_operations` only by ONNX Runtime (and TensorFlow). ONNX Runtime uses GPU
    accelerators only on GPU instances. Elsewhere the settings do nothing.

    Bad:
        backend: "onnxruntime"
        optimization { cuda { graphs: true } }
    Good:
        backend: "tensorrt"
        optimization { cuda { graphs: true } }
    """
    config = context.config
    effective = context.effective
    if config is None or effective is None or is_ensemble(effective):
        return
    backend = effective.backend
    entry = BACKENDS.get(backend)
    if entry is None or not entry.reads_fields_known:
        return  # a custom backend may read anything
    for at in BACKEND_SPECIFIC_FIELDS:
        if at in entry.reads_fields or not _is_set(config, at):
            continue
        readers = " and ".join(_readers(at))
        yield Finding(
            f"model '{context.model.name}' sets {'.'.join(str(p) for p in at)}, which the "
            f"{backend} backend ignores (only read by {readers})",
            at=at,
            hint=f"delete {at[-1]}",
        )
    gpu_accelerators = config.optimization.execution_accelerators.gpu_execution_accelerator
    if backend == "onnxruntime" and gpu_accelerators and gpu_instances(context) is None:
        yield Finding(
            f"model '{context.model.name}' sets gpu_execution_accelerator, but all its instances "
            "run on the CPU, where ONNX Runtime ignores GPU accelerators",
            at=("optimization", "execution_accelerators", "gpu_execution_accelerator", 0),
            hint="use kind: KIND_GPU instances, or delete gpu_execution_accelerator",
        )


@rule(
    "PL721",
    "unknown-backend-parameter",
    INFO,
    "A `parameters` key the model's backend does not read (often a typo or wrong case).",
    backend=(
        "onnxruntime",
        "tensorrt",
        "openvino",
        "tensorflow",
        "fil",
        "dali",
        "pytorch",
        "python",
    ),
)
def unknown_backend_parameter(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime, TensorRT, PyTorch, OpenVINO and Python read a fixed set of
    `parameters` keys, case-sensitively (ONNX Runtime's are lower_case, PyTorch's and
    OpenVINO's UPPER_CASE); anything else is silently ignored. Python models may read
    their own keys, so only near misses of the backend's keys are reported for them.

    Bad:
        backend: "pytorch"
        parameters { key: "disable_optimized_execution" value: { string_value: "true" } }
    Good:
        backend: "pytorch"
        parameters { key: "DISABLE_OPTIMIZED_EXECUTION" value: { string_value: "true" } }
    """
    config = context.effective
    if config is None:
        return
    entry = BACKENDS.get(config.backend)
    if entry is None or entry.parameters is None:
        return
    known = (*entry.parameters, BATCH_STRATEGY_PATH)
    python = config.backend == "python"
    listing = ", ".join(entry.parameters)
    for key in config.parameters:
        if key in known:
            continue
        guess = suggest(key, known, cutoff=0.8 if python else 0.6)
        if python and guess is None:
            continue  # a key for the model's own code
        yield Finding(
            f"parameter '{key}' of model '{context.model.name}' is not read by the "
            f"{config.backend} backend" + (f"; did you mean '{guess}'?" if guess else ""),
            at=("parameters", Key(key)),
            hint=f"rename it to '{guess}'" if guess else f"the backend reads: {listing}",
        )
