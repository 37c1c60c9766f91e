"""PL7xx: other features (caching, metrics, warmup, labels, repository agents, parameters).

These are checked at different points of Triton's load: the response cache and the
model metrics with the rest of `ValidateModelConfig` at poll, repository agents when
the model is polled, labels after the backend has seen the model, warmup samples when
each instance is created, and backend `parameters` when the backend parses them. A
backend ignores `parameters` keys it does not know and `optimization` fields it does
not implement, silently; those are warnings.
"""

from __future__ import annotations

import math
import os
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.analysis.instances import GPU, resolve_groups
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.repository.fs import is_inside
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import type_name
from pbtxt_lint.rules.instances import KNOWN_NON_TENSORRT
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.datatypes import byte_size
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath, Key
from pbtxt_lint.triton.autofill import is_ensemble
from pbtxt_lint.triton.parameters import INT32_MAX, INT32_MIN, leading_int, parameter, parse_bool

if TYPE_CHECKING:
    from google.protobuf.message import Message

    from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelWarmup

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CUSTOMIZABLE_METRIC_FAMILY = "nv_inference_first_response_histogram_ms"
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
SHIPPED_REPO_AGENTS = ("checksum",)
"""Repository agents whose library ships in NGC Triton images (`/opt/tritonserver/repoagents`)."""
WARMUP_FOLDER = "warmup"
BATCH_CHECKING_BACKENDS = ("python", "pytorch", "openvino")
"""Backends that fail a batch larger than max_batch_size (1 without batching)."""
SINGLE_RESPONSE_BACKENDS = ("onnxruntime", "tensorrt", "pytorch", "openvino", "tensorflow", "fil")
"""Backends that send exactly one response per request."""

# Backend `parameters` keys, as each backend reads them (case-sensitive).
CORE_PARAMETERS = ("TRITON_BATCH_STRATEGY_PATH",)
ORT_INT = ("execution_mode", "intra_op_thread_count", "inter_op_thread_count")
ORT_BOOL = ("enable_mem_arena", "enable_mem_pattern", "share_session_between_instances")
ORT_GPU_CHOICES = {"cudnn_conv_algo_search": (0, 1, 2), "arena_extend_strategy": (0, 1)}
ORT_OTHER = (
    "session.use_device_allocator_for_initializers",
    "memory.enable_memory_arena_shrinkage",
    "gpu_mem_limit",
    "do_copy_in_default_stream",
)
TRT_ALLOCATION = "execution_context_allocation_strategy"
TRT_ALLOCATION_VALUES = ("STATIC", "ON_PROFILE_CHANGE")
TRT_MULTI_DEVICE = ("enable_multi_device", "multi_device_gpus", "multi_device_per_rank_engines")
PYTORCH_BOOL = (
    "DISABLE_OPTIMIZED_EXECUTION",
    "INFERENCE_MODE",
    "DISABLE_CUDNN",
    "ENABLE_WEIGHT_SHARING",
    "ENABLE_CACHE_CLEANING",
    "ENABLE_JIT_EXECUTOR",
    "ENABLE_JIT_PROFILING",
    "ENABLE_TENSOR_FUSER",
)
PYTORCH_INT = ("INTRA_OP_THREAD_COUNT", "INTER_OP_THREAD_COUNT")
OPENVINO_BOOL = ("SKIP_OV_DYNAMIC_BATCHSIZE", "ENABLE_BATCH_PADDING", "RESHAPE_IO_LAYERS")
OPENVINO_DEVICE = (
    "INFERENCE_NUM_THREADS",
    "COMPILATION_NUM_THREADS",
    "HINT_BF16",
    "NUM_STREAMS",
    "PERFORMANCE_HINT",
)
PYTHON_FORCE_CPU = "FORCE_CPU_ONLY_INPUT_TENSORS"
PYTHON_ENV = "EXECUTION_ENV_PATH"
MODEL_DIRECTORY_VARIABLE = "$$TRITON_MODEL_DIRECTORY"
KNOWN_PARAMETERS: dict[str, tuple[str, ...]] = {
    "onnxruntime": (*ORT_INT, *ORT_BOOL, *ORT_GPU_CHOICES, *ORT_OTHER),
    "tensorrt": (TRT_ALLOCATION, *TRT_MULTI_DEVICE, "CUDA_CONTEXT_PTR"),
    "pytorch": (*PYTORCH_BOOL, *PYTORCH_INT),
    "openvino": ("CPU_EXTENSION_PATH", "TARGET_DEVICE", *OPENVINO_BOOL, *OPENVINO_DEVICE),
    "python": (PYTHON_ENV, PYTHON_FORCE_CPU),
}

# ONNX Runtime execution accelerators (an NGC build: ORT with TensorRT and OpenVINO).
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

# Backend-specific settings and the backends that read them (G37).
SERVED_BACKENDS = ("tensorrt", *KNOWN_NON_TENSORRT)
"""Backends whose use of these settings is known; custom backends may read anything."""
FIELD_USERS: dict[FieldPath, tuple[str, ...]] = {
    ("optimization", "cuda"): ("tensorrt",),
    ("optimization", "gather_kernel_buffer_threshold"): ("tensorrt",),
    ("optimization", "eager_batching"): ("tensorrt",),
    ("optimization", "priority"): ("tensorrt",),
    ("optimization", "graph"): ("onnxruntime", "tensorflow"),
    ("optimization", "execution_accelerators"): ("onnxruntime", "tensorflow"),
    ("model_operations",): ("onnxruntime", "tensorflow"),
}


def _params(config: ModelConfig) -> Iterator[tuple[str, str, FieldPath]]:
    """(key, string value, path of the value) for each `parameters` entry."""
    for key, value in config.parameters.items():
        yield key, value.string_value, ("parameters", Key(key), "value", "string_value")


def _int_problem(text: str) -> str | None:
    """Why `std::stoi` (ParseIntValue) rejects `text`, or None when it reads a number."""
    value = leading_int(text)
    if value is None:
        return f"'{text}' is not a number (\"failed to convert '{text}' to integral number\")"
    if not INT32_MIN <= value <= INT32_MAX:
        return f"'{text}' does not fit a 32-bit integer (std::stoi throws)"
    return None


INT_HINT = 'write a whole number, e.g. "4"'
BOOL_HINT = 'write "true" or "false"'


def _bool_problem(text: str) -> str | None:
    if parse_bool(text) is None:
        return (
            f"'{text}' is not a boolean: the backend accepts true/false, on/off or 1/0 "
            f"(\"failed to convert '{text}' to boolean\")"
        )
    return None


def _gpu_instances(context: ModelContext) -> Severity | None:
    """ERROR when an instance runs on a GPU, WARNING when that depends on the host."""
    kinds = {group.kind for group in resolve_groups(context)}
    if GPU in kinds:
        return ERROR
    return WARNING if None in kinds else None


