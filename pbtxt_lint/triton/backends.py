"""What each Triton backend does with a config, as data: one table every rule and the
auto-complete emulation read, so a fact about a backend is written once.

Each entry cites the backend's source where the fact comes from. A backend that is
not in `BACKENDS` is a custom one: rules then say what is unknown instead of guessing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pbtxt_lint.schema.datatypes import DATA_TYPES


@dataclass(frozen=True)
class Platform:
    """A `platform` value Triton's core knows, and what it implies."""

    name: str
    backend: str
    artifact_format: str
    """The format of the model file (`pbtxt_lint.artifacts.formats.READERS` keys)."""
    default_filename: str
    """The file the core names in `default_model_filename` when it is empty."""
    decides_format: bool = False
    """The backend reads several formats and the platform says which (PyTorch,
    TensorFlow); otherwise the backend's own format applies."""


@dataclass(frozen=True)
class Backend:
    """One backend's behaviour, as far as the checks need it."""

    name: str
    platforms: tuple[str, ...] = ()
    """The platforms the core accepts with this backend (`ValidateModelConfig`)."""
    artifact_format: str | None = None
    """The model file format when no platform decides it; None: no file is read."""
    default_filename: str | None = None
    """The file the core names in `default_model_filename` when it is empty."""
    fills_empty_io: bool = False
    """Auto-complete adds the input or output list from the model file when the config
    lists none (TensorRT only when its first instance group may be on a GPU)."""
    fills_max_batch_size: bool = False
    """Auto-complete may set max_batch_size and add dynamic_batching from the model
    file whenever the model can batch, even on a config with inputs and outputs."""
    fills_listed_types: frozenset[str] = frozenset()
    """Fields ("data_type", "dims") auto-complete fills on a tensor the config lists."""
    completes_in_model_py: bool = False
    """model.py's `auto_complete_config` completes the config (the Python backend)."""
    completes_itself: bool = False
    """A Python-based backend that adds its own inputs and outputs at load (vLLM)."""
    optional_inputs: bool | None = None
    """True: accepts `optional: true` inputs; False: refuses them at load; None: unknown."""
    single_response: bool = False
    """Always sends exactly one response per request (no decoupled mode)."""
    checks_batch_size: bool = False
    """Fails a request batch larger than max_batch_size (1 without batching)."""
    default_cpu_count: int = 1
    """Instances of a KIND_CPU group without `count` (`SetDefaultInstanceCount`)."""
    reads_secondary_devices: bool | None = False
    """Reads `secondary_devices` of an instance group; None: unknown."""
    unsupported_types: frozenset[str] = frozenset()
    """Config data types the backend refuses at load."""
    parameters: tuple[str, ...] | None = None
    """`parameters` keys the backend reads (case-sensitive); None: not known."""
    reads_fields: frozenset[tuple[str, ...]] = frozenset()
    """Backend-specific config fields (`optimization.cuda`, ...) this backend reads."""
    reads_fields_known: bool = True
    """Whether `reads_fields` is known to be complete; False: which backend-specific
    fields the backend reads was not checked, so no field is reported as ignored."""
    fills_listed_types_known: bool = True
    """Whether `fills_listed_types` is known to be complete; False: whether auto-complete
    fills a missing data_type or dims of a tensor the config lists was not checked, so
    a missing one is a warning, not an error."""
    implicit_state: bool | None = None
    """Keeps `sequence_batching.state` between requests (TRITONBACKEND_StateNew and
    StateUpdate); False: the state input never holds the previous output; None: unknown."""
    batch_inputs: bool | None = None
    """Computes `batch_input` tensors and feeds them to the model; False: the model
    never receives them; None: unknown."""


# --- parameters, as each backend reads them ------------------------------------------

ORT_INT = ("execution_mode", "intra_op_thread_count", "inter_op_thread_count")
ORT_BOOL = ("enable_mem_arena", "enable_mem_pattern", "share_session_between_instances")
ORT_GPU_CHOICES: Mapping[str, tuple[int, ...]] = {
    "cudnn_conv_algo_search": (0, 1, 2),
    "arena_extend_strategy": (0, 1),
}
ORT_OTHER = (
    "session.use_device_allocator_for_initializers",
    "memory.enable_memory_arena_shrinkage",
    "gpu_mem_limit",
    "do_copy_in_default_stream",
)
TRT_ALLOCATION = "execution_context_allocation_strategy"
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

_NO_TENSORRT_TYPE = frozenset(
    info.config_type for info in DATA_TYPES if info.tensorrt_type is None and info.enum_value
)
_GRAPH_FIELDS = frozenset(
    {("optimization", "graph"), ("optimization", "execution_accelerators"), ("model_operations",)}
)

PLATFORMS: Mapping[str, Platform] = {
    p.name: p
    for p in (
        Platform("tensorrt_plan", "tensorrt", "plan", "model.plan"),
        Platform("onnxruntime_onnx", "onnxruntime", "onnx", "model.onnx"),
        Platform("pytorch_libtorch", "pytorch", "torchscript", "model.pt", decides_format=True),
        Platform("torch_aoti", "pytorch", "pt2", "model.pt2", decides_format=True),
        Platform("tensorflow_savedmodel", "tensorflow", "savedmodel", "model.savedmodel", True),
        Platform("tensorflow_graphdef", "tensorflow", "graphdef", "model.graphdef", True),
    )
}
"""Platforms Triton's core resolves (`AutoCompleteBackendFields`); "ensemble" aside."""

