"""PL104-PL106 and PL112: which backend runs the model.

The core's auto-fill (`AutoCompleteBackendFields` in core's
src/model_config_utils.cc) derives the backend from `platform`,
`default_model_filename`, the files of the first version folder or, last, the text
after a dot in the model name; `ValidateModelConfig` then refuses a platform it does
not know and a platform that does not go with the backend. Both depend on the target
release (`--triton-version`): `torch_aoti` and `model.pt2` are recent.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    BACKENDS,
    ENSEMBLE_PLATFORM,
    ERROR,
    INFO,
    PLATFORMS,
    Finding,
    ModelConfig,
    ModelContext,
    model_label,
    newer_name,
    rule,
    suggest,
)
from pbtxt_lint.rules.layout.common import ARTIFACT_NAMES, KNOWN_BACKENDS, versions_elsewhere

KNOWN_PLATFORMS = (*PLATFORMS, ENSEMBLE_PLATFORM)
"""Platform names the core knows."""


def _unknown_to_target(context: ModelContext, name: str) -> tuple[str, str] | None:
    """(why, fix) when the target release predates `name` (`torch_aoti`, `model.pt2`):
    its core neither maps the platform nor recognises the file, so the model gets no
    backend (or a platform its backend refuses) and fails at poll. None otherwise."""
    target = context.settings.target
    added = newer_name(name, target)
    if added is None or target is None or name not in ("torch_aoti", "model.pt2"):
        return None  # an older core knows no `libtorch` either: a plain unknown platform
    why = (
        f"Triton {target.label} does not know {name} (PyTorch AOTInductor, added in "
        f"Triton {added.label})"
    )
    fix = (
        f"upgrade Triton to {added.label} or later, or serve a TorchScript model.pt with "
        'platform: "pytorch_libtorch"'
    )
    return why, fix


@rule(
    "PL104",
    "backend-undetermined",
    ERROR,
    "Triton cannot tell which backend runs this model.",
    triton="Invalid model name: Could not determine backend for model '<name>' with no "
    "backend in model configuration. Expected model name of the form 'model.<backend_name>'.",
    needs_config=False,
)
def backend_undetermined(context: ModelContext) -> Iterator[Finding]:
    """With no `backend`, `platform` or `default_model_filename`, Triton looks for a
    known file name (`model.onnx`, `model.plan`, `model.pt`, `model.py`, ...) in the
    first sub-folder. If none is there, the model fails. `model.pt2` (PyTorch
    AOTInductor) is known from Triton 26.03 (2.67); checked with an older
    `--triton-version`, a lone `model.pt2` fails too. With `--config-only`, a model
    whose version folders live elsewhere (no sub-folder named by digits, no model file
    beside the config) is not judged: the file that names its backend is there.

    Bad:
        resnet/config.pbtxt   (no backend or platform)
        resnet/1/resnet50.onnx
    Good:
        resnet/config.pbtxt:  backend: "onnxruntime"
        resnet/1/model.onnx
    """
    result = context.autofill
    if result is None or result.error is None or context.folder.entries is None:
        return
    if versions_elsewhere(context):
        return
    subfolders = context.folder.subfolders
    hint = (
        'set backend (e.g. backend: "onnxruntime") and name the file model.<ext> or set '
        "default_model_filename"
    )
    if not subfolders:
        detail = "and the model folder has no sub-folder to look into"
    else:
        found = context.folder.first_subfolder_contents() or {}
        unknown = _unknown_to_target(context, "model.pt2")
        known = [n for n in ARTIFACT_NAMES if newer_name(n, context.settings.target) is None]
        near = [
            name
            for name in found
            if name.rsplit(".", 1)[-1] in ("onnx", "plan", "engine", "pt", "py", "xml", "pt2")
        ]
        detail = f"and '{subfolders[0]}/' holds no file Triton recognises"
        if unknown is not None and "model.pt2" in found and not found["model.pt2"].is_dir:
            detail = f"and '{subfolders[0]}/' holds model.pt2, but {unknown[0]}"
            hint = unknown[1]
        elif near:
            detail += f" ('{near[0]}' is not one of {', '.join(known)})"
    yield Finding(
        f"Triton cannot determine the backend of {model_label(context)}: the config "
        f"sets no backend, platform or default_model_filename, {detail}",
        at=("backend",) if context.config is not None else None,
        file=None if context.config_file is not None else context.folder.path,
        hint=hint,
    )


@rule(
    "PL105",
    "unknown-platform",
    ERROR,
    "A platform Triton does not know, with no backend to fall back on.",
    triton="unexpected platform type '<platform>' for <model>",
    effective=True,
)
def unknown_platform(context: ModelContext, effective: ModelConfig) -> Iterator[Finding]:
    """`platform` accepts only `tensorrt_plan`, `onnxruntime_onnx`, `pytorch_libtorch`,
    `torch_aoti`, `tensorflow_savedmodel`, `tensorflow_graphdef` and `ensemble`.
    Backends such as python or openvino are set with `backend`, not `platform`.
    `torch_aoti` (and `default_model_filename: "model.pt2"`) came in Triton 26.03
    (2.67): with an older `--triton-version` they name no backend either.

    Bad:
        platform: "onnxruntime"
    Good:
        platform: "onnxruntime_onnx"
    """
    if effective.backend or effective.platform == ENSEMBLE_PLATFORM:
        return
    platform = effective.platform
    at = ("platform",) if platform else ("default_model_filename",)
    unknown = _unknown_to_target(context, platform or effective.default_model_filename)
    if unknown is not None:
        why, fix = unknown
        what = (
            f"platform '{platform}'"
            if platform
            else f"default_model_filename '{effective.default_model_filename}' and no backend"
        )
        yield Finding(
            f"{model_label(context)} has {what}: {why}, so it finds no backend for the "
            "model and refuses it",
            at=at,
            hint=fix,
        )
        return
    known = [p for p in KNOWN_PLATFORMS if newer_name(p, context.settings.target) is None]
    if platform in KNOWN_BACKENDS:
        hint = f'use backend: "{platform}" instead of platform'
    else:
        guess = suggest(platform, known, cutoff=0.5) if platform else None
        hint = (
            f'did you mean platform: "{guess}"?'
            if guess
            else (
                "set backend (onnxruntime, tensorrt, pytorch, python, openvino, ...) or a "
                f"platform: {', '.join(known)}"
            )
        )
    what = f"platform '{platform}'" if platform else "no platform and no backend"
    yield Finding(
        f"{model_label(context)} has {what}; Triton does not know which backend "
        "to use and refuses the model",
        at=at,
        hint=hint,
    )


@rule(
    "PL106",
    "platform-backend-mismatch",
    ERROR,
    "platform and backend name different frameworks.",
    triton="unexpected 'platform' and 'backend' pair, got:<platform>, <backend>",
    effective=True,
)
def platform_backend_mismatch(context: ModelContext, effective: ModelConfig) -> Iterator[Finding]:
    """For the tensorflow, tensorrt, onnxruntime and pytorch backends, the platform
    must be one of that backend's platforms (or left out). The pytorch backend takes
    `torch_aoti` from Triton 26.03 (2.67) on, only `pytorch_libtorch` before. From
    26.03, `platform: "libtorch"` also lands here: Triton picks the pytorch backend for
    it, then refuses the pair (older releases do not know it at all, PL105).

    Bad:
        backend: "onnxruntime"
        platform: "tensorrt_plan"
    Good:
        backend: "onnxruntime"
    """
    entry = BACKENDS.get(effective.backend)
    allowed = entry.platforms if entry and entry.platforms else None
    target = context.settings.target
    allowed = allowed and tuple(p for p in allowed if newer_name(p, target) is None)
    if not allowed or effective.platform in allowed:
        return
    unknown = _unknown_to_target(context, effective.platform)
    if unknown is not None:
        why, fix = unknown
        yield Finding(
            f"{model_label(context)} has platform '{effective.platform}' with backend "
            f"'{effective.backend}': {why}, and refuses the pair (its {effective.backend} "
            f"backend takes {' or '.join(repr(p) for p in allowed)})",
            at=("platform",),
            hint=fix,
        )
        return
    hint = "delete platform (the backend implies it) or fix one of the two"
    if effective.platform == "libtorch":
        # Auto-fill maps this alias to the pytorch backend; the pair check refuses it.
        hint = 'write platform: "pytorch_libtorch" ("libtorch" is not accepted as a platform)'
    yield Finding(
        f"platform '{effective.platform}' does not go with backend '{effective.backend}' "
        f"(it takes {' or '.join(repr(p) for p in allowed)})",
        at=("platform",),
        hint=hint,
    )


@rule(
    "PL112",
    "backend-from-folder-name",
    INFO,
    "The backend is taken from the text after a dot in the folder name.",
    needs_config=False,
)
def backend_from_folder_name(context: ModelContext) -> Iterator[Finding]:
    """When nothing names a backend and no known model file is found, Triton takes the
    text after the first `.` of the model name as the backend: `bert.onnx` means
    backend `onnx` (which does not exist) and file `model.onnx`. When the text names a
    real backend (`model.dali`, a convention of DALI's examples) it is only info.

    Bad:
        models/bert.onnx/config.pbtxt   (no backend, 1/ holds bert.onnx)
    Good:
        models/bert/config.pbtxt:  backend: "onnxruntime"
    """
    effective = context.effective
    written = context.config
    if effective is None or "." not in context.folder.name:
        return
    if written is not None and (
        written.backend or written.platform or written.default_model_filename
    ):
        return
    backend = context.folder.name.split(".", 1)[1]
    if effective.backend != backend:
        return
    yield Finding(
        f"no backend is set, so Triton takes '{backend}' (the text after the first '.' of "
        f"'{context.folder.name}') as the backend and looks for model.{backend}",
        at=("backend",) if written is not None else None,
        file=None if written is not None else context.folder.path,
        hint="set backend explicitly, or rename the folder without a dot",
        # `model.dali` naming a real backend is a convention (DALI's own examples).
        severity=INFO if backend in KNOWN_BACKENDS else None,
    )