def _warmup_inputs(context: ModelContext) -> Sequence[ModelInput] | None:
    """The inputs warmup requests are checked against; None without warmup or while a
    backend's auto-complete may still add inputs."""
    effective = context.effective
    if effective is None or not effective.model_warmup:
        return None
    config = context.completed.config or effective
    if not config.input and not context.strict:
        return None
    return list(config.input)


# --------------------------------------------------------------------------- cache and metrics


@rule(
    "PL701",
    "decoupled-response-cache",
    ERROR,
    "The response cache enabled on a decoupled model.",
    triton="Response Cache does not currently support model <model> with 'decoupled' "
    "transaction policy. Please disable the response cache.",
    stage=Stage.POLL,
)
def decoupled_response_cache(context: ModelContext) -> Iterator[Finding]:
    """A decoupled model may send any number of responses per request, which the
    response cache cannot store; Triton refuses the combination.

    Bad:
        model_transaction_policy { decoupled: true }
        response_cache { enable: true }
    Good:
        model_transaction_policy { decoupled: true }
    """
    config = context.effective
    if config is None:
        return
    if config.model_transaction_policy.decoupled and config.response_cache.enable:
        yield Finding(
            f"model '{context.model.name}' is decoupled and enables the response cache; "
            "Triton's response cache does not support decoupled models and refuses the model",
            at=("response_cache", "enable"),
            hint="delete response_cache (or make the model non-decoupled)",
        )


@rule(
    "PL702",
    "metric-control-incomplete",
    ERROR,
    "A `model_metrics.metric_control` without its identifier, family, histogram options or "
    "buckets.",
    triton="metric control must specify 'metric_identifier' / metric identifier must specify "
    "non-empty 'family' / metric control must specify 'histogram_options' / histogram options "
    "must specify non-empty 'buckets'",
    stage=Stage.POLL,
)
def metric_control_incomplete(context: ModelContext) -> Iterator[Finding]:
    """Each metric control names a metric family and the histogram buckets to use for
    it; Triton refuses a control that lacks any of them. (Triton releases before
    `model_metrics` existed, such as 2.51, reject the field itself.)

    Bad:
        model_metrics { metric_control [ {
          metric_identifier { family: "nv_inference_first_response_histogram_ms" } } ] }
    Good:
        model_metrics { metric_control [ {
          metric_identifier { family: "nv_inference_first_response_histogram_ms" }
          histogram_options { buckets: [ 10, 100, 1000 ] } } ] }
    """
    config = context.effective
    if config is None:
        return
    for index, control in enumerate(config.model_metrics.metric_control):
        at: FieldPath = ("model_metrics", "metric_control", index)
        where = f"metric_control {index} of model '{context.model.name}'"
        if not control.HasField("metric_identifier"):
            yield Finding(
                f"{where} has no metric_identifier; Triton refuses it",
                at=at,
                hint=f'add metric_identifier {{ family: "{CUSTOMIZABLE_METRIC_FAMILY}" }}',
            )
        elif not control.metric_identifier.family:
            yield Finding(
                f"{where} has an empty metric_identifier.family; Triton refuses it",
                at=(*at, "metric_identifier"),
                hint=f'set family: "{CUSTOMIZABLE_METRIC_FAMILY}"',
            )
        if not control.HasField("histogram_options"):
            yield Finding(
                f"{where} has no histogram_options; Triton refuses it",
                at=at,
                hint="add histogram_options { buckets: [ ... ] } with the bucket bounds",
            )
        elif not control.histogram_options.buckets:
            yield Finding(
                f"{where} has histogram_options without buckets; Triton refuses it",
                at=(*at, "histogram_options"),
                hint="list the bucket upper bounds: buckets: [ 10, 100, 1000 ]",
            )


@rule(
    "PL703",
    "metric-family-not-customizable",
    WARNING,
    "A `model_metrics` family other than the one Triton lets a model customize.",
)
def metric_family_not_customizable(context: ModelContext) -> Iterator[Finding]:
    """Only `nv_inference_first_response_histogram_ms` can be customized per model;
    Triton logs `Metric family '<family>' in 'metric_identifier' is not a customizable
    metric in Triton core.` and ignores the control.

    Bad:
        metric_identifier { family: "nv_inference_request_duration_us" }
    Good:
        metric_identifier { family: "nv_inference_first_response_histogram_ms" }
    """
    config = context.effective
    if config is None:
        return
    for index, control in enumerate(config.model_metrics.metric_control):
        family = control.metric_identifier.family
        if family and family != CUSTOMIZABLE_METRIC_FAMILY:
            guess = suggest(family, (CUSTOMIZABLE_METRIC_FAMILY,), cutoff=0.8)
            yield Finding(
                f"metric family '{family}' of model '{context.model.name}' cannot be "
                f"customized; Triton ignores this metric_control (only "
                f"'{CUSTOMIZABLE_METRIC_FAMILY}' can)",
                at=("model_metrics", "metric_control", index, "metric_identifier", "family"),
                hint=f'did you mean family: "{guess}"?' if guess else "delete this metric_control",
            )


@rule(
    "PL704",
    "metric-tag-invalid",
    ERROR,
    "A `metric_tags` key that is not a valid Prometheus label name, which aborts tritonserver.",
    triton="terminate called after throwing an instance of 'std::invalid_argument' what(): "
    "Invalid label name",
    stage=Stage.LOAD,
)
def metric_tag_invalid(context: ModelContext) -> Iterator[Finding]:
    """Triton adds each tag to the model's metrics as the label `_<key>`. Prometheus
    label names are letters, digits and `_`, and must not start with `__`; otherwise the
    metrics library throws while the model loads and tritonserver aborts (with or
    without the metrics endpoint).

    Bad:
        metric_tags { key: "team-name" value: "search" }
    Good:
        metric_tags { key: "team_name" value: "search" }
    """
    config = context.effective
    if config is None:
        return
    for key in config.metric_tags:
        label = f"_{key}"
        if _LABEL_NAME.fullmatch(label) and not label.startswith("__"):
            continue
        fixed = re.sub(r"[^a-zA-Z0-9_]", "_", key).lstrip("_") or "tag"
        yield Finding(
            f"metric tag '{key}' of model '{context.model.name}' becomes the Prometheus label "
            f"'{label}', which is not a valid label name; tritonserver aborts while loading "
            "the model",
            at=("metric_tags", Key(key)),
            hint=f"use letters, digits and '_' only, not starting with '_': key: \"{fixed}\"",
        )


