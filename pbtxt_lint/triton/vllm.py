"""What the vLLM backend does with a model, per Triton release, as data.

The vLLM backend (triton-inference-server/vllm_backend, `src/model.py`) is a
Python-based backend: the python backend's stub runs its `model.py` for every model
with `backend: "vllm"`. Per release it adds inputs and outputs in
`auto_complete_config`, forces `max_batch_size: 0` and the decoupled transaction
policy, reads `<model>/<version>/model.json` and passes it to vLLM as
`AsyncEngineArgs(**model_json)`, refuses `KIND_GPU` for a multi-GPU model, reads
`multi_lora.json` when LoRA is enabled and a few `parameters`. `BACKEND_RELEASES` says
what each vllm_backend release branch does; `VLLM_OF_RELEASE` which vLLM the image of
each Triton release installs (server build.py, "vLLM version" / `vllm_version`); and
the generated tables below which engine arguments each vLLM release accepts
(`scripts/gen_vllm_args.py`, from vLLM's `vllm/engine/arg_utils.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from pbtxt_lint.targets import NEWEST, Release, Version

ENGINE_ARGS_FILE = "model.json"
"""vllm_backend `_VLLM_ENGINE_ARGS_FILENAME`: read from the version folder
(`pb_utils.get_model_dir()`), whatever `default_model_filename` says."""
LORA_FILE = "multi_lora.json"
"""vllm_backend `_MULTI_LORA_ARGS_FILENAME`: LoRA name -> path, read when enable_lora."""


@dataclass(frozen=True)
class VllmTensor:
    """An input or output the backend's auto_complete_config adds when the config lacks it."""

    name: str
    data_type: str
    dims: tuple[int, ...]
    optional: bool = False
    read_as: str = ""
    """How model.py uses it, when a different data type breaks every request that sends
    it: "text" (decoded as UTF-8 text or parsed as JSON); "" when any type works."""

    def as_dict(self) -> dict[str, object]:
        """The tensor as model.py passes it to `add_input` / `add_output`."""
        entry: dict[str, object] = {
            "name": self.name,
            "data_type": self.data_type,
            "dims": list(self.dims),
        }
        if self.optional:
            entry["optional"] = True
        return entry


@dataclass(frozen=True)
class BackendRelease:
    """What vllm_backend's model.py does from Triton release `first` on."""

    first: Version
    branch: str
    """The vllm_backend branch read (`r24.10`)."""
    auto_complete: bool
    inputs: tuple[VllmTensor, ...]
    outputs: tuple[VllmTensor, ...]
    multi_gpu_args: tuple[str, ...]
    """Engine arguments whose product above 1 makes `_validate_device_config` refuse
    KIND_GPU; () when the release does not check."""
    true_value: str
    """The `parameters` string_value that turns REPORT_CUSTOM_METRICS (and
    ENABLE_VLLM_HEALTH_CHECK) on; "" when the release reads neither."""
    parameters: tuple[str, ...]


_TEXT_INPUT = VllmTensor("text_input", "TYPE_STRING", (1,), read_as="text")
_STREAM = VllmTensor("stream", "TYPE_BOOL", (1,), optional=True)
_SAMPLING = VllmTensor("sampling_parameters", "TYPE_STRING", (1,), optional=True, read_as="text")
_EXCLUDE = VllmTensor("exclude_input_in_output", "TYPE_BOOL", (1,), optional=True)
_IMAGE = VllmTensor("image", "TYPE_STRING", (-1,), optional=True, read_as="text")
_RETURNS = tuple(
    VllmTensor(f"return_{what}", "TYPE_BOOL", (1,), optional=True)
    for what in (
        "finish_reason",
        "cumulative_logprob",
        "logprobs",
        "num_input_tokens",
        "num_output_tokens",
    )
)
_EMBEDDING = VllmTensor("embedding_request", "TYPE_STRING", (1,), optional=True, read_as="text")
_TEXT_OUTPUT = VllmTensor("text_output", "TYPE_STRING", (-1,), read_as="text")
_ADDITIONAL_OUTPUTS = (
    VllmTensor("finish_reason", "TYPE_STRING", (-1,)),
    VllmTensor("cumulative_logprob", "TYPE_FP32", (-1,)),
    VllmTensor("logprobs", "TYPE_STRING", (-1,)),
    VllmTensor("num_input_tokens", "TYPE_UINT32", (1,)),
    VllmTensor("num_output_tokens", "TYPE_UINT32", (-1,)),
)
_METRICS = "REPORT_CUSTOM_METRICS"
_HEALTH = "ENABLE_VLLM_HEALTH_CHECK"
_TP = ("tensor_parallel_size",)

