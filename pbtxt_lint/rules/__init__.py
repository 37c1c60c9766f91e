"""The rule registry: every family module, listed explicitly, one place to look.

Each family module defines its rules at module level with `@rule(...)`; `ALL_RULES`
collects them in code order. Adding a rule touches its family module only.
"""

from __future__ import annotations

from types import ModuleType

from pbtxt_lint.rules import (
    artifact_formats,
    artifacts,
    batching,
    ensembles,
    features,
    instances,
    layout,
    meta,
    python_runtime,
    syntax,
    tensors,
)
from pbtxt_lint.rules.base import Rule

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
    batching,
    instances,
    ensembles,
    artifacts,
    artifact_formats,
    python_runtime,
    features,
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