@rule(
    "PL705",
    "response-cache-server-flag",
    INFO,
    "The response cache is enabled; it works only if tritonserver is started with a cache.",
)
def response_cache_server_flag(context: ModelContext) -> Iterator[Finding]:
    """`response_cache { enable: true }` opts the model in, but nothing is cached unless
    the server has a cache (`--cache-config local,size=<bytes>` or a Redis cache).

    Bad:
        response_cache { enable: true }    (tritonserver without --cache-config)
    Good:
        tritonserver --cache-config local,size=1048576 ...
    """
    config = context.effective
    if config is None or not config.response_cache.enable:
        return
    if config.model_transaction_policy.decoupled or config.HasField("sequence_batching"):
        return  # refused outright: PL701 and the sequence-batching rule say so
    yield Finding(
        f"model '{context.model.name}' enables the response cache, which caches nothing "
        "unless tritonserver runs with --cache-config",
        at=("response_cache", "enable"),
        hint="start tritonserver with --cache-config local,size=<bytes>",
    )


@rule(
    "PL706",
    "decoupled-single-response",
    INFO,
    "A decoupled model on a backend that always sends one response per request.",
)
def decoupled_single_response(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime, TensorRT, PyTorch, OpenVINO, TensorFlow and FIL answer every
    request with exactly one response. Triton accepts `decoupled: true` for them, but it
    only restricts clients to streaming gRPC (HTTP /infer refuses decoupled models).

    Bad:
        backend: "onnxruntime"
        model_transaction_policy { decoupled: true }
    Good:
        backend: "onnxruntime"
    """
    config = context.effective
    if config is None or not config.model_transaction_policy.decoupled:
        return
    if config.backend in SINGLE_RESPONSE_BACKENDS:
        yield Finding(
            f"model '{context.model.name}' is decoupled, but the {config.backend} backend sends "
            "exactly one response per request; decoupled only forces clients onto streaming "
            "gRPC",
            at=("model_transaction_policy", "decoupled"),
            hint="delete model_transaction_policy unless a client needs the streaming API",
        )


# --------------------------------------------------------------------------- warmup


def _samples(context: ModelContext) -> Iterator[tuple[int, ModelWarmup]]:
    """The warmup samples Triton runs (not on ensembles; batch_size 0 is skipped)."""
    config = context.effective
    if config is None or is_ensemble(config):
        return
    for index, sample in enumerate(config.model_warmup):
        if sample.batch_size > 0:
            yield index, sample


def _sample_at(index: int, name: str, *rest: str | int) -> FieldPath:
    return ("model_warmup", index, "inputs", Key(name), "value", *rest)


def _data_file(context: ModelContext, name: str) -> Path:
    return context.model.path / WARMUP_FOLDER / name


def _is_file(context: ModelContext, path: Path) -> bool:
    """A regular file inside the repository (never looks outside it)."""
    return is_inside(context.repository.root, path) and path.is_file()


def _version_holding(context: ModelContext, relative: str) -> str | None:
    """The loaded version folder that holds `relative` (for a "wrong folder" hint)."""
    for version in context.selection.versions:
        if _is_file(context, context.model.path / str(version) / relative):
            return str(version)
    return None


@rule(
    "PL707",
    "warmup-variable-dims",
    ERROR,
    "A warmup input with -1 in `dims`.",
    triton="warmup setting expects all variable-size dimensions are specified for input '<input>'",
    stage=Stage.LOAD,
)
def warmup_variable_dims(context: ModelContext) -> Iterator[Finding]:
    """A warmup sample is a real request, so every dimension needs a size, even where
    the model input has -1.

    Bad:
        model_warmup [ { name: "w" batch_size: 1 inputs { key: "x"
          value: { data_type: TYPE_FP32 dims: [ -1 ] zero_data: true } } } ]
    Good:
        model_warmup [ { name: "w" batch_size: 1 inputs { key: "x"
          value: { data_type: TYPE_FP32 dims: [ 16 ] zero_data: true } } } ]
    """
    for index, sample in _samples(context):
        for name, value in sample.inputs.items():
            if -1 in value.dims:
                yield Finding(
                    f"warmup sample '{sample.name}' of model '{context.model.name}' gives input "
                    f"'{name}' dims {list(value.dims)}; warmup data needs a size for every "
                    "dimension",
                    at=_sample_at(index, name, "dims", list(value.dims).index(-1)),
                    hint="replace -1 by a concrete size the model accepts",
                )


@rule(
    "PL708",
    "warmup-missing-data",
    ERROR,
    "A warmup input without zero_data, random_data or input_data_file.",
    triton="[request id: <id_unknown>] warmup setting expects input '<input>' to have "
    "input_data_type set",
    stage=Stage.LOAD,
)
def warmup_missing_data(context: ModelContext) -> Iterator[Finding]:
    """Each warmup input says where its data comes from: `zero_data: true`,
    `random_data: true` or `input_data_file` (a file in `<model>/warmup/`).

    Bad:
        inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] } }
    Good:
        inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } }
    """
    for index, sample in _samples(context):
        for name, value in sample.inputs.items():
            if value.WhichOneof("input_data_type") is None:
                yield Finding(
                    f"warmup sample '{sample.name}' of model '{context.model.name}' gives input "
                    f"'{name}' no data: none of zero_data, random_data or input_data_file is set",
                    at=("model_warmup", index, "inputs", Key(name)),
                    hint="add zero_data: true (or random_data: true, or input_data_file)",
                )


@rule(
    "PL709",
    "warmup-data-file-missing",
    ERROR,
    "A warmup `input_data_file` that is not in the model's `warmup/` folder.",
    triton="failed to open text file for read <model>/warmup/<file>: No such file or directory",
    stage=Stage.LOAD,
)
def warmup_data_file_missing(context: ModelContext) -> Iterator[Finding]:
    """Triton reads `input_data_file` from `<model>/warmup/` (not from the version
    folder) and fails the model when the file is not there.

    Bad:
        resnet/1/input.bin
        input_data_file: "input.bin"
    Good:
        resnet/warmup/input.bin
        input_data_file: "input.bin"
    """
    for index, sample in _samples(context):
        for name, value in sample.inputs.items():
            if value.WhichOneof("input_data_type") != "input_data_file":
                continue
            filename = value.input_data_file
            path = _data_file(context, filename)
            if not is_inside(context.repository.root, path) or path.is_file():
                continue  # present, or outside the repository where we do not look
            version = _version_holding(context, filename)
            elsewhere = (
                f"{version}/"
                if version
                else (
                    "the model folder" if _is_file(context, context.model.path / filename) else None
                )
            )
            found = (
                f"; it is in {elsewhere}, but Triton reads warmup data only from the warmup/ folder"
                if elsewhere
                else ""
            )
            yield Finding(
                f"warmup sample '{sample.name}' of model '{context.model.name}' reads input "
                f"'{name}' from {context.model.name}/{WARMUP_FOLDER}/{filename}, which does not "
                f"exist{found}",
                at=_sample_at(index, name, "input_data_file"),
                hint=f"put the file at {context.model.name}/{WARMUP_FOLDER}/{filename}",
            )


@rule(
    "PL710",
    "warmup-data-file-too-small",
    ERROR,
    "A warmup `input_data_file` with fewer bytes than the input it feeds.",
    triton="[request id: <id_unknown>] warmup setting expects <N> bytes, but the data provided "
    "from <file>only has <M> bytes",
    stage=Stage.LOAD,
)
def warmup_data_file_too_small(context: ModelContext) -> Iterator[Finding]:
    """The file must hold at least dims-product x element-size bytes of raw data (it is
    read as is, with no header); a shorter file fails the model. Strings are exempt.

    Bad:
        inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] input_data_file: "x.bin" } }
        (x.bin holds 8 bytes; 4 x FP32 needs 16)
    Good:
        x.bin holds 16 bytes (numpy: np.zeros(4, np.float32).tofile("x.bin"))
    """
    for index, sample in _samples(context):
        for name, value in sample.inputs.items():
            if (
                value.WhichOneof("input_data_type") != "input_data_file"
                or value.data_type == DataType.TYPE_STRING
                or -1 in value.dims
            ):
                continue
            path = _data_file(context, value.input_data_file)
            if not _is_file(context, path):
                continue
            size = byte_size(type_name(value.data_type)) or 4  # Triton's fallback
            needed = math.prod(value.dims) * size if value.dims else 0
            actual = path.stat().st_size
            if actual < needed:
                yield Finding(
                    f"warmup sample '{sample.name}' of model '{context.model.name}' needs "
                    f"{needed} bytes for input '{name}' ({type_name(value.data_type)} "
                    f"{list(value.dims)}) but {WARMUP_FOLDER}/{value.input_data_file} has "
                    f"{actual}",
                    at=_sample_at(index, name, "input_data_file"),
                    hint="write the raw tensor bytes without a header (np.ndarray.tofile), or "
                    "fix dims/data_type",
                )


@rule(
    "PL711",
    "warmup-batch-size-zero",
    INFO,
    "A warmup sample with batch_size 0, which Triton skips.",
)
def warmup_batch_size_zero(context: ModelContext) -> Iterator[Finding]:
    """Triton skips a sample with `batch_size: 0` (the default when it is left out)
    without a word, so the model is not warmed up by it.

    Bad:
        model_warmup [ { name: "w" inputs { ... } } ]
    Good:
        model_warmup [ { name: "w" batch_size: 1 inputs { ... } } ]
    """
    config = context.effective
    if config is None or is_ensemble(config):
        return
    for index, sample in enumerate(config.model_warmup):
        if sample.batch_size == 0:
            yield Finding(
                f"warmup sample '{sample.name}' of model '{context.model.name}' has batch_size 0 "
                "(the default), so Triton skips it",
                at=("model_warmup", index, "batch_size"),
                hint="set batch_size: 1 (the number of requests the sample sends)",
            )


def _shape_problem(value_dims: list[int], model_input: ModelInput) -> str | None:
    """Why Triton's request check refuses these warmup dims for this input, if it does."""
    expected = list(model_input.dims)
    if len(value_dims) == len(expected) and all(
        want in (-1, got) for want, got in zip(expected, value_dims, strict=True)
    ):
        return None
    return f"dims {value_dims} do not match the input's dims {expected}"


