"""PL1xx: the repository layout, model names, version folders, platform and backend.

These are decided by Triton's repository scan (every sub-folder is a model), its core
auto-fill (backend inferred from the first sub-folder) and version selection.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Edit, Fix, Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.targets import newer_name
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.triton.autofill import ENSEMBLE_PLATFORM
from pbtxt_lint.triton.backends import BACKENDS, PLATFORMS
from pbtxt_lint.triton.versions import SPECIAL_FOLDERS

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
KNOWN_BACKENDS = tuple(BACKENDS)
AUTOCOMPLETING_BACKENDS = tuple(
    b.name for b in BACKENDS.values() if b.fills_empty_io or b.completes_in_model_py
)
KNOWN_PLATFORMS = (*PLATFORMS, ENSEMBLE_PLATFORM)
ARTIFACT_NAMES = tuple(
    sorted(
        {p.default_filename for p in PLATFORMS.values()}
        | {b.default_filename for b in BACKENDS.values() if b.default_filename}
    )
)


@rule(
    "PL101",
    "stray-folder",
    ERROR,
    "A hidden or tool folder in the repository, which Triton tries to load as a model.",
    triton="Poll failed for model directory '.ipynb_checkpoints': ...",
    needs_config=False,
    stray=True,
)
def stray_folder(context: ModelContext) -> Iterator[Finding]:
    """Triton treats every sub-folder of a repository as a model, hidden ones included.

    `.ipynb_checkpoints`, `.git`, `__pycache__` or `__MACOSX` fail to load (no config,
    no backend, no version), and with `--exit-on-error` (the default) the server does
    not start.

    Bad:
        models/.ipynb_checkpoints/
        models/resnet/config.pbtxt
    Good:
        models/resnet/config.pbtxt
    """
    yield Finding(
        f"'{context.model.name}' is a hidden or tool folder inside the model repository; "
        "Triton treats every sub-folder as a model, fails to load this one, and by default "
        "refuses to start",
        hint=f"delete '{context.model.name}' or move it out of the repository (add it to "
        ".dockerignore / the sync exclude list)",
    )


@rule(
    "PL102",
    "missing-config",
    ERROR,
    "A model folder without config.pbtxt while auto-complete is disabled.",
    triton="failed to open text file for read <path>/config.pbtxt: No such file or directory",
    needs_config=False,
)
def missing_config(context: ModelContext) -> Iterator[Finding]:
    """With `--disable-auto-complete-config`, Triton reads `config.pbtxt` unconditionally
    and fails the model when it is missing. (With auto-complete on, see PL117.)

    Bad:
        resnet/1/model.onnx   (no config.pbtxt, server run with --disable-auto-complete-config)
    Good:
        resnet/config.pbtxt
        resnet/1/model.onnx
    """
    if context.config_file is not None or context.model.entries is None or not context.strict:
        return
    yield Finding(
        f"model '{context.model.name}' has no config.pbtxt, and with "
        "--disable-auto-complete-config Triton requires one",
        file=context.model.path,
        hint="add config.pbtxt with the model's inputs, outputs and max_batch_size",
    )


@rule(
    "PL117",
    "config-required-by-backend",
    ERROR,
    "A model without config.pbtxt whose backend cannot auto-complete one.",
    triton="model configuration is not provided for model '<model>'",
    stage=Stage.LOAD,
    needs_config=False,
)
def config_required_by_backend(context: ModelContext) -> Iterator[Finding]:
    """Without `config.pbtxt`, Triton relies on the backend to derive the config from
    the model file. ONNX Runtime, TensorRT, OpenVINO, Python, TensorFlow and DALI can;
    PyTorch and custom backends cannot, and the model fails to load.

    Bad:
        resnet/1/model.pt   (no config.pbtxt)
    Good:
        resnet/config.pbtxt
        resnet/1/model.pt
    """
    if context.config_file is not None or context.model.entries is None or context.strict:
        return
    effective = context.effective
    if effective is None or effective.backend in AUTOCOMPLETING_BACKENDS:
        return  # an undetermined backend is PL104's finding
    yield Finding(
        f"model '{context.model.name}' has no config.pbtxt and its backend "
        f"'{effective.backend}' cannot auto-complete one, so Triton fails with \"model "
        'configuration is not provided"',
        file=context.model.path,
        hint="add config.pbtxt with the inputs, outputs and max_batch_size",
    )


@rule(
    "PL103",
    "name-mismatch",
    ERROR,
    "The config's name differs from its folder name.",
    triton="unexpected directory name '<dir>' for model '<name>', directory name must equal "
    "model name",
)
def name_mismatch(context: ModelContext) -> Iterator[Finding]:
    """The folder name is the model name; a `name` field must repeat it exactly (or be
    left out, and Triton fills it in).

    Bad:
        models/bert_onnx/config.pbtxt:  name: "bert"
    Good:
        models/bert_onnx/config.pbtxt:  name: "bert_onnx"
    """
    config = context.config
    if config is None or not config.name or config.name == context.model.name:
        return
    located = context.parsed.source_map.get(("name",)) if context.parsed else None
    fix = None
    if located is not None:
        node_span = located.node
        from pbtxt_lint.textproto.tree import Field

        if isinstance(node_span, Field) and node_span.value is not None:
            value = node_span.value
            fix = Fix(
                f'set name to "{context.model.name}"',
                (Edit(value.first.start, value.last.end, f'"{context.model.name}"'),),
            )
    yield Finding(
        f"name \"{config.name}\" does not match the folder name '{context.model.name}'; "
        "Triton requires them to be equal and does not load the model",
        at=("name",),
        hint=f'write name: "{context.model.name}", delete the name field, or rename the '
        f"folder to '{config.name}'",
        fix=fix,
    )


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
    `--triton-version`, a lone `model.pt2` fails too.

    Bad:
        resnet/config.pbtxt   (no backend or platform)
        resnet/1/resnet50.onnx
    Good:
        resnet/config.pbtxt:  backend: "onnxruntime"
        resnet/1/model.onnx
    """
    result = context.autofill
    if result is None or result.error is None or context.model.entries is None:
        return
    subfolders = context.model.subfolders
    hint = (
        'set backend (e.g. backend: "onnxruntime") and name the file model.<ext> or set '
        "default_model_filename"
    )
    if not subfolders:
        detail = "and the model folder has no sub-folder to look into"
    else:
        found = context.model.first_subfolder_contents() or {}
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
        f"Triton cannot determine the backend of model '{context.model.name}': the config "
        f"sets no backend, platform or default_model_filename, {detail}",
        at=("backend",) if context.config is not None else None,
        file=None if context.config_file is not None else context.model.path,
        hint=hint,
    )