BACKEND_RELEASES: tuple[BackendRelease, ...] = (
    # r23.10: no auto_complete_config; the config declares the tensors itself.
    BackendRelease((2, 39), "r23.10", False, (), (), (), "", ()),
    BackendRelease(
        (2, 40), "r23.11", True, (_TEXT_INPUT, _STREAM, _SAMPLING), (_TEXT_OUTPUT,), (), "", ()
    ),
    BackendRelease(
        (2, 44),
        "r24.03",
        True,
        (_TEXT_INPUT, _STREAM, _SAMPLING, _EXCLUDE),
        (_TEXT_OUTPUT,),
        (),
        "",
        (),
    ),
    # r24.06: _validate_device_config refuses KIND_GPU with tensor_parallel_size > 1.
    BackendRelease(
        (2, 47),
        "r24.06",
        True,
        (_TEXT_INPUT, _STREAM, _SAMPLING, _EXCLUDE),
        (_TEXT_OUTPUT,),
        _TP,
        "",
        (),
    ),
    # r24.08: REPORT_CUSTOM_METRICS, on when its string_value is exactly "yes".
    BackendRelease(
        (2, 49),
        "r24.08",
        True,
        (_TEXT_INPUT, _STREAM, _SAMPLING, _EXCLUDE),
        (_TEXT_OUTPUT,),
        _TP,
        "yes",
        (_METRICS,),
    ),
    # r24.12: the additional outputs and their return_* switches; the health check;
    # parameters on when string_value.lower() == "true"; `image` only with vLLM >= 0.6.3,
    # which the 24.12 image does not ship.
    BackendRelease(
        (2, 53),
        "r24.12",
        True,
        (_TEXT_INPUT, _STREAM, _SAMPLING, _EXCLUDE, *_RETURNS),
        (_TEXT_OUTPUT, *_ADDITIONAL_OUTPUTS),
        _TP,
        "true",
        (_METRICS, _HEALTH),
    ),
    BackendRelease(
        (2, 54),
        "r25.01",
        True,
        (_TEXT_INPUT, _IMAGE, _STREAM, _SAMPLING, _EXCLUDE, *_RETURNS),
        (_TEXT_OUTPUT, *_ADDITIONAL_OUTPUTS),
        _TP,
        "true",
        (_METRICS, _HEALTH),
    ),
    BackendRelease(
        (2, 63),
        "r25.11",
        True,
        (_TEXT_INPUT, _IMAGE, _STREAM, _SAMPLING, _EXCLUDE, *_RETURNS, _EMBEDDING),
        (_TEXT_OUTPUT, *_ADDITIONAL_OUTPUTS),
        _TP,
        "true",
        (_METRICS, _HEALTH),
    ),
    # r26.01: tensor_parallel_size * pipeline_parallel_size > 1 refuses KIND_GPU.
    BackendRelease(
        (2, 65),
        "r26.01",
        True,
        (_TEXT_INPUT, _IMAGE, _STREAM, _SAMPLING, _EXCLUDE, *_RETURNS, _EMBEDDING),
        (_TEXT_OUTPUT, *_ADDITIONAL_OUTPUTS),
        (*_TP, "pipeline_parallel_size"),
        "true",
        (_METRICS, _HEALTH),
    ),
)
"""vllm_backend's model.py per release branch, oldest first (main matches r26.01)."""