@rule(
    "PL712",
    "warmup-request-invalid",
    ERROR,
    "A warmup sample that Triton's request checks refuse: a missing input, or a data type, "
    "shape or batch size the model does not accept.",
    triton="[request id: <id_unknown>] expected <n> inputs but got <k> inputs for model '<m>' "
    "... / inference input '<i>' data-type is '<T>', but model '<m>' expects '<C>' / unexpected "
    "shape for input '<i>' for model '<m>' ... / failed to run warmup sample '<w>': batch size "
    "<n> for '<instance>', max allowed is <mbs>",
    stage=Stage.LOAD,
)
def warmup_request_invalid(context: ModelContext) -> Iterator[Finding]:
    """Each warmup sample goes through the same checks as a client request: every
    required model input must be given, with the input's data type and dims (without the
    batch dimension; Triton adds batch 1). `batch_size` requests run together, so on
    backends that check the batch (python, pytorch, openvino) it may not exceed
    max_batch_size (1 without batching). Any failure fails the model load.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
        model_warmup [ { name: "w" batch_size: 1 inputs { key: "x"
          value: { data_type: TYPE_FP32 dims: [ 1, 4 ] zero_data: true } } } ]
    Good:
        model_warmup [ { name: "w" batch_size: 1 inputs { key: "x"
          value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    """
    config = context.effective
    inputs = _warmup_inputs(context)
    if config is None or inputs is None:
        return
    by_name = {i.name: i for i in inputs}
    for index, sample in _samples(context):
        where = f"warmup sample '{sample.name}' of model '{context.model.name}'"
        missing = [i.name for i in inputs if not i.optional and i.name not in sample.inputs]
        if missing:
            yield Finding(
                f"{where} does not give input(s) {', '.join(repr(m) for m in missing)}; Triton "
                "runs the sample as a request and refuses it for the missing input",
                at=("model_warmup", index),
                hint=f'add inputs {{ key: "{missing[0]}" value: {{ ... }} }} to the sample',
            )
        for name, value in sample.inputs.items():
            model_input = by_name.get(name)
            if model_input is None:
                continue
            if value.data_type != model_input.data_type:
                expected = type_name(model_input.data_type)
                yield Finding(
                    f"{where} gives input '{name}' data_type {type_name(value.data_type)}, "
                    f"but the model input is {expected}",
                    at=_sample_at(index, name, "data_type"),
                    hint=f"write data_type: {expected}",
                )
            skip = model_input.is_shape_tensor or model_input.allow_ragged_batch
            problem = (
                None if skip or -1 in value.dims else _shape_problem(list(value.dims), model_input)
            )
            if problem:
                batched = config.max_batch_size > 0
                yield Finding(
                    f"{where}: input '{name}' {problem}"
                    + ("; leave the batch dimension out, Triton adds batch 1" if batched else ""),
                    at=_sample_at(index, name, "dims"),
                    hint=f"write dims: {list(model_input.dims)}"
                    + (" with each -1 replaced by a size" if -1 in model_input.dims else ""),
                )
        limit = max(config.max_batch_size, 1)
        if config.backend in BATCH_CHECKING_BACKENDS and sample.batch_size > limit:
            yield Finding(
                f"{where} has batch_size {sample.batch_size}: its requests run as one batch and "
                f"the {config.backend} backend refuses a batch larger than {limit}",
                at=("model_warmup", index, "batch_size"),
                hint=f"set batch_size to at most {limit}",
            )