BACKENDS: Mapping[str, Backend] = {
    b.name: b
    for b in (
        # onnxruntime_backend src/onnxruntime.cc: AutoCompleteConfig skips a config with
        # inputs and outputs; optional inputs only without batching; KIND_CPU count 2.
        Backend(
            "onnxruntime",
            platforms=("onnxruntime_onnx",),
            artifact_format="onnx",
            default_filename="model.onnx",
            fills_empty_io=True,
            optional_inputs=True,
            single_response=True,
            default_cpu_count=2,
            parameters=(*ORT_INT, *ORT_BOOL, *ORT_GPU_CHOICES, *ORT_OTHER),
            reads_fields=_GRAPH_FIELDS,
            implicit_state=True,
            batch_inputs=True,
        ),
        # tensorrt_backend src/model_state.cc: AutoCompleteConfig fills I/O, data types,
        # dims and max_batch_size from the engine (only on a GPU instance).
        Backend(
            "tensorrt",
            platforms=("tensorrt_plan",),
            artifact_format="plan",
            default_filename="model.plan",
            fills_empty_io=True,
            fills_max_batch_size=True,
            fills_listed_types=frozenset({"data_type", "dims"}),
            optional_inputs=False,
            single_response=True,
            reads_secondary_devices=True,
            unsupported_types=_NO_TENSORRT_TYPE,
            parameters=(TRT_ALLOCATION, *TRT_MULTI_DEVICE, "CUDA_CONTEXT_PTR"),
            implicit_state=True,
            batch_inputs=True,
            reads_fields=frozenset(
                {
                    ("optimization", "cuda"),
                    ("optimization", "gather_kernel_buffer_threshold"),
                    ("optimization", "eager_batching"),
                    ("optimization", "priority"),
                }
            ),
        ),
        # pytorch_backend src/libtorch.cc: no auto-complete of tensors; no unsigned wide
        # types, no bfloat16; one response per request.
        Backend(
            "pytorch",
            platforms=("pytorch_libtorch", "torch_aoti"),
            optional_inputs=False,
            single_response=True,
            checks_batch_size=True,
            unsupported_types=frozenset({"TYPE_UINT16", "TYPE_UINT32", "TYPE_UINT64", "TYPE_BF16"}),
            parameters=(*PYTORCH_BOOL, *PYTORCH_INT),
            implicit_state=True,
        ),
        # tensorflow_backend src/tensorflow.cc: auto-complete from the SavedModel signature.
        Backend(
            "tensorflow",
            platforms=("tensorflow_graphdef", "tensorflow_savedmodel"),
            fills_empty_io=True,
            fills_max_batch_size=True,
            optional_inputs=False,
            single_response=True,
            default_cpu_count=2,
            unsupported_types=frozenset({"TYPE_BF16"}),
            reads_fields=_GRAPH_FIELDS,
            fills_listed_types_known=False,
        ),
        # openvino_backend src/openvino.cc: auto-complete from the IR; CPU only.
        Backend(
            "openvino",
            artifact_format="openvino",
            default_filename="model.xml",
            fills_empty_io=True,
            fills_max_batch_size=True,
            optional_inputs=False,
            single_response=True,
            checks_batch_size=True,
            unsupported_types=frozenset({"TYPE_FP64", "TYPE_STRING", "TYPE_BF16"}),
            parameters=(
                "CPU_EXTENSION_PATH",
                "TARGET_DEVICE",
                *OPENVINO_BOOL,
                *OPENVINO_DEVICE,
            ),
        ),
        # python_backend src/python_be.cc and pb_stub.cc: auto_complete_config in model.py;
        # execute gets the request's inputs only (SaveRequestsToSharedMemory), and no
        # TRITONBACKEND_State* call keeps implicit state.
        Backend(
            "python",
            artifact_format="python",
            default_filename="model.py",
            completes_in_model_py=True,
            optional_inputs=True,
            checks_batch_size=True,
            parameters=(PYTHON_ENV, PYTHON_FORCE_CPU),
            implicit_state=False,
            batch_inputs=False,
        ),
        # dali_backend: fills I/O and data types from the pipeline, dims when it can.
        Backend(
            "dali",
            fills_empty_io=True,
            fills_max_batch_size=True,
            fills_listed_types=frozenset({"data_type"}),
            optional_inputs=False,
        ),
        # fil_backend: no auto-complete of listed tensors; one response per request.
        Backend("fil", single_response=True),
        # identity_backend (Triton's test backend) opts in to optional inputs.
        Backend(
            "identity",
            optional_inputs=True,
            reads_secondary_devices=None,
            reads_fields_known=False,
            fills_listed_types_known=False,
        ),
        Backend(
            "repeat",
            reads_secondary_devices=None,
            reads_fields_known=False,
            fills_listed_types_known=False,
        ),
        Backend(
            "square",
            reads_secondary_devices=None,
            reads_fields_known=False,
            fills_listed_types_known=False,
        ),
        # tensorrtllm_backend's ModelState does not refuse optional inputs.
        Backend(
            "tensorrtllm",
            optional_inputs=True,
            reads_secondary_devices=None,
            reads_fields_known=False,
            fills_listed_types_known=False,
        ),
        # vllm_backend: a Python-based backend whose model.py adds its I/O at load.
        Backend(
            "vllm",
            completes_itself=True,
            optional_inputs=True,
            reads_secondary_devices=None,
            reads_fields_known=False,
            fills_listed_types_known=False,
        ),
    )
}
"""Backends Triton's core and the NGC containers know; anything else is custom."""


def backend(name: str) -> Backend | None:
    """The table entry of backend `name`, None for a custom backend (or none)."""
    return BACKENDS.get(name)


def default_filename(config_platform: str, config_backend: str) -> str | None:
    """The core's default `default_model_filename` for a platform, else a backend."""
    platform = PLATFORMS.get(config_platform)
    if platform is not None:
        return platform.default_filename
    entry = BACKENDS.get(config_backend)
    return entry.default_filename if entry else None
