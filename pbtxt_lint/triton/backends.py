"""What each Triton backend does with a config, and which images ship it, as data: one
table every rule and the auto-complete emulation read, so a fact about a backend is
written once.

Each entry cites the backend's source where the fact comes from. `BACKENDS` lists every
backend the Triton project publishes (frameworks, the LLM backends, Triton's own test
and example backends); one that is not in it is a custom one: rules then say what is
unknown instead of guessing. `IMAGES` and each entry's `ships_in` say which NGC
tritonserver image ships the backend by default in which release; `host_backends`
turns a declared host profile (`container`, `backends`) into the backends the target
host has.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pbtxt_lint.schema.datatypes import DATA_TYPES
from pbtxt_lint.settings import Settings
from pbtxt_lint.targets import NEWEST, RELEASES, Release, Version
from pbtxt_lint.triton.fil import FIL_PARAMETERS


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
class Shipped:
    """An NGC tritonserver image (`IMAGES`) that ships a backend from release `first`
    (server version) to `last` (None: still shipping), except in `missing`."""

    image: str
    first: Version
    last: Version | None = None
    missing: tuple[Version, ...] = ()

    def covers(self, release: Version) -> bool:
        return (
            self.first <= release
            and (self.last is None or release <= self.last)
            and release not in self.missing
        )


@dataclass(frozen=True)
class Backend:
    """One backend's behaviour, as far as the checks need it."""

    name: str
    published: str = ""
    """Where the Triton project publishes it (a repository of github.com/
    triton-inference-server, with a folder for test and example backends)."""
    ships_in: tuple[Shipped, ...] = ()
    """The NGC tritonserver images that ship it by default (empty: none; install it)."""
    python_based: bool = False
    """Installed as `backends/<name>/model.py` on top of the python backend."""
    example: bool = False
    """One of Triton's test or tutorial backends, not meant for serving models."""
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
    checks_dims: bool | None = None
    """Compares the config's dims with the model file's shapes when it loads, so dims
    that repeat the batch axis fail the load; False: never compares them (the first
    request that follows the dims, or does not, is all that tells); None: unknown."""
    default_cpu_count: int = 1
    """Instances of a KIND_CPU group without `count` (`SetDefaultInstanceCount`)."""
    reads_secondary_devices: bool | None = False
    """Reads `secondary_devices` of an instance group; None: unknown."""
    unsupported_types: frozenset[str] = frozenset()
    """Config data types the backend refuses at load."""
    types_from: tuple[tuple[str, Version], ...] = ()
    """(config data type, server version): types the backend refuses at load before that
    version and takes from it on."""

    def type_since(self, data_type: str) -> Version | None:
        """The server version from which the backend takes `data_type`, if it once refused it."""
        return next((since for name, since in self.types_from if name == data_type), None)

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
TF_INT = ("MAX_SESSION_SHARE_COUNT", "TF_NUM_INTRA_THREADS", "TF_NUM_INTER_THREADS")
TF_BOOL = ("TF_USE_PER_SESSION_THREADS",)
TF_INIT_OPS = "TF_INIT_OPS_FILE"
TF_STRING = ("TF_GRAPH_TAG", "TF_SIGNATURE_DEF", TF_INIT_OPS)
DALI_PARAMETERS = ("num_threads", "split_along_outer_axis")
PYTHON_FORCE_CPU = "FORCE_CPU_ONLY_INPUT_TENSORS"
PYTHON_ENV = "EXECUTION_ENV_PATH"
VLLM_PARAMETERS = ("REPORT_CUSTOM_METRICS", "ENABLE_VLLM_HEALTH_CHECK")

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

# --- which image ships what ----------------------------------------------------------


@dataclass(frozen=True)
class Image:
    """An NGC tritonserver image flavour (`nvcr.io/nvidia/tritonserver:<yy.mm>-<name>`)
    whose default backends pbtxt-lint knows from release `first` to `last`."""

    name: str
    first: Version
    last: Version | None
    about: str


