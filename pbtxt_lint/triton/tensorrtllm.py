"""TensorRT-LLM's Triton backend and the Python models published with it, as data.

The `tensorrtllm` backend (tensorrtllm_backend `inflight_batcher_llm/src/`, since
TensorRT-LLM 0.20 `triton_backend/` of NVIDIA/TensorRT-LLM) reads its settings from the
config's `parameters` when each instance is created (`ModelInstanceState::
getExecutorConfigFromParams` and the constructor; `ModelState::LoadParameters`).
`ModelState::GetParameter<T>` throws when a key is absent or its string does not convert
(`std::stoi`, `std::stof`, ... or the exact boolean spellings below); nearly every caller
catches that, logs "<key> is not specified, will use default value" and goes on with
the default, so a misspelled key or an unreadable value is silent. A few calls are not
guarded and fail the load: `gpt_model_type`, and from 0.19 the guided-decoding trio.
The executor then checks ranges (`KvCacheConfig` setters in TensorRT-LLM's
`cpp/tensorrt_llm/executor/kvCacheConfig.cpp`, `ExecutorConfig`'s constructor).

The published repository `all_models/inflight_batcher_llm` also holds Python models:
`preprocessing`, `postprocessing`, `tensorrt_llm_bls` and a Python runtime of
`tensorrt_llm` itself (`backend: "python"`, its model.py reads the same keys with
`get_parameter`). Their templates are filled by `tools/fill_template.py`
(`string.Template.safe_substitute`), so an unfilled value stays `${name}`.

Which TensorRT-LLM a Triton release ships comes from Triton's
docs/introduction/compatibility.md (the trtllm-python-py3 image).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.targets import Release

Version = tuple[int, int]
"""A TensorRT-LLM release (major, minor)."""

TRTLLM_OF_RELEASE: Mapping[str, Version] = {
    "24.04": (0, 9), "24.05": (0, 9), "24.06": (0, 10), "24.07": (0, 11),
    "24.08": (0, 12), "24.09": (0, 13), "24.10": (0, 14), "24.11": (0, 15),
    "24.12": (0, 16), "25.01": (0, 17), "25.02": (0, 17), "25.03": (0, 18),
    "25.04": (0, 18), "25.05": (0, 19), "25.06": (0, 20), "25.07": (0, 20),
    "25.08": (0, 21), "25.09": (1, 0), "25.10": (1, 0), "25.11": (1, 0),
    "25.12": (1, 1), "26.01": (1, 1), "26.02": (1, 1), "26.03": (1, 2),
    "26.04": (1, 2), "26.05": (1, 2), "26.06": (1, 2), "26.07": (1, 2),
}  # fmt: skip
"""The TensorRT-LLM of each release's trtllm-python-py3 image (24.04 is the oldest the
compatibility table lists; later releases than the table ship at least the newest)."""

OLDEST_READ: Version = (0, 9)
NEWEST_READ: Version = (1, 2)


def trtllm_version(release: Release | None) -> Version | None:
    """The TensorRT-LLM of `release` (None: not declared, or older than the table)."""
    if release is None:
        return None
    version = TRTLLM_OF_RELEASE.get(release.container)
    if version is None and release.container > max(TRTLLM_OF_RELEASE):
        return NEWEST_READ
    return version


def version_text(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


# --- how the C++ backend converts a parameter's string ------------------------------

BOOL_TRUE = ("True", "true", "TRUE", "1")
BOOL_FALSE = ("False", "false", "FALSE", "0")
"""`GetParameter<bool>`: exactly these spellings; anything else throws "Cannot convert
<v> to a boolean." (so "yes", "on" or "True " fall back to the default)."""

_INT = re.compile(r"[ \t\n\v\f\r]*([+-]?\d+)")
_FLOAT = re.compile(
    r"[ \t\n\v\f\r]*([+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan))",
    re.IGNORECASE,
)


def read_int(text: str) -> int | None:
    """What `std::stoi`/`std::stoll` read: the leading integer, or None when they throw."""
    match = _INT.match(text)
    return int(match.group(1)) if match else None


