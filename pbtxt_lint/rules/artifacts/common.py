"""What the PL6 rules share: the loaded versions' files, how paths, shapes and types are
printed, and the per-version views the tensor comparisons walk.

Two views pair a config with a model file the way a backend does:
- `OnnxView` (PL607-PL618): a loaded ONNX version and the config ONNX Runtime checks,
  after its auto-complete (`onnxruntime.cc` AutoCompleteConfig); `OnnxPair` is a config
  tensor with the graph tensor of the same name.
- `ModelView` (PL640-PL644): a loaded OpenVINO IR, SavedModel signature or deserialized
  TensorRT engine, and the config its backend compares with it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal, overload

from pbtxt_lint.analysis.artifacts import VersionArtifact
from pbtxt_lint.analysis.completed import CompletedConfig
from pbtxt_lint.rules.api import (
    BACKENDS,
    Dim,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    Signature,
    TensorSpec,
    parameter,
    type_name,
)
from pbtxt_lint.schema.datatypes import protocol_from_config_type
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput, ModelSequenceBatching

if TYPE_CHECKING:  # the readers' modules load with the first file of their format
    from pbtxt_lint.rules.api import (
        OpenVinoSignature,
        PlanSignature,
        PythonSignature,
        SavedModelSignature,
        TorchScriptSignature,
    )

TF_GRAPH_TAG = "TF_GRAPH_TAG"
"""The TensorFlow backend's parameter naming the MetaGraph tag to load."""
TF_SIGNATURE_DEF = "TF_SIGNATURE_DEF"
"""The TensorFlow backend's parameter naming the serving signature."""


# --- the loaded versions' files --------------------------------------------------------------


def readable(context: ModelContext) -> tuple[VersionArtifact, ...]:
    """The loaded versions' artifacts, when pbtxt-lint reads their format (else none)."""
    artifacts = context.artifacts
    return artifacts.versions if artifacts.readable else ()


def located(context: ModelContext) -> tuple[VersionArtifact, ...]:
    """The loaded versions' artifacts, located even where pbtxt-lint does not read their
    format (a GraphDef, a PT2 archive): whether the file exists is known all the same."""
    artifacts = context.artifacts
    return artifacts.versions if artifacts.enabled else ()


@overload
def loaded(
    context: ModelContext, fmt: Literal["plan"]
) -> list[tuple[VersionArtifact, PlanSignature]]: ...
@overload
def loaded(
    context: ModelContext, fmt: Literal["openvino"]
) -> list[tuple[VersionArtifact, OpenVinoSignature]]: ...
@overload
def loaded(
    context: ModelContext, fmt: Literal["savedmodel"]
) -> list[tuple[VersionArtifact, SavedModelSignature]]: ...
@overload
def loaded(
    context: ModelContext, fmt: Literal["python"]
) -> list[tuple[VersionArtifact, PythonSignature]]: ...
@overload
def loaded(
    context: ModelContext, fmt: Literal["torchscript"]
) -> list[tuple[VersionArtifact, TorchScriptSignature]]: ...
def loaded(context: ModelContext, fmt: str) -> list[Any]:
    """(artifact, signature) of every loaded version whose file was read as format `fmt`
    (each reader returns its format's signature class)."""
    if context.artifacts.format != fmt:
        return []
    found = []
    for artifact in readable(context):
        signature = artifact.signature
        if signature is not None:
            found.append((artifact, signature))
    return found


def shown_path(artifact: VersionArtifact, context: ModelContext) -> str:
    """`<model>/<version>/model.onnx`, the way the diagnostic's path shows it."""
    return artifact.opened.relative_to(context.folder.path.parent).as_posix()


def shorten_paths(text: str, context: ModelContext) -> str:
    """Shorten absolute paths in reader messages to `<model>/...`."""
    return text.replace(f"{context.folder.path.parent}{os.sep}", "")


def merge_versions(
    context: ModelContext, found: Iterable[tuple[int, Iterable[Finding]]]
) -> Iterator[Finding]:
    """Each finding once; with several loaded versions, the message of a finding about
    the config is prefixed by the versions concerned (a file's path already names it)."""
    versions: dict[Finding, list[int]] = {}
    for version, findings in found:
        for finding in findings:
            versions.setdefault(finding, []).append(version)
    several = len(context.artifacts.versions) > 1
    for finding, numbers in versions.items():
        if several and finding.file is None:
            label = "version" if len(numbers) == 1 else "versions"
            finding = replace(
                finding, message=f"{label} {', '.join(map(str, numbers))}: {finding.message}"
            )
        yield finding