@rule(
    "PL105",
    "unknown-platform",
    ERROR,
    "A platform Triton does not know, with no backend to fall back on.",
    triton="unexpected platform type '<platform>' for <model>",
)
def unknown_platform(context: ModelContext) -> Iterator[Finding]:
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
    effective = context.effective
    if effective is None or effective.backend or effective.platform == ENSEMBLE_PLATFORM:
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
            f"model '{context.model.name}' has {what}: {why}, so it finds no backend for the "
            "model and refuses it",
            at=at,
            hint=fix,
        )
        return
    known = [p for p in KNOWN_PLATFORMS if newer_name(p, context.settings.target) is None]
    if platform in KNOWN_BACKENDS or platform in ("openvino", "python"):
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
        f"model '{context.model.name}' has {what}; Triton does not know which backend "
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
)
def platform_backend_mismatch(context: ModelContext) -> Iterator[Finding]:
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
    effective = context.effective
    if effective is None:
        return
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
            f"model '{context.model.name}' has platform '{effective.platform}' with backend "
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


def _version_detail(context: ModelContext) -> str:
    scan = context.version_scan
    if scan.versions:
        present = ", ".join(sorted({str(v.version) for v in scan.versions}, key=int))
        return f"the version policy selects none of the versions present ({present})"
    if scan.leading_zeros:
        return (
            f"'{scan.leading_zeros[0]}' is ignored because of its leading zero, and no "
            "other version folder exists"
        )
    if not context.model.subfolders:
        return "the model folder has no version folder"
    return "no sub-folder is named by a version number"


@rule(
    "PL107",
    "no-loadable-version",
    ERROR,
    "No version folder that Triton would load under the model's version policy.",
    triton="at least one version must be available under the version policy of model '<model>'",
    needs_config=False,
)
def no_loadable_version(context: ModelContext) -> Iterator[Finding]:
    """Models (ensembles too) need a numeric version folder: `1/`, not `01/`, `v1/` or
    the model file directly in the model folder.

    Bad:
        resnet/config.pbtxt
        resnet/model.onnx
    Good:
        resnet/config.pbtxt
        resnet/1/model.onnx
    """
    if context.model.entries is None or context.effective is None:
        return
    if context.selection.versions:
        return
    loose = [e.name for e in context.model.entries if not e.is_dir and e.name in ARTIFACT_NAMES]
    zeros = context.version_scan.leading_zeros
    if loose:
        hint = f"move {loose[0]} into a version folder: {context.model.name}/1/{loose[0]}"
    elif zeros:
        hint = f"rename '{zeros[0]}' to '{zeros[0].lstrip('0') or '0'}'"
    elif context.effective.platform == ENSEMBLE_PLATFORM:
        hint = "an ensemble needs a version folder too: create an empty 1/"
    else:
        hint = "put the model file in a version folder such as 1/"
    policy = context.config is not None and context.config.HasField("version_policy")
    yield Finding(
        f"model '{context.model.name}' has no version Triton would load: "
        f"{_version_detail(context)}",
        at=("version_policy",) if policy else None,
        file=None if policy else context.model.path,
        hint=hint,
    )