def read_float(text: str) -> float | None:
    """What `std::stof` reads: the leading decimal number, or None when it throws."""
    match = _FLOAT.match(text)
    return float(match.group(1)) if match else None


def read_ints(text: str) -> list[int] | None:
    """`utils::csvStrToVecInt`: comma-separated `std::stoi` values; None when it throws."""
    values = []
    for item in text.split(","):
        item = item.lstrip()
        if not item:
            break
        value = read_int(item)
        if value is None:
            return None
        values.append(value)
    return values or None


def read_int_lists(text: str) -> list[list[int]] | None:
    """`utils::csvStrToVecVecInt` (medusa_choices, eagle_choices): `{0, 1}, {0, 2}`."""
    lists = []
    for chunk in text.split("}"):
        chunk = chunk.strip().lstrip(",").strip()
        if not chunk:
            continue
        values = read_ints(chunk.lstrip("{"))
        if values is None:
            return None
        lists.append(values)
    return lists or None


def is_placeholder(text: str) -> bool:
    """A value fill_template.py never filled: `${name}`."""
    return text.startswith("${") and text.endswith("}")


def placeholder_name(text: str) -> str:
    return text[2:-1]


# --- the C++ backend's parameters ---------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    """One key the tensorrtllm backend reads from `parameters`."""

    key: str
    kind: str
    """How the string is converted: "string", "bool", "int" (`std::stoi`), "uint"
    (`std::stoul`/`std::stoull`), "float" (`std::stof`), "ints" (csvStrToVecInt),
    "int_lists" (csvStrToVecVecInt), "devices" (`;`-separated csvStrToVecInt)."""
    default: str
    """What the backend uses when the key is absent or unreadable, as its log says."""
    since: Version = OLDEST_READ
    until: Version | None = None
    """The last TensorRT-LLM release that reads this key (None: still read)."""
    choices: tuple[str, ...] = ()
    """The values the backend accepts (case-sensitive); others fall back or fail."""
    fails_load: bool = False
    """A value outside `choices` fails the load instead of falling back."""
    minimum: float | None = None
    """The executor refuses smaller values at load (TLLM_CHECK)."""
    above: float | None = None
    """The executor refuses values not strictly above this one at load."""
    below: float | None = None
    """The executor refuses values not strictly below this one at load."""
    check: str = ""
    """The failed check as TensorRT-LLM prints it ("Assertion failed: <check>"); for a
    fraction, the variable its two checks compare (`> 0.F`, `< 1.F`)."""
    ignored: str = ""
    """What the release logs when it reads the key and ignores it (empty: it is used)."""

    def read_in(self, version: Version) -> bool:
        return self.since <= version and (self.until is None or version <= self.until)


_GPT_MODEL_TYPES = ("V1", "v1", "inflight_batching", "inflight_fused_batching")
_POLICIES = ("max_utilization", "guaranteed_no_evict")
_DECODING_MODES = ("top_k", "top_p", "top_k_top_p", "beam_search", "medusa")
_LATER_MODES = ("redrafter", "lookahead", "eagle")

