"""The rule registry: every rule itself, every topic module imported (for docs,
`explain`, SARIF and the editor).

A family is a module (`syntax`, `meta`) or a package whose `__init__` lists its topic
modules by name in `MODULES` (`catalog.FAMILY_PACKAGES` lists the packages); each topic
module defines its rules at module level with `@rule(...)`. `ALL_RULES` collects them in
code order. Adding a rule touches its topic module only (it runs at once: see
`catalog.py`); adding a topic module adds it to its family's `MODULES`.
"""

from __future__ import annotations

from pbtxt_lint.rules.base import Rule, rules_of
from pbtxt_lint.rules.catalog import topic_modules

FAMILIES: dict[str, str] = {
    "PL0": "Syntax, text and suppressions",
    "PL1": "Repository layout, names, versions and backends",
    "PL2": "Inputs and outputs",
    "PL3": "Batching and scheduling",
    "PL4": "Instance groups and devices",
    "PL5": "Ensembles",
    "PL6": "Model artifacts",
    "PL7": "Other features: warmup, metrics, caching, parameters",
    "PL8": "Backends: what each backend does with the config at load and at request",
    "PL9": "Contracts between models and with clients",
}
"""Code prefix -> family title, for listings and docs."""


def _collect() -> tuple[Rule, ...]:
    rules = [rule for module in topic_modules() for rule in rules_of(module).values()]
    codes = [r.code for r in rules]
    duplicates = {c for c in codes if codes.count(c) > 1}
    if duplicates:
        raise RuntimeError(f"rule codes defined twice: {sorted(duplicates)}")
    return tuple(sorted(rules, key=lambda r: r.code))


ALL_RULES: tuple[Rule, ...] = _collect()
RULES_BY_CODE: dict[str, Rule] = {r.code: r for r in ALL_RULES}
RULES_BY_NAME: dict[str, Rule] = {r.name: r for r in ALL_RULES}
