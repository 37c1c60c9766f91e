"""The rule registry: every family module, listed explicitly, one place to look.

Each family module defines its rules at module level with `@rule(...)`; `ALL_RULES`
collects them in code order. Adding a rule touches its family module only.
"""

from __future__ import annotations

from types import ModuleType

from pbtxt_lint.rules import (
    artifact_formats,
    artifacts,
    ensembles,
    instances,
    layout,
    meta,
    syntax,
    tensors,
)
from pbtxt_lint.rules.base import Rule
from pbtxt_lint.rules.batching import (
    batch_strategy,
    initial_state,
    max_batch_size,
    preferred_sizes,
    priorities,
    sequence_controls,
    sequence_scheduler,
    sequence_state,
)
from pbtxt_lint.rules.features import (
    accelerators,
    cache_and_metrics,
    ignored_settings,
    labels,
    onnxruntime_parameters,
    openvino_parameters,
    python_parameters,
    pytorch_parameters,
    repository_agents,
    tensorrt_parameters,
    warmup,
)

FAMILIES: dict[str, str] = {
    "PL0": "Syntax, text and suppressions",
    "PL1": "Repository layout, names, versions and backends",
    "PL2": "Inputs and outputs",
    "PL3": "Batching and scheduling",
    "PL4": "Instance groups and devices",
    "PL5": "Ensembles",
    "PL6": "Model artifacts",
    "PL7": "Other features: warmup, metrics, caching, parameters",
}
"""Code prefix -> family title, for listings and docs."""

MODULES: tuple[ModuleType, ...] = (
    syntax,
    meta,
    layout,
    tensors,
    # PL3xx batching
    max_batch_size,
    preferred_sizes,
    priorities,
    batch_strategy,
    sequence_scheduler,
    sequence_controls,
    initial_state,
    sequence_state,
    instances,
    ensembles,
    artifacts,
    artifact_formats,
    # PL7xx other features
    cache_and_metrics,
    warmup,
    labels,
    repository_agents,
    ignored_settings,
    onnxruntime_parameters,
    accelerators,
    tensorrt_parameters,
    pytorch_parameters,
    openvino_parameters,
    python_parameters,
)
"""Every module that defines rules."""


def _collect() -> tuple[Rule, ...]:
    rules = [
        value for module in MODULES for value in vars(module).values() if isinstance(value, Rule)
    ]
    codes = [r.code for r in rules]
    duplicates = {c for c in codes if codes.count(c) > 1}
    if duplicates:
        raise RuntimeError(f"rule codes defined twice: {sorted(duplicates)}")
    return tuple(sorted(rules, key=lambda r: r.code))


ALL_RULES: tuple[Rule, ...] = _collect()
RULES_BY_CODE: dict[str, Rule] = {r.code: r for r in ALL_RULES}
RULES_BY_NAME: dict[str, Rule] = {r.name: r for r in ALL_RULES}