CPP_PARAMETERS: tuple[Parameter, ...] = (
    Parameter("gpt_model_type", "string", "(none: the load fails)", choices=_GPT_MODEL_TYPES,
              fails_load=True),
    Parameter("gpt_model_path", "string", "empty (no decoder engine)"),
    Parameter("encoder_model_path", "string", "empty (no encoder engine)", since=(0, 11)),
    Parameter("max_beam_width", "int", "1", minimum=1, check="mMaxBeamWidth > 0"),
    Parameter("max_tokens_in_paged_kv_cache", "int",
              "none, so kv_cache_free_gpu_mem_fraction alone sizes the KV cache", minimum=1,
              check="maxTokens > 0"),
    Parameter("kv_cache_free_gpu_mem_fraction", "float", "0.9", above=0.0, below=1.0,
              check="freeGpuMemoryFraction"),
    Parameter("cross_kv_cache_fraction", "float", "unset", since=(0, 14), above=0.0,
              below=1.0, check="crossKvCacheFraction"),
    Parameter("kv_cache_host_memory_bytes", "uint", "0", since=(0, 10)),
    Parameter("kv_cache_onboard_blocks", "bool", "true", since=(0, 10)),
    Parameter("max_attention_window_size", "int", "the engine's max_sequence_length",
              until=(0, 12), minimum=1, check="maxAttentionWindow > 0"),
    Parameter("max_attention_window_size", "ints", "the engine's max_sequence_length",
              since=(0, 13), minimum=1, check="maxAttentionWindow > 0"),
    Parameter("sink_token_length", "int", "unset", since=(0, 10), minimum=1,
              check="sinkTokenLength > 0"),
    Parameter("batch_scheduler_policy", "string", "guaranteed_no_evict", choices=_POLICIES),
    Parameter("enable_kv_cache_reuse", "bool", "false", until=(0, 18)),
    Parameter("enable_kv_cache_reuse", "bool", "true", since=(0, 19)),
    Parameter("normalize_log_probs", "bool", "true"),
    Parameter("enable_chunked_context", "bool", "false"),
    Parameter("enable_trt_overlap", "bool", "false", until=(0, 9)),
    Parameter("enable_trt_overlap", "bool", "false", since=(0, 10), until=(0, 19),
              ignored="enable_trt_overlap is deprecated and will be ignored"),
    Parameter("enable_trt_overlap", "bool", "false", since=(0, 20)),
    Parameter("exclude_input_in_output", "bool", "false"),
    Parameter("cancellation_check_period_ms", "int", "100", since=(0, 10)),
    Parameter("stats_check_period_ms", "int", "100", since=(0, 10)),
    Parameter("iter_stats_max_iterations", "int", "1000", since=(0, 10), minimum=0,
              check="iterStatsMaxIterations >= 0"),
    Parameter("request_stats_max_iterations", "int", "0", since=(0, 10), minimum=0,
              check="requestStatsMaxIterations >= 0"),
    Parameter("gpu_device_ids", "devices", "automatically set"),
    Parameter("participant_ids", "devices", "automatically set", since=(0, 13)),
    Parameter("lora_cache_optimal_adapter_size", "int", "8"),
    Parameter("lora_cache_max_adapter_size", "int", "64"),
    Parameter("lora_cache_gpu_memory_fraction", "float", "0.05"),
    Parameter("lora_cache_host_memory_bytes", "uint", "1GB"),
    Parameter("lora_prefetch_dir", "string", "unset", since=(0, 19)),
    Parameter("decoding_mode", "string",
              "top_k_top_p if max_beam_width == 1, beam_search otherwise",
              until=(0, 15), choices=_DECODING_MODES),
    Parameter("decoding_mode", "string",
              "top_k_top_p if max_beam_width == 1, beam_search otherwise",
              since=(0, 16), choices=_DECODING_MODES + _LATER_MODES),
    Parameter("medusa_choices", "int_lists", "mc_sim_7b_63"),
    Parameter("eagle_choices", "int_lists", "mc_sim_7b_63", since=(0, 16)),
    Parameter("lookahead_window_size", "uint", "(none)", since=(0, 19)),
    Parameter("lookahead_ngram_size", "uint", "(none)", since=(0, 19)),
    Parameter("lookahead_verification_set_size", "uint", "(none)", since=(0, 19)),
    Parameter("gpu_weights_percent", "float", "1.0", since=(0, 10)),
    # Read only in orchestrator mode (TRTLLM_ORCHESTRATOR=1, an environment variable of
    # the server); there worker_path fails the load from 0.10 on ("worker_path parameter
    # is specified, but this is no longer supported").
    Parameter("executor_worker_path", "string",
              "/opt/tritonserver/backends/tensorrtllm/trtllmExecutorWorker", since=(0, 10)),
    Parameter("worker_path", "string", "(none)"),
    Parameter("multiBlockMode", "bool", "true", since=(0, 12), until=(0, 14)),
    Parameter("enableContextFMHAFP32Acc", "bool", "false", since=(0, 12), until=(0, 14)),
    Parameter("multi_block_mode", "bool", "true", since=(0, 15)),
    Parameter("enable_context_fmha_fp32_acc", "bool", "false", since=(0, 15)),
    Parameter("cuda_graph_mode", "bool", "false", since=(0, 15)),
    Parameter("cuda_graph_cache_size", "int", "0", since=(0, 15)),
    Parameter("speculative_decoding_fast_logits", "bool", "false", since=(0, 15)),
    Parameter("recv_poll_period_ms", "int", "0 (busy loop)", since=(0, 13)),
    Parameter("num_nodes", "int", "1", since=(0, 19)),
    # Only the Python runtime uses tokenizer_dir; the C++ backend requires the key.
    Parameter("tokenizer_dir", "string", "(none: the load fails)", since=(0, 19)),
    Parameter("xgrammar_tokenizer_info_path", "string", "(none: the load fails)",
              since=(0, 19)),
    Parameter("guided_decoding_backend", "string", "(none: the load fails)", since=(0, 19),
              choices=("xgrammar",), fails_load=True),
)  # fmt: skip
"""Every key of every release read (0.9 to 1.2), with the releases that read it."""

