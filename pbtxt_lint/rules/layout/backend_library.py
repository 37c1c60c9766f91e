"""PL113, PL114 and PL118: the backend library Triton loads for the model.

Triton looks for `libtriton_<backend>.so` in the version folder it loads, then the
model folder, then `<backend-directory>/<backend>/`, and last for a Python-based
backend's `<backend-directory>/<backend>/model.py`; `runtime` names the library
instead, which must stay inside the folder it is found in
(`TritonModel::GetBackendLibrarySearchPaths`, `GetBackendLibraryProperties` and
`GetBackendRuntimeLibraryName` in core's src/backend_model.cc). Which backends the
backend folder holds is a fact about the host: the image it runs (`IMAGES` in
`pbtxt_lint.triton.backends`) and what was installed on top. With a declared host
profile (`container`, `backends`) a backend the host lacks is an error; without one it
is info, and only a name that cannot be a backend at all is worth a warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from pbtxt_lint.rules.api import (
    BACKENDS,
    ENSEMBLE_PLATFORM,
    ERROR,
    IMAGES,
    INFO,
    PLATFORMS,
    RELEASES,
    WARNING,
    Edit,
    FieldPath,
    Finding,
    Fix,
    HostBackends,
    ModelContext,
    Scalar,
    Stage,
    host_backends,
    images_shipping,
    is_ensemble,
    rule,
    shipped_backends,
    suggest,
)

TRITON_MISSING = (
    "unable to find backend library for backend '<backend>', try specifying runtime on the "
    "model configuration."
)
ALIASES = {
    "onnx": "onnxruntime",
    "ort": "onnxruntime",
    "trt": "tensorrt",
    "torch": "pytorch",
    "libtorch": "pytorch",
    "tf": "tensorflow",
    "ov": "openvino",
    "py": "python",
    "tensorrt_llm": "tensorrtllm",
    "trtllm": "tensorrtllm",
}
"""Short names users write for a backend; none of them is one."""
TYPO_TARGETS = (
    *(name for name, entry in BACKENDS.items() if not entry.example),
    *PLATFORMS,
)
"""Names a misspelt backend is compared with (test and tutorial backends have short
common names a custom backend may well resemble)."""
_PLACEHOLDER = re.compile(r"[${}<>]|\b(?:REPLACE|TODO|FIXME|CHANGE_?ME|YOUR)")
PROFILE_HINT = (
    "declare the host to check it: --container IMAGE and --backends NAMES (`container` "
    "and `backends` in .pbtxt-lint.toml)"
)


def library_beside(context: ModelContext, name: str) -> bool:
    """Is `libtriton_<name>.so` in the model folder or a version folder Triton loads?
    Triton finds a backend library there before it looks in its backend folder."""
    library = f"libtriton_{name}.so"
    if any(entry.name == library for entry in context.folder.entries or ()):
        return True
    for version in context.selection.versions:
        listing = context.folder.contents(str(version))
        if listing is not None and library in listing:
            return True
    return False


def _backend_in_use(context: ModelContext) -> tuple[str, FieldPath | None] | None:
    """The backend Triton looks up for the model and the field that names it: the
    written backend, the backend of a written platform, or the one the core inferred
    from a model file. None for ensembles, a `runtime` library (PL114), a backend taken
    from the folder name (PL112) and a platform written as a backend (PL118)."""
    effective = context.effective
    if effective is None or is_ensemble(effective) or effective.runtime:
        return None
    written = context.config
    if written is not None and written.backend:
        if written.backend in PLATFORMS or written.backend == ENSEMBLE_PLATFORM:
            return None
        return written.backend, ("backend",)
    if written is not None and written.platform:
        platform = PLATFORMS.get(written.platform)
        return (platform.backend, ("platform",)) if platform is not None else None
    if not effective.backend:
        return None
    if written is None or not written.default_model_filename:
        suffix = context.folder.name.split(".", 1)[1] if "." in context.folder.name else None
        if effective.backend == suffix:
            return None
    return effective.backend, None


def _typo(name: str) -> str | None:
    """The backend a misspelt or aliased name most likely means, or None."""
    guess = ALIASES.get(name.lower()) or suggest(name, TYPO_TARGETS, cutoff=0.7)
    if guess is not None and guess in PLATFORMS:
        return PLATFORMS[guess].backend
    return guess if guess != name else None


def _origin(name: str) -> str:
    """Where backend `name` comes from when no image ships it, for a message: when the
    standard image stopped shipping it, or where the Triton project publishes it."""
    entry = BACKENDS.get(name)
    if entry is None:
        return ""
    last = max(
        (s.last for s in entry.ships_in if s.image == "py3" and s.last is not None),
        default=None,
    )
    if last is not None:
        label = next((r.label for r in RELEASES if r.server == last), f"2.{last[1]}")
        return f" (the py3 image shipped it up to {label})"
    where = entry.published
    if where and not where.startswith("gitlab"):
        where = f"github.com/triton-inference-server/{where}"
    return f" (it is published in {where})" if where else ""


def _custom_places(name: str) -> str:
    """Where Triton would find backend `name`'s library, for a hint."""
    entry = BACKENDS.get(name)
    if entry is not None and entry.python_based:
        return f"backends/{name}/model.py, on top of the python backend"
    if entry is not None:
        return f"backends/{name}/libtriton_{name}.so"
    return (
        f"libtriton_{name}.so in the model's version folder, the model folder or "
        f"backends/{name}/, or backends/{name}/model.py for a Python-based backend"
    )