@rule(
    "PL108",
    "version-folder-ignored",
    WARNING,
    "A sub-folder that looks like a version but that Triton ignores (leading zero, not a number).",
    needs_config=False,
)
def version_folder_ignored(context: ModelContext) -> Iterator[Finding]:
    """Triton skips `01/` (leading zero) and `v2/` (not a number) with only a log warning:
    `ignore version directory '01' which contains leading zeros in its directory name`.

    Bad:
        resnet/01/model.onnx
    Good:
        resnet/1/model.onnx
    """
    if context.model.entries is None:
        return
    scan = context.version_scan
    for name in scan.leading_zeros:
        fixed = name.lstrip("0") or "0"
        yield Finding(
            f"version folder '{name}' is ignored by Triton because of its leading zero",
            file=context.model.path / name,
            hint=f"rename it to '{fixed}'",
        )
    environment = _environment_folder(context)
    for name in scan.not_numeric:
        if name in SPECIAL_FOLDERS or name.startswith(".") or name == environment:
            continue
        yield Finding(
            f"sub-folder '{name}' is not a version number; Triton ignores it",
            file=context.model.path / name,
            hint="version folders are named 1, 2, ...; move other files out of the model folder",
            severity=INFO if name == "__pycache__" else None,
        )


def _environment_folder(context: ModelContext) -> str | None:
    """The model-folder sub-folder a Python model's EXECUTION_ENV_PATH names, if any: an
    unpacked environment lives there by design (python_backend README)."""
    config = context.effective
    if (
        config is None
        or config.backend != "python"
        or "EXECUTION_ENV_PATH" not in config.parameters
    ):
        return None
    value = config.parameters["EXECUTION_ENV_PATH"].string_value
    rest = value.removeprefix("$$TRITON_MODEL_DIRECTORY/") if value.startswith("$$") else ""
    return rest.split("/", 1)[0] or None


@rule(
    "PL109",
    "version-folder-numeric-prefix",
    WARNING,
    "A folder like 1_old or 2-backup, which Triton reads as a version number.",
    needs_config=False,
)
def version_folder_numeric_prefix(context: ModelContext) -> Iterator[Finding]:
    """Triton parses version folders with `std::stoll`, so `1_old` is version 1 and
    `3.bak` is version 3, and the backend then looks for the model in `1/` or `3/`.
    A backup folder can shadow the real version or make a missing one look present.

    Bad:
        resnet/1/model.onnx
        resnet/2_backup/model.onnx
    Good:
        resnet/1/model.onnx
    """
    if context.model.entries is None:
        return
    for folder in context.version_scan.versions:
        if folder.exact:
            continue
        yield Finding(
            f"'{folder.folder}' is read by Triton as version {folder.version}, and the "
            f"backend then loads from '{folder.version}/'",
            file=context.model.path / folder.folder,
            hint="move backups out of the model repository",
        )


@rule(
    "PL110",
    "specific-version-missing",
    WARNING,
    "version_policy.specific lists a version that has no folder.",
)
def specific_version_missing(context: ModelContext) -> Iterator[Finding]:
    """Triton logs `version <v> is specified for model '<model>', but the version
    directory is not present` and loads the other versions (the model fails only if
    none is left, see PL107).

    Bad:
        version_policy { specific { versions: [ 1, 3 ] } }   (no 3/)
    Good:
        version_policy { specific { versions: [ 1 ] } }
    """
    if context.model.entries is None or not context.selection.versions:
        return
    config = context.config
    if config is None:
        return
    wanted = list(config.version_policy.specific.versions)
    for version in context.selection.missing_specific:
        index = wanted.index(version)
        yield Finding(
            f"version {version} is listed in version_policy.specific but "
            f"'{context.model.name}/{version}/' does not exist; Triton skips it",
            at=("version_policy", "specific", "versions", index),
            hint=f"create {version}/ or remove {version} from the list",
        )