REQUIRED_SINCE: Mapping[str, Version] = {
    "gpt_model_type": OLDEST_READ,
    "tokenizer_dir": (0, 19),
    "xgrammar_tokenizer_info_path": (0, 19),
    "guided_decoding_backend": (0, 19),
}
"""Keys read without a try (`GetParameter` throws "Cannot find parameter with name:
<key>" and the load fails) from the given release on."""

UNSET_WHEN_PLACEHOLDER = frozenset({"tokenizer_dir", "xgrammar_tokenizer_info_path",
                                    "guided_decoding_backend"})  # fmt: skip
"""String keys the backend itself treats as unset when they hold their own `${key}` or
nothing (`getGuidedDecodingConfigFromParams`)."""

LOOKAHEAD_KEYS = ("lookahead_window_size", "lookahead_ngram_size",
                  "lookahead_verification_set_size")  # fmt: skip
ENGINE_KEYS = ("gpt_model_path", "encoder_model_path")
PYTHON_BACKEND_KEYS = frozenset({"FORCE_CPU_ONLY_INPUT_TENSORS", "EXECUTION_ENV_PATH"})
"""The published template sets FORCE_CPU_ONLY_INPUT_TENSORS for the Python runtime of
the same config; the C++ backend ignores it, harmlessly."""


def cpp_parameters(version: Version | None) -> dict[str, Parameter]:
    """The keys `version` reads (None: the newest release's reading of every key any
    release reads, so a key is known when some release knows it)."""
    chosen: dict[str, Parameter] = {}
    for parameter in CPP_PARAMETERS:
        if version is None or parameter.read_in(version):
            chosen[parameter.key] = parameter
    return chosen


def releases_reading(key: str) -> tuple[Version, Version | None] | None:
    """The first and last (None: still) TensorRT-LLM release that reads `key`."""
    spans = [(p.since, p.until) for p in CPP_PARAMETERS if p.key == key]
    if not spans:
        return None
    last = None if any(until is None for _, until in spans) else max(u for _, u in spans if u)
    return min(since for since, _ in spans), last


# --- the Python models of inflight_batcher_llm ---------------------------------------


@dataclass(frozen=True)
class PythonParameter:
    """A key a published Python model reads from `parameters`, and how."""

    key: str
    default: str
    """What the model uses when the key is absent or unreadable."""
    accepted: tuple[str, ...] = ()
    """Lower-cased spellings it recognises; others become `default` (empty: any)."""
    digits: bool = False
    """Read with `str.isdigit()` (max_num_images)."""


_TRUTH = ("true", "false", "1", "0", "t", "f", "y", "n", "yes", "no")