@rule(
    "PL113",
    "unknown-backend",
    ERROR,
    "A backend the host may lack: an error for a declared host, a warning for a misspelt "
    "name, otherwise info.",
    triton=TRITON_MISSING,
    stage=Stage.LOAD,
    needs_config=False,
)
def unknown_backend(context: ModelContext) -> Iterator[Finding]:
    """Triton loads `libtriton_<backend>.so` from the model's version folder, the model
    folder or its backend folder (`backends/<backend>/`, where a Python-based backend
    has a `model.py` instead); when none has it the model fails with `unable to find
    backend library for backend '<backend>'`. Which backends a host has depends on its
    image: the standard `tritonserver:<yy.mm>-py3` ships onnxruntime, tensorrt,
    pytorch, openvino, python, dali, fil (tensorflow until 25.02), the
    `-vllm-python-py3` and `-trtllm-python-py3` images only vllm or tensorrtllm and
    python. Declare the host (`container`, `backends`) and a backend it lacks is an
    error. Without a declaration a misspelt name (close to a real backend, an alias
    like `onnx`, a template placeholder) is a warning, and a backend no Triton image
    ships (fastertransformer, a custom one) is info: the host must have it.

    Bad:
        backend: "onnx"
        backend: "fastertransformer"   (pbtxt-lint check --container py3)
    Good:
        backend: "onnxruntime"
        backend: "fastertransformer"   (--container py3 --backends fastertransformer)
    """
    found = _backend_in_use(context)
    if found is None:
        return
    name, at = found
    if library_beside(context, name):
        return  # Triton finds the library in the model's own folders
    file = None if at is not None or context.config_file else context.folder.path
    host = host_backends(context.settings)
    if host is not None:
        lacks = _host_lacks(context, name, host, at, file) if name not in host.names else None
        if lacks is not None:
            yield lacks
        return
    model = context.folder.name
    if name in BACKENDS:
        target = context.settings.target
        if target is not None and shipped_backends("py3", target) is None:
            return  # what the images of so old a release ship is not in the table
        if images_shipping(name, target):
            return  # a stock image serves it: which one the host runs is not known
        release = f" of {target.label}" if target is not None else ""
        yield Finding(
            f"model '{model}' needs the {name} backend, which the host must have installed: "
            f"no tritonserver image{release} ships it{_origin(name)}",
            hint=f"nothing to do if the host has it; {PROFILE_HINT}",
            severity=INFO,
            at=at,
            file=file,
        )
        return
    if _PLACEHOLDER.search(name):
        yield Finding(
            f"backend '{name}' of model '{model}' looks like a template placeholder that was "
            f'never filled in; Triton fails with "unable to find backend library for '
            f"backend '{name}'\"",
            hint='write the backend that runs the model (e.g. backend: "onnxruntime")',
            severity=WARNING,
            at=at,
            file=file,
        )
        return
    guess = _typo(name)
    if guess is not None:
        yield Finding(
            f"backend '{name}' of model '{model}' is not a Triton backend and looks like a "
            f"misspelling of '{guess}'; unless a custom backend of that name is installed, "
            f"Triton fails with \"unable to find backend library for backend '{name}'\"",
            hint=f'did you mean backend: "{guess}"?',
            severity=WARNING,
            at=at,
            file=file,
        )
        return
    yield Finding(
        f"backend '{name}' of model '{model}' is a custom backend (the Triton project "
        f"publishes none of that name): the host must have it installed ({_custom_places(name)})",
        hint=f"nothing to do if the host has it; {PROFILE_HINT}",
        severity=INFO,
        at=at,
        file=file,
    )