IMAGES: Mapping[str, Image] = {
    i.name: i
    for i in (
        # server build.py: `enable_all()` lists the backends of a full build from v2.22.0
        # (22.05) on; earlier build.py versions have no such list, so older py3 images are
        # unknown here.
        Image("py3", (2, 22), None, "the standard image"),
        # Release notes 21.08: "GPU enabled Triton server with only the PyTorch and Python
        # backends" (quoted in server issue #5461); NGC overview in server issue #6806.
        Image("pyt-python-py3", (2, 13), None, "PyTorch and Python backends only"),
        # NGC overview (server issue #6806): "TensorFlow 2.x and Python backends only";
        # published for 22.01 (server issue #3906); TensorFlow left Triton's images in
        # 25.03 (build.py of v2.56.0).
        Image("tf2-python-py3", (2, 18), (2, 55), "TensorFlow and Python backends only"),
        # vllm_backend README (PR #8): "Starting in release 23.10, Triton includes a
        # container with the vLLM backend"; server issue #7637: the vLLM image "does not
        # carry any other backends" (vLLM is Python-based, so the python backend is in it).
        Image("vllm-python-py3", (2, 39), None, "vLLM and Python backends only"),
        # tensorrtllm_backend issue #401 (23.10) and server issue #7346 (24.05): the
        # TensorRT-LLM image "only has TRTLLM and Python backends".
        Image("trtllm-python-py3", (2, 39), None, "TensorRT-LLM and Python backends only"),
        # An image built with compose.py or build.py: only the backends listed in
        # `backends` (compose.py and build.py start from the `-py3-min` image, the build
        # base: docs/customization_guide/build.md and compose.md).
        Image("custom", (2, 0), None, "only the backends listed in `backends`"),
    )
}
"""Image flavours a host profile can name (`container`); py3-min (the build base) and
py3-sdk (the clients) are not server images and are not among them."""

_PY3 = "py3"
_FULL = (Shipped(_PY3, (2, 22)),)
"""In every py3 image pbtxt-lint knows (build.py `enable_all()`, v2.22.0 on)."""


def _unchecked(
    name: str,
    published: str,
    *,
    ships_in: tuple[Shipped, ...] = (),
    optional_inputs: bool | None = None,
    completes_itself: bool = False,
    python_based: bool = False,
    example: bool = False,
) -> Backend:
    """A published backend whose config handling pbtxt-lint has not checked: which
    fields, parameters, devices and tensor facts it reads is unknown, so no rule says
    that it ignores or refuses any of them. A Python-based one runs on the python
    backend, which accepts optional inputs (`PYTHON_ACCEPTS_OPTIONAL`)."""
    return Backend(
        name,
        published=published,
        ships_in=ships_in,
        python_based=python_based,
        example=example,
        completes_itself=completes_itself,
        optional_inputs=PYTHON_ACCEPTS_OPTIONAL if python_based else optional_inputs,
        reads_secondary_devices=None,
        reads_fields_known=False,
        fills_listed_types_known=False,
    )


PYTHON_ACCEPTS_OPTIONAL = True
"""Every Python-based backend (backends/<name>/model.py) runs on the python backend, whose
model state is a BackendModel built with optional inputs allowed (python_backend
src/python_be.cc, `ModelState::ModelState`: `BackendModel(triton_model, true /*
allow_optional */)`)."""

_SERVER_TEST = "server (src/test/{}: Triton's own test backend, built into its QA image only)"
_EXAMPLE = "backend (examples/backends/{}: a tutorial backend)"

