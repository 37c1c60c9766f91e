"""PL8xx: what each backend does with the config, at load and at request.

Triton's core accepts a config, then the backend refuses it while loading, or fails
the first request, often with a message that names neither the field nor the fix. Each
rule here reports one row of a backend's census (`pbtxt_lint/triton/census/`): an
error the backend's own source returns, and what in a repository triggers it. Ranges:
PL800-PL824 vLLM, PL825-PL859 TensorRT-LLM (the backend and its Python models),
PL860-PL879 PyTorch, PL880-PL899 the other backends.
"""

MODULES: tuple[str, ...] = (
    "vllm_engine_args",
    "vllm_config",
    "vllm_lora",
    "tensorrtllm_parameters",
    "tensorrtllm_tensors",
    "tensorrtllm_pipeline",
    "pytorch_naming",
    "pytorch_forward",
    "pytorch_threads",
    "tensorrt_cuda_graphs",
    "tensorrt_shape_tensors",
    "openvino_batching",
    "tensorflow_accelerators",
    "tensorflow_parameters",
    "tensorflow_signature",
    "fil_parameters",
    "fil_model",
    "dali_pipeline",
    "onnxruntime_options",
)