@rule(
    "PL713",
    "warmup-unknown-input",
    WARNING,
    "A warmup input that is not a model input (nor a sequence control or state).",
)
def warmup_unknown_input(context: ModelContext) -> Iterator[Finding]:
    """Triton sends a warmup input that the model does not declare as an "override"
    input instead of refusing it; usually the key is misspelt and the real input is
    then missing from the sample.

    Bad:
        input [ { name: "image" ... } ]
        model_warmup [ { ... inputs { key: "images" value: { ... } } } ]
    Good:
        model_warmup [ { ... inputs { key: "image" value: { ... } } } ]
    """
    config = context.effective
    inputs = _warmup_inputs(context)
    if config is None or inputs is None:
        return
    sequence = config.sequence_batching
    known = {i.name for i in inputs}
    extra = {c.name for c in sequence.control_input} | {s.input_name for s in sequence.state}
    for index, sample in _samples(context):
        for name in sample.inputs:
            if name in known or name in extra:
                continue
            guess = suggest(name, known)
            yield Finding(
                f"warmup sample '{sample.name}' of model '{context.model.name}' gives input "
                f"'{name}', which is not an input of the model; Triton passes it on as an extra "
                "tensor",
                at=("model_warmup", index, "inputs", Key(name)),
                hint=f"did you mean '{guess}'?"
                if guess
                else f"use one of the model inputs: {', '.join(sorted(known)) or '(none)'}",
            )


# --------------------------------------------------------------------------- labels


def _labels(context: ModelContext) -> Iterator[tuple[int, str, str | None]]:
    """(output index, label_filename, path relative to the model folder or None if outside).

    Triton joins the name to the model folder (a leading `/` does not make it absolute).
    """
    config = context.effective
    if config is None:
        return
    for index, output in enumerate(config.output):
        label = output.label_filename
        if not label:
            continue
        relative = posixpath.normpath(label.lstrip("/"))
        outside = relative == ".." or relative.startswith("../")
        yield index, label, None if outside else relative


@rule(
    "PL714",
    "label-file-outside-model",
    ERROR,
    "A `label_filename` that points outside the model folder.",
    triton="label file path '<path>' for output '<output>' in model '<model>' is outside model "
    "directory",
    stage=Stage.LOAD,
)
def label_file_outside_model(context: ModelContext) -> Iterator[Finding]:
    """Label files are resolved against the model folder and must stay inside it;
    current Triton refuses `../labels.txt` (older releases read it, but the file is then
    not part of the model when it is copied or served from cloud storage).

    Bad:
        label_filename: "../labels.txt"
    Good:
        label_filename: "labels.txt"     (resnet/labels.txt)
    """
    config = context.effective
    for index, label, relative in _labels(context):
        if relative is None and config is not None:
            yield Finding(
                f"label_filename '{label}' of output '{config.output[index].name}' of model "
                f"'{context.model.name}' points outside the model folder; Triton refuses it",
                at=("output", index, "label_filename"),
                hint=f"copy the file into {context.model.name}/ and write its name only",
            )


@rule(
    "PL715",
    "label-file-missing",
    ERROR,
    "A `label_filename` that does not exist in the model folder.",
    triton="failed to open text file for read <model>/<label_filename>: No such file or directory",
    stage=Stage.LOAD,
)
def label_file_missing(context: ModelContext) -> Iterator[Finding]:
    """Triton reads label files from the model folder (`<model>/labels.txt`), not from
    the version folder, and fails the model when the file is missing.

    Bad:
        resnet/1/labels.txt
        label_filename: "labels.txt"
    Good:
        resnet/labels.txt
        label_filename: "labels.txt"
    """
    config = context.effective
    for index, label, relative in _labels(context):
        if relative is None or config is None:
            continue
        path = context.model.path / relative
        if not is_inside(context.repository.root, path) or path.is_file():
            continue
        version = _version_holding(context, relative)
        found = (
            f"; it is in the version folder {version}/, but Triton reads labels from the "
            "model folder"
            if version
            else ""
        )
        yield Finding(
            f"label_filename '{label}' of output '{config.output[index].name}' of model "
            f"'{context.model.name}' does not exist at {context.model.name}/{relative}{found}",
            at=("output", index, "label_filename"),
            hint=f"put the labels (one per line) at {context.model.name}/{relative}",
        )


@rule(
    "PL716",
    "label-file-duplicate-output",
    ERROR,
    "Two outputs with the same name that both set `label_filename`.",
    triton="multiple label files for '<output>'",
    stage=Stage.LOAD,
)
def label_file_duplicate_output(context: ModelContext) -> Iterator[Finding]:
    """Labels are kept per output name; a second output of the same name with labels
    fails the model.

    Bad:
        output [ { name: "prob" label_filename: "a.txt" ... },
                 { name: "prob" label_filename: "b.txt" ... } ]
    Good:
        output [ { name: "prob" label_filename: "a.txt" ... } ]
    """
    config = context.effective
    if config is None:
        return
    seen: set[str] = set()
    for index, output in enumerate(config.output):
        if not output.label_filename:
            continue
        if output.name in seen:
            yield Finding(
                f"output '{output.name}' of model '{context.model.name}' is declared again with "
                "a label_filename; Triton allows one label file per output name",
                at=("output", index, "label_filename"),
                hint="delete the duplicate output",
            )
        seen.add(output.name)


@rule(
    "PL717",
    "label-file-not-classification",
    INFO,
    "A `label_filename` on an output that does not look like class scores.",
)
def label_file_not_classification(context: ModelContext) -> Iterator[Finding]:
    """Labels are used only by the classification extension (a request asking for the
    top-k classes), which reads the output as one score per class. On a detection or
    multi-dimensional output they are never meaningful.

    Bad:
        output [ { name: "boxes" data_type: TYPE_FP32 dims: [ 25200, 85 ]
                   label_filename: "labels.txt" } ]
    Good:
        output [ { name: "probs" data_type: TYPE_FP32 dims: [ 1000 ]
                   label_filename: "labels.txt" } ]
    """
    config = context.effective
    if config is None:
        return
    for index, output in enumerate(config.output):
        if not output.label_filename:
            continue
        dims = list(output.reshape.shape) if output.HasField("reshape") else list(output.dims)
        wide = [d for d in dims if d != 1]
        if len(wide) <= 1 and output.data_type != DataType.TYPE_STRING:
            continue
        yield Finding(
            f"output '{output.name}' of model '{context.model.name}' has label_filename but "
            f"{type_name(output.data_type)} dims {dims} are not one score per class; Triton "
            "uses labels only for classification requests",
            at=("output", index, "label_filename"),
            hint="keep labels on the class-score output, or map class ids to names client-side",
        )


# --------------------------------------------------------------------------- repository agents


