"""PL806-PL808, PL810-PL813: config.pbtxt against what the vLLM backend does with it.

The backend's `auto_complete_config` (vllm_backend src/model.py, emulated from
`pbtxt_lint.triton.vllm` by `analysis.autocomplete`) adds the inputs and outputs of
its release that the config lacks, then sets the decoupled policy and max_batch_size 0
through `pb_utils.ModelConfig`, which refuses to change a value the config sets.
`initialize` then asserts the decoupled policy, reads the `text_output` config, and
refuses KIND_GPU for a model spread over several GPUs; requests read `text_input` and
`sampling_parameters` as text.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.instances import GPU, resolve_groups
from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    WARNING,
    Finding,
    Key,
    ModelContext,
    Stage,
    model_label,
    rule,
    type_name,
)
from pbtxt_lint.rules.backends.vllm_common import BACKEND, behaviour, engine_arg, vllm_config
from pbtxt_lint.triton.vllm import ENGINE_ARGS_FILE

DECOUPLED_ASSERTION = (
    "AssertionError: vLLM Triton backend must be configured to use decoupled model "
    "transaction policy"
)


@rule(
    "PL806",
    "vllm-max-batch-size",
    ERROR,
    "max_batch_size above 0 on a vLLM model: the backend's auto-complete refuses it.",
    triton="configuration specified max_batch_size <n>, but in auto-complete-config function "
    "for model '<model>' specified max_batch_size 0",
    stage=Stage.LOAD,
    backend=BACKEND,
)
def vllm_max_batch_size(context: ModelContext) -> Iterator[Finding]:
    """vLLM batches requests itself (continuous batching), so the backend's
    auto_complete_config sets max_batch_size to 0; `pb_utils.ModelConfig` refuses to
    lower a value the config sets, and the model fails to load. Requests are batched
    by vLLM whatever max_batch_size says.

    Observed with tritonserver 2.51 and vllm_backend r24.10 (scripts/vllm_live.py):
    `Internal: ValueError: configuration specified max_batch_size 8, but in
    auto-complete-config function for model 'opt' specified max_batch_size 0`.

    Bad:
        backend: "vllm"
        max_batch_size: 8
    Good:
        backend: "vllm"
        (no max_batch_size, or max_batch_size: 0)
    """
    config = vllm_config(context)
    error = context.completed.error if config is not None else None
    if config is None or error is None or error.triton_id != "max-batch-size-lowered":
        return
    yield Finding(
        f"{model_label(context)} sets max_batch_size {config.max_batch_size}; the vLLM "
        f'backend\'s auto_complete_config fails the load with "{error.message}"',
        at=("max_batch_size",),
        hint="remove max_batch_size (vLLM batches requests itself)",
    )


@rule(
    "PL807",
    "vllm-not-decoupled",
    ERROR,
    "A vLLM model that is not decoupled: the backend refuses to load it.",
    triton=DECOUPLED_ASSERTION,
    stage=Stage.LOAD,
    backend=BACKEND,
)
def vllm_not_decoupled(context: ModelContext) -> Iterator[Finding]:
    """The backend streams vLLM's output through a response sender, so it requires the
    decoupled transaction policy. Its auto_complete_config sets `decoupled: true`, and
    `pb_utils.ModelConfig` refuses to change a value the config sets ("trying to
    change decoupled property"); without auto-complete (`--disable-auto-complete-config`,
    or Triton 23.10) `initialize` asserts it.

    Observed with tritonserver 2.51 and vllm_backend r24.10 (scripts/vllm_live.py):
    `Internal: ValueError: trying to change decoupled property in auto-complete-config
    for model 'opt', which is already set to 'False'.`

    Bad:
        backend: "vllm"
        model_transaction_policy { decoupled: false }
    Good:
        backend: "vllm"
        model_transaction_policy { decoupled: true }   (or no model_transaction_policy)
    """
    config = vllm_config(context)
    found = behaviour(context)
    if config is None or found is None:
        return
    error = context.completed.error
    if error is not None and error.triton_id == "transaction-policy":
        said = error.message
    elif (not context.auto_complete or not found.auto_complete) and not (
        config.model_transaction_policy.decoupled
    ):
        said = DECOUPLED_ASSERTION
    else:
        return
    written = config.HasField("model_transaction_policy")
    yield Finding(
        f'{model_label(context)} is not decoupled; the vLLM backend fails the load with "{said}"',
        at=("model_transaction_policy", "decoupled") if written else None,
        hint="model_transaction_policy { decoupled: true } (or remove the block and keep "
        "auto-complete on)",
    )


@rule(
    "PL808",
    "vllm-multi-gpu-kind-gpu",
    ERROR,
    "A vLLM model spread over several GPUs in a KIND_GPU instance group.",
    triton="ValueError: KIND_GPU is currently for single-GPU models, please specify "
    "KIND_MODEL in the model's config.pbtxt for multi-GPU models",
    stage=Stage.LOAD,
    backend=BACKEND,
)
def vllm_multi_gpu_kind_gpu(context: ModelContext) -> Iterator[Finding]:
    """With `tensor_parallel_size` above 1 in model.json (from Triton 26.01:
    `tensor_parallel_size * pipeline_parallel_size`), vLLM runs the model on several
    GPUs itself. A KIND_GPU instance pins one GPU, so the backend refuses it (Triton
    24.06 on); KIND_MODEL lets vLLM take the GPUs it needs. A config without
    instance_group gets KIND_GPU on a GPU host, which every vLLM host is.

    Bad:
        instance_group [ { kind: KIND_GPU } ]      (model.json: "tensor_parallel_size": 2)
    Good:
        instance_group [ { count: 1 kind: KIND_MODEL } ]
    """
    config = vllm_config(context)
    found = behaviour(context)
    if config is None or found is None or not found.multi_gpu_args:
        return
    sizes = {name: engine_arg(context, name) for name in found.multi_gpu_args}
    product = 1
    for value in sizes.values():
        try:
            product *= int(value) if value is not None else 1  # type: ignore[call-overload]
        except (TypeError, ValueError, OverflowError):  # OverflowError: int(Infinity)
            return  # PL803
    if product <= 1:
        return
    gpus = f"{product}" if product < 1 << 64 else "more than 2**64"  # str() stops at 4,300 digits
    given = " * ".join(f"{name} {value}" for name, value in sizes.items() if value is not None)
    for group in resolve_groups(context):
        if group.kind not in (GPU, None) or context.settings.gpus == 0:
            continue
        where = (
            f"{group.label} is KIND_GPU"
            if group.kind == GPU and group.index is not None
            else "the instance group Triton adds on a GPU host is KIND_GPU"
        )
        yield Finding(
            f"{model_label(context)} runs on {gpus} GPUs ({ENGINE_ARGS_FILE}: {given}), "
            f'but {where}: the vLLM backend fails the load with "ValueError: KIND_GPU is '
            "currently for single-GPU models, please specify KIND_MODEL in the model's "
            'config.pbtxt for multi-GPU models"',
            at=group.at("kind") or ("instance_group",),
            hint="instance_group [ { count: 1 kind: KIND_MODEL } ]",
            severity=ERROR if group.kind == GPU else WARNING,
        )


@rule(
    "PL810",
    "vllm-tensor-type",
    WARNING,
    "A vLLM tensor the backend reads or writes as text, declared with another data type.",
    triton="Error generating stream: 'numpy.float32' object has no attribute 'decode'",
    backend=BACKEND,
)
def vllm_tensor_type(context: ModelContext) -> Iterator[Finding]:
    """The backend adds only the tensors whose names the config lacks, so a tensor the
    config declares keeps its data type. `text_input`, `sampling_parameters` (and
    `image`, `embedding_request`) are decoded as UTF-8 text and `text_output` is built
    from text: declared with another type than TYPE_STRING, the model loads and every
    request that uses them fails.

    Bad:
        input [ { name: "text_input" data_type: TYPE_UINT8 dims: [ -1 ] } ]
    Good:
        input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]
    """
    config = vllm_config(context)
    found = behaviour(context)
    if config is None or found is None:
        return
    for kind, expected in (("input", found.inputs), ("output", found.outputs)):
        wanted = {tensor.name: tensor for tensor in expected if tensor.read_as}
        declared = [(io.name, io.data_type) for io in getattr(config, kind)]
        for index, (name, data_type) in enumerate(declared):
            tensor = wanted.get(name)
            if tensor is None or type_name(data_type) == tensor.data_type:
                continue
            which = (
                "every request fails when the backend decodes it"
                if kind == "input"
                else "every response fails when the backend builds it from the generated text"
            )
            yield Finding(
                f"{kind} '{name}' of vLLM {model_label(context)} is "
                f"{type_name(data_type)}, but the backend handles it as text "
                f"({tensor.data_type}): {which}",
                at=(kind, index, "data_type"),
                hint=f"data_type: {tensor.data_type} (or remove the {kind}: the backend adds it)",
            )


@rule(
    "PL811",
    "vllm-tensor-missing",
    ERROR,
    "A vLLM model without text_output (or text_input) when the backend does not add them.",
    triton="TypeError: 'NoneType' object is not subscriptable",
    stage=Stage.LOAD,
    backend=BACKEND,
)
def vllm_tensor_missing(context: ModelContext) -> Iterator[Finding]:
    """With auto-complete the backend adds its tensors itself. Without it
    (`--disable-auto-complete-config`, or Triton 23.10 whose backend has no
    auto_complete_config) the config must declare them: `initialize` reads the
    `text_output` config and fails the load without it, and every request fails
    without `text_input`, which the backend reads first.

    Bad:
        backend: "vllm"      (started with --disable-auto-complete-config)
    Good:
        input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]
        output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] } ]
    """
    config = vllm_config(context)
    found = behaviour(context)
    if (
        config is None
        or found is None
        or not (not context.auto_complete or not found.auto_complete)
    ):
        return
    why = (
        "--disable-auto-complete-config" if not context.auto_complete else "this release's backend"
    )
    if not any(io.name == "text_output" for io in config.output):
        yield Finding(
            f"vLLM {model_label(context)} declares no output 'text_output', and nothing "
            f"adds it ({why}): initialize fails the load with \"TypeError: 'NoneType' object "
            'is not subscriptable"',
            at=("output",),
            hint='output [ { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] } ]',
        )
    if not any(io.name == "text_input" for io in config.input):
        yield Finding(
            f"vLLM {model_label(context)} declares no input 'text_input', and nothing "
            f"adds it ({why}): every request fails with \"AttributeError: 'NoneType' object "
            "has no attribute 'as_numpy'\"",
            at=("input",),
            hint='input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]',
            severity=WARNING,
        )


@rule(
    "PL812",
    "vllm-switch-off",
    INFO,
    "REPORT_CUSTOM_METRICS or ENABLE_VLLM_HEALTH_CHECK set to a value that leaves it off.",
    backend=BACKEND,
)
def vllm_switch_off(context: ModelContext) -> Iterator[Finding]:
    """The backend turns its custom metrics on only for the exact value its release
    compares with: "yes" in Triton 24.08 to 24.11, "true" (any case) from 24.12 on,
    which also reads ENABLE_VLLM_HEALTH_CHECK. Any other value, or `disable_log_stats`
    in model.json, leaves the metrics silently off.

    Bad:
        parameters { key: "REPORT_CUSTOM_METRICS" value: { string_value: "yes" } }  (24.12)
    Good:
        parameters { key: "REPORT_CUSTOM_METRICS" value: { string_value: "true" } }
    """
    config = vllm_config(context)
    found = behaviour(context)
    if config is None or found is None:
        return
    for key in found.parameters:
        if key not in config.parameters:
            continue
        value = config.parameters[key].string_value
        on = value == found.true_value if found.true_value == "yes" else value.lower() == "true"
        if not on and value.strip().lower() in ("yes", "true", "1", "on", "y", "enable", "enabled"):
            yield Finding(
                f'parameter {key} of vLLM {model_label(context)} is "{value}", but this '
                f'release\'s backend turns it on only for "{found.true_value}": it stays off',
                at=("parameters", Key(key), "string_value"),
                hint=f'string_value: "{found.true_value}"',
            )
        elif on and key == "REPORT_CUSTOM_METRICS" and engine_arg(context, "disable_log_stats"):
            yield Finding(
                f"vLLM {model_label(context)} asks for custom metrics, but "
                f"{ENGINE_ARGS_FILE} sets disable_log_stats, so the backend reports none",
                at=("parameters", Key(key)),
                hint=f"remove disable_log_stats from {ENGINE_ARGS_FILE}",
            )


@rule(
    "PL813",
    "vllm-batched-prompt",
    WARNING,
    "max_batch_size above 0 on a vLLM model served with auto-complete disabled: every "
    "prompt reaches vLLM as an array, and every request fails.",
    triton="Error generating stream: inputs must be a string, TextPrompt, or TokensPrompt",
    stage=Stage.INFERENCE,
    backend=BACKEND,
)
def vllm_batched_prompt(context: ModelContext) -> Iterator[Finding]:
    """With Triton's `--disable-auto-complete-config` the backend's auto-complete does
    not run, so nothing sets max_batch_size to 0 (PL806 is its refusal otherwise). The
    batch axis then comes in front of `text_input`: the backend's model.py reads the
    prompt as `get_input_tensor_by_name(request, "text_input").as_numpy()[0]` (every
    release from 24.10 to 26.01), which is then an array of prompts rather than bytes,
    and vLLM refuses it.

    Bad:
        (tritonserver --disable-auto-complete-config)
        backend: "vllm"
        max_batch_size: 8
    Good:
        backend: "vllm"
        max_batch_size: 0
    """
    config = vllm_config(context)
    if config is None or context.auto_complete or config.max_batch_size <= 0:
        return
    yield Finding(
        f"{model_label(context)} sets max_batch_size {config.max_batch_size} and auto-complete "
        "is off (--disable-auto-complete-config), so the vLLM backend keeps it: text_input "
        "arrives with a batch axis, model.py's as_numpy()[0] is an array of prompts instead of "
        'one, and every request fails with "Error generating stream: inputs must be a string, '
        'TextPrompt, or TokensPrompt"',
        at=("max_batch_size",),
        hint="set max_batch_size: 0 (vLLM batches requests itself)",
    )
