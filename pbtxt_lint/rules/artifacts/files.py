"""PL600-PL604, PL690: the model file itself, before any tensor is compared.

The file a loaded version opens may be missing, unreadable, a Git LFS pointer, or
missing the ONNX external data it refers to; and a reader may refuse to inspect it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from pbtxt_lint.analysis.artifacts import ArtifactState, VersionArtifact
from pbtxt_lint.analysis.autocomplete import COMPLETERS
from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    LOAD,
    WARNING,
    Finding,
    ModelContext,
    Scope,
    rule,
    suggest,
)
from pbtxt_lint.rules.artifacts.common import located, readable, shorten_paths, shown_path
from pbtxt_lint.schema.model_config_pb2 import ModelInstanceGroup


def _may_use_cc_file(context: ModelContext) -> bool:
    """Instances could open a cc_model_filenames entry instead of the default file.

    Only GPU instances consult cc_model_filenames, and ONNX Runtime's auto-complete
    always opens the default file.
    """
    artifacts = context.artifacts
    config = artifacts.config
    if not artifacts.cc_model_filenames or config is None or context.settings.gpus == 0:
        return False
    fmt = artifacts.format
    completer = COMPLETERS.get(fmt) if fmt else None
    if context.auto_complete and completer is not None and completer.skip_reason(config) is None:
        return False
    gpu_kinds = (ModelInstanceGroup.KIND_AUTO, ModelInstanceGroup.KIND_GPU)
    return all(group.kind in gpu_kinds for group in config.instance_group)


def _near_miss(expected: str, names: Iterable[str]) -> str | None:
    """A file that is probably the one meant: case variant, doubled extension, same type."""
    candidates = [n for n in names if not n.startswith(".")]
    lower = expected.lower()
    variants = [n for n in candidates if n.lower() == lower]
    variants += [n for n in candidates if n.lower().startswith(lower) and n.lower() != lower]
    if variants:
        return variants[0]
    suffix = Path(expected).suffix.lower()
    same_type = [n for n in candidates if suffix and n.lower().endswith(suffix)]
    if same_type:
        return suggest(expected, same_type, cutoff=0.0) or same_type[0]
    return suggest(expected, candidates, cutoff=0.6)


@rule(
    "PL600",
    "artifact-missing",
    ERROR,
    "The model file Triton opens for a loaded version does not exist.",
    triton="unable to find '<model>/<version>/<default_model_filename>' for model instance "
    "'<model>'",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend=("onnxruntime", "tensorrt", "openvino", "tensorflow", "pytorch", "python"),
)
def artifact_missing(context: ModelContext) -> Iterator[Finding]:
    """The backend opens `<model>/<version>/<default_model_filename>` (`model.onnx` by
    default; for a folder of that name, the `model.onnx` inside it). Any other file
    name in the version folder is ignored, so a model exported as `resnet50.onnx` is
    not found. Only GPU instances look at `cc_model_filenames`. The same holds for the
    formats pbtxt-lint does not read: a TensorFlow GraphDef (`model.graphdef`,
    `ModelInstanceState::Create` in tensorflow_backend src/tensorflow.cc) and a
    torch_aoti `model.pt2`.

    Bad:
        resnet/config.pbtxt:  backend: "onnxruntime"
        resnet/1/resnet50.onnx
    Good:
        resnet/config.pbtxt:  backend: "onnxruntime"  default_model_filename: "resnet50.onnx"
        resnet/1/resnet50.onnx
    """
    for artifact in located(context):
        if artifact.state is ArtifactState.MISSING:
            yield _missing(context, artifact)


def _missing(context: ModelContext, artifact: VersionArtifact) -> Finding:
    """PL600's finding: what is missing, the file probably meant, and the fix."""
    model = context.folder
    name = artifact.path.name
    version = str(artifact.version)
    contents = model.contents(version)
    where = f"{version}/{name}"
    if contents is None:
        prefixed = [
            v.folder
            for v in context.version_scan.versions
            if v.version == artifact.version and not v.exact
        ]
        detail = f"'{version}/' does not exist"
        if prefixed:
            detail += (
                f" ('{prefixed[0]}' is read as version {version}, but Triton loads from "
                f"'{version}/')"
            )
        names: list[str] = []
    elif artifact.opened != artifact.path:
        detail = (
            f"'{where}' is a folder, so Triton opens '{where}/{artifact.opened.name}', which "
            "does not exist"
        )
        names = list(model.contents(f"{version}/{name}") or {})
    else:
        detail = f"'{where}' does not exist"
        names = list(contents)
    expected = artifact.opened.name
    near = _near_miss(expected, names)
    loose = [e.name for e in model.entries or [] if e.name == name and not e.is_dir]
    written = bool(context.config is not None and context.config.default_model_filename)
    if near is not None:
        detail += f"; did you mean '{near}'?"
        if near.lower().startswith(expected.lower()) or artifact.opened != artifact.path:
            hint = f"rename '{near}' to '{expected}'"
        elif written:
            hint = f"default_model_filename: \"{near}\" (or rename the file to '{expected}')"
        else:
            hint = f"rename '{near}' to '{expected}', or set default_model_filename: \"{near}\""
    elif loose:
        hint = f"move {name} into the version folder: {model.name}/{version}/{name}"
        detail += f" ({name} is in the model folder, not in '{version}/')"
    else:
        hint = f"put the model at {model.name}/{where} or set default_model_filename"
    severity = None
    if _may_use_cc_file(context):
        severity = INFO  # which file opens depends on the host's GPUs
        detail += (
            "; GPU instances open cc_model_filenames[<compute capability>] instead when "
            "their GPU's capability is listed, but instances on other GPUs or on the CPU "
            "need this file"
        )
    folder = artifact.folder if contents is not None else model.path
    return Finding(
        f"Triton cannot find the model file of version {version} of '{model.name}': {detail}",
        at=("default_model_filename",) if written else None,
        file=None if written else folder,
        hint=hint,
        severity=severity,
    )


