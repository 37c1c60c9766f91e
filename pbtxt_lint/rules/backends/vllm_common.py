"""What the PL80x (vLLM) rules share: is this a vLLM model, its engine-argument files,
and which vLLM the target image installs."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.artifacts.model_json import JsonObjectFile, read_json_object
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.triton.vllm import (
    ENGINE_ARGS_FILE,
    VLLM_VERSIONS,
    BackendRelease,
    backend_release,
    vllm_version,
)

BACKEND = "vllm"


def vllm_config(context: ModelContext) -> ModelConfig | None:
    """The effective config of a vLLM model; None for any other model."""
    config = context.effective
    return config if config is not None and config.backend == BACKEND else None


def behaviour(context: ModelContext) -> BackendRelease | None:
    """What the vLLM backend of the target release does (None before 23.10)."""
    return backend_release(context.settings.target)


@dataclass(frozen=True)
class TargetVllm:
    """The vLLM whose engine arguments model.json is judged against."""

    version: str
    """The version the target image installs, or the newest pbtxt-lint knows."""
    known: bool
    """The target release was declared and its image's vLLM version is known."""
    label: str
    """`vLLM 0.5.5 (the 24.10 image's)`, for messages."""


def target_vllm(context: ModelContext) -> TargetVllm:
    release = context.settings.target
    version = vllm_version(release) if release is not None else None
    if release is not None and version is not None:
        return TargetVllm(version, True, f"vLLM {version} (the {release.container} image's)")
    newest = VLLM_VERSIONS[-1]
    return TargetVllm(newest, False, f"vLLM {newest} (the newest release pbtxt-lint knows)")


def engine_args_files(context: ModelContext) -> tuple[tuple[int, JsonObjectFile], ...]:
    """(version, model.json) of each version Triton loads, read once per model; none
    with `--config-only`, which reads no file but the config."""
    return context.shared(_read_engine_args)


def _read_engine_args(context: ModelContext) -> tuple[tuple[int, JsonObjectFile], ...]:
    if vllm_config(context) is None or context.settings.config_only:
        return ()
    folder = context.model.path
    return tuple(
        (version, read_json_object(folder / str(version) / ENGINE_ARGS_FILE))
        for version in context.selection.versions
    )


def parsed_engine_args(context: ModelContext) -> Iterator[tuple[int, JsonObjectFile]]:
    """(version, model.json) of the loaded versions whose model.json is a JSON object."""
    for version, document in engine_args_files(context):
        if not document.problem:
            yield version, document


def engine_arg(context: ModelContext, key: str) -> object:
    """The value model.json of the highest loaded version gives `key` (None: not given)."""
    files = engine_args_files(context)
    entry = files[-1][1].get(key) if files else None
    return entry.value if entry is not None else None
