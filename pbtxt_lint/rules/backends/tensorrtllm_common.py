"""What the TensorRT-LLM rules (PL825-PL833) share: which model of the published
inflight_batcher_llm pipeline a config is, the TensorRT-LLM release targeted, and how
parameters are named in messages and hints."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pbtxt_lint import storage
from pbtxt_lint.rules.api import FieldPath, Key, ModelConfig, ModelContext
from pbtxt_lint.triton.tensorrtllm import (
    TRTLLM_OF_RELEASE,
    Version,
    is_placeholder,
    placeholder_name,
    role,
    trtllm_version,
    version_text,
)

BLS_LIBRARY = Path("lib") / "triton_decoder.py"
"""The helper module of the published tensorrt_llm_bls model, beside its model.py."""

ROLE_LABELS = {
    "tensorrt_llm": "TensorRT-LLM model",
    "tensorrt_llm_python": "TensorRT-LLM Python-runtime model",
    "preprocessing": "TensorRT-LLM preprocessing model",
    "postprocessing": "TensorRT-LLM postprocessing model",
    "tensorrt_llm_bls": "TensorRT-LLM BLS model",
}


@dataclass(frozen=True)
class Pipeline:
    """A model of the published pipeline, as the rules see it."""

    config: ModelConfig
    role: str
    name: str
    version: Version | None
    """The TensorRT-LLM of the targeted release; None when no release was declared."""
    release: str
    """`Triton 24.10 (TensorRT-LLM 0.14)`, or "" without a declared release."""

    @property
    def label(self) -> str:
        return f"{ROLE_LABELS[self.role]} '{self.name}'"

    def value(self, key: str) -> str | None:
        entry = self.config.parameters.get(key)
        return entry.string_value if entry is not None else None

    def usable(self, key: str) -> bool:
        """Set to something other than nothing or an unfilled `${...}`."""
        value = self.value(key)
        return bool(value) and not is_placeholder(value or "")


def pipeline_model(context: ModelContext) -> Pipeline | None:
    """The model as a member of the inflight_batcher_llm pipeline, None if it is none."""
    return context.shared(_pipeline_model)


def _pipeline_model(context: ModelContext) -> Pipeline | None:
    config = context.effective
    if config is None:
        return None
    found = role(config, has_bls_library=_has_bls_library(context))
    if found is None:
        return None
    target = context.settings.target
    version = trtllm_version(target)
    release = ""
    if target is not None and version is not None:
        release = f"Triton {target.container} (TensorRT-LLM {version_text(version)})"
    elif target is not None and target.container < min(TRTLLM_OF_RELEASE):
        release = f"Triton {target.container}"
    return Pipeline(config, found, context.model.name, version, release)


def _has_bls_library(context: ModelContext) -> bool:
    for version in context.selection.versions:
        try:
            storage.stat(context.model.path / str(version) / BLS_LIBRARY)
        except (OSError, ValueError):
            continue
        return True
    return False


def value_path(key: str) -> FieldPath:
    """Where a parameter's value is written."""
    return ("parameters", Key(key), "value", "string_value")


def fill_hint(value: str, config_file: str, example: str) -> str:
    """How to fill an unfilled `${name}`: fill_template.py with that name."""
    name = placeholder_name(value)
    return (
        f"fill it: python3 tools/fill_template.py -i {config_file} {name}:{example} "
        f'(or write the value in place of "{value}")'
    )