BACKENDS: Mapping[str, Backend] = {
    b.name: b
    for b in (
        # onnxruntime_backend src/onnxruntime.cc: AutoCompleteConfig skips a config with
        # inputs and outputs; optional inputs only without batching; KIND_CPU count 2.
        # Left out of 24.02 (server issue #6991: "ONNX Runtime backend is not included
        # with 24.02 release").
        Backend(
            "onnxruntime",
            published="onnxruntime_backend",
            ships_in=(Shipped(_PY3, (2, 22), missing=((2, 43),)),),
            platforms=("onnxruntime_onnx",),
            artifact_format="onnx",
            default_filename="model.onnx",
            fills_empty_io=True,
            optional_inputs=True,
            single_response=True,
            checks_dims=True,
            default_cpu_count=2,
            # ModelConfigDataTypeToOnnxDataType (onnxruntime_utils.cc) maps TYPE_BF16 to
            # ONNX bfloat16 from r26.03 on (server 2.67); before, "unsupported datatype".
            types_from=(("TYPE_BF16", (2, 67)),),
            parameters=(*ORT_INT, *ORT_BOOL, *ORT_GPU_CHOICES, *ORT_OTHER),
            reads_fields=_GRAPH_FIELDS,
            implicit_state=True,
            batch_inputs=True,
        ),
        # tensorrt_backend src/model_state.cc: AutoCompleteConfig fills I/O, data types,
        # dims and max_batch_size from the engine (only on a GPU instance).
        Backend(
            "tensorrt",
            published="tensorrt_backend",
            ships_in=_FULL,
            platforms=("tensorrt_plan",),
            artifact_format="plan",
            default_filename="model.plan",
            fills_empty_io=True,
            fills_max_batch_size=True,
            fills_listed_types=frozenset({"data_type", "dims"}),
            optional_inputs=False,
            single_response=True,
            checks_dims=True,
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
        # types, no bfloat16; one response per request; no dims check (a TorchScript
        # module declares no tensor shapes).
        Backend(
            "pytorch",
            published="pytorch_backend",
            ships_in=(*_FULL, Shipped("pyt-python-py3", (2, 13))),
            platforms=("pytorch_libtorch", "torch_aoti"),
            optional_inputs=False,
            single_response=True,
            checks_batch_size=True,
            checks_dims=False,
            unsupported_types=frozenset({"TYPE_UINT16", "TYPE_UINT32", "TYPE_UINT64", "TYPE_BF16"}),
            parameters=(*PYTORCH_BOOL, *PYTORCH_INT),
            implicit_state=True,
        ),
        # tensorflow_backend src/tensorflow.cc: auto-complete from the SavedModel signature.
        # build.py `enable_all()` lists it (as tensorflow1/tensorflow2 until v2.32.0, the
        # core maps `tensorflow` to one of them) up to v2.55.0 and no longer from v2.56.0
        # (25.03); server commit fd19783 (#8089): "tf model cannot load after 25.03".
        Backend(
            "tensorflow",
            published="tensorflow_backend",
            ships_in=(
                Shipped(_PY3, (2, 22), (2, 55)),
                Shipped("tf2-python-py3", (2, 18), (2, 55)),
            ),
            platforms=("tensorflow_graphdef", "tensorflow_savedmodel"),
            fills_empty_io=True,
            fills_max_batch_size=True,
            optional_inputs=False,
            single_response=True,
            checks_dims=True,
            default_cpu_count=2,
            unsupported_types=frozenset({"TYPE_BF16"}),
            # ModelState::ParseParameters (tensorflow.cc).
            parameters=(*TF_INT, *TF_BOOL, *TF_STRING),
            reads_fields=_GRAPH_FIELDS,
            fills_listed_types_known=False,
        ),
        # openvino_backend src/openvino.cc: auto-complete from the IR; CPU only.
        Backend(
            "openvino",
            published="openvino_backend",
            ships_in=_FULL,
            artifact_format="openvino",
            default_filename="model.xml",
            fills_empty_io=True,
            fills_max_batch_size=True,
            optional_inputs=False,
            single_response=True,
            checks_batch_size=True,
            checks_dims=True,
            unsupported_types=frozenset({"TYPE_FP64", "TYPE_STRING", "TYPE_BF16"}),
            parameters=(
                "CPU_EXTENSION_PATH",
                "TARGET_DEVICE",
                *OPENVINO_BOOL,
                *OPENVINO_DEVICE,
            ),
        ),
        # python_backend src/python_be.cc and pb_stub.cc: auto_complete_config in model.py;
        # the config's dims are never compared with what model.py does.
        # In every image: the LLM images serve their Python-based backends with it.
        # execute gets the request's inputs only (SaveRequestsToSharedMemory), and no
        # TRITONBACKEND_State* call keeps implicit state.
        Backend(
            "python",
            published="python_backend",
            ships_in=(
                *_FULL,
                Shipped("pyt-python-py3", (2, 13)),
                Shipped("tf2-python-py3", (2, 18), (2, 55)),
                Shipped("vllm-python-py3", (2, 39)),
                Shipped("trtllm-python-py3", (2, 39)),
            ),
            artifact_format="python",
            default_filename="model.py",
            completes_in_model_py=True,
            optional_inputs=True,
            checks_batch_size=True,
            checks_dims=False,
            parameters=(PYTHON_ENV, PYTHON_FORCE_CPU),
            implicit_state=False,
            batch_inputs=False,
        ),
        # dali_backend: fills I/O and data types from the pipeline, dims when it can.
        Backend(
            "dali",
            published="dali_backend",
            ships_in=_FULL,
            fills_empty_io=True,
            fills_max_batch_size=True,
            fills_listed_types=frozenset({"data_type"}),
            optional_inputs=False,
            # ModelParameters (dali_backend src/parameters.h).
            parameters=DALI_PARAMETERS,
        ),
        # fil_backend: no auto-complete of listed tensors; one response per request.
        # (Missing from the arm64 py3 images of 24.12 and 25.01 only: server issue #7991.)
        Backend(
            "fil",
            published="fil_backend",
            ships_in=_FULL,
            single_response=True,
            # RapidsSharedState::load (fil_backend src/shared_state.h), every release's keys.
            parameters=FIL_PARAMETERS,
        ),
        # identity_backend (Triton's test backend) opts in to optional inputs; identity,
        # repeat and square are in build.py's `enable_all()` list.
        _unchecked("identity", "identity_backend", ships_in=_FULL, optional_inputs=True),
        _unchecked("repeat", "repeat_backend", ships_in=_FULL),
        _unchecked("square", "square_backend", ships_in=_FULL),
        # tensorrtllm_backend inflight_batcher_llm/src (census/tensorrtllm.toml): no
        # auto-complete (TRITONBACKEND_ModelInitialize never sets a config), optional inputs
        # accepted, no optimization field read, as many responses as it likes; it reads
        # inputs by name (never the config's dims), keeps no Triton state and computes no
        # batch_input. Its `parameters` depend on the TensorRT-LLM release, so they are
        # triton/tensorrtllm.py's CPP_PARAMETERS, checked by PL825-PL828, not `parameters`.
        Backend(
            "tensorrtllm",
            published="tensorrtllm_backend",
            ships_in=(Shipped("trtllm-python-py3", (2, 39)),),
            optional_inputs=True,
            checks_dims=False,
            implicit_state=False,
            batch_inputs=False,
        ),
        # vllm_backend src/model.py: a Python-based backend on the python backend (which
        # serves it: optional inputs, no dims check, no implicit state or batch inputs).
        # Its auto_complete_config adds its own tensors, forces max_batch_size 0 and the
        # decoupled policy (`triton.vllm` has them per release, `analysis.autocomplete`
        # runs them); it reads two parameters of its own and no optimization field.
        Backend(
            "vllm",
            published="vllm_backend",
            ships_in=(Shipped("vllm-python-py3", (2, 39)),),
            python_based=True,
            completes_itself=True,
            optional_inputs=True,
            checks_batch_size=True,
            checks_dims=False,
            parameters=(PYTHON_ENV, PYTHON_FORCE_CPU, *VLLM_PARAMETERS),
            implicit_state=False,
            batch_inputs=False,
        ),
        # Published by the Triton project, shipped in no image: build.py builds
        # fastertransformer ("not officially supported"); paddlepaddle_backend, stateful_backend
        # and hugectr_backend document their own builds.
        _unchecked("fastertransformer", "fastertransformer_backend"),
        _unchecked("paddle", "paddlepaddle_backend"),
        _unchecked("stateful", "stateful_backend"),
        _unchecked("hugectr", "hugectr_backend"),
        # build.py clones it from gitlab.com/arm-research/smarter (`--backend armnn_tflite`).
        _unchecked("armnn_tflite", "gitlab.com/arm-research/smarter/armnn_tflite_backend"),
        # tutorials Popular_Models_Guide/StableDiffusion/backend/diffusion/model.py.
        _unchecked(
            "diffusion",
            "tutorials (Popular_Models_Guide/StableDiffusion/backend/diffusion)",
            python_based=True,
            example=True,
        ),
        # Triton's test backends (server src/test/*; Dockerfile.QA copies each library
        # into the version folders of its qa models) and the backend repository's examples.
        *(
            _unchecked(name, _SERVER_TEST.format(folder), example=True)
            for name, folder in (
                ("implicit_state", "implicit_state"),
                ("sequence", "sequence"),
                ("dyna_sequence", "dyna_sequence"),
                ("iterative_sequence", "iterative_sequence"),
                ("distributed_addsub", "distributed_addsub"),
                ("query", "query_backend"),
            )
        ),
        *(
            _unchecked(name, _EXAMPLE.format(name), example=True)
            for name in ("bls", "minimal", "recommended")
        ),
    )
}
"""Backends the Triton project publishes; anything else is custom."""


def backend(name: str) -> Backend | None:
    """The table entry of backend `name`, None for a custom backend (or none)."""
    return BACKENDS.get(name)


def shipped_backends(image: str, release: Release | None) -> frozenset[str] | None:
    """The backends image `image` of `release` (None: the newest) ships by default;
    None when pbtxt-lint does not know (an older release, an image not published then)."""
    flavour = IMAGES.get(image)
    server = (release or NEWEST).server
    if flavour is None or server < flavour.first:
        return None
    if flavour.last is not None and server > flavour.last:
        return None
    return frozenset(
        entry.name
        for entry in BACKENDS.values()
        if any(s.image == image and s.covers(server) for s in entry.ships_in)
    )


def images_shipping(name: str, release: Release | None) -> list[str]:
    """The image flavours that ship backend `name` in `release`; None: in any release."""
    entry = BACKENDS.get(name)
    if entry is None:
        return []
    if release is None:
        return list(dict.fromkeys(s.image for s in entry.ships_in))
    return [s.image for s in entry.ships_in if s.covers(release.server)]


@dataclass(frozen=True)
class HostBackends:
    """The backends a declared host profile has."""

    names: frozenset[str]
    """Installed for sure: the image's default backends and the declared ones."""
    maybe: frozenset[str]
    """Shipped by the image in some releases only, when the release is not declared."""
    complete: bool
    """False when the image's default backends are unknown for the release: a name
    outside `names` may still be installed."""
    image: str
    release: Release
    """The declared release, or the one the image is taken at (its newest)."""
    release_declared: bool
    declared: frozenset[str]

    @property
    def image_label(self) -> str:
        """`the tritonserver:24.10-py3 image`, or `a custom tritonserver image`."""
        if self.image == "custom":
            return "a custom tritonserver image"
        label = f"the tritonserver:{self.release.container}-{self.image} image"
        return label if self.release_declared else f"{label} (--triton-version not given)"


def host_backends(settings: Settings) -> HostBackends | None:
    """What the declared host profile says about backends; None when the user declared
    neither `container` nor `backends` (then the host is unknown). Without a declared
    release the image is taken at its newest, and a backend it ships in other releases
    only (tensorflow in py3 up to 25.02) is `maybe`."""
    if not settings.backends_declared:
        return None
    image = settings.container or _PY3
    declared = settings.backends or frozenset()
    release = settings.target
    if release is None:
        last = IMAGES[image].last
        release = next((r for r in RELEASES if r.server == last), NEWEST) if last else NEWEST
    shipped = shipped_backends(image, release)
    names = (shipped or frozenset()) | declared
    maybe: frozenset[str] = frozenset()
    if settings.target is None:
        maybe = frozenset(
            entry.name
            for entry in BACKENDS.values()
            if entry.name not in names and any(s.image == image for s in entry.ships_in)
        )
    return HostBackends(
        names, maybe, shipped is not None, image, release, settings.target is not None, declared
    )


def default_filename(config_platform: str, config_backend: str) -> str | None:
    """The core's default `default_model_filename` for a platform, else a backend."""
    platform = PLATFORMS.get(config_platform)
    if platform is not None:
        return platform.default_filename
    entry = BACKENDS.get(config_backend)
    return entry.default_filename if entry else None