VLLM_OF_RELEASE: dict[Version, str] = {
    (2, 39): "0.2.0", (2, 40): "0.2.1.post1", (2, 41): "0.2.3", (2, 42): "0.2.3",
    (2, 43): "0.3.0", (2, 44): "0.3.0", (2, 45): "0.4.0.post1", (2, 46): "0.4.0.post1",
    (2, 47): "0.4.3", (2, 48): "0.5.0.post1", (2, 49): "0.5.3.post1", (2, 50): "0.5.3.post1",
    (2, 51): "0.5.5", (2, 52): "0.5.5", (2, 53): "0.5.5", (2, 54): "0.6.3.post1",
    (2, 55): "0.7.0", (2, 56): "0.7.3", (2, 57): "0.8.1", (2, 58): "0.8.4",
    (2, 59): "0.9.0.1", (2, 60): "0.9.2", (2, 61): "0.10.1.1", (2, 62): "0.10.2",
    (2, 63): "0.11.0", (2, 64): "0.11.1", (2, 65): "0.13.0", (2, 66): "0.15.1",
    (2, 67): "0.16.0", (2, 68): "0.19.0",
}  # fmt: skip
"""The vLLM each Triton release's image installs (server build.py of the rNN.MM branch;
2.60 is 25.08, there is no 25.07 release). From 26.05 build.py starts from NVIDIA's
vLLM container instead of naming a version, so later releases are not listed."""


def backend_release(release: Release | None) -> BackendRelease | None:
    """vllm_backend's behaviour in `release` (None: the newest); None before 23.10."""
    server = (release or NEWEST).server
    found = None
    for entry in BACKEND_RELEASES:
        if entry.first <= server:
            found = entry
    return found


def vllm_version(release: Release | None) -> str | None:
    """The vLLM the image of `release` installs; None when not known (None: the newest)."""
    return VLLM_OF_RELEASE.get((release or NEWEST).server)


def versions_with(name: str) -> tuple[str, ...]:
    """The vLLM releases read whose AsyncEngineArgs has the field `name`."""
    entry = ENGINE_ARGS.get(name)
    if entry is None:
        return ()
    return tuple(VLLM_VERSIONS[i] for first, last in entry[1] for i in range(first, last + 1))


def arg_kind(name: str) -> str | None:
    """The field's kind (see ENGINE_ARGS), None for a name no vLLM release read has."""
    entry = ENGINE_ARGS.get(name)
    return entry[0] if entry else None


def default_model(version: str | None) -> str:
    """The model vLLM `version` loads when model.json names none (None: the newest)."""
    index = VLLM_VERSIONS.index(version) if version in VLLM_VERSIONS else len(VLLM_VERSIONS) - 1
    return next(model for first, model in reversed(DEFAULT_MODELS) if first <= index)


def uses_pydantic(version: str | None) -> bool:
    """vLLM 0.10 on validates engine arguments with pydantic, which converts "0.5" to 0.5
    and "false" to False for its config classes; before, a dataclass keeps what it gets."""
    index = VLLM_VERSIONS.index(version) if version in VLLM_VERSIONS else len(VLLM_VERSIONS) - 1
    return index >= VLLM_VERSIONS.index("0.10.1.1")


