"""What a rule is: code, name, severity, docs, and a check over a typed context.

A rule never walks files or text itself. It receives a `ModelContext`
(`pbtxt_lint.analysis.context`: the model folder, its parsed and Triton-completed
config, the settings, the repository) and yields `Finding`s that name a field path;
the linter turns those into diagnostics with positions, applies suppressions and
severities.
"""

from __future__ import annotations

import enum
import importlib
import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Fix, Severity, Span
from pbtxt_lint.textproto.sourcemap import FieldPath

if TYPE_CHECKING:
    from pbtxt_lint.analysis.ensemble import Mark


class Stage(enum.Enum):
    """When Triton would report the problem; the oracle tests compare by stage."""

    PARSE = "parse"  # reading config.pbtxt
    POLL = "poll"  # scanning and validating the repository
    LOAD = "load"  # creating the model through its backend
    INFERENCE = "inference"  # at the first request
    NEVER = "never"  # Triton accepts it (warnings and info)


@dataclass(frozen=True)
class Finding:
    """What a check yields: a message about a place in the config (or a file)."""

    message: str
    at: FieldPath | None = None
    hint: str | None = None
    fix: Fix | None = None
    file: Path | None = None  # another file or folder the finding is about
    span: Span | None = None  # an exact span (parser problems)
    severity: Severity | None = None  # a documented per-finding downgrade
    stage: Stage | None = None  # when Triton reports it, where that depends on the mode
    marks: tuple[Mark, ...] = ()  # the ensemble steps and edges it breaks (`pbtxt-lint graph`)


Check = Callable[[ModelContext], Iterable[Finding]]


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    summary: str
    check: Check = field(repr=False)
    doc: str = ""
    triton: str | None = None  # the Triton log line this rule prevents
    stage: Stage = Stage.POLL
    needs_config: bool = True  # skipped when the config is missing or does not parse
    stray: bool = False  # runs on hidden/tool folders (and only such rules do)
    scope: Scope = Scope.ANY  # skipped on models outside it
    backends: tuple[str, ...] = ()
    """The backends whose behaviour this rule reports (their census rows cite it)."""

    @property
    def family(self) -> str:
        return self.code[:3] + "x" * (len(self.code) - 3)

    def run(self, context: ModelContext) -> Iterator[Finding]:
        yield from self.check(context)

    def load(self) -> Rule:
        return self


class RuleInfo(NamedTuple):
    """What the engine needs to plan a run, without importing the rule's module: the
    rows of `rules/index.py`, generated from the rules by scripts/gen_docs.py and used
    while their module is unchanged (`rules/catalog.py`). A run imports only the topic
    modules whose rules it calls (a one-config check of a Python model never loads the
    ONNX or ensemble rules)."""

    code: str
    name: str
    severity: Severity
    summary: str
    stage: Stage
    needs_config: bool
    stray: bool
    scope: Scope
    module: str
    """The topic module, relative to `pbtxt_lint.rules` (`batching.priorities`)."""

    def load(self) -> Rule:
        """The rule itself (its module imported on first use)."""
        return rules_of(self.module)[self.code]


@cache
def rules_of(module: str) -> dict[str, Rule]:
    """The rules a topic module (`batching.priorities`) defines, by code."""
    loaded = importlib.import_module(f"pbtxt_lint.rules.{module}")
    rules = [value for value in vars(loaded).values() if isinstance(value, Rule)]
    by_code = {r.code: r for r in rules}
    if len(by_code) < len(rules):
        raise RuntimeError(f"a rule code defined twice in pbtxt_lint.rules.{module}")
    return by_code


PlannedRule = Rule | RuleInfo
"""A rule, or its index row: what the engine filters before it calls anything."""


def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    triton: str | None = None,
    stage: Stage | None = None,
    needs_config: bool = True,
    stray: bool = False,
    scope: Scope = Scope.ANY,
    doc: str | None = None,
    backend: str | tuple[str, ...] = (),
) -> Callable[[Check], Rule]:
    """Declare a rule; its documentation is `doc` or the check function's docstring.
    `backend` names the backend(s) whose load or request behaviour the rule reports."""

    def wrap(check: Check) -> Rule:
        return Rule(
            code=code,
            name=name,
            severity=severity,
            summary=summary,
            check=check,
            doc=inspect.cleandoc(doc or check.__doc__ or ""),
            triton=triton,
            stage=stage or (Stage.POLL if severity is Severity.ERROR else Stage.NEVER),
            needs_config=needs_config,
            stray=stray,
            scope=scope,
            backends=(backend,) if isinstance(backend, str) else backend,
        )

    return wrap