# --- how values are printed ------------------------------------------------------------------


def inferred_note(spec: TensorSpec, *dims: int) -> str:
    """`; ONNX Runtime infers dim 0 of 'logits' as 1 (node ... fixes it; the file declares
    [batch, 10])` when ONNX Runtime's size for those dims (all when none given) is not the
    declared one, else ""."""
    if spec.inferred is None:
        return ""
    # Deferred for start-up time: loads with the first ONNX model compared.
    from pbtxt_lint.rules.api import inference_note

    note = inference_note(spec, dims or None)
    return f"; {note}" if note else ""


def model_dims(shape: Sequence[Dim] | None) -> str:
    """A model shape the way exporters name it: `[batch, 3, 224, 224]`."""
    if shape is None:
        return "unknown rank"
    return "[" + ", ".join(str(d) for d in shape) + "]"


def triton_shape(shape: Sequence[Dim] | None) -> str:
    """A model shape as Triton prints it: `[-1,3,224,224]` (intervals as `1..10`)."""
    if shape is None:
        return "unknown rank"
    return "[" + ",".join(str(d) for d in shape) + "]"


def triton_type(config_type: str | None) -> str:
    """How Triton prints a model type after "model provides ": TYPE_FP32, TYPE_BYTES."""
    protocol = protocol_from_config_type(config_type) if config_type else None
    return f"TYPE_{protocol or '<invalid>'}"


def name_list(values: Iterable[str]) -> str:
    """Tensor names, sorted and comma-separated ("none" for no names)."""
    listed = sorted(values)
    return ", ".join(listed) if listed else "none"


# --- what the config feeds ---------------------------------------------------------------------


def io_shape(io: ModelInput | ModelOutput) -> tuple[list[int], tuple[str, ...]]:
    """What backends compare with the model: reshape.shape if present, else dims (and
    the field path of the one used)."""
    if io.HasField("reshape"):
        return list(io.reshape.shape), ("reshape", "shape")
    return list(io.dims), ("dims",)


def control_tensors(config: ModelConfig) -> list[tuple[int, int, str, str]]:
    """(control_input index, control index, kind, tensor name) of the controls ONNX
    Runtime validates: the first of each kind, as GetSequenceControlProperties finds it."""
    found: dict[str, tuple[int, int, str, str]] = {}
    kinds = ModelSequenceBatching.Control.Kind
    for i, control_input in enumerate(config.sequence_batching.control_input):
        for j, control in enumerate(control_input.control):
            kind = kinds.Name(control.kind)
            found.setdefault(kind, (i, j, kind, control_input.name))
    return list(found.values())


CONTROL_TYPES = {
    "int32_false_true": "TYPE_INT32",
    "fp32_false_true": "TYPE_FP32",
    "bool_false_true": "TYPE_BOOL",
}


def control_type(control: ModelSequenceBatching.Control) -> str | None:
    """The data type a control tensor must have (None: the config itself is invalid):
    the *_false_true list's, or CORRID's data_type."""
    if control.kind == ModelSequenceBatching.Control.CONTROL_SEQUENCE_CORRID:
        return type_name(control.data_type) if control.data_type else None
    found = [t for name, t in CONTROL_TYPES.items() if len(getattr(control, name))]
    return found[0] if len(found) == 1 else None


def control_names(config: ModelConfig) -> list[str]:
    """Sequence control tensors a backend counts: the first one of each kind."""
    found: dict[int, str] = {}
    for control_input in config.sequence_batching.control_input:
        for control in control_input.control:
            found.setdefault(control.kind, control_input.name)
    return list(found.values())


# --- ONNX: the config ONNX Runtime checks, per loaded version -------------------------------


@dataclass(frozen=True)
class OnnxView:
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
    def pairs(self) -> list[OnnxPair]:
        """Config tensors with the graph tensor of the same name (found once per view)."""
        inputs = {spec.name: spec for spec in self.signature.inputs}
        outputs = {spec.name: spec for spec in self.signature.outputs}
        found: list[tuple[str, int, ModelInput | ModelOutput, TensorSpec | None]] = [
            ("input", index, io, inputs.get(io.name)) for index, io in enumerate(self.config.input)
        ]
        found += [
            ("output", index, io, outputs.get(io.name))
            for index, io in enumerate(self.config.output)
        ]
        return [
            OnnxPair(kind, index, io, spec, self.written(kind))
            for kind, index, io, spec in found
            if spec is not None and spec.is_tensor
        ]