@rule(
    "PL601",
    "artifact-unreadable",
    ERROR,
    "The model file is empty, truncated, corrupt or not the format the backend expects.",
    triton="onnx runtime error 7: Load model from <path> failed:Protobuf parsing failed.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend=("onnxruntime", "tensorrt", "openvino", "pytorch"),
)
def artifact_unreadable(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime parses the whole file when the model loads; a truncated download,
    a file of another format renamed to `model.onnx`, or an embedded model over
    protobuf's 2 GiB limit fail there. A file pbtxt-lint may not read (permissions) is
    a warning, one that links outside the repository is not read at all (info).

    Bad:
        resnet/1/model.onnx   (an interrupted download: 3 MB of a 98 MB file)
    Good:
        resnet/1/model.onnx   (the complete export; `onnx.checker.check_model` passes)
    """
    for artifact in readable(context):
        if artifact.state is ArtifactState.OUTSIDE:
            yield Finding(
                f"{shown_path(artifact, context)} links outside the repository; pbtxt-lint "
                "does not read it, so the config was not compared with it",
                file=artifact.path,
                hint="check the linked model where it lives",
                severity=INFO,
            )
        error = artifact.error
        if error is not None and error.kind != "lfs-pointer":
            yield Finding(
                f"{shorten_paths(error.message, context)}; the backend cannot load it, so Triton "
                f"fails to load version {artifact.version} of '{context.folder.name}'",
                file=artifact.opened,
                hint="re-export or re-download the model file",
                severity=WARNING if error.kind == "unreadable" else None,
            )
        signature = artifact.signature
        for problem in signature.problems if signature else ():
            if problem.kind == "protobuf-too-large":
                yield Finding(
                    shorten_paths(problem.message, context),
                    file=artifact.opened,
                    hint="save the model with external data "
                    "(onnx.save_model(..., save_as_external_data=True))",
                )


@rule(
    "PL602",
    "artifact-lfs-pointer",
    WARNING,
    "The model file is a Git LFS pointer, not the model.",
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend=("onnxruntime", "tensorrt", "openvino", "pytorch"),
)
def artifact_lfs_pointer(context: ModelContext) -> Iterator[Finding]:
    """Git stores large files as small text pointers and fetches the content with
    `git lfs pull`. A checkout without Git LFS has pointers where models should be:
    Triton fails to load such a file ("Protobuf parsing failed"), but a pointer is
    normally a property of the checkout being linted (CI clones often skip LFS), not of
    what gets deployed, so this is a warning; the config cannot be cross-checked.

    Bad:
        resnet/1/model.onnx   (133 bytes: "version https://git-lfs.github.com/spec/v1 ...")
    Good:
        resnet/1/model.onnx   (the model, after `git lfs pull`)
    """
    for artifact in readable(context):
        error = artifact.error
        if error is not None and error.kind == "lfs-pointer":
            yield Finding(
                f"{shown_path(artifact, context)} is a Git LFS pointer, not the model, so the "
                "cross-check with config.pbtxt was skipped; deployed as-is, Triton fails to "
                f"load version {artifact.version} of '{context.folder.name}'",
                file=artifact.opened,
                hint="run `git lfs pull` (or clone with Git LFS installed), then lint again",
            )


_EXTERNAL_FAILURES = (
    "external-data-missing",
    "external-data-invalid",
    "external-data-out-of-range",
)


def _external(context: ModelContext, kinds: Sequence[str], hint: str) -> Iterator[Finding]:
    """One finding per ONNX external-data problem of the given kinds."""
    for artifact in readable(context):
        signature = artifact.signature
        for problem in signature.problems if signature else ():
            if problem.kind in kinds:
                yield Finding(
                    f"{shown_path(artifact, context)}: {shorten_paths(problem.message, context)}",
                    file=artifact.opened,
                    hint=hint,
                )


@rule(
    "PL603",
    "external-data-missing",
    ERROR,
    "Weights stored as ONNX external data are missing or shorter than the model says.",
    triton="onnx runtime error <n>: ... external data ... (ONNX Runtime cannot read the "
    "external initializer file)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def external_data_missing(context: ModelContext) -> Iterator[Finding]:
    """Models over 2 GiB keep their weights in files next to `model.onnx`
    (`model.onnx.data`, or one file per tensor). ONNX Runtime reads them when the model
    loads, relative to the model file; copying only `model.onnx` into the version
    folder makes the load fail.

    Bad:
        llm/1/model.onnx        (weights in model.onnx.data, which was not copied)
    Good:
        llm/1/model.onnx
        llm/1/model.onnx.data
    """
    yield from _external(
        context,
        _EXTERNAL_FAILURES,
        "copy the external data files next to the model file, as exported",
    )


@rule(
    "PL604",
    "external-data-outside-model",
    WARNING,
    "ONNX external data outside the model folder (an absolute path or ../).",
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def external_data_outside_model(context: ModelContext) -> Iterator[Finding]:
    """External data referenced by an absolute path or a path leaving the model folder
    loads only where that path happens to exist on the server (and recent ONNX Runtime
    versions refuse paths that leave the model's folder): the model folder is not
    self-contained, and pbtxt-lint does not look outside it.

    Bad:
        external data location: "/data/weights/model.onnx.data"
    Good:
        external data location: "model.onnx.data"  (next to model.onnx)
    """
    yield from _external(
        context,
        ("external-data-escapes",),
        "re-save the model with a relative location inside the model folder "
        "(onnx.save_model(..., location='model.onnx.data'))",
    )


@rule(
    "PL690",
    "artifact-not-inspected",
    INFO,
    "A model file pbtxt-lint refused or could not inspect (too large, a DTD, nested too deep).",
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def artifact_not_inspected(context: ModelContext) -> Iterator[Finding]:
    """Readers bound the work they do on any file: an XML with a document type
    declaration (entity expansion), a ZIP with an implausible number of entries or a
    code file that inflates past the cap, source nested too deeply. Such a file is not
    a Triton error by itself, but the config was not compared with it.

    Bad:
        model.xml   (starts with <!DOCTYPE net [ <!ENTITY ...> ]>)
    Good:
        model.xml   (as ov.save_model writes it)
    """
    for artifact in readable(context):
        signature = artifact.signature
        if signature is None:
            continue
        for problem in signature.problems:
            if problem.kind == "not-inspected":
                yield Finding(
                    f"{shown_path(artifact, context)}: {problem.message}; the config was not "
                    "compared with it",
                    file=artifact.opened,
                    hint="check this model by loading it in Triton",
                )