# --- generated by scripts/gen_vllm_args.py; do not edit by hand ---
VLLM_VERSIONS: tuple[str, ...] = (
    "0.2.0",
    "0.2.1.post1",
    "0.2.3",
    "0.3.0",
    "0.4.0.post1",
    "0.4.3",
    "0.5.0.post1",
    "0.5.3.post1",
    "0.5.5",
    "0.6.3.post1",
    "0.7.0",
    "0.7.3",
    "0.8.1",
    "0.8.4",
    "0.9.0.1",
    "0.9.2",
    "0.10.1.1",
    "0.10.2",
    "0.11.0",
    "0.11.1",
    "0.13.0",
    "0.15.1",
    "0.16.0",
    "0.19.0",
)
"""The vLLM releases read, oldest first."""
ENGINE_ARGS: dict[str, tuple[str, tuple[tuple[int, int], ...]]] = {
    "_api_process_count": ("int", ((18, 23),)),
    "_api_process_rank": ("int", ((18, 23),)),
    "additional_config": ("dict", ((11, 23),)),
    "aggregate_engine_logging": ("bool", ((19, 23),)),
    "all2all_backend": ("str", ((19, 23),)),
    "allow_deprecated_quantization": ("bool", ((21, 23),)),
    "allowed_local_media_path": ("str", ((10, 23),)),
    "allowed_media_domains": ("list", ((18, 23),)),
    "async_scheduling": ("bool?", ((16, 23),)),
    "attention_backend": ("any", ((20, 23),)),
    "attention_config": ("any", ((20, 23),)),
    "block_size": ("int?", ((0, 23),)),
    "calculate_kv_scales": ("bool", ((10, 23),)),
    "code_revision": ("str?", ((4, 23),)),
    "collect_detailed_traces": ("list", ((8, 23),)),
    "compilation_config": ("any", ((10, 23),)),
    "config_format": ("str", ((9, 23),)),
    "convert": ("any", ((16, 23),)),
    "cp_kv_cache_interleave_size": ("int", ((20, 23),)),
    "cpu_offload_gb": ("float", ((7, 23),)),
    "cpu_offload_params": ("any", ((23, 23),)),
    "cuda_graph_sizes": ("list", ((14, 19),)),
    "cudagraph_capture_sizes": ("list", ((19, 23),)),
    "cudagraph_metrics": ("bool", ((20, 23),)),
    "data_parallel_address": ("str?", ((14, 23),)),
    "data_parallel_backend": ("str", ((15, 23),)),
    "data_parallel_external_lb": ("bool", ((19, 23),)),
    "data_parallel_hybrid_lb": ("bool", ((16, 23),)),
    "data_parallel_rank": ("int?", ((15, 23),)),
    "data_parallel_rpc_port": ("int?", ((14, 23),)),
    "data_parallel_size": ("int", ((13, 23),)),
    "data_parallel_size_local": ("int?", ((14, 23),)),
    "data_parallel_start_rank": ("int?", ((16, 23),)),
    "dbo_decode_token_threshold": ("int", ((18, 23),)),
    "dbo_prefill_token_threshold": ("int", ((18, 23),)),
    "dcp_comm_backend": ("str", ((23, 23),)),
    "dcp_kv_cache_interleave_size": ("int", ((19, 23),)),
    "decode_context_parallel_size": ("int", ((17, 23),)),
    "default_mm_loras": ("dict", ((16, 23),)),
    "device": ("str", ((4, 15),)),
    "disable_async_output_proc": ("bool", ((9, 17),)),
    "disable_cascade_attn": ("bool", ((13, 23),)),
    "disable_chunked_mm_input": ("bool", ((13, 23),)),
    "disable_custom_all_reduce": ("bool", ((3, 23),)),
    "disable_hybrid_kv_cache_manager": ("bool?", ((15, 23),)),
    "disable_image_processor": ("bool", ((6, 6),)),
    "disable_log_requests": ("bool", ((0, 15),)),
    "disable_log_stats": ("bool", ((0, 23),)),
    "disable_logprobs_during_spec_decoding": ("bool?", ((7, 12),)),
    "disable_mm_preprocessor_cache": ("bool", ((10, 19),)),
    "disable_nccl_for_dp_synchronization": ("bool?", ((19, 23),)),
    "disable_sliding_window": ("bool", ((5, 23),)),
    "distributed_executor_backend": ("any", ((5, 23),)),
    "distributed_timeout_seconds": ("int?", ((23, 23),)),
    "download_dir": ("str?", ((0, 23),)),
    "dtype": ("str", ((0, 23),)),
    "ec_transfer_config": ("any", ((19, 23),)),
    "enable_chunked_prefill": ("bool?", ((4, 23),)),
    "enable_dbo": ("bool", ((18, 23),)),
    "enable_elastic_ep": ("bool", ((23, 23),)),
    "enable_ep_weight_filter": ("bool", ((23, 23),)),
    "enable_eplb": ("bool", ((15, 23),)),
    "enable_expert_parallel": ("bool", ((12, 23),)),
    "enable_flashinfer_autotune": ("bool", ((22, 23),)),
    "enable_layerwise_nvtx_tracing": ("bool", ((20, 23),)),
    "enable_log_requests": ("bool", ((16, 23),)),
    "enable_logging_iteration_details": ("bool", ((21, 23),)),
    "enable_lora": ("bool", ((3, 23),)),
    "enable_lora_bias": ("bool", ((10, 18),)),
    "enable_mfu_metrics": ("bool", ((21, 23),)),
    "enable_mm_embeds": ("bool", ((19, 23),)),
    "enable_mm_processor_stats": ("bool", ((21, 23),)),
    "enable_multimodal_encoder_data_parallel": ("bool", ((15, 19),)),
    "enable_prefix_caching": ("bool?", ((4, 23),)),
    "enable_prompt_adapter": ("bool", ((7, 16),)),
    "enable_prompt_embeds": ("bool", ((14, 23),)),
    "enable_reasoning": ("bool?", ((12, 15),)),
    "enable_return_routed_experts": ("bool", ((21, 23),)),
    "enable_sleep_mode": ("bool", ((10, 23),)),
    "enable_tower_connector_lora": ("bool", ((21, 23),)),
    "enforce_eager": ("bool", ((3, 23),)),
    "engine_use_ray": ("bool", ((0, 8),)),
    "eplb_config": ("any", ((17, 23),)),
    "eplb_log_balancedness": ("bool", ((15, 19),)),
    "eplb_step_interval": ("int", ((15, 19),)),
    "eplb_window_size": ("int", ((15, 19),)),
    "expert_placement_strategy": ("str", ((18, 23),)),
    "fail_on_environ_validation": ("bool", ((23, 23),)),
    "forced_num_gpu_blocks": ("int?", ((4, 4),)),
    "fully_sharded_loras": ("bool", ((5, 23),)),
    "gdn_prefill_backend": ("any", ((23, 23),)),
    "generation_config": ("str", ((10, 23),)),
    "gpu_memory_utilization": ("float", ((0, 23),)),
    "guided_decoding_backend": ("str?", ((5, 19),)),
    "guided_decoding_disable_additional_properties": ("bool?", ((14, 19),)),
    "guided_decoding_disable_any_whitespace": ("bool?", ((14, 19),)),
    "guided_decoding_disable_fallback": ("bool?", ((14, 19),)),
    "hf_config_path": ("str?", ((12, 23),)),
    "hf_overrides": ("any", ((10, 23),)),
    "hf_token": ("any", ((13, 23),)),
    "ignore_patterns": ("any", ((7, 23),)),
    "image_feature_size": ("int?", ((4, 6),)),
    "image_input_shape": ("str?", ((4, 6),)),
    "image_input_type": ("str?", ((4, 6),)),
    "image_processor": ("str?", ((6, 6),)),
    "image_processor_revision": ("str?", ((6, 6),)),
    "image_token_id": ("int?", ((4, 6),)),
    "interleave_mm_strings": ("bool", ((16, 23),)),
    "io_processor_plugin": ("str?", ((17, 23),)),
    "kernel_config": ("any", ((22, 23),)),
    "kv_cache_dtype": ("str", ((3, 23),)),
    "kv_cache_dtype_skip_layers": ("list", ((23, 23),)),
    "kv_cache_memory_bytes": ("int?", ((17, 23),)),
    "kv_cache_metrics": ("bool", ((20, 23),)),
    "kv_cache_metrics_sample": ("float", ((20, 23),)),
    "kv_events_config": ("any", ((14, 23),)),
    "kv_offloading_backend": ("str", ((19, 23),)),
    "kv_offloading_size": ("float?", ((19, 23),)),
    "kv_sharing_fast_prefill": ("bool", ((16, 23),)),
    "kv_transfer_config": ("any", ((10, 23),)),
    "language_model_only": ("bool", ((23, 23),)),
    "limit_mm_per_prompt": ("dict", ((8, 23),)),
    "load_format": ("any", ((0, 23),)),
    "logits_processor_pattern": ("str?", ((10, 22),)),
    "logits_processors": ("list", ((16, 23),)),
    "logprobs_mode": ("str", ((16, 23),)),
    "long_lora_scaling_factors": ("any", ((5, 15),)),
    "long_prefill_token_threshold": ("int", ((11, 23),)),
    "lora_dtype": ("any", ((6, 23),)),
    "lora_extra_vocab_size": ("int", ((3, 19),)),
    "lora_target_modules": ("list", ((23, 23),)),
    "mamba_block_size": ("int?", ((19, 23),)),
    "mamba_cache_dtype": ("str", ((16, 23),)),
    "mamba_cache_mode": ("str", ((21, 23),)),
    "mamba_ssm_cache_dtype": ("str", ((16, 23),)),
    "master_addr": ("str", ((19, 23),)),
    "master_port": ("int", ((19, 23),)),
    "max_context_len_to_capture": ("int?", ((3, 9),)),
    "max_cpu_loras": ("int?", ((3, 23),)),
    "max_cudagraph_capture_size": ("int?", ((19, 23),)),
    "max_log_len": ("int?", ((0, 6),)),
    "max_logprobs": ("int", ((4, 23),)),
    "max_long_partial_prefills": ("int", ((11, 23),)),
    "max_lora_rank": ("int", ((3, 23),)),
    "max_loras": ("int", ((3, 23),)),
    "max_model_len": ("int", ((0, 23),)),
    "max_num_batched_tokens": ("int?", ((0, 23),)),
    "max_num_partial_prefills": ("int", ((11, 23),)),
    "max_num_seqs": ("int?", ((0, 23),)),
    "max_paddings": ("int", ((2, 3),)),
    "max_parallel_loading_workers": ("int?", ((2, 23),)),
    "max_prompt_adapter_token": ("int", ((7, 15),)),
    "max_prompt_adapters": ("int", ((7, 15),)),
    "max_seq_len_to_capture": ("int", ((5, 17),)),
    "media_io_kwargs": ("dict", ((15, 23),)),
    "mm_encoder_attn_backend": ("any", ((19, 23),)),
    "mm_encoder_only": ("bool", ((21, 23),)),
    "mm_encoder_tp_mode": ("str", ((17, 23),)),
    "mm_processor_cache_gb": ("float", ((16, 23),)),
    "mm_processor_cache_type": ("str?", ((18, 23),)),
    "mm_processor_kwargs": ("dict", ((9, 23),)),
    "mm_shm_cache_max_object_size_mb": ("int", ((18, 23),)),
    "mm_tensor_ipc": ("str", ((23, 23),)),
    "model": ("str", ((0, 23),)),
    "model_impl": ("str", ((11, 23),)),
    "model_loader_extra_config": ("dict", ((5, 23),)),
    "model_weights": ("str", ((21, 23),)),
    "moe_backend": ("str", ((23, 23),)),
    "multi_step_stream_outputs": ("bool", ((9, 15),)),
    "ngram_prompt_lookup_max": ("int?", ((5, 12),)),
    "ngram_prompt_lookup_min": ("int?", ((5, 12),)),
    "nnodes": ("int", ((19, 23),)),
    "node_rank": ("int", ((19, 23),)),
    "num_gpu_blocks_override": ("int?", ((5, 23),)),
    "num_lookahead_slots": ("int", ((4, 19),)),
    "num_redundant_experts": ("int", ((15, 19),)),
    "num_scheduler_steps": ("int", ((8, 15),)),
    "num_speculative_tokens": ("int?", ((5, 12),)),
    "offload_backend": ("str", ((23, 23),)),
    "offload_group_size": ("int", ((23, 23),)),
    "offload_num_in_group": ("int", ((23, 23),)),
    "offload_params": ("any", ((23, 23),)),
    "offload_prefetch_step": ("int", ((23, 23),)),
    "optimization_level": ("any", ((20, 23),)),
    "otlp_traces_endpoint": ("str?", ((7, 23),)),
    "override_attention_dtype": ("str?", ((15, 23),)),
    "override_generation_config": ("dict", ((11, 23),)),
    "override_neuron_config": ("dict", ((9, 16),)),
    "override_pooler_config": ("any", ((10, 19),)),
    "performance_mode": ("str", ((23, 23),)),
    "pipeline_parallel_size": ("int", ((0, 23),)),
    "pooler_config": ("any", ((18, 23),)),
    "preemption_mode": ("str?", ((6, 17),)),
    "prefill_context_parallel_size": ("int", ((20, 23),)),
    "prefix_caching_hash_algo": ("str", ((13, 23),)),
    "profiler_config": ("any", ((20, 23),)),
    "pt_load_map_location": ("any", ((14, 23),)),
    "qlora_adapter_name_or_path": ("str?", ((6, 15),)),
    "quantization": ("any", ((0, 23),)),
    "quantization_param_path": ("str?", ((5, 9),)),
    "ray_workers_use_nsight": ("bool", ((4, 23),)),
    "reasoning_config": ("any", ((23, 23),)),
    "reasoning_parser": ("str", ((12, 23),)),
    "reasoning_parser_plugin": ("str?", ((19, 23),)),
    "renderer_num_workers": ("int", ((23, 23),)),
    "revision": ("str?", ((0, 23),)),
    "rope_scaling": ("dict", ((5, 18),)),
    "rope_theta": ("float?", ((6, 18),)),
    "runner": ("any", ((16, 23),)),
    "safetensors_load_strategy": ("str?", ((17, 23),)),
    "scheduler_cls": ("any", ((11, 23),)),
    "scheduler_delay_factor": ("float", ((4, 17),)),
    "scheduler_reserve_full_isl": ("bool", ((23, 23),)),
    "scheduling_policy": ("str", ((9, 23),)),
    "seed": ("int", ((0, 23),)),
    "served_model_name": ("any", ((5, 23),)),
    "show_hidden_metrics_for_version": ("str?", ((12, 23),)),
    "shutdown_timeout": ("int", ((23, 23),)),
    "skip_mm_profiling": ("bool", ((16, 23),)),
    "skip_tokenizer_init": ("bool", ((5, 23),)),
    "spec_decoding_acceptance_method": ("str", ((7, 12),)),
    "specialize_active_lora": ("bool", ((22, 23),)),
    "speculative_config": ("dict", ((13, 23),)),
    "speculative_disable_by_batch_size": ("int?", ((5, 12),)),
    "speculative_disable_mqa_scorer": ("bool?", ((9, 12),)),
    "speculative_draft_tensor_parallel_size": ("int?", ((7, 12),)),
    "speculative_max_model_len": ("int?", ((5, 12),)),
    "speculative_model": ("str?", ((5, 12),)),
    "speculative_model_quantization": ("str?", ((8, 12),)),
    "stream_interval": ("int", ((19, 23),)),
    "structured_outputs_config": ("any", ((18, 23),)),
    "swap_space": ("float", ((0, 22),)),
    "task": ("str?", ((10, 19),)),
    "tensor_parallel_size": ("int", ((0, 23),)),
    "tokenizer": ("str?", ((0, 23),)),
    "tokenizer_mode": ("any", ((0, 23),)),
    "tokenizer_pool_extra_config": ("dict", ((4, 15),)),
    "tokenizer_pool_size": ("int", ((4, 15),)),
    "tokenizer_pool_type": ("str", ((4, 15),)),
    "tokenizer_revision": ("str?", ((1, 23),)),
    "tokens_only": ("bool", ((19, 23),)),
    "trust_remote_code": ("bool", ((0, 23),)),
    "typical_acceptance_sampler_posterior_alpha": ("float?", ((7, 12),)),
    "typical_acceptance_sampler_posterior_threshold": ("float?", ((7, 12),)),
    "ubatch_size": ("int", ((21, 23),)),
    "use_tqdm_on_load": ("bool", ((12, 23),)),
    "use_v2_block_manager": ("bool", ((4, 15),)),
    "video_pruning_rate": ("float?", ((18, 23),)),
    "weight_transfer_config": ("any", ((22, 23),)),
    "worker_cls": ("str", ((10, 23),)),
    "worker_extension_cls": ("str", ((12, 23),)),
    "worker_use_ray": ("bool", ((0, 9),)),
}
"""Engine argument -> (kind, spans of VLLM_VERSIONS indexes that have it). Kinds: bool,
int, float, str, list, dict or any (not checked); '?' when null is accepted."""
DEFAULT_MODELS: tuple[tuple[int, str], ...] = (
    (0, ""),
    (8, "facebook/opt-125m"),
    (16, "Qwen/Qwen3-0.6B"),
)
"""(first VLLM_VERSIONS index, EngineArgs.model default from there on;
"": a required argument)."""
# --- end of the generated section ---