@dataclass(frozen=True)
class OnnxPair:
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


def onnx_views(context: ModelContext) -> list[OnnxView]:
    """Versions the backend validates: ONNX read, auto-complete (if any) succeeded
    (found once per model for the rules that compare them)."""
    return context.shared(_find_onnx_views)


def _find_onnx_views(context: ModelContext) -> list[OnnxView]:
    views = []
    for artifact in readable(context):
        signature = artifact.signature
        if signature is None or signature.format != "onnx":
            continue
        completed = context.completed_for(artifact.version)
        if completed.config is None or completed.error is not None:
            continue
        # The session ONNX Runtime reports shapes from runs the config's graph optimizations.
        # Deferred for start-up time: loads with the first ONNX model compared.
        from pbtxt_lint.rules.api import as_served

        signature = as_served(signature, completed.config.optimization.graph.level)
        views.append(OnnxView(artifact, signature, completed, completed.config))
    return views


def per_onnx_view(
    context: ModelContext, check: Callable[[OnnxView], Iterable[Finding]]
) -> Iterator[Finding]:
    """Run `check` on every ONNX view (see `merge_versions`)."""
    return merge_versions(context, ((v.artifact.version, check(v)) for v in onnx_views(context)))


# --- OpenVINO, SavedModel and deserialized TensorRT engines ----------------------------------


@dataclass(frozen=True)
class ModelView:
    """One loaded version whose model was read, and the config its backend checks."""

    artifact: VersionArtifact
    signature: Signature
    config: ModelConfig
    backend: str  # "openvino", "tensorflow" or "tensorrt"
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    strict: bool

    @property
    def file(self) -> str:
        return self.artifact.opened.name

    @property
    def mbs(self) -> int:
        return self.config.max_batch_size

    def checked(self, kind: str) -> bool:
        """The backend compares this list: it is written, or nothing fills it in."""
        if self.strict or not BACKENDS[self.backend].fills_empty_io:
            return True
        return bool(self.config.input if kind == "input" else self.config.output)

    def specs(self, kind: str) -> tuple[TensorSpec, ...]:
        return self.inputs if kind == "input" else self.outputs

    def config_tensors(self, kind: str) -> list[tuple[int, ModelInput | ModelOutput]]:
        """(index, tensor) of the config's inputs or outputs."""
        tensors: Sequence[ModelInput | ModelOutput] = (
            self.config.input if kind == "input" else self.config.output
        )
        return list(enumerate(tensors))


def _uninspected(signature: Signature) -> bool:
    """A reader refused to inspect the file (PL690), so its tensors are unknown."""
    return any(problem.kind == "not-inspected" for problem in signature.problems)


def model_views(context: ModelContext) -> list[ModelView]:
    """Loaded versions whose tensors the backend compares with the config: OpenVINO
    IRs that were inspected, SavedModels with the served signature, and TensorRT
    plans deserialized on this machine."""
    config = context.effective
    if config is None:
        return []
    strict = not context.auto_complete
    views = [
        ModelView(
            artifact, signature, config, "openvino", signature.inputs, signature.outputs, strict
        )
        for artifact, signature in loaded(context, "openvino")
        if not _uninspected(signature)
    ]
    savedmodels = loaded(context, "savedmodel")
    if savedmodels:
        # deferred: the SavedModel reader loads with the first SavedModel (start-up time)
        from pbtxt_lint.rules.api import DEFAULT_SIGNATURE, DEFAULT_TAG

        tag = parameter(config, TF_GRAPH_TAG) or DEFAULT_TAG
        wanted = parameter(config, TF_SIGNATURE_DEF) or DEFAULT_SIGNATURE
        for artifact, saved in savedmodels:
            graph, key = saved.select(tag, wanted)
            if graph is not None and key is not None:
                served = graph.signatures[key]
                views.append(
                    ModelView(
                        artifact, saved, config, "tensorflow", served.inputs, served.outputs, strict
                    )
                )
    views.extend(
        ModelView(artifact, plan, config, "tensorrt", plan.inputs, plan.outputs, strict)
        for artifact, plan in loaded(context, "plan")
        if plan.deep
    )
    return views


def per_model_view(
    context: ModelContext, check: Callable[[ModelView], Iterable[Finding]]
) -> Iterator[Finding]:
    """Run `check` on every model view (see `merge_versions`)."""
    return merge_versions(context, ((v.artifact.version, check(v)) for v in model_views(context)))