@rule(
    "PL718",
    "repository-agent-not-shipped",
    WARNING,
    "A repository agent whose library does not ship with Triton.",
)
def repository_agent_not_shipped(context: ModelContext) -> Iterator[Finding]:
    """Triton loads `libtritonrepoagent_<name>.so` from its repoagents folder when it
    polls the model; NGC images ship only `checksum`. Any other agent must be installed,
    or the model fails: `unable to find 'libtritonrepoagent_<name>.so' for repo agent`.

    Bad:
        model_repository_agents { agents [ { name: "checksums" } ] }
    Good:
        model_repository_agents { agents [ { name: "checksum" parameters { ... } } ] }
    """
    config = context.effective
    if config is None:
        return
    for index, agent in enumerate(config.model_repository_agents.agents):
        if not agent.name or agent.name in SHIPPED_REPO_AGENTS:
            continue
        guess = suggest(agent.name, SHIPPED_REPO_AGENTS, cutoff=0.7)
        yield Finding(
            f"repository agent '{agent.name}' of model '{context.model.name}' does not ship with "
            f"Triton; unless libtritonrepoagent_{agent.name}.so is installed in the repoagents "
            "folder, the model fails to load",
            at=("model_repository_agents", "agents", index, "name"),
            hint=f'did you mean name: "{guess}"?'
            if guess
            else f"install libtritonrepoagent_{agent.name}.so (--repoagent-directory)",
        )


@rule(
    "PL719",
    "repository-agent-empty",
    ERROR,
    "An empty `model_repository_agents` block (tritonserver crashes) or an agent without a name.",
    triton="Segmentation fault (tritonserver 2.51, empty block) / unable to find "
    "'libtritonrepoagent_.so' for repo agent '', searched: <paths>",
    stage=Stage.POLL,
)
def repository_agent_empty(context: ModelContext) -> Iterator[Finding]:
    """An empty `model_repository_agents { }` makes tritonserver crash (segmentation
    fault) while it polls the repository, taking every other model down with it; an
    agent without a name can never be found.

    Bad:
        model_repository_agents { }
    Good:
        (no model_repository_agents block)
    """
    config = context.effective
    if config is None or not config.HasField("model_repository_agents"):
        return
    agents = config.model_repository_agents.agents
    if not agents:
        yield Finding(
            f"model '{context.model.name}' has an empty model_repository_agents block, which "
            "crashes tritonserver while it polls the repository",
            at=("model_repository_agents",),
            hint='delete the block, or list an agent: agents [ { name: "checksum" ... } ]',
        )
    for index, agent in enumerate(agents):
        if not agent.name:
            yield Finding(
                f"repository agent {index} of model '{context.model.name}' has no name; Triton "
                "looks for libtritonrepoagent_.so and refuses the model",
                at=("model_repository_agents", "agents", index),
                hint='name the agent, e.g. name: "checksum"',
            )


# --------------------------------------------------------------------------- optimization


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
    WARNING,
    "An optimization setting the model's backend does not implement (it is silently ignored).",
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
    if backend not in SERVED_BACKENDS:
        return
    for at, users in FIELD_USERS.items():
        if backend in users or not _is_set(config, at):
            continue
        readers = " and ".join(users)
        yield Finding(
            f"model '{context.model.name}' sets {'.'.join(str(p) for p in at)}, which the "
            f"{backend} backend ignores (only read by {readers})",
            at=at,
            hint=f"delete {at[-1]}",
        )
    gpu_accelerators = config.optimization.execution_accelerators.gpu_execution_accelerator
    if backend == "onnxruntime" and gpu_accelerators and _gpu_instances(context) is None:
        yield Finding(
            f"model '{context.model.name}' sets gpu_execution_accelerator, but all its instances "
            "run on the CPU, where ONNX Runtime ignores GPU accelerators",
            at=("optimization", "execution_accelerators", "gpu_execution_accelerator", 0),
            hint="use kind: KIND_GPU instances, or delete gpu_execution_accelerator",
        )


# --------------------------------------------------------------------------- parameters


