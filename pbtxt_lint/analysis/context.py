"""What the checks know about one model, computed lazily and once.

A `ModelContext` holds a model folder of a repository and the settings, and derives
from them what Triton would see: the parsed config, the config after the core's
auto-fill (`effective`), the versions it loads, their model files (`artifacts`) and
the config after the backend's auto-complete (`completed`). Every view is cached, since
rules read them thousands of times per repository.

A `Workspace` is the one place contexts are made: one per repository and settings,
one context per model. A check about one model that needs another (an ensemble and its
composing models) asks the workspace, so that model is parsed, completed and read once,
with the same settings, whoever asks; whether that model loads is the workspace's
`loading` service (`analysis.loading`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar, cast

from pbtxt_lint.analysis.completed import STRICT_NOTE, CompletedConfig
from pbtxt_lint.analysis.loading import Loading
from pbtxt_lint.analysis.reads import ReadLog
from pbtxt_lint.repository.layout import ConfigFile, ModelFolder, Repository
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.parse import ParsedConfig
from pbtxt_lint.triton.autofill import AutofillResult, core_autofill, is_ensemble
from pbtxt_lint.triton.versions import Selection, VersionScan, scan_version_folders, select_versions

if TYPE_CHECKING:
    from pbtxt_lint.analysis.artifacts import ModelArtifacts

T = TypeVar("T")


class Scope(enum.Enum):
    """The kinds of model a check can have something to say about. The engine runs a
    rule only on models in its scope, so most of a large repository (neither ensembles
    nor, with `--config-only`, model files) skips most checks without a call."""

    ANY = "any"
    ENSEMBLE = "ensemble"  # ensemble platform or ensemble_scheduling (after auto-fill)
    MODEL_FILES = "model-files"  # models with located artifacts (`context.artifacts.versions`)
    FILES = "files"  # files beside the config may be read (label, warmup, state files...)
    """Every model but with `--config-only`, which reads no file other than the config
    (for repositories whose configs live apart from their model folders)."""


class Workspace:
    """The models of one repository under one set of settings, each context made once.

    `loading` answers whether a model loads (the engine supplies the rules it asks);
    `reads`, in a run that keeps results, records what each model's checks read beyond
    its own folder, and the checks then see the repository through it.
    """

    def __init__(
        self,
        repository: Repository,
        settings: Settings,
        loading: Loading | None = None,
        reads: ReadLog | None = None,
    ) -> None:
        self.repository = reads.repository if reads is not None else repository
        self.settings = settings
        self.loading = loading or Loading()
        self.reads = reads
        self._contexts: dict[str, ModelContext] = {}

    def context(self, folder: ModelFolder) -> ModelContext:
        """The context of a model folder of this repository."""
        context = self._contexts.get(folder.name)
        if context is None or context.model is not folder:
            context = self._contexts[folder.name] = ModelContext(folder, self)
        return context

    def model(self, name: str) -> ModelContext | None:
        """The context of model `name`, None if the repository has no such folder."""
        folder = self.repository.model(name)
        return self.context(folder) if folder is not None else None

    def reached(self, context: ModelContext) -> None:
        """A check reuses what was computed for `context`'s model (see `reads`)."""
        if self.reads is not None:
            self.reads.name(context.model.name)


class ModelContext:
    """Everything a check may look at for one model."""

    def __init__(self, model: ModelFolder, workspace: Workspace) -> None:
        self.model = model
        self.workspace = workspace
        self.repository = workspace.repository
        self.settings = workspace.settings

    @staticmethod
    def standalone(model: ModelFolder, repository: Repository, settings: Settings) -> ModelContext:
        """A context in a workspace of its own (a command about one model)."""
        return Workspace(repository, settings).context(model)

    @cached_property
    def config_file(self) -> ConfigFile | None:
        return self.model.config()

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
        """The config Triton validates: as written, completed by the core."""
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
        # Deferred for start-up time: a run with --config-only never locates model files.
        from pbtxt_lint.analysis.artifacts import ModelArtifacts

        return ModelArtifacts(self)

    @cached_property
    def completed(self) -> CompletedConfig:
        """The config Triton validates after the backend's auto-complete (highest
        loaded version), as far as pbtxt-lint can emulate it."""
        return self.completed_for(None)

    def completed_for(self, version: int | None) -> CompletedConfig:
        """`completed` for one version's model file (None: the highest loaded one).

        Strict mode, a complete config, or a backend whose auto-complete is not
        emulated give the core-completed config unchanged, with a `note` saying why.
        """
        memo = self._memo
        key = ("completed", version)
        if key not in memo:
            effective = self.effective
            if effective is None:
                reason = self.autofill.error if self.autofill else None
                note = reason or "the config cannot be read or parsed"
                memo[key] = CompletedConfig(None, note=note)
            elif self.strict:
                memo[key] = CompletedConfig(effective, note=STRICT_NOTE)
            else:
                # Deferred for start-up time: only auto-complete needs the emulations.
                from pbtxt_lint.analysis.autocomplete import complete_with

                memo[key] = complete_with(self, effective, self.artifacts, version)
        return cast("CompletedConfig", memo[key])

    @property
    def strict(self) -> bool:
        """Triton's `--disable-auto-complete-config`: no backend fills anything."""
        return not self.settings.auto_complete

    @cached_property
    def scopes(self) -> frozenset[Scope]:
        """The rule scopes this model is in."""
        scopes = {Scope.ANY}
        if not self.settings.config_only:
            scopes.add(Scope.FILES)
        if self.effective is not None and is_ensemble(self.effective):
            scopes.add(Scope.ENSEMBLE)
        if not self.settings.config_only and self.artifacts.versions:
            scopes.add(Scope.MODEL_FILES)
        return frozenset(scopes)

    def shared(self, compute: Callable[[ModelContext], T]) -> T:
        """`compute(self)`, once per model: a view several rules derive the same way
        (resolved instance groups, warmup samples...) is computed for the first and
        reused by the others."""
        self.workspace.reached(self)
        memo = self._memo
        if compute not in memo:
            memo[compute] = compute(self)
        return cast(T, memo[compute])

    @cached_property
    def _memo(self) -> dict[object, object]:
        return {}
