"""PL7xx: other features (caching, metrics, warmup, labels, repository agents, parameters).

These are checked at different points of Triton's load: the response cache and the
model metrics with the rest of `ValidateModelConfig` at poll, repository agents when
the model is polled, labels after the backend has seen the model, warmup samples when
each instance is created, and backend `parameters` when the backend parses them. A
backend ignores `parameters` keys it does not know and `optimization` fields it does
not implement, silently; those are warnings.
"""

MODULES: tuple[str, ...] = (
    "cache_and_metrics",
    "warmup",
    "labels",
    "label_contents",
    "repository_agents",
    "ignored_settings",
    "onnxruntime_parameters",
    "accelerators",
    "tensorrt_parameters",
    "pytorch_parameters",
    "openvino_parameters",
    "python_parameters",
)
"""The topic modules of the family, in code order (names: importing the family imports
none of them, so a run loads only the modules whose rules it calls)."""
