"""PL883: TensorFlow execution accelerators.

The TensorFlow backend reads `optimization.execution_accelerators` when it creates a
session for an instance (`ModelState::CreateModel` in tensorflow_backend's
src/tensorflow.cc): it refuses every CPU accelerator, ignores the GPU ones on a CPU
instance, and on a GPU instance knows `tensorrt` (TF-TRT, with its own parameters),
`gpu_io` and `auto_mixed_precision`, which cannot be combined with `tensorrt`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    WARNING,
    FieldPath,
    Finding,
    Key,
    ModelContext,
    Stage,
    rule,
    suggest,
)
from pbtxt_lint.rules.features.common import INT_HINT, gpu_instances
from pbtxt_lint.triton.parameters import leading_int

GPU_ACCELERATORS = ("tensorrt", "gpu_io", "auto_mixed_precision")
TFTRT_PRECISIONS = ("FP32", "FP16")
TFTRT_NUMBERS = ("minimum_segment_size", "max_workspace_size_bytes", "max_cached_engines")
TFTRT_KEYS = ("precision_mode", *TFTRT_NUMBERS)


def _tftrt_problems(params: Mapping[str, str]) -> Iterator[tuple[str, str, str]]:
    """(key, why, hint) for the TF-TRT accelerator's parameters."""
    for key, value in params.items():
        if key not in TFTRT_KEYS:
            guess = suggest(key, TFTRT_KEYS)
            yield (
                key,
                f"'{key}' is not a TF-TRT parameter",
                (f"rename it to '{guess}'" if guess else "delete it"),
            )
        elif key == "precision_mode" and value not in TFTRT_PRECISIONS:
            yield key, f"precision_mode '{value}' is not FP32 or FP16", 'write value: "FP16"'
        elif key in TFTRT_NUMBERS and leading_int(value) is None:
            yield key, f"{key} '{value}' is not a number", INT_HINT


@rule(
    "PL883",
    "tensorflow-execution-accelerator-invalid",
    ERROR,
    "A TensorFlow execution accelerator the backend refuses: any CPU one, an unknown GPU one, "
    "a bad TF-TRT parameter, or auto_mixed_precision with tensorrt.",
    triton="CPU Execution Accelerator is not supported in TensorFlow backend / unknown "
    "Execution Accelerator '<name>' is requested / unknown parameter '<key>' is provided for "
    "TensorRT Execution Accelerator / unsupported precision mode '<value>' is requested / Auto "
    "mixed precision can not be set with TFTRT optimization",
    stage=Stage.LOAD,
    backend="tensorflow",
)
def tensorflow_execution_accelerator_invalid(context: ModelContext) -> Iterator[Finding]:
    """The TensorFlow backend has no CPU accelerator and refuses any. On GPU instances it
    knows `tensorrt` (parameters precision_mode FP32 or FP16, minimum_segment_size,
    max_workspace_size_bytes, max_cached_engines), `gpu_io` and `auto_mixed_precision`
    (not together with `tensorrt`); anything else fails the model when an instance is
    created. On CPU instances the GPU accelerators are ignored (info). Whether a group
    without a kind runs on a GPU depends on the host: without `--gpus N` its problems are
    info.

    Bad:
        platform: "tensorflow_savedmodel"
        optimization { execution_accelerators { gpu_execution_accelerator : [
          { name : "tensorrt" parameters { key: "precision_mode" value: "INT8" } } ] } }
    Good:
        platform: "tensorflow_savedmodel"
        optimization { execution_accelerators { gpu_execution_accelerator : [
          { name : "tensorrt" parameters { key: "precision_mode" value: "FP16" } } ] } }
    """
    config = context.effective
    if config is None or config.backend != "tensorflow":
        return
    accelerators = config.optimization.execution_accelerators
    base: FieldPath = ("optimization", "execution_accelerators")
    name = context.model.name
    if accelerators.cpu_execution_accelerator:
        yield Finding(
            f"TensorFlow model '{name}' lists a cpu_execution_accelerator; the TensorFlow "
            "backend has none and refuses the model",
            at=(*base, "cpu_execution_accelerator"),
            hint="delete cpu_execution_accelerator",
        )
    gpu_list = accelerators.gpu_execution_accelerator
    if not gpu_list:
        return
    gpu = gpu_instances(context)
    if gpu is None:
        yield Finding(
            f"TensorFlow model '{name}' runs on CPU instances only, where the backend ignores "
            'gpu_execution_accelerator ("GPU Execution Accelerator will be ignored for model '
            'instance on CPU")',
            at=(*base, "gpu_execution_accelerator"),
            hint="delete gpu_execution_accelerator, or run the model on KIND_GPU instances",
            severity=INFO,
        )
        return
    lowered = INFO if gpu is WARNING else None
    on_host = " on a host with a GPU" if lowered else ""
    names = [accelerator.name for accelerator in gpu_list]
    for index, accelerator in enumerate(gpu_list):
        at: FieldPath = (*base, "gpu_execution_accelerator", index)
        if accelerator.name not in GPU_ACCELERATORS:
            guess = suggest(accelerator.name, GPU_ACCELERATORS)
            yield Finding(
                f"gpu_execution_accelerator '{accelerator.name}' of TensorFlow model '{name}' "
                f"is unknown; the backend refuses the model{on_host}",
                at=(*at, "name"),
                hint=f'write name: "{guess}"'
                if guess
                else "use tensorrt, gpu_io or auto_mixed_precision",
                severity=lowered,
            )
        elif accelerator.name == "tensorrt":
            for key, why, hint in _tftrt_problems(accelerator.parameters):
                yield Finding(
                    f"TensorRT accelerator of TensorFlow model '{name}': {why}; the backend "
                    f"refuses the model{on_host}",
                    at=(*at, "parameters", Key(key)),
                    hint=hint,
                    severity=lowered,
                )
    if "tensorrt" in names and "auto_mixed_precision" in names:
        yield Finding(
            f"TensorFlow model '{name}' asks for auto_mixed_precision together with tensorrt, "
            f"which the backend refuses{on_host}",
            at=(*base, "gpu_execution_accelerator", names.index("auto_mixed_precision")),
            hint="keep one of the two (TF-TRT's precision_mode FP16 gives mixed precision)",
            severity=lowered,
        )
