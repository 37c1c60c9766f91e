"""Which rules exist, as the engine plans a run: without importing the rules.

The rules themselves (their `@rule(...)` decorators) are the one source of their facts.
`index.py`, generated from them by scripts/gen_docs.py, is a cache of those facts with
a digest of each topic module's source as it was then: a module whose source still has
that digest is planned from its rows, any other (a rule just written or edited, a new
topic module) is imported and planned from its decorators. So a rule runs the moment it
is written, and a run still imports only the modules whose rules it calls (reading the
topic modules' sources and their checksums cost about a millisecond).
"""

from __future__ import annotations

import importlib
import os
import zlib
from functools import cache

from pbtxt_lint.rules.base import PlannedRule, rules_of

FAMILY_PACKAGES: tuple[str, ...] = (
    "layout",
    "tensors",
    "batching",
    "instances",
    "ensembles",
    "artifacts",
    "features",
    "backends",
    "contracts",
)
"""The families that are packages of topic modules, in code order (PL1 to PL9)."""

_ROOT = os.path.dirname(__file__)


def topic_modules() -> tuple[str, ...]:
    """Every module that defines rules, relative to `pbtxt_lint.rules`, in code order:
    `syntax`, `meta`, then each family's `MODULES` (`layout.folders`, ...)."""
    return (
        "syntax",
        "meta",
        *(
            f"{family}.{name}"
            for family in FAMILY_PACKAGES
            for name in importlib.import_module(f"pbtxt_lint.rules.{family}").MODULES
        ),
    )


def source_digest(module: str) -> str | None:
    """A digest of a topic module's source (its CRC-32: it tells an edit, and costs
    about a millisecond for every module); None if it has no readable source (an
    installation that ships bytecode only, where the index is trusted)."""
    try:
        with open(f"{_ROOT}/{module.replace('.', '/')}.py", "rb") as source:
            return f"{zlib.crc32(source.read()):08x}"
    except OSError:
        return None


@cache
def known_rules() -> tuple[PlannedRule, ...]:
    """Every rule, in code order: the index row of each rule whose module is unchanged
    since the index was generated, the rule itself (its module imported) otherwise."""
    from pbtxt_lint.rules.index import DIGESTS, INDEX  # deferred: only runs that plan rules

    rows: dict[str, list[PlannedRule]] = {}
    for row in INDEX:
        rows.setdefault(row.module, []).append(row)
    planned: list[PlannedRule] = []
    for module in topic_modules():
        if module in DIGESTS and source_digest(module) in (DIGESTS[module], None):
            planned += rows.get(module, [])
        else:
            planned += rules_of(module).values()
    return tuple(sorted(planned, key=lambda planned_rule: planned_rule.code))


def stale_modules() -> list[str]:
    """The topic modules the index does not describe as they are now (`make docs`
    regenerates it); the engine plans them from their decorators meanwhile."""
    from pbtxt_lint.rules.index import DIGESTS

    return [module for module in topic_modules() if DIGESTS.get(module) != source_digest(module)]