PYTHON_PARAMETERS: Mapping[str, tuple[PythonParameter, ...]] = {
    # preprocessing/1/model.py initialize: tokenizer_dir and visual_model_path are
    # subscripted (KeyError when absent); add_special_tokens and max_num_images use get().
    "preprocessing": (
        PythonParameter("tokenizer_dir", "(none: the load fails)"),
        PythonParameter("add_special_tokens", "True", _TRUTH),
        PythonParameter("visual_model_path", "None (no vision encoder)"),
        PythonParameter("gpt_model_path", "(read only with visual_model_path)"),
        PythonParameter("max_num_images", "None", digits=True),
    ),
    "postprocessing": (
        PythonParameter("tokenizer_dir", "(none: the load fails)"),
        PythonParameter("skip_special_tokens", "True", _TRUTH),
    ),
    # tensorrt_llm_bls/1/model.py initialize: get_valid_param_value() treats "" and
    # "${...}" as unset; accumulate_tokens is true for true/yes/1/t.
    "tensorrt_llm_bls": (
        PythonParameter("accumulate_tokens", "false", ("true", "yes", "1", "t", "false",
                                                       "no", "0", "f")),
        PythonParameter("tensorrt_llm_model_name", "tensorrt_llm"),
        PythonParameter("tensorrt_llm_draft_model_name", "None (no draft model)"),
        PythonParameter("multimodal_encoders_name", "None (no multimodal encoder)"),
    ),
}  # fmt: skip
"""Keys of the Python models, by role (the folder names of the published repository)."""

BLS_CALLEES = ("preprocessing", "postprocessing")
"""The models tensorrt_llm_bls calls by these fixed names (TritonDecoder's defaults,
which its model.py passes as literals); the LLM's name comes from a parameter."""


# --- the tensors the C++ backend reads and writes ------------------------------------

_INT32, _FP32, _BOOL, _UINT64 = "TYPE_INT32", "TYPE_FP32", "TYPE_BOOL", "TYPE_UINT64"

SCALAR_INPUTS: Mapping[str, str] = {
    "request_output_len": _INT32, "end_id": _INT32, "pad_id": _INT32,
    "beam_width": _INT32, "runtime_top_k": _INT32, "runtime_top_p": _FP32,
    "runtime_top_k_min": _FP32, "runtime_top_p_decay": _FP32,
    "runtime_top_p_reset_ids": _INT32, "temperature": _FP32, "len_penalty": _FP32,
    "repetition_penalty": _FP32, "min_length": _INT32,
    "beam_search_diversity_rate": _FP32, "presence_penalty": _FP32,
    "frequency_penalty": _FP32, "random_seed": _UINT64, "no_repeat_ngram_size": _INT32,
    "num_return_sequences": _INT32, "return_log_probs": _BOOL,
    "return_context_logits": _BOOL, "return_generation_logits": _BOOL,
    "return_perf_metrics": _BOOL, "exclude_input_in_output": _BOOL,
    "draft_acceptance_threshold": _FP32, "lora_task_id": _UINT64,
    "streaming": _BOOL, "stop": _BOOL,
}  # fmt: skip
"""Inputs read as one value of a fixed C++ type (utils.h `extractSingleton<T>` copies
the raw bytes, whatever the request's type; `getRequestBooleanInputTensor` reads a
bool). `early_stopping` is read as int32 although the published config declares
TYPE_BOOL, so it is left out (the template's own choice, see the census notes)."""

TOKEN_INPUTS: Mapping[str, str] = {
    "input_ids": _INT32, "input_lengths": _INT32, "decoder_input_ids": _INT32,
    "bad_words_list": _INT32, "stop_words_list": _INT32, "draft_input_ids": _INT32,
    "lora_config": _INT32,
}  # fmt: skip
"""Inputs read as int32 vectors (`extractVector<int32_t>`, the sliced input_lengths)."""

