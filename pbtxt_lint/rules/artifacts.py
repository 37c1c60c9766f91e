"""PL6xx: the config against the model files Triton would load.

The first rules are about the file itself (missing, unreadable, a Git LFS pointer,
external data). The others mirror the ONNX Runtime backend: its auto-complete
(`onnxruntime.cc` AutoCompleteConfig) and the checks each instance runs when it is
created (ValidateInputs, ValidateOutputs, the sequence controls and
`onnxruntime_utils.cc` CompareDimsSupported). They judge the config as the backend
sees it, after auto-complete, per loaded version.

Every rule reads files through `context.artifacts`, which is empty with
`--config-only`, so all of them respect that switch.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from pbtxt_lint.artifacts.model import ArtifactState, VersionArtifact
from pbtxt_lint.artifacts.signature import Dim, Signature, TensorSpec
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, ModelContext, Scope, Stage, rule
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.datatypes import protocol_from_config_type
from pbtxt_lint.schema.model_config_pb2 import (
    ModelInput,
    ModelInstanceGroup,
    ModelOutput,
    ModelSequenceBatching,
)
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath
from pbtxt_lint.triton.complete import (
    COMPLETERS,
    DEFAULT_MAX_BATCH_SIZE,
    CompletedConfig,
    complete_config,
    graph_inputs,
    not_batchable,
    ort_io_type,
    ort_shape,
)

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
LOAD = Stage.LOAD


# --- shared helpers -----------------------------------------------------------------------


def _shorten_paths(text: str, context: ModelContext) -> str:
    """Shorten absolute paths in reader messages to `<model>/...`."""
    return text.replace(f"{context.model.path.parent}{os.sep}", "")


def _readable(context: ModelContext) -> tuple[VersionArtifact, ...]:
    """The loaded versions' artifacts, when pbtxt-lint reads their format (else none)."""
    artifacts = context.artifacts
    return artifacts.versions if artifacts.readable else ()


def _shown(artifact: VersionArtifact, context: ModelContext) -> str:
    """`<model>/<version>/model.onnx`, the way the diagnostic's path shows it."""
    return artifact.opened.relative_to(context.model.path.parent).as_posix()


def _model_dims(shape: Sequence[Dim] | None) -> str:
    """A model shape the way exporters name it: `[batch, 3, 224, 224]`."""
    if shape is None:
        return "unknown rank"
    return "[" + ", ".join(str(d) for d in shape) + "]"


def _dims(values: Iterable[int]) -> str:
    """Config dims as written in config.pbtxt: `[ 3, -1 ]`."""
    items = ", ".join(str(v) for v in values)
    return f"[ {items} ]" if items else "[ ]"


def _inferred(spec: TensorSpec, *dims: int) -> str:
    """`; ONNX Runtime infers dim 0 of 'logits' as 1 (node ... fixes it; the file declares
    [batch, 10])` when ONNX Runtime's size for those dims (all when none given) is not the
    declared one, else ""."""
    if spec.inferred is None:
        return ""
    from pbtxt_lint.artifacts.onnx_signature import inference_note

    note = inference_note(spec, dims or None)
    return f"; {note}" if note else ""


def _type_name(value: int) -> str:
    return str(DataType.Name(value)) if value in DataType.values() else str(value)


def _triton_type(config_type: str | None) -> str:
    """How Triton prints a model type after "model provides ": TYPE_FP32, TYPE_BYTES."""
    protocol = protocol_from_config_type(config_type) if config_type else None
    return f"TYPE_{protocol or '<invalid>'}"


@dataclass(frozen=True)
class _View:
    """One loaded version whose ONNX model was read, and the config the backend checks."""

    artifact: VersionArtifact
    signature: Signature
    completed: CompletedConfig
    config: ModelConfig

    @property
    def mbs(self) -> int:
        return self.config.max_batch_size

    @property
    def file(self) -> str:
        return self.signature.path.name

    def written(self, kind: str) -> bool:
        """The tensor list is in config.pbtxt (not filled in by auto-complete)."""
        return kind not in self.completed.filled

    @cached_property
    def pairs(self) -> list[_Pair]:
        """Config tensors with the graph tensor of the same name (found once per view)."""
        return _pairs(self)


def _views(context: ModelContext) -> list[_View]:
    """Versions the backend validates: ONNX read, auto-complete (if any) succeeded
    (found once per model for the rules that compare them)."""
    return context.shared(_find_views)


def _find_views(context: ModelContext) -> list[_View]:
    from pbtxt_lint.artifacts.onnx_signature import as_served

    views = []
    for artifact in _readable(context):
        signature = artifact.signature
        if signature is None or signature.format != "onnx":
            continue
        completed = complete_config(context, artifact.version)
        if completed.config is None or completed.error is not None:
            continue
        # The session ONNX Runtime reports shapes from runs the config's graph optimizations.
        signature = as_served(signature, completed.config.optimization.graph.level)
        views.append(_View(artifact, signature, completed, completed.config))
    return views


def _per_version(
    context: ModelContext, check: Callable[[_View], Iterable[Finding]]
) -> Iterator[Finding]:
    """Run `check` on every view (see `_merge_versions`)."""
    return _merge_versions(context, ((v.artifact.version, check(v)) for v in _views(context)))