@rule(
    "PL111",
    "unused-config-variant",
    INFO,
    "A configs/<name>.pbtxt that is not used unless Triton runs with --model-config-name=<name>.",
    needs_config=False,
)
def unused_config_variant(context: ModelContext) -> Iterator[Finding]:
    """Triton reads `configs/<name>.pbtxt` only with `--model-config-name=<name>`, and
    silently falls back to `config.pbtxt` otherwise. Check variants with the same flag.

    Bad:
        resnet/configs/h100.pbtxt   (server started without --model-config-name)
    Good:
        tritonserver --model-config-name=h100 ...; pbtxt-lint check --model-config-name h100
    """
    for path in context.model.unused_configs:
        yield Finding(
            f"configs/{path.name} is not checked: Triton uses it only when started with "
            f"--model-config-name={path.stem}",
            file=path,
            hint=f"run pbtxt-lint check --model-config-name {path.stem} to check it",
        )


@rule(
    "PL112",
    "backend-from-folder-name",
    WARNING,
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
    if effective is None or "." not in context.model.name:
        return
    if written is not None and (
        written.backend or written.platform or written.default_model_filename
    ):
        return
    backend = context.model.name.split(".", 1)[1]
    if effective.backend != backend:
        return
    yield Finding(
        f"no backend is set, so Triton takes '{backend}' (the text after the first '.' of "
        f"'{context.model.name}') as the backend and looks for model.{backend}",
        at=("backend",) if written is not None else None,
        file=None if written is not None else context.model.path,
        hint="set backend explicitly, or rename the folder without a dot",
        # `model.dali` naming a real backend is a convention (DALI's own examples).
        severity=INFO if backend in KNOWN_BACKENDS else None,
    )


@rule(
    "PL113",
    "unknown-backend",
    WARNING,
    "A backend name that is not one of Triton's backends (a typo or a custom backend).",
)
def unknown_backend(context: ModelContext) -> Iterator[Finding]:
    """Triton loads `libtriton_<backend>.so` from its backends folder; a misspelt name
    fails with `unable to find backend library for backend '<backend>'`. Custom
    backends are fine where they are installed.

    Bad:
        backend: "onnx"
    Good:
        backend: "onnxruntime"
    """
    config = context.config
    if config is None or not config.backend or config.runtime:
        return
    backend = config.backend
    if backend in KNOWN_BACKENDS:
        return
    aliases = {
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
    guess = aliases.get(backend.lower()) or suggest(backend, KNOWN_BACKENDS, cutoff=0.7)
    yield Finding(
        f"backend '{backend}' is not a Triton backend; unless it is installed (as "
        f"backends/{backend}/libtriton_{backend}.so, or backends/{backend}/model.py for a "
        'Python-based backend), Triton fails with "unable to find backend library"',
        at=("backend",),
        hint=f'did you mean backend: "{guess}"?'
        if guess
        else "check the name against the backends installed in your Triton image",
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
    "PL115",
    "unreadable-model-folder",
    ERROR,
    "A model folder that cannot be listed, or a link pbtxt-lint does not follow.",
    triton="failed to open directory <path>",
    needs_config=False,
)
def unreadable_model_folder(context: ModelContext) -> Iterator[Finding]:
    """Triton fails a model whose folder it cannot read. pbtxt-lint never follows a
    symlink out of the repository, so such a model is not checked (a warning).

    Bad:
        models/resnet/ with mode 000
    Good:
        models/resnet/ readable by the user Triton runs as
    """
    error = context.model.error
    if error is None:
        return
    yield Finding(
        f"model folder '{context.model.name}' {error}"
        if context.model.outside
        else f"model folder '{context.model.name}': {error}",
        file=context.model.path,
        hint="make the folder readable"
        if not context.model.outside
        else "check the linked folder on its own",
        severity=WARNING if context.model.outside else None,
    )


@rule(
    "PL116",
    "config-in-version-folder",
    WARNING,
    "config.pbtxt sits inside a version folder, where Triton never reads it.",
    needs_config=False,
)
def config_in_version_folder(context: ModelContext) -> Iterator[Finding]:
    """Triton reads `<model>/config.pbtxt`; a copy in `<model>/1/` is ignored, so edits
    to it have no effect (and without a model-level config the model is auto-completed
    or fails).

    Bad:
        resnet/1/config.pbtxt
    Good:
        resnet/config.pbtxt
    """
    for folder in context.version_scan.versions:
        contents = context.model.contents(folder.folder) or {}
        entry = contents.get("config.pbtxt")
        if entry is not None and not entry.is_dir:
            yield Finding(
                f"{folder.folder}/config.pbtxt is inside a version folder; Triton only reads "
                f"{context.model.name}/config.pbtxt",
                file=context.model.path / folder.folder / "config.pbtxt",
                hint=f"move it to {context.model.name}/config.pbtxt",
            )
