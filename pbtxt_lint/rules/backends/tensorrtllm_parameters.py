"""PL825-PL828: the `parameters` of TensorRT-LLM's backend and of its Python models.

The tensorrtllm backend reads its keys when each instance is created; all but a few
fall back to a default when a key is absent or its value does not convert, logging a
warning nobody reads. The facts per release are `pbtxt_lint.triton.tensorrtllm`
(CPP_PARAMETERS, PYTHON_PARAMETERS); the published Python models' reads come from
their own model.py (`artifacts.python_initialize`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from pbtxt_lint.artifacts.python_initialize import initialize_reads
from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    WARNING,
    Finding,
    Key,
    ModelContext,
    Scope,
    Stage,
    rule,
    suggest,
)
from pbtxt_lint.rules.artifacts.common import loaded
from pbtxt_lint.rules.backends.tensorrtllm_common import (
    Pipeline,
    fill_hint,
    pipeline_model,
    value_path,
)
from pbtxt_lint.rules.backends.tensorrtllm_values import (
    cpp_value_problems,
    python_model_value_problems,
    python_runtime_value_problems,
)
from pbtxt_lint.rules.common import BATCH_STRATEGY_PATH
from pbtxt_lint.triton.tensorrtllm import (
    CPP_PARAMETERS,
    LOOKAHEAD_KEYS,
    OLDEST_READ,
    PYTHON_BACKEND_KEYS,
    PYTHON_PARAMETERS,
    REQUIRED_SINCE,
    cpp_parameters,
    is_placeholder,
    read_int,
    releases_reading,
    version_text,
)

_ALL_CPP_KEYS = tuple(dict.fromkeys(p.key for p in CPP_PARAMETERS))
_FIXED = frozenset({*PYTHON_BACKEND_KEYS, BATCH_STRATEGY_PATH})
_LEGACY_PYTHON_KEYS = ("visual_model_path", "multimodal_model_path", "tokenizer_type")
"""Keys of other releases of the preprocessing model (0.12 to 0.18 read
visual_model_path, 0.19 multimodal_model_path; tokenizer_type before 0.9)."""


def _known_python_keys(found: Pipeline) -> tuple[str, ...]:
    keys = [p.key for p in PYTHON_PARAMETERS.get(found.role, ())]
    if found.role == "preprocessing":
        keys += _LEGACY_PYTHON_KEYS
    return tuple(keys)


@rule(
    "PL825",
    "tensorrtllm-parameter-unknown",
    WARNING,
    "A TensorRT-LLM parameter key the backend or Python model does not read (a typo keeps "
    "the default).",
    triton="<key> is not specified, will use default value (about the key meant)",
    backend="tensorrtllm",
)
def tensorrtllm_parameter_unknown(context: ModelContext) -> Iterator[Finding]:
    """The tensorrtllm backend asks for the keys it knows by exact name and ignores the
    rest, so a misspelled key is silent: the key meant keeps its default (logged as
    "kv_cache_free_gpu_mem_fraction is not specified, will use default value of 0.9").
    A near miss of a known key is a warning naming that default; another unknown key
    is info. With `--triton-version`, a key the targeted release does not read (added
    later, or renamed: 24.08 to 24.10 read `multiBlockMode`, not `multi_block_mode`) is
    info, and so is `enable_trt_overlap`, which 24.06 to 25.05 log as ignored. The
    Python models (preprocessing, postprocessing, BLS) only get the near misses: their
    model.py may read keys of its own. A key whose value is empty or an unfilled
    `${...}` sets nothing either way and is not reported.

    Bad:
        backend: "tensorrtllm"
        parameters { key: "kv_cache_free_gpu_memory_fraction" value { string_value: "0.5" } }
    Good:
        backend: "tensorrtllm"
        parameters { key: "kv_cache_free_gpu_mem_fraction" value { string_value: "0.5" } }
    """
    found = pipeline_model(context)
    if found is None:
        return
    if found.role == "tensorrt_llm":
        yield from _unknown_cpp_keys(found)
        return
    known = _ALL_CPP_KEYS if found.role == "tensorrt_llm_python" else _known_python_keys(found)
    defaults = {p.key: p.default for p in PYTHON_PARAMETERS.get(found.role, ())}
    defaults |= {p.key: p.default for p in CPP_PARAMETERS if found.role == "tensorrt_llm_python"}
    for key in found.config.parameters:
        if key in known or key in _FIXED or not found.usable(key):
            continue
        guess = suggest(key, known, cutoff=0.8)
        if guess is not None:
            yield _near_miss(found, key, guess, defaults.get(guess, "its default"))


def _unknown_cpp_keys(found: Pipeline) -> Iterator[Finding]:
    read = cpp_parameters(found.version)
    for key in found.config.parameters:
        if key in _FIXED or not found.usable(key):
            continue  # an empty or unfilled value sets nothing, whatever the key
        parameter = read.get(key)
        if parameter is not None:
            if parameter.ignored and found.version is not None:
                yield Finding(
                    f"parameter '{key}' of {found.label} has no effect on {found.release}: the "
                    f'backend logs "{parameter.ignored}"',
                    at=("parameters", Key(key)),
                    hint="delete it (TensorRT-LLM 1.0 and newer use it again)",
                    severity=INFO,
                )
            continue
        span = releases_reading(key)
        if span is not None:
            first, last = span
            when = f"from TensorRT-LLM {version_text(first)}" + (
                f" to {version_text(last)}" if last else ""
            )
            yield Finding(
                f"parameter '{key}' of {found.label} is not read by {found.release}: the "
                f"tensorrtllm backend reads it {when}, so here it is ignored",
                at=("parameters", Key(key)),
                hint=_renamed_hint(key, read),
                severity=INFO,
            )
            continue
        guess = suggest(key, list(read), cutoff=0.75)
        if guess is not None:
            yield _near_miss(found, key, guess, read[guess].default)
        else:
            yield Finding(
                f"parameter '{key}' of {found.label} is not read by the tensorrtllm backend "
                "(nor by any TensorRT-LLM release pbtxt-lint knows): it is ignored",
                at=("parameters", Key(key)),
                hint="delete it, or check the key against the backend's docs "
                "(docs/model_config.md of tensorrtllm_backend)",
                severity=INFO,
            )


def _renamed_hint(key: str, read: Mapping[str, object]) -> str:
    guess = suggest(key.replace("_", ""), [k.replace("_", "") for k in read], cutoff=0.8)
    match = next((k for k in read if guess and k.replace("_", "") == guess), None)
    if match is not None and match != key:
        return f"this release reads '{match}': rename it"
    return "delete it, or target a release that reads it (--triton-version)"


def _near_miss(found: Pipeline, key: str, guess: str, default: str) -> Finding:
    return Finding(
        f"parameter '{key}' of {found.label} is not a key it reads; did you mean '{guess}'? "
        f"'{key}' is ignored without a word, and '{guess}' keeps its default: {default}",
        at=("parameters", Key(key)),
        hint=f"rename it to '{guess}'",
    )


@rule(
    "PL826",
    "tensorrtllm-parameter-invalid",
    ERROR,
    "A TensorRT-LLM parameter value that fails the load, or that the backend silently "
    "replaces by its default.",
    triton="Invalid gpt_model_type. Must be v1/inflight_batching/inflight_fused_batching. / "
    "[TensorRT-LLM][ERROR] Assertion failed: freeGpuMemoryFraction < 1.F / Cannot convert "
    "<v> to a boolean.",
    stage=Stage.LOAD,
    backend="tensorrtllm",
)
def tensorrtllm_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """What each value becomes is decided by how the backend converts it:
    `gpt_model_type` must be V1, v1, inflight_batching or inflight_fused_batching, or
    the load fails. Numbers are read by `std::stoi`/`std::stof` (the leading number:
    "0,9" is 0) and then checked by TensorRT-LLM's executor when the instance is
    created: `kv_cache_free_gpu_mem_fraction` strictly between 0 and 1 (1.0 fails),
    `max_tokens_in_paged_kv_cache`, `sink_token_length`, `max_beam_width` and each
    `max_attention_window_size` above 0. A number that does not convert, a boolean
    outside True/true/TRUE/1/False/false/FALSE/0, or an unknown `batch_scheduler_policy`
    or `decoding_mode` is logged and replaced by the default: a warning naming it.
    The Python runtime of the same config (`backend: "python"`, tensorrt_llm/1/model.py)
    refuses unknown choices instead, and reads every boolean but 1/true as false; the
    preprocessing and postprocessing models read add_special_tokens and
    skip_special_tokens as true unless they recognise the value, the BLS model
    accumulate_tokens as false. Unfilled `${...}` values are PL827's.

    Bad:
        parameters { key: "kv_cache_free_gpu_mem_fraction" value { string_value: "1.0" } }
    Good:
        parameters { key: "kv_cache_free_gpu_mem_fraction" value { string_value: "0.9" } }
    """
    found = pipeline_model(context)
    if found is None:
        return
    if found.role == "tensorrt_llm":
        yield from cpp_value_problems(found)
    elif found.role == "tensorrt_llm_python":
        yield from python_runtime_value_problems(found)
    else:
        yield from python_model_value_problems(found)


@rule(
    "PL827",
    "tensorrtllm-parameter-unfilled",
    ERROR,
    "A TensorRT-LLM parameter left as its template placeholder where that fails the load.",
    triton="Invalid gpt_model_type. Must be v1/inflight_batching/inflight_fused_batching. / "
    "[TensorRT-LLM][ERROR] Assertion failed: Both encoder and decoder model paths are empty",
    stage=Stage.LOAD,
    backend="tensorrtllm",
)
def tensorrtllm_parameter_unfilled(context: ModelContext) -> Iterator[Finding]:
    """The published configs are templates that tools/fill_template.py fills; a key it
    was not given stays `${name}`, which Triton parses as any string. The backend and
    its Python models treat most of those as unset (their default applies: that is
    how the documented example runs), but not these: `gpt_model_type: "${batching_strategy}"`
    is not a batching type; `gpt_model_path: "${engine_dir}"` is not a folder, so the
    backend leaves it empty and, with no encoder path either, stops with "Both encoder
    and decoder model paths are empty"; preprocessing's and postprocessing's
    `tokenizer_dir: "${tokenizer_dir}"` goes to `AutoTokenizer.from_pretrained`, which
    refuses it ("OSError: Incorrect path_or_model_id: '${tokenizer_dir}'", seen with
    scripts/trtllm_live.py). PL009 reports every placeholder of the file; this says
    what the backend does with these ones.

    Bad:
        parameters { key: "gpt_model_type" value { string_value: "${batching_strategy}" } }
    Good:
        parameters { key: "gpt_model_type" value { string_value: "inflight_fused_batching" } }
    """
    found = pipeline_model(context)
    if found is None:
        return
    config_file = f"{found.name}/config.pbtxt"
    if found.role == "tensorrt_llm":
        value = found.value("gpt_model_type") or ""
        if is_placeholder(value):
            yield Finding(
                f"parameter gpt_model_type of {found.label} is the unfilled placeholder "
                f'"{value}": the backend fails the load with "Invalid gpt_model_type. Must '
                'be v1/inflight_batching/inflight_fused_batching."',
                at=value_path("gpt_model_type"),
                hint=fill_hint(value, config_file, "inflight_fused_batching"),
            )
    if found.role in ("tensorrt_llm", "tensorrt_llm_python"):
        yield from _unfilled_engine(found, config_file)
    if found.role in ("preprocessing", "postprocessing"):
        value = found.value("tokenizer_dir") or ""
        if is_placeholder(value):
            yield Finding(
                f"parameter tokenizer_dir of {found.label} is the unfilled placeholder "
                f'"{value}": initialize passes it to AutoTokenizer.from_pretrained, and the '
                f"model fails to load with \"OSError: Incorrect path_or_model_id: '{value}'. "
                "Please provide either the path to a local folder or the repo_id of a model on "
                'the Hub."',
                at=value_path("tokenizer_dir"),
                hint=fill_hint(value, config_file, "/path/to/hf_model"),
            )


def _unfilled_engine(found: Pipeline, config_file: str) -> Iterator[Finding]:
    keys = ("gpt_model_path",) if found.role == "tensorrt_llm_python" else (
        "gpt_model_path", "encoder_model_path")  # fmt: skip
    if any(found.usable(key) for key in keys):
        return
    for key in keys:
        value = found.value(key) or ""
        if not is_placeholder(value):
            continue
        why = (
            'so the backend stops with "Both encoder and decoder model paths are empty"'
            if found.role == "tensorrt_llm"
            else "so get_parameter returns None and trtllm.Executor cannot open an engine"
        )
        yield Finding(
            f'parameter {key} of {found.label} is the unfilled placeholder "{value}", the '
            f"model's only engine path: it is no folder the server has, {why}; the model "
            "fails to load",
            at=value_path(key),
            hint=fill_hint(value, config_file, "/path/to/engines"),
        )
        return


@rule(
    "PL828",
    "tensorrtllm-parameter-missing",
    ERROR,
    "A parameter the TensorRT-LLM backend or its Python model needs is not set.",
    triton="unexpected error when creating modelInstanceState: Cannot find parameter with "
    "name: gpt_model_type / failed to load 'postprocessing' version 1: Internal: KeyError: "
    "'tokenizer_dir'",
    stage=Stage.LOAD,
    scope=Scope.ANY,
    backend="tensorrtllm",
)
def tensorrtllm_parameter_missing(context: ModelContext) -> Iterator[Finding]:
    """Some keys are read without a fallback. The tensorrtllm backend needs
    `gpt_model_type`, an engine (`gpt_model_path` or, for an encoder,
    `encoder_model_path`), the three lookahead sizes when `decoding_mode` is lookahead,
    and from TensorRT-LLM 0.19 (Triton 25.05) the keys `tokenizer_dir`,
    `xgrammar_tokenizer_info_path` and `guided_decoding_backend` (empty or `${...}` is
    fine, absent fails: configs written for older releases stop loading). Without
    `--triton-version` that last one is info. The preprocessing and postprocessing
    models subscript the keys their model.py reads in initialize
    (`model_config['parameters']['tokenizer_dir']`): "KeyError: 'tokenizer_dir'" when
    absent (tritonserver 2.51, scripts/trtllm_live.py).

    Bad:
        backend: "tensorrtllm"
        parameters { key: "gpt_model_path" value { string_value: "/engines/llama" } }
    Good:
        backend: "tensorrtllm"
        parameters { key: "gpt_model_type" value { string_value: "inflight_fused_batching" } }
        parameters { key: "gpt_model_path" value { string_value: "/engines/llama" } }
    """
    found = pipeline_model(context)
    if found is None:
        return
    if found.role == "tensorrt_llm":
        yield from _missing_cpp(found)
    elif found.role == "tensorrt_llm_python":
        yield from _missing_python_runtime(found)
    elif found.role in ("preprocessing", "postprocessing"):
        yield from _missing_python_model(context, found)


def _missing_cpp(found: Pipeline) -> Iterator[Finding]:
    parameters = found.config.parameters
    if not parameters:
        yield Finding(
            f'{found.label} has no parameters: the backend fails the load with "Model config '
            "doesn't have a parameters section\" (it needs gpt_model_type and an engine path)",
            hint='add parameters { key: "gpt_model_type" value { string_value: '
            '"inflight_fused_batching" } } and gpt_model_path',
        )
        return
    version = found.version
    if "gpt_model_type" in parameters and not found.value("gpt_model_type"):
        yield Finding(
            f"parameter gpt_model_type of {found.label} is empty: the backend fails the load "
            'with "Invalid gpt_model_type. Must be v1/inflight_batching/inflight_fused_batching."',
            at=value_path("gpt_model_type"),
            hint='write "inflight_fused_batching"',
        )
    for key, since in REQUIRED_SINCE.items():
        if key in parameters or (version is not None and version < since):
            continue
        on = found.release or (
            "the backend" if since == OLDEST_READ else
            f"TensorRT-LLM {version_text(since)} and newer (Triton 25.05+)"
        )  # fmt: skip
        yield Finding(
            f"{found.label} has no '{key}' parameter: {on} fails the load with \"unexpected "
            f'error when creating modelInstanceState: Cannot find parameter with name: {key}"',
            at=("parameters",),
            hint=f'add parameters {{ key: "{key}" value {{ string_value: "{_example(key)}" }} }}',
            severity=INFO if version is None and since > OLDEST_READ else None,
        )
    if not any(found.value(k) for k in ("gpt_model_path", "encoder_model_path")):
        yield Finding(
            f"{found.label} names no engine: neither gpt_model_path nor encoder_model_path is "
            'set, so the backend fails the load with "Both encoder and decoder model paths '
            'are empty"',
            at=("parameters",),
            hint='add parameters { key: "gpt_model_path" value { string_value: '
            '"/path/to/engines" } } (the folder holding config.json and rank0.engine)',
        )
    if found.value("decoding_mode") == "lookahead" and (version is None or version >= (0, 19)):
        unusable = [k for k in LOOKAHEAD_KEYS if read_int(found.value(k) or "") is None]
        if unusable:
            yield Finding(
                f"{found.label} sets decoding_mode lookahead without a readable "
                f'{", ".join(unusable)}: the backend fails the load with "Decoding mode is '
                'set to lookahead but lookahead parameters are not specified."',
                at=value_path("decoding_mode"),
                hint="set lookahead_window_size, lookahead_ngram_size and "
                "lookahead_verification_set_size (whole numbers)",
                severity=INFO if version is None else None,
            )


def _missing_python_runtime(found: Pipeline) -> Iterator[Finding]:
    if not found.value("gpt_model_path"):
        yield Finding(
            f"{found.label} has no gpt_model_path: get_parameter returns None and "
            "trtllm.Executor cannot open an engine, so the model fails to load",
            at=("parameters",),
            hint='add parameters { key: "gpt_model_path" value { string_value: '
            '"/path/to/engines" } }',
        )
    set_sizes = [k for k in LOOKAHEAD_KEYS if found.usable(k)]
    if found.value("decoding_mode") == "lookahead" and 0 < len(set_sizes) < 3:
        yield Finding(
            f"{found.label} sets only {', '.join(set_sizes)} of the three lookahead sizes: "
            'initialize fails with "Please set executor_lookahead_window_size, '
            "executor_lookahead_ngram_size and executor_lookahead_verification_set_size "
            'together."',
            at=value_path("decoding_mode"),
            hint="set all three lookahead_* parameters, or none",
        )
    if found.value("guided_decoding_backend") == "xgrammar" and not found.usable("tokenizer_dir"):
        yield Finding(
            f"{found.label} sets guided_decoding_backend xgrammar without a tokenizer_dir: "
            "initialize fails with \"Guided decoding requires tokenizer's information. Please "
            "provide 'tokenizer_dir'.\"",
            at=value_path("guided_decoding_backend"),
            hint="set tokenizer_dir to the Hugging Face model folder",
        )


def _missing_python_model(context: ModelContext, found: Pipeline) -> Iterator[Finding]:
    reported: set[str] = set()
    for artifact, signature in loaded(context, "python"):
        reads = initialize_reads(signature.module)
        shown = artifact.opened.relative_to(context.model.path.parent).as_posix()
        for read in reads.parameters:
            if read.key in reported or read.key in found.config.parameters:
                continue
            reported.add(read.key)
            yield Finding(
                f"{found.label} has no '{read.key}' parameter, which {shown} line {read.line} "
                f"reads in initialize (model_config['parameters']['{read.key}']): KeyError: "
                f"'{read.key}', and the model fails to load",
                at=("parameters",),
                hint=f'add parameters {{ key: "{read.key}" value {{ string_value: '
                f'"{_example(read.key)}" }} }}',
            )
    value = found.value("tokenizer_dir")
    if value == "" and "tokenizer_dir" not in reported:
        yield Finding(
            f"parameter tokenizer_dir of {found.label} is empty: AutoTokenizer.from_pretrained"
            "('') cannot load a tokenizer, so the model fails to load",
            at=value_path("tokenizer_dir"),
            hint="set it to the Hugging Face model folder (or Hub id) of the engine's model",
        )


def _example(key: str) -> str:
    return {
        "gpt_model_type": "inflight_fused_batching",
        "tokenizer_dir": "/path/to/hf_model",
        "visual_model_path": "${visual_model_path}",
        "multimodal_model_path": "${multimodal_model_path}",
        "gpt_model_path": "/path/to/engines",
    }.get(key, "${" + key + "}")