def _merge_versions(
    context: ModelContext, found: Iterable[tuple[int, Iterable[Finding]]]
) -> Iterator[Finding]:
    """Each finding once; with several loaded versions, prefixed by the versions concerned."""
    versions: dict[Finding, list[int]] = {}
    for version, findings in found:
        for finding in findings:
            versions.setdefault(finding, []).append(version)
    several = len(context.artifacts.versions) > 1
    for finding, numbers in versions.items():
        if several:
            label = "version" if len(numbers) == 1 else "versions"
            prefix = f"{label} {', '.join(str(n) for n in numbers)}: "
            finding = replace(finding, message=prefix + finding.message)
        yield finding


@dataclass(frozen=True)
class _Pair:
    """A config tensor and the graph tensor of the same name."""

    kind: str  # "input" or "output"
    index: int
    io: ModelInput | ModelOutput
    spec: TensorSpec
    written: bool

    @property
    def label(self) -> str:
        return f'{self.kind} "{self.io.name}"'

    def at(self, *rest: str | int) -> FieldPath | None:
        return (self.kind, self.index, *rest) if self.written else None

    def shape(self) -> tuple[list[int], tuple[str, ...]]:
        """What the backend compares with the model: reshape.shape if present, else dims."""
        if self.io.HasField("reshape"):
            return list(self.io.reshape.shape), ("reshape", "shape")
        return list(self.io.dims), ("dims",)

    @property
    def core_valid(self) -> bool:
        """The core accepts the shape fields, so the backend gets to compare them."""
        shape, _ = self.shape()
        dims_ok = bool(self.io.dims) and all(d == -1 or d >= 1 for d in self.io.dims)
        return dims_ok and all(d == -1 or d >= 1 for d in shape)


def _pairs(view: _View) -> list[_Pair]:
    inputs = {spec.name: spec for spec in view.signature.inputs}
    outputs = {spec.name: spec for spec in view.signature.outputs}
    found: list[tuple[str, int, ModelInput | ModelOutput, TensorSpec | None]] = [
        ("input", index, io, inputs.get(io.name)) for index, io in enumerate(view.config.input)
    ]
    found += [
        ("output", index, io, outputs.get(io.name)) for index, io in enumerate(view.config.output)
    ]
    return [
        _Pair(kind, index, io, spec, view.written(kind))
        for kind, index, io, spec in found
        if spec is not None and spec.is_tensor
    ]


def _matches(model: Sequence[int], config: Sequence[int], exact: bool) -> bool:
    """CompareDimsSupported's element rule: model -1 matches anything unless `exact`."""
    return len(model) == len(config) and all(
        m == c or (m == -1 and not exact) for m, c in zip(model, config, strict=True)
    )


class _Shape(enum.Enum):
    RAGGED = "ragged"  # R510
    SCALAR = "scalar"  # R514
    NOT_BATCHABLE = "not-batchable"  # R511
    BATCH_TWICE = "batch-twice"  # R512, the batch dim written in dims
    MISMATCH = "mismatch"  # R512/R513


def _shape_issue(view: _View, pair: _Pair) -> _Shape | None:
    """What the backend says about the tensor's shape, in the order it checks."""
    if not pair.core_valid:
        return None  # the core rejects the config before the backend compares shapes
    shape, _ = pair.shape()
    model = ort_shape(pair.spec)
    if isinstance(pair.io, ModelInput) and pair.io.allow_ragged_batch:
        return None if model == [-1] else _Shape.RAGGED
    if pair.kind == "output" and any(
        pair.io.name in b.target_name for b in view.config.batch_output
    ):
        return None  # batch outputs are not compared
    if not model:
        return None if all(d == 1 for d in shape) else _Shape.SCALAR
    if view.mbs > 0 and model[0] != -1:
        return _Shape.NOT_BATCHABLE
    exact = pair.kind == "output"
    if _matches(model, [-1, *shape] if view.mbs > 0 else shape, exact):
        return None
    if view.mbs > 0 and len(shape) == len(model):
        if shape[0] in (-1, 1, view.mbs) or _matches(model[1:], shape[1:], exact):
            return _Shape.BATCH_TWICE
    return _Shape.MISMATCH


def _shape_findings(
    context: ModelContext, wanted: _Shape, describe: Callable[[_View, _Pair], Finding]
) -> Iterator[Finding]:
    def check(view: _View) -> Iterator[Finding]:
        for pair in view.pairs:
            if _shape_issue(view, pair) is wanted:
                yield describe(view, pair)

    return _per_version(context, check)


def _suggested(model: Sequence[int], shape: Sequence[int], exact: bool) -> list[int]:
    """Dims that pass: the config's where it already matches the model, else the model's."""
    if len(model) != len(shape):
        return list(model)
    return [
        c if m == c or (m == -1 and not exact) else m for m, c in zip(model, shape, strict=True)
    ]


# --- the file itself ------------------------------------------------------------------------


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
    if not context.strict and completer is not None and completer.skip_reason(config) is None:
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
)
def artifact_missing(context: ModelContext) -> Iterator[Finding]:
    """The backend opens `<model>/<version>/<default_model_filename>` (`model.onnx` by
    default; for a folder of that name, the `model.onnx` inside it). Any other file
    name in the version folder is ignored, so a model exported as `resnet50.onnx` is
    not found. Only GPU instances look at `cc_model_filenames`.

    Bad:
        resnet/config.pbtxt:  backend: "onnxruntime"
        resnet/1/resnet50.onnx
    Good:
        resnet/config.pbtxt:  backend: "onnxruntime"  default_model_filename: "resnet50.onnx"
        resnet/1/resnet50.onnx
    """
    for artifact in _readable(context):
        if artifact.state is ArtifactState.MISSING:
            yield _missing(context, artifact)