@rule(
    "PL721",
    "unknown-backend-parameter",
    WARNING,
    "A `parameters` key the model's backend does not read (often a typo or wrong case).",
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
    if config is None or config.backend not in KNOWN_PARAMETERS:
        return
    known = (*KNOWN_PARAMETERS[config.backend], *CORE_PARAMETERS)
    python = config.backend == "python"
    listing = ", ".join(KNOWN_PARAMETERS[config.backend])
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


@rule(
    "PL722",
    "openvino-boolean-parameter",
    WARNING,
    "An OpenVINO on/off parameter given `true` or `1`, which the backend reads as off.",
)
def openvino_boolean_parameter(context: ModelContext) -> Iterator[Finding]:
    """The OpenVINO backend turns SKIP_OV_DYNAMIC_BATCHSIZE, ENABLE_BATCH_PADDING and
    RESHAPE_IO_LAYERS on only for the string `yes` (any case); `true`, `1` or `on` mean
    off.

    Bad:
        parameters { key: "RESHAPE_IO_LAYERS" value: { string_value: "true" } }
    Good:
        parameters { key: "RESHAPE_IO_LAYERS" value: { string_value: "yes" } }
    """
    config = context.effective
    if config is None or config.backend != "openvino":
        return
    for key, value, at in _params(config):
        if key in OPENVINO_BOOL and value.lower() != "yes" and parse_bool(value) is True:
            yield Finding(
                f"parameter {key} of OpenVINO model '{context.model.name}' is '{value}', which "
                "the OpenVINO backend reads as off (only 'yes' turns it on)",
                at=at,
                hint='write string_value: "yes"',
            )


def _problems(
    config: ModelConfig, checks: Mapping[str, Callable[[str], str | None]]
) -> Iterator[tuple[str, FieldPath, str, str]]:
    """(key, path, why, hint) for parameters that fail their backend's parser."""
    for key, value, at in _params(config):
        check = checks.get(key)
        why = check(value) if check else None
        if why:
            yield key, at, why, BOOL_HINT if check is _bool_problem else INT_HINT


@rule(
    "PL723",
    "onnxruntime-parameter-invalid",
    ERROR,
    "An ONNX Runtime parameter value the backend cannot parse or does not accept.",
    triton="Invalid configuration value provided. Expected values for  execution_mode are 0 or "
    "1 but got <n> . / failed to convert '<v>' to integral number / failed to convert '<v>' to "
    "boolean / unsupported cudnn_conv_algo_search value '<n>' is requested / unsupported "
    "arena_extend_strategy value '<n>' is requested",
    stage=Stage.LOAD,
)
def onnxruntime_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime parses its parameters when the model loads: `execution_mode` is 0
    (sequential) or 1 (parallel), thread counts are integers, `enable_mem_arena`,
    `enable_mem_pattern` and `share_session_between_instances` are booleans, and on GPU
    instances `cudnn_conv_algo_search` is 0-2 and `arena_extend_strategy` 0-1.

    Bad:
        parameters { key: "execution_mode" value: { string_value: "parallel" } }
    Good:
        parameters { key: "execution_mode" value: { string_value: "1" } }
    """
    config = context.effective
    if config is None or config.backend != "onnxruntime":
        return
    where = f"of ONNX Runtime model '{context.model.name}'"
    checks = {**dict.fromkeys(ORT_INT, _int_problem), **dict.fromkeys(ORT_BOOL, _bool_problem)}
    for key, at, why, hint in _problems(config, checks):
        yield Finding(f"parameter {key} {where}: {why}", at=at, hint=hint)
    mode = parameter(config, "execution_mode")
    if mode is not None and not _int_problem(mode) and leading_int(mode) not in (0, 1):
        yield Finding(
            f"parameter execution_mode {where} is {mode}; ONNX Runtime accepts 0 (sequential) "
            "or 1 (parallel)",
            at=("parameters", Key("execution_mode"), "value", "string_value"),
            hint='write string_value: "0" or "1"',
        )
    gpu = _gpu_instances(context)
    if gpu is None:
        return
    for key, choices in ORT_GPU_CHOICES.items():
        value = parameter(config, key)
        if value is None:
            continue
        problem = _int_problem(value)
        if problem is None and leading_int(value) not in choices:
            problem = f"{value} is not one of {', '.join(map(str, choices))}"
        if problem:
            yield Finding(
                f"parameter {key} {where}: {problem} (read on GPU instances)",
                at=("parameters", Key(key), "value", "string_value"),
                hint=f"use one of {', '.join(map(str, choices))}",
                severity=WARNING if gpu is WARNING else None,
            )


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
            why = _bool_problem(value) if key in CUDA_EP_BOOL else None
        elif key not in TRT_EP_KEYS:
            guess = suggest(key, TRT_EP_KEYS)
            why = f"'{key}' is not a TensorRT accelerator parameter"
            hint = f"rename it to '{guess}'" if guess else "delete it"
        elif key == "precision_mode" and value not in TRT_EP_PRECISIONS:
            why = f"precision_mode '{value}' is not one of {', '.join(TRT_EP_PRECISIONS)}"
            upper = value.upper()
            hint = f'write value: "{upper}"' if upper in TRT_EP_PRECISIONS else 'write "FP16"'
        elif key in TRT_EP_BOOL:
            why = _bool_problem(value)
        elif key in TRT_EP_INT or key == "max_workspace_size_bytes":
            why, hint = _int_problem(value), INT_HINT
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
)
def execution_accelerator_invalid(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime knows the GPU accelerators `tensorrt` and `cuda` (used by GPU
    instances) and the CPU accelerator `openvino`; TensorRT accelerator parameters are a
    fixed list (`precision_mode` is FP32, FP16, BF16 or INT8, upper case). Anything else
    fails the model when an instance is created.

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
    gpu = _gpu_instances(context)
    if gpu is None:
        return  # CPU instances never read GPU accelerators (PL720)
    for index, accelerator in enumerate(accelerators.gpu_execution_accelerator):
        at: FieldPath = (*base, "gpu_execution_accelerator", index)
        for key, why, hint in _accelerator_problems(accelerator.name, accelerator.parameters):
            yield Finding(
                f"gpu_execution_accelerator {index} of ONNX Runtime model "
                f"'{context.model.name}': {why}",
                at=(*at, "name") if key is None else (*at, "parameters", Key(key)),
                hint=hint,
                severity=WARNING if gpu is WARNING else None,
            )


@rule(
    "PL725",
    "tensorrt-parameter-invalid",
    ERROR,
    "A TensorRT backend parameter value it refuses (allocation strategy, multi-device settings).",
    triton="Invalid value for 'execution_context_allocation_strategy': '<v>' for model instance "
    "'<m>'. Supported values are 'STATIC' and 'ON_PROFILE_CHANGE'. / Invalid "
    "'multi_device_gpus' entry '<item>' for model '<m>'; expected comma-separated GPU ids.",
    stage=Stage.LOAD,
)
def tensorrt_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """`execution_context_allocation_strategy` is STATIC or ON_PROFILE_CHANGE.
    `enable_multi_device: true` needs `multi_device_gpus`, a comma-separated list of at
    least two GPU ids the host has.

    Bad:
        parameters { key: "execution_context_allocation_strategy"
                     value: { string_value: "DYNAMIC" } }
    Good:
        parameters { key: "execution_context_allocation_strategy"
                     value: { string_value: "ON_PROFILE_CHANGE" } }
    """
    config = context.effective
    if config is None or config.backend != "tensorrt":
        return
    where = f"of TensorRT model '{context.model.name}'"
    checks = dict.fromkeys(("enable_multi_device", "multi_device_per_rank_engines"), _bool_problem)
    for key, at, why, hint in _problems(config, checks):
        yield Finding(f"parameter {key} {where}: {why}", at=at, hint=hint)
    strategy = parameter(config, TRT_ALLOCATION)
    if strategy is not None and strategy.upper() not in TRT_ALLOCATION_VALUES:
        yield Finding(
            f"parameter {TRT_ALLOCATION} {where} is '{strategy}'; the TensorRT backend accepts "
            "STATIC or ON_PROFILE_CHANGE",
            at=("parameters", Key(TRT_ALLOCATION), "value", "string_value"),
            hint='write string_value: "STATIC" (default) or "ON_PROFILE_CHANGE"',
        )
    multi = parameter(config, "enable_multi_device")
    if multi is None or parse_bool(multi) is not True:
        return
    gpus = parameter(config, "multi_device_gpus")
    if gpus is None:
        yield Finding(
            f"TensorRT model '{context.model.name}' enables multi-device but has no "
            'multi_device_gpus parameter ("model configuration is missing the parameter '
            'multi_device_gpus")',
            at=("parameters", Key("enable_multi_device")),
            hint='add parameters { key: "multi_device_gpus" value: { string_value: "0,1" } }',
        )
        return
    at = ("parameters", Key("multi_device_gpus"), "value", "string_value")
    items = gpus.split(",")
    bad = [item for item in items if not re.fullmatch(r"\s*\d+\s*", item)]
    host = context.settings.gpus
    if bad:
        why = f"entry '{bad[0]}' is not a GPU id"
    elif len(items) < 2:
        why = "lists fewer than 2 GPUs; multi-device needs at least 2"
    elif host is not None and max(int(i) for i in items) >= host:
        why = f"references GPU {max(int(i) for i in items)} but the target host has {host}"
    else:
        return
    yield Finding(
        f"parameter multi_device_gpus {where}: {why}",
        at=at,
        hint='list comma-separated GPU ids, e.g. "0,1"',
    )


@rule(
    "PL726",
    "pytorch-parameter-invalid",
    ERROR,
    "A PyTorch (TorchScript) on/off or thread-count parameter the backend cannot parse.",
    triton="failed to convert '<v>' to boolean / failed to convert '<v>' to integral number",
    stage=Stage.LOAD,
)
def pytorch_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """The PyTorch backend parses DISABLE_OPTIMIZED_EXECUTION, INFERENCE_MODE,
    DISABLE_CUDNN, ENABLE_* as booleans (true/false, on/off, 1/0) and
    INTRA_OP_THREAD_COUNT / INTER_OP_THREAD_COUNT as integers; other values fail the
    model.

    Bad:
        parameters { key: "INFERENCE_MODE" value: { string_value: "yes" } }
    Good:
        parameters { key: "INFERENCE_MODE" value: { string_value: "true" } }
    """
    config = context.effective
    if config is None or config.backend != "pytorch" or config.platform == "torch_aoti":
        return
    checks = {
        **dict.fromkeys(PYTORCH_BOOL, _bool_problem),
        **dict.fromkeys(PYTORCH_INT, _int_problem),
    }
    for key, at, why, hint in _problems(config, checks):
        yield Finding(
            f"parameter {key} of PyTorch model '{context.model.name}': {why}", at=at, hint=hint
        )


def _openvino_problem(key: str, value: str) -> tuple[str, str] | None:
    """(what is expected, an accepted value) when the OpenVINO backend refuses `value`."""
    lowered = value.lower()  # the backend lower-cases the value first
    if not lowered:
        return None  # empty values are skipped
    if key in ("INFERENCE_NUM_THREADS", "COMPILATION_NUM_THREADS"):
        accepted, expected, example = lowered.isdigit(), "a non-negative number", "4"
    elif key == "HINT_BF16":
        accepted, expected, example = lowered == "yes", "YES (leave the key out for no)", "YES"
    elif key == "NUM_STREAMS":
        accepted = lowered in ("auto", "numa") or lowered.isdigit()
        expected, example = "AUTO, NUMA or a non-negative number", "AUTO"
    else:
        accepted = lowered in ("latency", "throughput", "cumulative_throughput")
        expected, example = "LATENCY, THROUGHPUT or CUMULATIVE_THROUGHPUT", "THROUGHPUT"
    return None if accepted else (expected, example)


@rule(
    "PL727",
    "openvino-parameter-invalid",
    ERROR,
    "An OpenVINO device parameter value the backend refuses.",
    triton="expected the parameter '<KEY>' to be a non-negative number, got <v> / ... to be "
    "YES, got <v> / ... to be either AUTO/NUMA/<int_value>, got <v> / ... to be "
    "LATENCY/THROUGHPUT/CUMULATIVE_THROUGHPUT, got <v>",
    stage=Stage.LOAD,
)
def openvino_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """INFERENCE_NUM_THREADS and COMPILATION_NUM_THREADS are non-negative numbers,
    HINT_BF16 is YES, NUM_STREAMS is AUTO, NUMA or a number, PERFORMANCE_HINT is
    LATENCY, THROUGHPUT or CUMULATIVE_THROUGHPUT (any case); anything else fails the
    model.

    Bad:
        parameters { key: "NUM_STREAMS" value: { string_value: "-1" } }
    Good:
        parameters { key: "NUM_STREAMS" value: { string_value: "AUTO" } }
    """
    config = context.effective
    if config is None or config.backend != "openvino":
        return
    for key, value, at in _params(config):
        problem = _openvino_problem(key, value) if key in OPENVINO_DEVICE else None
        if problem:
            expected, example = problem
            yield Finding(
                f"parameter {key} of OpenVINO model '{context.model.name}' is '{value}'; the "
                f"OpenVINO backend expects {expected}",
                at=at,
                hint=f'write string_value: "{example}"',
            )


@rule(
    "PL728",
    "python-parameter-invalid",
    ERROR,
    "FORCE_CPU_ONLY_INPUT_TENSORS other than `yes` or `no`.",
    triton="Incorrect value for FORCE_CPU_ONLY_INPUT_TENSORS: <v>'",
    stage=Stage.LOAD,
)
def python_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """The Python backend accepts exactly `yes` or `no` (lower case) for
    FORCE_CPU_ONLY_INPUT_TENSORS; `true` or `YES` fail the model.

    Bad:
        parameters { key: "FORCE_CPU_ONLY_INPUT_TENSORS" value: { string_value: "true" } }
    Good:
        parameters { key: "FORCE_CPU_ONLY_INPUT_TENSORS" value: { string_value: "no" } }
    """
    config = context.effective
    if config is None or config.backend != "python":
        return
    value = parameter(config, PYTHON_FORCE_CPU)
    if value is not None and value not in ("yes", "no"):
        yield Finding(
            f"parameter {PYTHON_FORCE_CPU} of Python model '{context.model.name}' is '{value}'; "
            "the Python backend accepts only 'yes' or 'no'",
            at=("parameters", Key(PYTHON_FORCE_CPU), "value", "string_value"),
            hint='write string_value: "yes" or "no" (lower case)',
        )


@rule(
    "PL729",
    "python-execution-env-missing",
    ERROR,
    "EXECUTION_ENV_PATH names an environment archive that is not in the repository.",
    triton="Failed to get the canonical path for <path>.",
    stage=Stage.LOAD,
)
def python_execution_env_missing(context: ModelContext) -> Iterator[Finding]:
    """The Python backend unpacks the conda-pack archive (or uses the folder) named by
    EXECUTION_ENV_PATH and fails the model when it does not exist. Write it as
    `$$TRITON_MODEL_DIRECTORY/<file>` so it travels with the model: a relative path is
    resolved against tritonserver's working directory (a warning).

    Bad:
        parameters { key: "EXECUTION_ENV_PATH" value: { string_value: "env.tar.gz" } }
    Good:
        parameters { key: "EXECUTION_ENV_PATH"
                     value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }
    """
    config = context.effective
    if config is None or config.backend != "python":
        return
    value = parameter(config, PYTHON_ENV)
    if not value:
        return
    at: FieldPath = ("parameters", Key(PYTHON_ENV), "value", "string_value")
    where = f"{PYTHON_ENV} of Python model '{context.model.name}'"
    if value.startswith(MODEL_DIRECTORY_VARIABLE):
        rest = value.removeprefix(MODEL_DIRECTORY_VARIABLE).lstrip("/")
        path = Path(posixpath.normpath((context.model.path / rest).as_posix()))
    elif value.startswith("/"):
        path = Path(posixpath.normpath(value))
    else:
        yield Finding(
            f"{where} is the relative path '{value}', which tritonserver resolves against its "
            "working directory, not the model folder",
            at=at,
            hint=f'write "{MODEL_DIRECTORY_VARIABLE}/{value}" for a file in the model folder',
            severity=WARNING,
        )
        return
    if not is_inside(context.repository.root, path) or path.exists():
        return  # a host path outside the repository cannot be checked here
    shown = Path(os.path.relpath(path, context.repository.root)).as_posix()
    yield Finding(
        f"{where} points to {shown}, which does not exist; the Python backend fails to load "
        "the model",
        at=at,
        hint="create the archive with conda-pack and put it there, or fix the path",
    )