OTHER_INPUTS = frozenset({
    "encoder_input_features", "encoder_output_lengths", "embedding_bias",
    "context_phase_params", "cross_attention_mask", "skip_cross_attn_blocks",
    "prompt_embedding_table", "prompt_table_extra_ids", "mrope_rotary_cos_sin",
    "mrope_position_deltas", "lora_weights", "draft_logits",
    "retention_token_range_starts", "retention_token_range_ends",
    "retention_token_range_priorities", "retention_token_range_durations_ms",
    "retention_decode_priority", "retention_decode_duration_ms",
    "guided_decoding_guide_type", "guided_decoding_guide", "lookahead_window_size",
    "lookahead_ngram_size", "lookahead_verification_set_size",
    "return_kv_cache_reuse_stats", "early_stopping", "START", "END", "CORRID",
})  # fmt: skip
"""Other inputs the backend reads by name (their types follow the engine or are
checked by the executor)."""

UNREAD_TEMPLATE_INPUTS = frozenset({"prompt_vocab_size", "decoder_input_lengths",
                                    "runtime_top_p_min"})  # fmt: skip
"""Inputs the published config declares that the backend never reads (it reads
`runtime_top_k_min`, not `runtime_top_p_min`): not reported, they are the template's."""

PIPELINE_NAMES: Mapping[str, str] = {
    "max_tokens": "request_output_len", "top_k": "runtime_top_k", "top_p": "runtime_top_p",
    "length_penalty": "len_penalty", "stream": "streaming", "bad_words": "bad_words_list",
    "stop_words": "stop_words_list", "input_length": "input_lengths",
    "request_input_len": "input_lengths",
}  # fmt: skip
"""The ensemble's and BLS model's names of what tensorrt_llm calls otherwise (the
published ensemble's input_map, tensorrt_llm_bls's name_map): a config that uses the
client-facing name on tensorrt_llm itself gets it ignored."""

OUTPUTS = frozenset({
    "output_ids", "sequence_length", "context_logits", "generation_logits",
    "output_log_probs", "cum_log_probs", "batch_index", "sequence_index",
    "context_phase_params", "kv_cache_alloc_new_blocks", "kv_cache_reused_blocks",
    "kv_cache_alloc_total_blocks", "arrival_time_ns", "first_scheduled_time_ns",
    "first_token_time_ns", "last_token_time_ns", "acceptance_rate",
    "total_accepted_draft_tokens", "total_draft_tokens",
})  # fmt: skip
"""Outputs the backend writes (utils.h `OutputFieldsNames`)."""

REQUIRED_OUTPUTS = ("output_ids", "sequence_length")
"""Every response writes these or fails ("<name> tensor must be present in list of
output tensors"), so the config must declare them."""

LOGITS_OUTPUTS = ("context_logits", "generation_logits")
LOGITS_TYPES = ("TYPE_FP32", "TYPE_FP16")
"""The logits types a response can carry ("Logits type is not supported" otherwise)."""


# --- which model of the pipeline a config is -----------------------------------------


def role(config: ModelConfig, has_bls_library: bool = False) -> str | None:
    """Which model of inflight_batcher_llm `config` is: "tensorrt_llm" (the C++
    backend), "tensorrt_llm_python" (its Python runtime), "preprocessing",
    "postprocessing", "tensorrt_llm_bls", or None. Told by the tensors and parameters
    the published configs declare, not by folder names (users rename folders)."""
    if config.backend == "tensorrtllm":
        return "tensorrt_llm"
    if config.backend != "python":
        return None
    inputs = {io.name for io in config.input}
    outputs = {io.name for io in config.output}
    parameters = config.parameters
    if "input_ids" in inputs and "output_ids" in outputs and "gpt_model_path" in parameters:
        return "tensorrt_llm_python"
    if "QUERY" in inputs and "INPUT_ID" in outputs:
        return "preprocessing"
    if "TOKENS_BATCH" in inputs and "OUTPUT" in outputs:
        return "postprocessing"
    bls_keys = ("tensorrt_llm_model_name", "accumulate_tokens")
    if "text_input" in inputs and "text_output" in outputs:
        if has_bls_library or any(key in parameters for key in bls_keys):
            return "tensorrt_llm_bls"
    return None
