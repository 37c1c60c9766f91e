"""What a rule is: code, name, severity, docs, and a check over a typed context.

A rule never walks files or text itself. It receives a `ModelContext` (the model
folder, its parsed and Triton-completed config, the settings, the repository) and
yields `Finding`s that name a field path; the linter turns those into diagnostics
with positions, applies suppressions and severities.
"""

from __future__ import annotations

import enum
import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

from pbtxt_lint.diagnostics import Fix, Severity, Span
from pbtxt_lint.repository.layout import ConfigFile, ModelFolder, Repository
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.parse import ParsedConfig
from pbtxt_lint.textproto.sourcemap import FieldPath
from pbtxt_lint.triton.autofill import AutofillResult, core_autofill, is_ensemble
from pbtxt_lint.triton.versions import Selection, VersionScan, scan_version_folders, select_versions

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.model import ModelArtifacts

T = TypeVar("T")


class Stage(enum.Enum):
    """When Triton would report the problem; the oracle tests compare by stage."""

    PARSE = "parse"  # reading config.pbtxt
    POLL = "poll"  # scanning and validating the repository
    LOAD = "load"  # creating the model through its backend
    INFERENCE = "inference"  # at the first request
    NEVER = "never"  # Triton accepts it (warnings and info)


class Scope(enum.Enum):
    """The models a rule can have something to say about. The engine runs a rule only
    on models in its scope, so most of a large repository (neither ensembles nor, with
    `--config-only`, model files) skips most families without a call."""

    ANY = "any"
    ENSEMBLE = "ensemble"  # ensemble platform or ensemble_scheduling (after auto-fill)
    MODEL_FILES = "model-files"  # models with located artifacts (`context.artifacts.versions`)


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


@dataclass
class ModelContext:
    """Everything a rule may look at for one model."""

    model: ModelFolder
    repository: Repository
    settings: Settings

    @cached_property
    def config_file(self) -> ConfigFile | None:
        return self.model.config()

    # Cached, like every view below: rules read them thousands of times per repository.
    @cached_property
    def parsed(self) -> ParsedConfig | None:
        return self.config_file.parsed if self.config_file else None

    @cached_property
    def config(self) -> ModelConfig | None:
        """The config as written; None if there is no file or it does not parse."""
        return self.parsed.config if self.parsed else None

    @cached_property
    def autofill(self) -> AutofillResult | None:
        """Triton's core auto-fill applied to the config (an empty one if missing)."""
        if self.config_file is not None and self.config is None:
            return None
        written = self.config if self.config is not None else ModelConfig()
        first = self.model.first_subfolder_contents()
        return core_autofill(self.model.name, written, first, self.settings.target)

    @cached_property
    def effective(self) -> ModelConfig | None:
        """The config Triton validates: as written, completed by the core (S3)."""
        return self.autofill.config if self.autofill and self.autofill.error is None else None

    @cached_property
    def version_scan(self) -> VersionScan:
        return scan_version_folders(self.model.subfolders)

    @cached_property
    def selection(self) -> Selection:
        available = [v.version for v in self.version_scan.versions]
        return select_versions(self.effective or ModelConfig(), available)

    @cached_property
    def artifacts(self) -> ModelArtifacts:
        """The model files of the versions Triton would load, read lazily and once."""
        from pbtxt_lint.artifacts.model import ModelArtifacts

        return ModelArtifacts(self)

    @property
    def strict(self) -> bool:
        """Triton's `--disable-auto-complete-config`: no backend fills anything."""
        return not self.settings.auto_complete

    @cached_property
    def scopes(self) -> frozenset[Scope]:
        """The rule scopes this model is in."""
        scopes = {Scope.ANY}
        if self.effective is not None and is_ensemble(self.effective):
            scopes.add(Scope.ENSEMBLE)
        if self.artifacts.versions:
            scopes.add(Scope.MODEL_FILES)
        return frozenset(scopes)

    def shared(self, compute: Callable[[ModelContext], T]) -> T:
        """`compute(self)`, once per model: a view several rules derive the same way
        (resolved instance groups, warmup samples...) is computed for the first and
        reused by the others."""
        memo = self._memo
        if compute not in memo:
            memo[compute] = compute(self)
        return cast(T, memo[compute])

    @cached_property
    def _memo(self) -> dict[Callable[[ModelContext], object], object]:
        return {}


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

    @property
    def family(self) -> str:
        return self.code[:3] + "x" * (len(self.code) - 3)

    def run(self, context: ModelContext) -> Iterator[Finding]:
        yield from self.check(context)


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
) -> Callable[[Check], Rule]:
    """Declare a rule; its documentation is `doc` or the check function's docstring."""

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
        )

    return wrap
