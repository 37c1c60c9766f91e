"""What a rule is: code, name, severity, docs, and a check over a typed context.

A rule never walks files or text itself. It receives a `ModelContext`
(`pbtxt_lint.analysis.context`: the model folder, its parsed and Triton-completed
config, the settings, the repository) and yields `Finding`s that name a field path;
the linter turns those into diagnostics with positions, applies suppressions and
severities.
"""

from __future__ import annotations

import enum
import functools
import importlib
import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple, TypedDict, overload

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Fix, Severity, Span
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.textproto.sourcemap import FieldPath

if TYPE_CHECKING:
    from typing_extensions import Unpack  # typing's own from Python 3.11

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
EffectiveCheck = Callable[[ModelContext, ModelConfig], Iterable[Finding]]
"""A check of the config Triton validates (`context.effective`), declared with
`@rule(..., effective=True)`: the engine calls it only on models that have one."""


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
    effective: bool = False  # skipped when the core's auto-fill gives no config either
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
    effective: bool
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


class RuleOptions(TypedDict, total=False):
    """The optional facts of a rule (`@rule(code, name, severity, summary, **options)`)."""

    triton: str | None
    """The Triton log line the rule prevents (required for errors)."""
    stage: Stage | None
    """When Triton reports it; default: POLL for errors, NEVER otherwise."""
    needs_config: bool
    """Skip models whose config is missing or does not parse (default True)."""
    stray: bool
    """Run on hidden and tool folders, and only there (default False)."""
    scope: Scope
    """The kinds of model it can speak about (default Scope.ANY)."""
    doc: str | None
    """The documentation, if not the check function's docstring."""
    backend: str | tuple[str, ...]
    """The backend(s) whose load or request behaviour the rule reports."""


@overload
def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    effective: Literal[False] = False,
    **options: Unpack[RuleOptions],
) -> Callable[[Check], Rule]: ...
@overload
def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    effective: Literal[True],
    **options: Unpack[RuleOptions],
) -> Callable[[EffectiveCheck], Rule]: ...
def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    effective: bool = False,
    **options: Unpack[RuleOptions],
) -> Callable[[Check], Rule] | Callable[[EffectiveCheck], Rule]:
    """Declare a rule; its documentation is `doc` or the check function's docstring.
    With `effective=True` the check takes the config Triton validates as its second
    argument, and runs only on models that have one."""
    severity_stage = Stage.POLL if severity is Severity.ERROR else Stage.NEVER
    backend = options.get("backend", ())

    def declare(check: Check, documented: Callable[..., object]) -> Rule:
        return Rule(
            code=code,
            name=name,
            severity=severity,
            summary=summary,
            check=check,
            doc=inspect.cleandoc(options.get("doc") or documented.__doc__ or ""),
            triton=options.get("triton"),
            stage=options.get("stage") or severity_stage,
            needs_config=options.get("needs_config", True),
            effective=effective,
            stray=options.get("stray", False),
            scope=options.get("scope", Scope.ANY),
            backends=(backend,) if isinstance(backend, str) else backend,
        )

    if not effective:
        return lambda check: declare(check, check)

    def wrap(check: EffectiveCheck) -> Rule:
        @functools.wraps(check)
        def on_effective(context: ModelContext) -> Iterable[Finding]:
            config = context.effective
            return check(context, config) if config is not None else ()

        return declare(on_effective, check)

    return wrap
