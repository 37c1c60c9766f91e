"""PL724: ONNX Runtime execution accelerators.

ONNX Runtime reads `optimization.execution_accelerators` when it creates a session for
an instance (`ModelState::LoadModel` in onnxruntime_backend's src/onnxruntime.cc): CPU
instances use the CPU accelerators, GPU instances the GPU ones. The names and
TensorRT parameters below are those of an NGC build (ONNX Runtime with TensorRT and
OpenVINO).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.features.common import (
    BOOL_HINT,
    INT_HINT,
    bool_problem,
    gpu_instances,
    int_problem,
)
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath, Key
from pbtxt_lint.triton.parameters import leading_int

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

GPU_ACCELERATORS = ("tensorrt", "cuda")
CPU_ACCELERATORS = ("openvino",)
TRT_EP_PRECISIONS = ("FP32", "FP16", "BF16", "INT8")
TRT_EP_BOOL = (
    "int8_use_native_calibration_table",
    "trt_dla_enable",
    "trt_engine_cache_enable",
    "trt_dump_subgraphs",
    "trt_force_sequential_engine_build",
    "trt_context_memory_sharing_enable",
    "trt_layer_norm_fp32_fallback",
    "trt_timing_cache_enable",
    "trt_force_timing_cache",
    "trt_detailed_build_log",
    "trt_build_heuristics_enable",
    "trt_sparsity_enable",
    "trt_cuda_graph_enable",
    "trt_dump_ep_context_model",
)
TRT_EP_INT = (
    "trt_max_partition_iterations",
    "trt_min_subgraph_size",
    "trt_dla_core",
    "trt_builder_optimization_level",
    "trt_auxiliary_streams",
    "trt_ep_context_embed_mode",
)
TRT_EP_STRING = (
    "int8_calibration_table_name",
    "trt_engine_cache_path",
    "trt_engine_cache_prefix",
    "trt_timing_cache_path",
    "trt_tactic_sources",
    "trt_extra_plugin_lib_paths",
    "trt_profile_min_shapes",
    "trt_profile_max_shapes",
    "trt_profile_opt_shapes",
    "trt_ep_context_file_path",
)
TRT_EP_KEYS = (
    "precision_mode",
    "max_workspace_size_bytes",
    *TRT_EP_BOOL,
    *TRT_EP_INT,
    *TRT_EP_STRING,
)
CUDA_EP_BOOL = ("do_copy_in_default_stream", "use_ep_level_unified_stream")


def _size_problem(text: str) -> str | None:
    """Why `ParseUnsignedLongLongValue` (`std::stoull`) rejects a size, or None: unlike
    the other numbers it takes 64 bits (onnxruntime_backend src/onnxruntime.cc)."""
    value = leading_int(text)
    if value is None:
        return (
            f"'{text}' is not a number (\"failed to convert '{text}' to unsigned long long "
            'integral number")'
        )
    if value >= 1 << 64:
        return f"'{text}' does not fit 64 bits (std::stoull throws)"
    return None


def _accelerator_problems(
    name: str, params: Mapping[str, str]
) -> Iterator[tuple[str | None, str, str]]:
    """(parameter key or None for the accelerator, why, hint) for one GPU accelerator."""
    if name not in GPU_ACCELERATORS:
        guess = suggest(name, GPU_ACCELERATORS)
        hint = f'write name: "{guess}"' if guess else 'use name: "tensorrt" or "cuda"'
        yield None, f"'{name}' is not a GPU execution accelerator", hint
        return
    for key, value in params.items():
        hint = BOOL_HINT
        if name == "cuda":
            why = bool_problem(value) if key in CUDA_EP_BOOL else None
        elif key not in TRT_EP_KEYS:
            guess = suggest(key, TRT_EP_KEYS)
            why = f"'{key}' is not a TensorRT accelerator parameter"
            hint = f"rename it to '{guess}'" if guess else "delete it"
        elif key == "precision_mode" and value not in TRT_EP_PRECISIONS:
            why = f"precision_mode '{value}' is not one of {', '.join(TRT_EP_PRECISIONS)}"
            upper = value.upper()
            hint = f'write value: "{upper}"' if upper in TRT_EP_PRECISIONS else 'write "FP16"'
        elif key in TRT_EP_BOOL:
            why = bool_problem(value)
        elif key == "max_workspace_size_bytes":
            why, hint = _size_problem(value), INT_HINT
        elif key in TRT_EP_INT:
            why, hint = int_problem(value), INT_HINT
        else:
            why = None
        if why:
            yield key, why, hint


@rule(
    "PL724",
    "execution-accelerator-invalid",
    ERROR,
    "An unknown ONNX Runtime execution accelerator, or a TensorRT/CUDA accelerator "
    "parameter it refuses.",
    triton="unknown Execution Accelerator '<name>' is requested / unknown parameter '<key>' is "
    "provided for TensorRT Execution Accelerator / unsupported precision mode '<value>' is "
    "requested",
    stage=Stage.LOAD,
    backend="onnxruntime",
)
def execution_accelerator_invalid(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime knows the GPU accelerators `tensorrt` and `cuda` (used by GPU
    instances) and the CPU accelerator `openvino`; TensorRT accelerator parameters are a
    fixed list (`precision_mode` is FP32, FP16, BF16 or INT8, upper case). Anything else
    fails the model when an instance is created. Whether a KIND_AUTO instance (or the
    default group) runs on a GPU depends on the host: without `--gpus N` a GPU
    accelerator problem of such a model is info (it fails on a host with a GPU).

    Bad:
        gpu_execution_accelerator : [ { name : "tensorrt"
          parameters { key: "precision_mode" value: "fp16" } } ]
    Good:
        gpu_execution_accelerator : [ { name : "tensorrt"
          parameters { key: "precision_mode" value: "FP16" } } ]
    """
    config = context.effective
    if config is None or config.backend != "onnxruntime":
        return
    accelerators = config.optimization.execution_accelerators
    base: FieldPath = ("optimization", "execution_accelerators")
    for index, accelerator in enumerate(accelerators.cpu_execution_accelerator):
        if accelerator.name not in CPU_ACCELERATORS:
            yield Finding(
                f"cpu_execution_accelerator '{accelerator.name}' of ONNX Runtime model "
                f"'{context.model.name}' is unknown; ONNX Runtime accepts only 'openvino' there",
                at=(*base, "cpu_execution_accelerator", index, "name"),
                hint='use name: "openvino", or delete the accelerator',
            )
    gpu = gpu_instances(context)
    if gpu is None:
        return  # CPU instances never read GPU accelerators (PL720)
    for index, accelerator in enumerate(accelerators.gpu_execution_accelerator):
        at: FieldPath = (*base, "gpu_execution_accelerator", index)
        for key, why, hint in _accelerator_problems(accelerator.name, accelerator.parameters):
            where = (
                "; ONNX Runtime refuses the model on a host with a GPU (where its "
                "instances without a kind run on the GPU)"
                if gpu is WARNING
                else ""
            )
            yield Finding(
                f"gpu_execution_accelerator {index} of ONNX Runtime model "
                f"'{context.model.name}': {why}{where}",
                at=(*at, "name") if key is None else (*at, "parameters", Key(key)),
                hint=hint,
                severity=INFO if gpu is WARNING else None,
            )
