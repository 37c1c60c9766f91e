"""PL7xx: other features (caching, metrics, warmup, labels, repository agents, parameters).

These are checked at different points of Triton's load: the response cache and the
model metrics with the rest of `ValidateModelConfig` at poll, repository agents when
the model is polled, labels after the backend has seen the model, warmup samples when
each instance is created, and backend `parameters` when the backend parses them. A
backend ignores `parameters` keys it does not know and `optimization` fields it does
not implement, silently; those are warnings.
"""

from types import ModuleType

from pbtxt_lint.rules.features import (
    accelerators,
    cache_and_metrics,
    ignored_settings,
    label_contents,
    labels,
    onnxruntime_parameters,
    openvino_parameters,
    python_parameters,
    pytorch_parameters,
    repository_agents,
    tensorrt_parameters,
    warmup,
)

MODULES: tuple[ModuleType, ...] = (
    cache_and_metrics,
    warmup,
    labels,
    label_contents,
    repository_agents,
    ignored_settings,
    onnxruntime_parameters,
    accelerators,
    tensorrt_parameters,
    pytorch_parameters,
    openvino_parameters,
    python_parameters,
)
"""The topic modules of the family, in code order."""