def _missing(context: ModelContext, artifact: VersionArtifact) -> Finding:
    model = context.model
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
        severity = WARNING
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
    for artifact in _readable(context):
        if artifact.state is ArtifactState.OUTSIDE:
            yield Finding(
                f"{_shown(artifact, context)} links outside the repository; pbtxt-lint "
                "does not read it, so the config was not compared with it",
                file=artifact.path,
                hint="check the linked model where it lives",
                severity=INFO,
            )
        error = artifact.error
        if error is not None and error.kind != "lfs-pointer":
            yield Finding(
                f"{_shorten_paths(error.message, context)}; the backend cannot load it, so Triton "
                f"fails to load version {artifact.version} of '{context.model.name}'",
                file=artifact.opened,
                hint="re-export or re-download the model file",
                severity=WARNING if error.kind == "unreadable" else None,
            )
        signature = artifact.signature
        for problem in signature.problems if signature else ():
            if problem.kind == "protobuf-too-large":
                yield Finding(
                    _shorten_paths(problem.message, context),
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
    for artifact in _readable(context):
        error = artifact.error
        if error is not None and error.kind == "lfs-pointer":
            yield Finding(
                f"{_shown(artifact, context)} is a Git LFS pointer, not the model, so the "
                "cross-check with config.pbtxt was skipped; deployed as-is, Triton fails to "
                f"load version {artifact.version} of '{context.model.name}'",
                file=artifact.opened,
                hint="run `git lfs pull` (or clone with Git LFS installed), then lint again",
            )


_EXTERNAL_FAILURES = (
    "external-data-missing",
    "external-data-invalid",
    "external-data-out-of-range",
)


def _external(context: ModelContext, kinds: Sequence[str], hint: str) -> Iterator[Finding]:
    for artifact in _readable(context):
        signature = artifact.signature
        for problem in signature.problems if signature else ():
            if problem.kind in kinds:
                yield Finding(
                    f"{_shown(artifact, context)}: {_shorten_paths(problem.message, context)}",
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


# --- ONNX Runtime: auto-complete --------------------------------------------------------------


@rule(
    "PL605",
    "non-tensor-io",
    ERROR,
    "A graph input or output that is a sequence, map or optional, not a tensor.",
    triton="Unsupported ONNX Type '<ONNX_TYPE_SEQUENCE>' for I/O '<name>', expected "
    "'ONNX_TYPE_TENSOR'.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def non_tensor_io(context: ModelContext) -> Iterator[Finding]:
    """The ONNX Runtime backend only exchanges tensors with Triton; a graph whose inputs
    or outputs are sequences, maps or optionals fails to load whatever the config says.

    Bad:
        model.onnx input "boxes": seq(tensor(float))
    Good:
        model.onnx input "boxes": tensor(float) [n, 4]  (concatenate the sequence)
    """
    for artifact in _readable(context):
        signature = artifact.signature
        if signature is None or signature.format != "onnx":
            continue
        for kind, specs in (("input", graph_inputs(signature)), ("output", signature.outputs)):
            for spec in specs:
                if spec.is_tensor:
                    continue
                yield Finding(
                    f'{kind} "{spec.name}" of {_shown(artifact, context)} is {spec.source_type} '
                    f"({ort_io_type(spec)}), not a tensor; the ONNX Runtime backend serves "
                    f"only tensors, so Triton fails to load '{context.model.name}'",
                    file=artifact.opened,
                    hint="change the model to take and return plain tensors (for example "
                    "concatenate a sequence into one tensor)",
                )


def _completion_errors(context: ModelContext, triton_id: str) -> Iterator[CompletedConfig]:
    for artifact in _readable(context):
        if artifact.signature is None:
            continue
        completed = complete_config(context, artifact.version)
        if completed.error is not None and completed.error.triton_id == triton_id:
            yield completed


@rule(
    "PL606",
    "autofill-not-batchable",
    ERROR,
    "max_batch_size > 0 on a model that cannot batch, with inputs or outputs left to "
    "auto-complete.",
    triton="autofill failed for model '<model>': model does not support batching while "
    "non-zero max_batch_size is specified",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def autofill_not_batchable(context: ModelContext) -> Iterator[Finding]:
    """When the config leaves inputs or outputs out, ONNX Runtime auto-completes it and
    first decides whether the model can batch: every graph input and output needs at
    least one dim and a dynamic first dim. If not, a max_batch_size above 0 is refused
    before any tensor is compared.

    Bad:
        max_batch_size: 8     (model.onnx input "x" is [1, 3, 224, 224]; no input/output)
    Good:
        max_batch_size: 0     (or re-export with a dynamic batch axis)
    """

    def describe(completed: CompletedConfig) -> Iterator[Finding]:
        signature, config = completed.signature, completed.config
        if signature is None or config is None:
            return
        stuck = not_batchable(signature)
        fixed = ", ".join(f'"{s.name}" {_model_dims(s.shape)}' for s in stuck)
        left = " and ".join(
            kind
            for kind, items in (("inputs", config.input), ("outputs", config.output))
            if not items
        )
        yield Finding(
            f"max_batch_size {config.max_batch_size} needs every input and output of "
            f"{signature.path.name} to start with a dynamic batch dim, but {fixed} do not; "
            f"the config leaves its {left} to ONNX Runtime's auto-complete, which then "
            f"refuses the model{''.join(_inferred(s, 0) for s in stuck)}",
            at=("max_batch_size",),
            hint="set max_batch_size: 0 (no batching), or re-export the model with a dynamic "
            "first dim (torch.onnx.export(..., dynamic_axes={name: {0: 'batch'}}))",
        )

    failed = _completion_errors(context, "R502")
    yield from _merge_versions(context, ((c.version or 0, describe(c)) for c in failed))


@rule(
    "PL607",
    "autofilled-max-batch-size",
    INFO,
    "ONNX Runtime's auto-complete sets max_batch_size (and dynamic batching) for you.",
    triton="autofilled max_batch_size to 4 for model '<model>' since batching is "
    "supporrted but no max_batch_size is specified in model configuration. Must specify "
    "max_batch_size to utilize autofill with a larger max batch size",
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def autofilled_max_batch_size(context: ModelContext) -> Iterator[Finding]:
    """A config without max_batch_size (and without inputs or outputs) on a model whose
    tensors all have a dynamic first dim gets `max_batch_size: 4` (the server's
    `default-max-batch-size`) and `dynamic_batching { }`. Requests are then limited to
    4 samples, whatever the GPU could take.

    Bad:
        backend: "onnxruntime"     (nothing else: max_batch_size becomes 4)
    Good:
        backend: "onnxruntime"
        max_batch_size: 32
    """

    def check(view: _View) -> Iterator[Finding]:
        if "max_batch_size" not in view.completed.filled:
            return
        added = (
            " and adds dynamic_batching { }" if "dynamic_batching" in view.completed.filled else ""
        )
        yield Finding(
            f"max_batch_size is not set and every tensor of {view.file} has a dynamic first "
            f"dim, so ONNX Runtime's auto-complete sets max_batch_size: {view.mbs}{added}; "
            f"requests can then carry at most {view.mbs} samples ({DEFAULT_MAX_BATCH_SIZE} is "
            "the server's default-max-batch-size, set with --backend-config)",
            at=("max_batch_size",),
            hint="set max_batch_size to the batch size the model should serve",
        )

    yield from _per_version(context, check)


# --- ONNX Runtime: names, count, data types -----------------------------------------------------


@rule(
    "PL608",
    "unknown-tensor-name",
    ERROR,
    "A config input or output name the model does not have.",
    triton="unexpected inference input '<name>', allowed inputs are: <a>, <b>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def unknown_tensor_name(context: ModelContext) -> Iterator[Finding]:
    """Names are compared exactly with the graph's inputs (plus initializers that are
    also listed as inputs) and outputs. Re-exported models often rename tensors
    (`input.1`, `output_0`, numeric names), and configs copied from tutorials keep the
    old names.

    Bad:
        input [ { name: "input" ... } ]     (model.onnx inputs: input_ids, attention_mask)
    Good:
        input [ { name: "input_ids" ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        names = {
            "input": sorted({spec.name for spec in view.signature.inputs}),
            "output": sorted({spec.name for spec in view.signature.outputs}),
        }
        written = [("input", i, io.name) for i, io in enumerate(view.config.input)]
        written += [("output", i, io.name) for i, io in enumerate(view.config.output)]
        for kind, index, name in written:
            allowed = names[kind]
            if name in allowed or not view.written(kind):
                continue
            listed = ", ".join(allowed) or "none"
            message = (
                f'{kind} "{name}": {view.file} has no {kind} of that name (its {kind}s: '
                f"{listed}); Triton fails with \"unexpected inference {kind} '{name}', "
                f'allowed {kind}s are: {listed}"'
            )
            other = "output" if kind == "input" else "input"
            if name in names[other]:
                message += f'; "{name}" is an {other} of the model'
            guess = suggest(name, allowed, cutoff=0.5)
            yield Finding(
                message,
                at=(kind, index, "name"),
                hint=f'did you mean "{guess}"?'
                if guess
                else f"use the {kind} names of {view.file} (e.g. from Netron or onnx.load)",
            )

    yield from _per_version(context, check)


def _control_tensors(config: ModelConfig) -> list[tuple[int, int, str, str]]:
    """(control_input index, control index, kind, tensor name) of the controls ONNX
    Runtime validates: the first of each kind, as GetSequenceControlProperties finds it."""
    found: dict[str, tuple[int, int, str, str]] = {}
    kinds = ModelSequenceBatching.Control.Kind
    for i, control_input in enumerate(config.sequence_batching.control_input):
        for j, control in enumerate(control_input.control):
            kind = kinds.Name(control.kind)
            found.setdefault(kind, (i, j, kind, control_input.name))
    return list(found.values())


@rule(
    "PL609",
    "input-count-mismatch",
    ERROR,
    "The config does not feed every required input of the model, or feeds more.",
    triton="unable to load model '<model>', configuration expects <n> inputs, model provides <k>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def input_count_mismatch(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime counts the graph's inputs (initializers excluded) and requires the
    config to feed exactly as many: inputs not marked optional, plus batch inputs,
    sequence control tensors and sequence states. A forgotten `token_type_ids` fails
    the load with a message that names no tensor. `optional: true` is for initializers
    that are also graph inputs; on a real input it breaks the count. With
    auto-complete, inputs left out entirely are filled from the model (no problem).

    Bad:
        input [ { name: "input_ids" ... }, { name: "attention_mask" ... } ]
        (model.onnx also takes token_type_ids)
    Good:
        input [ { name: "input_ids" ... }, { name: "attention_mask" ... },
                { name: "token_type_ids" ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        config = view.config
        required = [spec.name for spec in graph_inputs(view.signature)]
        controls = _control_tensors(config)
        states = [state.input_name for state in config.sequence_batching.state]
        expected = (
            sum(1 for io in config.input if not io.optional)
            + len(config.batch_input)
            + len(controls)
            + len(states)
        )
        if expected == len(required):
            return
        fed = {io.name for io in config.input if not io.optional}
        fed |= {name for b in config.batch_input for name in b.target_name}
        fed |= {name for *_, name in controls} | set(states)
        missing = [name for name in required if name not in fed]
        detail = f"{view.file} has {len(required)} inputs ({', '.join(required) or 'none'})"
        detail += f" but the config feeds {expected}"
        if missing:
            detail += f": {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing"
        wrongly_optional = [io.name for io in config.input if io.optional and io.name in required]
        if wrongly_optional:
            detail += (
                f"; {', '.join(wrongly_optional)} is marked optional but is a required graph "
                "input (optional is only for initializers that are also inputs)"
            )
        initializers = {spec.name for spec in view.signature.inputs if spec.optional}
        not_optional = [
            io.name for io in config.input if io.name in initializers and not io.optional
        ]
        if not_optional:
            detail += (
                f"; {', '.join(not_optional)} is an initializer of the model: mark it "
                "optional: true"
            )
        if context.strict and not config.input:
            detail += " (with --disable-auto-complete-config nothing fills them in)"
        yield Finding(
            f'{detail}; Triton fails with "configuration expects {expected} inputs, model '
            f'provides {len(required)}"',
            at=("input",) if view.written("input") else None,
            hint=f"add input entries for {', '.join(missing)}"
            if missing
            else "feed each graph input exactly once (inputs, batch inputs, sequence controls "
            "and states together)",
        )

    yield from _per_version(context, check)


@rule(
    "PL610",
    "data-type-mismatch",
    ERROR,
    "A config data_type that differs from the model's element type.",
    triton="unable to load model '<model>', configuration expects datatype <TYPE_X> for "
    "input '<name>', model provides TYPE_<Y>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def data_type_mismatch(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime does not convert types: the config's data_type must be the graph's
    element type (FLOAT -> TYPE_FP32, INT64 -> TYPE_INT64, STRING -> TYPE_STRING, ...).
    Token ids exported as INT64 and declared TYPE_INT32 are the usual case. Element
    types Triton has no name for (complex, float8, int4) cannot be served at all.

    Bad:
        input [ { name: "input_ids" data_type: TYPE_INT32 dims: [ -1 ] } ]  (model: INT64)
    Good:
        input [ { name: "input_ids" data_type: TYPE_INT64 dims: [ -1 ] } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        for pair in view.pairs:
            model_type = pair.spec.data_type
            if model_type is None:
                yield Finding(
                    f"{pair.label}: {view.file} declares it as {pair.spec.source_type}, which "
                    "has no Triton data type, so no config can serve it and Triton fails to "
                    f"load '{context.model.name}'",
                    at=pair.at("data_type"),
                    hint=f"cast {pair.io.name} to a supported type inside the model (FLOAT, "
                    "FLOAT16, INT64, ...)",
                )
                continue
            written = _type_name(pair.io.data_type)
            if pair.io.data_type == DataType.TYPE_INVALID or written == model_type:
                continue
            yield Finding(
                f"{pair.label}: the config says {written} but {view.file} declares "
                f'{pair.spec.source_type} ({model_type}); Triton fails with "configuration '
                f"expects datatype {written} for {pair.kind} '{pair.io.name}', model provides "
                f'{_triton_type(model_type)}"',
                at=pair.at("data_type"),
                hint=f"data_type: {model_type}",
            )

    yield from _per_version(context, check)


# --- ONNX Runtime: shapes -----------------------------------------------------------------------


@rule(
    "PL611",
    "ragged-input-shape",
    ERROR,
    "allow_ragged_batch on an input whose model shape is not [-1].",
    triton="unable to load model '<model>', configuration expects model provides input "
    "with shape [-1]  for ragged input '<name>', model provides <[..]>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def ragged_input_shape(context: ModelContext) -> Iterator[Finding]:
    """A ragged input is fed to ONNX Runtime as the concatenation of all requests'
    elements, a 1-D tensor, so the graph input must be exactly one dynamic dim
    (`[-1]`, whatever max_batch_size is); a batch input usually carries the offsets.

    Bad:
        input [ { name: "tokens" allow_ragged_batch: true ... } ]  (model: [batch, seq])
    Good:
        input [ { name: "tokens" allow_ragged_batch: true ... } ]  (model: [total_tokens])
    """

    def describe(view: _View, pair: _Pair) -> Finding:
        return Finding(
            f"{pair.label} allows ragged batches, so Triton feeds it as one 1-D tensor, but "
            f"{view.file} declares {_model_dims(pair.spec.shape)}; the model must take "
            "shape [-1]",
            at=pair.at("allow_ragged_batch"),
            hint="re-export the input as a flat 1-D tensor (with a batch input for the "
            "offsets), or remove allow_ragged_batch",
        )

    yield from _shape_findings(context, _Shape.RAGGED, describe)


@rule(
    "PL612",
    "batch-dim-not-dynamic",
    ERROR,
    "max_batch_size > 0 on a model whose first dim is fixed.",
    triton="model '<model>', tensor '<name>': for the model to support batching the shape "
    "should have at least 1 dimension and the first dimension must be -1; but shape "
    "expected by the model is <[..]>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def batch_dim_not_dynamic(context: ModelContext) -> Iterator[Finding]:
    """With max_batch_size > 0 Triton puts the batch dim in front of every tensor, so the
    model's first dim must be dynamic. Models exported without a dynamic batch axis
    (`[1, 3, 640, 640]`) have a fixed one: re-export, or serve them unbatched with
    max_batch_size 0 and the full shape in dims. The shape is the one ONNX Runtime
    reports: an output declared `[batch, 10]` whose graph reshapes it to `[1, 10]` is
    reported, and refused, as `[1, 10]` (graph inputs keep their declared shape).

    Bad:
        max_batch_size: 8
        input [ { name: "images" dims: [ 3, 640, 640 ] ... } ]   (model: [1, 3, 640, 640])
    Good:
        max_batch_size: 0
        input [ { name: "images" dims: [ 1, 3, 640, 640 ] ... } ]
    """

    def describe(view: _View, pair: _Pair) -> Finding:
        model = ort_shape(pair.spec)
        source = pair.spec.inferred.dims[0] if pair.spec.inferred else None
        fix = (
            f"change node '{source.node}' so that it keeps the first dim dynamic"
            if source is not None and source.op
            else "re-export with a dynamic batch axis (dynamic_axes={"
            f"'{pair.io.name}': {{0: 'batch'}}}})"
        )
        note = _inferred(pair.spec, 0)
        fixed = (
            f"{note[2:]}, so the first dim is fixed"
            if note
            else f"{view.file} declares {_model_dims(pair.spec.shape)} with a fixed first dim "
            f"{model[0]}"
        )
        return Finding(
            f"{pair.label}: {fixed}, but max_batch_size {view.mbs} makes Triton treat the "
            "first dim as the batch dim, which must be dynamic (-1)",
            at=("max_batch_size",),
            hint=f"{fix}, or set max_batch_size: 0 and dims: {_dims(model)}",
        )

    yield from _shape_findings(context, _Shape.NOT_BATCHABLE, describe)


@rule(
    "PL613",
    "batch-dim-in-dims",
    ERROR,
    "dims repeat the batch dim that max_batch_size > 0 already adds.",
    triton="model '<model>', tensor '<name>': the model expects <r> dimensions (shape "
    "<[..]>) but the model configuration specifies <r+1> dimensions (an initial batch "
    "dimension because max_batch_size > 0 followed by the explicit tensor shape, making "
    "complete shape <[-1,..]>)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def batch_dim_in_dims(context: ModelContext) -> Iterator[Finding]:
    """With max_batch_size > 0, `dims` is the shape of one sample: Triton prepends the
    batch dim itself. Writing the model's full shape (batch included) in dims counts the
    batch dim twice.

    Bad:
        max_batch_size: 32
        input [ { name: "input_ids" dims: [ -1, -1 ] ... } ]   (model: [batch, seq])
    Good:
        max_batch_size: 32
        input [ { name: "input_ids" dims: [ -1 ] ... } ]
    """

    def describe(view: _View, pair: _Pair) -> Finding:
        shape, field = pair.shape()
        model = ort_shape(pair.spec)
        exact = pair.kind == "output"
        fixed = _suggested(model[1:], shape[1:], exact)
        where = "reshape.shape" if field != ("dims",) else "dims"
        return Finding(
            f"{pair.label}: {view.file} has {len(model)} dims {_model_dims(pair.spec.shape)}; "
            f"with max_batch_size {view.mbs} Triton prepends the batch dim, so {where} should "
            f"be {_dims(fixed)}, not {_dims(shape)} (the batch dim is written twice)"
            f"{_inferred(pair.spec)}",
            at=pair.at(*field, 0),
            hint=f"{where}: {_dims(fixed)}, or set max_batch_size: 0 to keep the full shape",
        )

    yield from _shape_findings(context, _Shape.BATCH_TWICE, describe)


def _mismatch(view: _View, pair: _Pair) -> Finding:
    shape, field = pair.shape()
    model = ort_shape(pair.spec)
    offset = 1 if view.mbs > 0 else 0
    full = [-1, *shape] if offset else shape
    exact = pair.kind == "output"
    where = "reshape.shape" if field != ("dims",) else "dims"
    shown = _model_dims(pair.spec.shape)
    if len(full) != len(model):
        if not offset and len(shape) + 1 == len(model) and model[0] == -1:
            fixed = [-1, *_suggested(model[1:], shape, exact)]
            return Finding(
                f"{pair.label}: {view.file} has {len(model)} dims {shown} starting with a "
                f"dynamic batch dim; with max_batch_size 0 {where} is the complete shape, so "
                f"it should be {_dims(fixed)}, not {_dims(shape)}{_inferred(pair.spec)}",
                at=pair.at(*field),
                hint=f"{where}: {_dims(fixed)}, or set max_batch_size > 0 so that Triton "
                "adds the batch dim",
            )
        fixed = model[offset:]
        batch = f"the batch dim and {where} " if offset else f"{where} "
        return Finding(
            f"{pair.label}: {view.file} has {len(model)} dims {shown} but {batch}"
            f"{_dims(shape)} make {len(full)}{_inferred(pair.spec)}",
            at=pair.at(*field),
            hint=f"{where}: {_dims(fixed)}",
        )
    wrong = [
        k
        for k, (m, c) in enumerate(zip(model, full, strict=True))
        if not (m == c or (m == -1 and not exact))
    ]
    reasons = []
    for k in wrong:
        m, c, i = model[k], full[k], k - offset
        named = pair.spec.shape[k] if pair.spec.shape else m
        if m == -1:
            reasons.append(
                f"{where}[{i}] is {c}, but dim {k} of {view.file} is dynamic ({named}) and "
                "outputs must match exactly, so it must be -1"
            )
        elif c == -1:
            reasons.append(
                f"{where}[{i}] is -1, but dim {k} of {view.file} is fixed to {m}, and -1 only "
                "matches a dynamic model dim"
            )
        else:
            reasons.append(f"{where}[{i}] is {c}, but dim {k} of {view.file} is {m}")
    fixed = _suggested(model, full, exact)[offset:]
    return Finding(
        f"{pair.label}: {'; '.join(reasons)} (model {shown}, {where} {_dims(shape)})"
        f"{_inferred(pair.spec, *wrong)}",
        at=pair.at(*field, wrong[0] - offset),
        hint=f"{where}: {_dims(fixed)}",
    )


@rule(
    "PL614",
    "shape-mismatch",
    ERROR,
    "dims (or reshape) that do not match the model's shape.",
    triton="model '<model>', tensor '<name>': the model expects <r> dimensions (shape "
    "<[..]>) but the model configuration specifies <k> dimensions (shape <[..]>)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def shape_mismatch(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime compares `[-1] + dims` (max_batch_size > 0) or `dims` (0) with the
    graph, using `reshape.shape` instead of dims when present. Inputs: a dynamic model
    dim accepts any config value, a fixed one must be repeated (a config -1 there
    fails). Outputs are compared exactly: -1 where the model is dynamic, the same
    number where it is fixed. An output's shape is the one ONNX Runtime reports, its
    declaration merged with its shape inference: a dim declared `classes` that a
    4x10 MatMul weight fixes is 10, so the config must say 10.

    Bad:
        output [ { name: "logits" dims: [ 1000 ] ... } ]   (model: [batch, num_classes])
    Good:
        output [ { name: "logits" dims: [ -1 ] ... } ]
    """
    yield from _shape_findings(context, _Shape.MISMATCH, _mismatch)


@rule(
    "PL615",
    "scalar-dims",
    ERROR,
    "dims other than [ 1 ] for a tensor the model declares as a scalar (or without shape).",
    triton="unable to load model '<model>', scalar tensor '<name>', should only provide 1 "
    "in the model configuration when the model doesn't support batching. Model "
    "configuration provided: <[..]>.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def scalar_dims(context: ModelContext) -> Iterator[Finding]:
    """For a rank-0 graph tensor ONNX Runtime skips the shape comparison and requires
    every config dim (reshape if present) to be 1. A graph tensor declared without a
    shape (unknown rank) is reported the same way, so `dims: [ -1, 16 ]` on it fails.

    Bad:
        input [ { name: "temperature" dims: [ -1 ] ... } ]   (model: scalar)
    Good:
        input [ { name: "temperature" dims: [ 1 ] ... } ]
    """

    def describe(view: _View, pair: _Pair) -> Finding:
        shape, field = pair.shape()
        what = (
            "declares no shape for it (unknown rank), which ONNX Runtime reports as a scalar"
            if pair.spec.shape is None
            else "declares it as a scalar (rank 0)"
        )
        where = "reshape.shape" if field != ("dims",) else "dims"
        return Finding(
            f"{pair.label}: {view.file} {what}, so Triton requires every config dim to be 1, "
            f"not {where} {_dims(shape)}",
            at=pair.at(*field),
            hint="dims: [ 1 ]"
            + (" (or give the model input a real shape)" if pair.spec.shape is None else ""),
        )

    yield from _shape_findings(context, _Shape.SCALAR, describe)


# --- ONNX Runtime: sequence batching controls -----------------------------------------------------


_CONTROL_TYPES = {
    "int32_false_true": "TYPE_INT32",
    "fp32_false_true": "TYPE_FP32",
    "bool_false_true": "TYPE_BOOL",
}


def _control_type(control: ModelSequenceBatching.Control) -> str | None:
    """The data type a control tensor must have (None: the config itself is invalid)."""
    if control.kind == ModelSequenceBatching.Control.CONTROL_SEQUENCE_CORRID:
        return _type_name(control.data_type) if control.data_type else None
    found = [t for name, t in _CONTROL_TYPES.items() if len(getattr(control, name))]
    return found[0] if len(found) == 1 else None


@rule(
    "PL616",
    "sequence-control-mismatch",
    ERROR,
    "A sequence control tensor that is not a model input of shape [1] and the right type.",
    triton="configuration specified sequence control '<name>', but model does not provide "
    "that input",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def sequence_control_mismatch(context: ModelContext) -> Iterator[Finding]:
    """Triton feeds START, END, READY and CORRID as model inputs: each named tensor must
    be a graph input (initializers do not count) of shape [1] after the batch dim, with
    the type the control implies (int32_false_true: INT32, fp32_false_true: FLOAT,
    bool_false_true: BOOL, CORRID: its data_type).

    Bad:
        control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START
                          int32_false_true: [ 0, 1 ] } ] } ]   (model: START is BOOL)
    Good:
        control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START
                          bool_false_true: [ false, true ] } ] } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        config = view.config
        if not config.HasField("sequence_batching"):
            return
        graph = {spec.name: spec for spec in graph_inputs(view.signature)}
        inputs = config.sequence_batching.control_input
        for i, j, kind, name in _control_tensors(config):
            at: FieldPath = ("sequence_batching", "control_input", i, "name")
            spec = graph.get(name)
            if spec is None:
                guess = suggest(name, graph, cutoff=0.5)
                yield Finding(
                    f'{kind} control tensor "{name}" is not an input of {view.file} (its '
                    f"inputs: {', '.join(sorted(graph)) or 'none'}); Triton fails with "
                    f"\"configuration specified sequence control '{name}', but model does not "
                    'provide that input"',
                    at=at,
                    hint=f'did you mean "{guess}"?'
                    if guess
                    else "add the control input to the model, or remove the control",
                )
                continue
            if not spec.is_tensor:
                continue
            debatched = ort_shape(spec)[1 if view.mbs > 0 else 0 :]
            if debatched != [1]:
                yield Finding(
                    f'{kind} control tensor "{name}" has dims {_dims(debatched)} in '
                    f"{view.file} (model shape {_model_dims(spec.shape)}"
                    f"{', batch dim removed' if view.mbs > 0 else ''}) but must be [ 1 ]",
                    at=at,
                    hint="give the control input shape [batch, 1] (max_batch_size > 0) or "
                    "[1] (max_batch_size 0) in the model",
                )
            wanted = _control_type(inputs[i].control[j])
            if wanted is not None and spec.data_type != wanted:
                yield Finding(
                    f'{kind} control tensor "{name}" is {spec.source_type} in {view.file}, '
                    f'but the control makes Triton send {wanted}; Triton fails with "the model '
                    f"expects data-type {spec.source_type} but the model configuration specifies "
                    f'data-type {wanted}"',
                    at=("sequence_batching", "control_input", i, "control", j),
                    hint="use the *_false_true field (or CORRID data_type) that matches the "
                    f"model's {spec.source_type}",
                )

    yield from _per_version(context, check)


# --- inference time -----------------------------------------------------------------------


@rule(
    "PL617",
    "scalar-input-with-batching",
    ERROR,
    "A scalar model input on a model with max_batch_size > 0: every request fails.",
    triton="onnx runtime error 2: Invalid rank for input: <name> Got: 1 Expected: 0 Please "
    "fix either the inputs/outputs or the model.",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def scalar_input_with_batching(context: ModelContext) -> Iterator[Finding]:
    """The load succeeds (ONNX Runtime does not compare scalar shapes), but with
    max_batch_size > 0 every request carries a batch dim, so the input reaches ONNX
    Runtime with rank 1 while the graph wants rank 0, and every request fails.

    Bad:
        max_batch_size: 8
        input [ { name: "temperature" dims: [ 1 ] reshape { shape: [ ] } ... } ]  (scalar)
    Good:
        max_batch_size: 0
        input [ { name: "temperature" dims: [ 1 ] ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        if view.mbs <= 0:
            return
        for pair in view.pairs:
            if pair.kind != "input" or pair.spec.shape != () or _shape_issue(view, pair):
                continue
            if isinstance(pair.io, ModelInput) and pair.io.allow_ragged_batch:
                continue
            yield Finding(
                f"{pair.label}: {view.file} declares a scalar (rank 0), but with "
                f"max_batch_size {view.mbs} every request carries a batch dim, so ONNX "
                'Runtime receives rank 1 and every request fails ("Invalid rank for input")',
                at=("max_batch_size",),
                hint=f"set max_batch_size: 0, or re-export {pair.io.name} with a batch dim "
                "([batch] or [batch, 1])",
            )

    yield from _per_version(context, check)


@rule(
    "PL618",
    "shared-dim-conflict",
    WARNING,
    "Inputs whose dims the model declares equal get different sizes in the config.",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def shared_dim_conflict(context: ModelContext) -> Iterator[Finding]:
    """Exporters give dims that must be equal the same name (`input_ids [batch, seq]`,
    `attention_mask [batch, seq]`). A config dim fixed where the model is dynamic is
    fine, and so is -1; but fixing `seq` to 128 on one input and leaving -1 (or 64) on
    the other loads, and then the requests whose sizes differ fail inside ONNX Runtime.

    Bad:
        input [ { name: "input_ids" dims: [ 128 ] ... },
                { name: "attention_mask" dims: [ -1 ] ... } ]
    Good:
        input [ { name: "input_ids" dims: [ 128 ] ... },
                { name: "attention_mask" dims: [ 128 ] ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        offset = 1 if view.mbs > 0 else 0
        uses: dict[str, list[tuple[_Pair, int, int]]] = {}
        for pair in view.pairs:
            if pair.kind != "input" or _shape_issue(view, pair) or not pair.spec.shape:
                continue
            if isinstance(pair.io, ModelInput) and pair.io.allow_ragged_batch:
                continue
            shape, _ = pair.shape()
            if len(shape) + offset != len(pair.spec.shape):
                continue
            for k, dim in enumerate(pair.spec.shape[offset:]):
                if isinstance(dim, str):
                    uses.setdefault(dim, []).append((pair, k, shape[k]))
        for symbol, group in uses.items():
            fixed = sorted({value for _, _, value in group if value != -1})
            if not fixed:
                continue
            first, first_k, first_value = next(u for u in group if u[2] == fixed[0])
            for pair, k, value in group:
                if value == fixed[0]:
                    continue
                _, field = pair.shape()
                when = (
                    f"requests whose {pair.io.name} has another {symbol} size than {fixed[0]} fail"
                    if value == -1
                    else "every request fails"
                )
                yield Finding(
                    f'{pair.label}: {view.file} declares dim {k + offset} as "{symbol}", the '
                    f"same dim as {first.label} dim {first_k + offset}, which the config fixes "
                    f"to {first_value}; this config says {value}, so {when} inside ONNX "
                    "Runtime when the model combines them",
                    at=pair.at(*field, k),
                    hint=f"write {fixed[0]} here too, or -1 on both",
                )

    yield from _per_version(context, check)