def _host_lacks(
    context: ModelContext,
    name: str,
    host: HostBackends,
    at: FieldPath | None,
    file: Path | None,
) -> Finding | None:
    """The finding for backend `name`, which the declared host does not have (None when
    it may well have it)."""
    model = context.folder.name
    extra = sorted(host.declared)
    if name in host.maybe:
        until = max(
            (s.last for s in BACKENDS[name].ships_in if s.image == host.image and s.last),
            default=None,
        )
        label = next((r.label for r in RELEASES if r.server == until), "some releases")
        return Finding(
            f"model '{model}' needs the {name} backend, which the tritonserver {host.image} "
            f"image ships only up to {label}; --triton-version is not given, so whether the "
            "host has it is unknown",
            at=at,
            file=file,
            hint="declare the release with --triton-version (triton-version in "
            f".pbtxt-lint.toml), or add '{name}' to `backends` if the host has it",
            severity=INFO,
        )
    if not host.complete:
        entry = BACKENDS.get(name)
        if entry is not None and any(s.image == host.image for s in entry.ships_in):
            return None  # the image ships it in the releases pbtxt-lint knows
        return Finding(
            f"model '{model}' needs the {name} backend; pbtxt-lint does not know which "
            f"backends {host.image_label} ships, and `backends` does not list it",
            at=at,
            file=file,
            hint=f"add '{name}' to `backends` if the host has it",
            severity=INFO,
        )
    shipped = sorted(host.names - host.declared)
    if host.image == "custom":
        what = f"its custom image has only the backends `backends` lists ({', '.join(extra)})"
    else:
        added = f", and `backends` adds {', '.join(extra)}" if extra else ""
        what = f"{host.image_label} ships {', '.join(shipped) or 'no backend'}{added}"
    guess = _typo(name) if name not in BACKENDS else None
    if guess is not None:
        hint = f'did you mean backend: "{guess}"?' + (
            "" if guess in host.names else " (the target host does not have it either)"
        )
    else:
        others = [
            image
            for image in images_shipping(name, host.release)
            if image != host.image and image in IMAGES
        ]
        hint = f"install it ({_custom_places(name)}) and add '{name}' to `backends`"
        if others:
            hint = f"run the {host.release.container}-{others[0]} image, or {hint}"
        elif name in BACKENDS and _origin(name).startswith(" (the py3"):
            hint += f", or deploy on a release whose image ships it{_origin(name)}"
    return Finding(
        f"model '{model}' needs the {name} backend, which the target host does not have: "
        f"{what}; Triton fails to load the model with "
        f"\"unable to find backend library for backend '{name}'\"",
        at=at,
        file=file,
        hint=hint,
    )


@rule(
    "PL114",
    "runtime-escapes",
    ERROR,
    "runtime names a library outside the backend folder.",
    triton="backend library name '<runtime>' escapes backend directory '<dir>', for model "
    "'<model>', check model config runtime field",
    stage=Stage.LOAD,
)
def runtime_escapes(context: ModelContext) -> Iterator[Finding]:
    """`runtime` is a file name looked up in the model, version and backend folders; a
    path with `..` or an absolute path is refused.

    Bad:
        runtime: "../libtriton_custom.so"
    Good:
        runtime: "libtriton_custom.so"
    """
    config = context.config
    if config is None or not config.runtime:
        return
    runtime = config.runtime
    if runtime.startswith("/") or ".." in runtime.split("/"):
        yield Finding(
            f"runtime '{runtime}' points outside the backend folder; Triton refuses it",
            at=("runtime",),
            hint="give a file name only and install the library in the backend folder",
        )


@rule(
    "PL118",
    "platform-as-backend",
    ERROR,
    "A platform name (onnxruntime_onnx, tensorrt_plan, ensemble, ...) written in `backend`.",
    triton=TRITON_MISSING.replace("<backend>", "<platform>"),
    stage=Stage.LOAD,
)
def platform_as_backend(context: ModelContext) -> Iterator[Finding]:
    """`backend` names a backend library (`onnxruntime`, `tensorrt`, `pytorch`,
    `tensorflow`, ...); the names with a format suffix (`onnxruntime_onnx`,
    `tensorrt_plan`, `pytorch_libtorch`, `torch_aoti`, `tensorflow_savedmodel`,
    `tensorflow_graphdef`) and `ensemble` are platforms and belong in `platform`.
    Written in `backend`, Triton looks for `libtriton_onnxruntime_onnx.so`, finds no
    such backend on any host and refuses the model.

    Bad:
        backend: "onnxruntime_onnx"
    Good:
        backend: "onnxruntime"
    """
    config = context.config
    if config is None or config.runtime:
        return
    written = config.backend
    platform = PLATFORMS.get(written)
    if platform is None and (
        written != ENSEMBLE_PLATFORM or config.HasField("ensemble_scheduling")
    ):
        return  # an ensemble with steps: PL501 says to write platform instead
    if library_beside(context, written):
        return
    model = context.folder.name
    why = (
        f"backend '{written}' of model '{model}' is a platform name, not a backend: Triton "
        f"looks for the library libtriton_{written}.so, no host has it, and the model fails "
        f"to load (\"unable to find backend library for backend '{written}'\")"
    )
    if platform is None:
        yield Finding(
            why,
            at=("backend",),
            hint='an ensemble has no backend: write platform: "ensemble" instead',
        )
        return
    fix = None
    if not config.platform or PLATFORMS.get(config.platform, platform).backend == platform.backend:
        fix = _replace_backend(context, platform.backend)
    yield Finding(
        why,
        at=("backend",),
        hint=f'write backend: "{platform.backend}" (or platform: "{written}" and no backend)',
        fix=fix,
    )


def _replace_backend(context: ModelContext, backend: str) -> Fix | None:
    """A fix writing `backend: "<backend>"` over the written value."""
    located = context.parsed.source_map.get(("backend",)) if context.parsed else None
    value = located.value_node if located is not None else None
    if not isinstance(value, Scalar):
        return None
    return Fix(
        f'set backend to "{backend}"',
        (Edit(value.first.start, value.last.end, f'"{backend}"'),),
    )
