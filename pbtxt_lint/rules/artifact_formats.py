"""PL63x-PL69x: the config against TensorRT, TorchScript, OpenVINO, SavedModel and Python files.

Each backend compares the config with its model file in its own way (triton-rules.md
sections 2.14-2.18 and 3.2-3.6); these rules mirror those comparisons on what the
readers in `pbtxt_lint.artifacts` can learn without a GPU or a framework:

- PL630-PL632 TensorRT plans: the header's TensorRT version against the target
  release, and which level of check ran (the engine itself needs TensorRT and a GPU);
- PL640-PL645 OpenVINO IR, SavedModel signatures and deserialized TensorRT engines:
  names, input counts, data types and shapes, each with its backend's semantics;
- PL650-PL651 SavedModel tags and signatures;
- PL660-PL665 Python models: syntax, `TritonPythonModel`, `execute`, literal tensor
  names, and the emulated `auto_complete_config`;
- PL670-PL675 TorchScript: not TorchScript at all, forward()'s arity, argument types,
  the input binding convention and output indexes;
- PL690 files pbtxt-lint refused to inspect.

Every rule reads files through `context.artifacts`, so `--config-only` skips them all.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from pbtxt_lint.analysis.artifacts import VersionArtifact
from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.artifacts.signature import Dim, Signature, TensorSpec
from pbtxt_lint.diagnostics import Severity, Span
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import config_dims, type_name
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.datatypes import protocol_from_config_type
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath

if TYPE_CHECKING:  # the readers' modules load with the first file of their format
    from pbtxt_lint.artifacts.openvino import OpenVinoSignature
    from pbtxt_lint.artifacts.python_model import AutoComplete, Completed, Outcome, PythonSignature
    from pbtxt_lint.artifacts.savedmodel import SavedModelSignature
    from pbtxt_lint.artifacts.tensorrt import PlanSignature
    from pbtxt_lint.artifacts.torchscript import ForwardArg, TorchScriptSignature

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
LOAD, INFERENCE = Stage.LOAD, Stage.INFERENCE
_NAMED_INDEX = re.compile(r"__(\d*)$")


# --- shared helpers -------------------------------------------------------------------------


@overload
def _loaded(
    context: ModelContext, fmt: Literal["plan"]
) -> list[tuple[VersionArtifact, PlanSignature]]: ...
@overload
def _loaded(
    context: ModelContext, fmt: Literal["openvino"]
) -> list[tuple[VersionArtifact, OpenVinoSignature]]: ...
@overload
def _loaded(
    context: ModelContext, fmt: Literal["savedmodel"]
) -> list[tuple[VersionArtifact, SavedModelSignature]]: ...
@overload
def _loaded(
    context: ModelContext, fmt: Literal["python"]
) -> list[tuple[VersionArtifact, PythonSignature]]: ...
@overload
def _loaded(
    context: ModelContext, fmt: Literal["torchscript"]
) -> list[tuple[VersionArtifact, TorchScriptSignature]]: ...
def _loaded(context: ModelContext, fmt: str) -> list[Any]:
    """(artifact, signature) of every loaded version whose file was read as format `fmt`
    (each reader returns its format's signature class)."""
    artifacts = context.artifacts
    if not artifacts.readable or artifacts.format != fmt:
        return []
    found = []
    for artifact in artifacts.versions:
        signature = artifact.signature
        if signature is not None:
            found.append((artifact, signature))
    return found


def _shown(artifact: VersionArtifact, context: ModelContext) -> str:
    """`<model>/<version>/model.xml`, the way diagnostics show paths."""
    return artifact.opened.relative_to(context.model.path.parent).as_posix()


def _merge(
    context: ModelContext, found: Iterable[tuple[int, Iterable[Finding]]]
) -> Iterator[Finding]:
    """Each finding once; with several loaded versions, prefixed by the versions concerned."""
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


def _triton_type(config_type: str | None) -> str:
    """How Triton prints a model type after "model provides ": TYPE_FP32, TYPE_BYTES."""
    protocol = protocol_from_config_type(config_type) if config_type else None
    return f"TYPE_{protocol or '<invalid>'}"


def _shape(shape: Sequence[Dim] | None) -> str:
    """A model shape as Triton prints it: `[-1,3,224,224]` (intervals as `1..10`)."""
    if shape is None:
        return "unknown rank"
    return "[" + ",".join(str(d) for d in shape) + "]"


def _names(values: Iterable[str]) -> str:
    listed = sorted(values)
    return ", ".join(listed) if listed else "none"


def _control_names(config: ModelConfig) -> list[str]:
    """Sequence control tensors a backend counts: the first one of each kind."""
    found: dict[int, str] = {}
    for control_input in config.sequence_batching.control_input:
        for control in control_input.control:
            found.setdefault(control.kind, control_input.name)
    return list(found.values())


def _parameter(config: ModelConfig, key: str) -> str:
    return config.parameters[key].string_value if key in config.parameters else ""


# --- TensorRT plans ---------------------------------------------------------------------------


def _shipped(container: str) -> str:
    from pbtxt_lint.artifacts.tensorrt import TENSORRT_OF_RELEASE

    known = TENSORRT_OF_RELEASE.get(container, ())
    return ", ".join(f"{version} ({image} image)" for image, version in known)


@rule(
    "PL630",
    "plan-tensorrt-version-mismatch",
    WARNING,
    "A TensorRT plan built with another TensorRT than the target Triton release ships.",
    triton="unable to create TensorRT engine: The engine plan file is not compatible with this "
    "version of TensorRT, expecting library version <A> got <B>, please rebuild.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def plan_tensorrt_version_mismatch(context: ModelContext) -> Iterator[Finding]:
    """A plan is a TensorRT engine serialized for one TensorRT version (and one GPU
    architecture): another TensorRT refuses to deserialize it, and Triton reports
    "unable to create TensorRT engine". The plan header records the version that built
    it (bytes 24-27); with `--triton-version` pbtxt-lint compares it with the TensorRT
    that release ships, from NVIDIA's release notes. Plans built with TensorRT >= 8.6
    as version-compatible (kVERSION_COMPATIBLE) load on later versions when Triton runs
    with `--backend-config=tensorrt,version-compatible=true`; the header does not say
    whether a plan is, so this is a warning.

    Bad:
        pbtxt-lint check --triton-version 25.02   (model.plan built with TensorRT 8.6.1)
    Good:
        pbtxt-lint check --triton-version 25.02   (model.plan rebuilt in the 25.02 container)
    """
    target = context.settings.target
    plans = _loaded(context, "plan")
    if target is None or not plans:
        return
    from pbtxt_lint.artifacts.tensorrt import TENSORRT_OF_RELEASE, releases_shipping, same_release

    known = TENSORRT_OF_RELEASE.get(target.container, ())
    if not known:
        return
    for artifact, signature in plans:
        version = signature.tensorrt_version
        if version is None or any(same_release(version, text) for _, text in known):
            continue
        images = {image for image, _ in known}
        unknown_main = (
            f"; the TensorRT of its main {target.container}-py3 image is not in pbtxt-lint's "
            "table, check the frameworks support matrix if you deploy that image"
            if "py3" not in images
            else ""
        )
        compatible = (
            " unless the plan was built version-compatible and Triton runs with "
            "--backend-config=tensorrt,version-compatible=true"
            if version[:2] >= (8, 6)
            else ""
        )
        others = sorted({tag for tag, _ in releases_shipping(version)})
        hint = f"rebuild the plan in the {target.container} container (trtexec --saveEngine)"
        if others:
            hint += f", or deploy it on a release that ships its TensorRT ({', '.join(others)})"
        yield Finding(
            f"{_shown(artifact, context)} was built with TensorRT {signature.version_text} "
            f"(read from the plan header), but Triton {target.label} ships TensorRT "
            f"{_shipped(target.container)}: a plan only deserializes on the TensorRT that "
            f'built it, so loading fails with "unable to create TensorRT engine"{compatible}'
            f"{unknown_main}",
            file=artifact.opened,
            hint=hint,
        )


@rule(
    "PL631",
    "plan-check-level",
    INFO,
    "How far pbtxt-lint could check a TensorRT plan: header only, or the deserialized engine.",
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def plan_check_level(context: ModelContext) -> Iterator[Finding]:
    """A plan's inputs, outputs, data types and optimization profiles are inside the
    serialized engine, which only the TensorRT runtime can read, and only with a CUDA
    GPU. Without one pbtxt-lint reads the header (magic, size, TensorRT version) and
    says so, so a clean report is not mistaken for a checked config. With the
    `tensorrt` package and a GPU, the engine is deserialized and compared with the
    config (names, data types, dims, profiles).

    Bad:
        (nothing to fix: this reports what was checked)
    Good:
        pbtxt-lint check on a machine with a GPU and `pip install tensorrt`
    """
    plans = _loaded(context, "plan")
    if not plans:
        return
    from pbtxt_lint.artifacts.tensorrt import releases_shipping

    for artifact, signature in plans:
        shown = _shown(artifact, context)
        version = signature.version_text
        if signature.deep:
            yield Finding(
                f"{shown} was deserialized with TensorRT on this machine: its inputs, outputs, "
                "data types, dims and optimization profiles were compared with the config",
                file=artifact.opened,
            )
            continue
        if signature.tensorrt_version is None:
            built = "its header carries no readable TensorRT version"
            shipping = ""
        else:
            built = f"built with TensorRT {version}"
            tags = sorted({tag for tag, _ in releases_shipping(signature.tensorrt_version)})
            shipping = (
                f"; Triton releases known to ship it: {', '.join(tags)}"
                if tags
                else "; no Triton release in pbtxt-lint's table ships it"
            )
        yield Finding(
            f"{shown}: header-only check ({built}{shipping}); its tensor names, data types, "
            f"dims and optimization profiles were not compared with the config "
            f"({signature.deep_skipped}: reading the engine needs TensorRT and a GPU)",
            file=artifact.opened,
            hint="run pbtxt-lint where `import tensorrt` works and a GPU is visible for a full "
            "check, or load the model in the target Triton container",
        )


@rule(
    "PL632",
    "plan-size-mismatch",
    WARNING,
    "A TensorRT plan whose header declares another size than the file has (truncated?).",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def plan_size_mismatch(context: ModelContext) -> Iterator[Finding]:
    """The plan header records the plan's total size. A smaller file is an interrupted
    copy or download, which TensorRT cannot deserialize ("unable to create TensorRT
    engine"); a larger one has bytes appended (a wrapper format). The header layout is
    undocumented, so this is a warning.

    Bad:
        model.plan   (header: 98,566,144 bytes; file: 33,554,432 bytes)
    Good:
        model.plan   (the complete file)
    """
    for artifact, signature in _loaded(context, "plan"):
        for problem in signature.problems:
            if problem.kind == "plan-size-mismatch":
                yield Finding(
                    f"{_short(problem.message, context)}; TensorRT cannot deserialize an "
                    'incomplete plan ("unable to create TensorRT engine")',
                    file=artifact.opened,
                    hint="copy the plan again and compare its size with the file trtexec wrote",
                )


def _short(text: str, context: ModelContext) -> str:
    return text.replace(f"{context.model.path.parent}{os.sep}", "")


# --- OpenVINO, SavedModel and deserialized TensorRT engines --------------------------------


@dataclass(frozen=True)
class _View:
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
        if self.strict:
            return True
        return bool(self.config.input if kind == "input" else self.config.output)

    def specs(self, kind: str) -> tuple[TensorSpec, ...]:
        return self.inputs if kind == "input" else self.outputs


def _uninspected(signature: Signature) -> bool:
    return any(problem.kind == "not-inspected" for problem in signature.problems)


def _views(context: ModelContext) -> list[_View]:
    config = context.effective
    if config is None:
        return []
    strict = context.strict
    views = [
        _View(artifact, signature, config, "openvino", signature.inputs, signature.outputs, strict)
        for artifact, signature in _loaded(context, "openvino")
        if not _uninspected(signature)
    ]
    savedmodels = _loaded(context, "savedmodel")
    if savedmodels:
        from pbtxt_lint.artifacts.savedmodel import DEFAULT_SIGNATURE, DEFAULT_TAG

        tag = _parameter(config, "TF_GRAPH_TAG") or DEFAULT_TAG
        wanted = _parameter(config, "TF_SIGNATURE_DEF") or DEFAULT_SIGNATURE
        for artifact, saved in savedmodels:
            graph, key = saved.select(tag, wanted)
            if graph is not None and key is not None:
                served = graph.signatures[key]
                views.append(
                    _View(
                        artifact, saved, config, "tensorflow", served.inputs, served.outputs, strict
                    )
                )
    views.extend(
        _View(artifact, plan, config, "tensorrt", plan.inputs, plan.outputs, strict)
        for artifact, plan in _loaded(context, "plan")
        if plan.deep
    )
    return views


def _per_view(
    context: ModelContext, check: Callable[[_View], Iterable[Finding]]
) -> Iterator[Finding]:
    return _merge(context, ((v.artifact.version, check(v)) for v in _views(context)))


def _config_tensors(view: _View, kind: str) -> list[tuple[int, ModelInput | ModelOutput]]:
    tensors: Sequence[ModelInput | ModelOutput] = (
        view.config.input if kind == "input" else view.config.output
    )
    return list(enumerate(tensors))


@rule(
    "PL640",
    "model-tensor-unknown",
    ERROR,
    "A config input or output name the OpenVINO, SavedModel or TensorRT model does not have.",
    triton="unexpected inference input '<name>', allowed inputs are: <a>, <b>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def model_tensor_unknown(context: ModelContext) -> Iterator[Finding]:
    """These backends look every config tensor up in the model by exact name: OpenVINO
    by the port's `get_any_name()` (the smallest of its tensor names), TensorFlow by
    the key of the serving signature (`input_ids`, not the graph tensor
    `serving_default_input_ids:0`), TensorRT by the engine binding name. A name the
    model lacks fails the load. A config name that is another name of a multi-name
    OpenVINO port is reported as a warning: Triton knows the port by its smallest name.

    Bad:
        input [ { name: "input" ... } ]     (model.xml Parameter names: input_ids)
    Good:
        input [ { name: "input_ids" ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        aliases = (
            cast("OpenVinoSignature", view.signature).aliases if view.backend == "openvino" else {}
        )
        names = {kind: {spec.name for spec in view.specs(kind)} for kind in ("input", "output")}
        for kind in ("input", "output"):
            if not view.checked(kind):
                continue
            allowed = names[kind]
            for index, io in _config_tensors(view, kind):
                if io.name in allowed or not io.name:
                    continue
                primary = next(
                    (n for n, every in aliases.items() if io.name in every and n in allowed),
                    None,
                )
                if primary is not None:
                    yield Finding(
                        f'{kind} "{io.name}": {view.file} names that port "{primary}" (its '
                        f"tensor names: {', '.join(aliases[primary])}); Triton's OpenVINO "
                        f'backend knows a port by get_any_name(), "{primary}", so "{io.name}" '
                        "may be refused as an unexpected name",
                        at=(kind, index, "name"),
                        hint=f'name: "{primary}"',
                        severity=WARNING,
                    )
                    continue
                listed = _names(allowed)
                message = (
                    f'{kind} "{io.name}": {view.file} has no {kind} of that name (its {kind}s: '
                    f"{listed}); Triton fails with \"unexpected inference {kind} '{io.name}', "
                    f'allowed {kind}s are: {listed}"'
                )
                other = "output" if kind == "input" else "input"
                if io.name in names[other]:
                    message += f'; "{io.name}" is an {other} of the model'
                guess = suggest(io.name, sorted(allowed), cutoff=0.5)
                if view.backend == "tensorflow" and ":" in io.name:
                    hint = "use the serving signature's keys (saved_model_cli show --dir ...)"
                elif guess:
                    hint = f'did you mean "{guess}"?'
                else:
                    hint = f"use the {kind} names of {view.file}"
                yield Finding(message, at=(kind, index, "name"), hint=hint)

    yield from _per_view(context, check)


@rule(
    "PL641",
    "model-input-count-mismatch",
    ERROR,
    "The config feeds another number of inputs than the model takes, or leaves an engine "
    "binding unconfigured.",
    triton="unable to load model '<model>', configuration expects <n> inputs, model provides <k>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def model_input_count_mismatch(context: ModelContext) -> Iterator[Finding]:
    """OpenVINO requires exactly as many config inputs as the model has Parameters.
    TensorFlow counts config inputs plus batch inputs and sequence control tensors
    against the signature's inputs. TensorRT refuses more config inputs than the engine
    has, and every engine input and output must be configured ("failed to specify the
    dimensions of all input tensors", "expected configuration for output"). With
    auto-complete on, a config that lists no inputs (or no outputs) is filled from the
    model instead.

    Bad:
        input [ { name: "input_ids" ... } ]    (model.xml also takes attention_mask)
    Good:
        input [ { name: "input_ids" ... }, { name: "attention_mask" ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        config = view.config
        model_inputs = [spec.name for spec in view.inputs]
        if view.backend == "tensorrt":
            yield from _engine_bindings(view, model_inputs)
            return
        if not view.checked("input"):
            return
        fed = [io.name for io in config.input]
        if view.backend == "tensorflow":
            fed += [name for b in config.batch_input for name in b.target_name]
            fed += _control_names(config)
        if len(fed) == len(model_inputs):
            return
        missing = [name for name in model_inputs if name not in fed]
        detail = f"{view.file} has {len(model_inputs)} inputs ({_names(model_inputs)})"
        detail += f" but the config feeds {len(fed)}"
        if missing:
            detail += f": {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not fed"
        yield Finding(
            f"{detail}; Triton fails with \"unable to load model '{config.name}', "
            f'configuration expects {len(fed)} inputs, model provides {len(model_inputs)}"',
            at=("input",),
            hint=f"add input entries for {', '.join(missing)}"
            if missing
            else f"list exactly the {len(model_inputs)} inputs of {view.file}",
        )

    yield from _per_view(context, check)


def _engine_bindings(view: _View, engine_inputs: list[str]) -> Iterator[Finding]:
    """TensorRT: at most as many inputs as the engine; every binding configured."""
    config = view.config
    if len(config.input) > len(engine_inputs):
        yield Finding(
            f"the config lists {len(config.input)} inputs but the engine has "
            f'{len(engine_inputs)} ({_names(engine_inputs)}); Triton fails with "unable to '
            f"load model '{config.name}', configuration expects {len(config.input)} inputs, "
            f'model provides at most {len(engine_inputs)}"',
            at=("input",),
            hint="remove the inputs the engine does not have",
        )
    fed = {io.name for io in config.input}
    fed |= {name for b in config.batch_input for name in b.target_name}
    fed |= set(_control_names(config))
    fed |= {s.input_name for s in config.sequence_batching.state}
    missing = [name for name in engine_inputs if name not in fed]
    if missing and view.checked("input"):
        yield Finding(
            f"engine inputs {', '.join(missing)} of {view.file} are not configured (neither an "
            'input, a batch input, a sequence control nor a state); Triton fails with "failed '
            'to specify the dimensions of all input tensors or values of all input shape tensors"',
            at=("input",),
            hint=f"add input entries for {', '.join(missing)}",
        )
    outputs = {io.name for io in config.output}
    outputs |= {s.output_name for s in config.sequence_batching.state}
    if view.checked("output"):
        for spec in view.outputs:
            if spec.name not in outputs:
                yield Finding(
                    f"engine output {spec.name} of {view.file} is not configured; Triton fails "
                    f"with \"expected configuration for output '{spec.name}'\"",
                    at=("output",),
                    hint=f'add output {{ name: "{spec.name}" ... }}',
                )


@rule(
    "PL642",
    "model-data-type-mismatch",
    ERROR,
    "A config data_type that differs from the SavedModel's or TensorRT engine's type.",
    triton="unable to load model '<model>', configuration expects datatype <TYPE_X> for input "
    "'<name>', model provides TYPE_<Y>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def model_data_type_mismatch(context: ModelContext) -> Iterator[Finding]:
    """TensorFlow and TensorRT do not convert types: the config's data_type must be
    the signature's dtype (DT_INT64 -> TYPE_INT64, DT_STRING -> TYPE_STRING) or the
    engine binding's type (kHALF -> TYPE_FP16). OpenVINO converts instead (PL644).

    Bad:
        input [ { name: "input_ids" data_type: TYPE_INT32 ... } ]   (signature: DT_INT64)
    Good:
        input [ { name: "input_ids" data_type: TYPE_INT64 ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        if view.backend == "openvino":
            return
        for kind in ("input", "output"):
            specs = {spec.name: spec for spec in view.specs(kind)}
            for index, io in _config_tensors(view, kind):
                spec = specs.get(io.name)
                if spec is None or io.data_type == DataType.TYPE_INVALID:
                    continue
                written = type_name(io.data_type)
                if spec.data_type is None:
                    yield Finding(
                        f'{kind} "{io.name}": {view.file} declares it as {spec.source_type}, '
                        "which has no Triton data type, so the backend cannot serve it",
                        at=(kind, index, "data_type"),
                        hint="change the model's tensor type (FLOAT, HALF, INT64, ...)",
                    )
                    continue
                if written == spec.data_type:
                    continue
                if view.backend == "tensorrt":
                    said = (
                        f"unexpected datatype {spec.data_type} for inference {kind} "
                        f"'{io.name}', expecting {written}"
                    )
                else:
                    said = (
                        f"configuration expects datatype {written} for {kind} '{io.name}', "
                        f"model provides {_triton_type(spec.data_type)}"
                    )
                yield Finding(
                    f'{kind} "{io.name}": the config says {written} but {view.file} declares '
                    f'{spec.source_type} ({spec.data_type}); Triton fails with "{said}"',
                    at=(kind, index, "data_type"),
                    hint=f"data_type: {spec.data_type}",
                )

    yield from _per_view(context, check)


def _io_shape(io: ModelInput | ModelOutput) -> tuple[list[int], tuple[str, ...]]:
    """What backends compare with the model: reshape.shape if present, else dims."""
    if io.HasField("reshape"):
        return list(io.reshape.shape), ("reshape", "shape")
    return list(io.dims), ("dims",)


def _ov_match(model: Dim, value: int) -> bool:
    """openvino_utils.cc doesMatch: static equal, unbounded anything, interval strict."""
    if isinstance(model, int):
        return model == -1 or model == value
    low, _, high = model.partition("..")
    if not high:
        return True
    return int(low or 0) < value < int(high)


def _ov_problem(view: _View, kind: str, model: tuple[Dim, ...], shape: list[int]) -> str | None:
    """The OpenVINO backend's CompareDimsSupported, as a reason or None."""
    exact = kind == "output"
    if view.mbs > 0:
        if not model:
            return (
                f"the model tensor has no dims, but with max_batch_size {view.mbs} it must "
                'have a batch dim ("for the model to support batching the shape should have '
                'at least 1 dimension")'
            )
        full = [view.mbs, *shape]
        same = len(model) == len(full) and all(
            _ov_match(m, c)
            for i, (m, c) in enumerate(zip(model, full, strict=True))
            if exact or (i != 0 and c != -1)
        )
        if same:
            return None
        return (
            f"the model expects {len(model)} dimensions (shape {_shape(model)}) but the model "
            f"configuration specifies {len(full)} dimensions (an initial batch dimension because "
            f"max_batch_size > 0 followed by the explicit tensor shape, making complete shape "
            f"{_shape(full)})"
        )
    same = len(model) == len(shape) and all(
        _ov_match(m, c) for m, c in zip(model, shape, strict=True)
    )
    if same:
        return None
    return (
        f"the model expects {len(model)} dimensions (shape {_shape(model)}) but the model "
        f"configuration specifies {len(shape)} dimensions (shape {_shape(shape)})"
    )


def _wildcard_problem(
    view: _View, kind: str, model: tuple[Dim, ...], shape: list[int]
) -> str | None:
    """TensorFlow's CompareDims (as ONNX Runtime's) and TensorRT's CompareDimsSupported."""
    dims = [d if isinstance(d, int) else -1 for d in model]
    exact = kind == "output"
    batched = view.mbs > 0
    if batched and (not dims or (view.backend == "tensorflow" and dims[0] != -1)):
        return (
            f"for the model to support batching the shape should have at least 1 dimension"
            f"{' and the first dimension must be -1' if view.backend == 'tensorflow' else ''}; "
            f"but shape expected by the model is {_shape(model)}"
        )
    full = [-1, *shape] if batched else shape
    if len(dims) == len(full):
        start = 1 if batched and view.backend == "tensorrt" else 0
        if all(
            m == c
            or (m == -1 and not exact)
            or (c == -1 and not exact and view.backend == "tensorrt")
            for m, c in list(zip(dims, full, strict=True))[start:]
        ):
            return None
    if batched:
        return (
            f"the model expects {len(dims)} dimensions (shape {_shape(model)}) but the model "
            f"configuration specifies {len(full)} dimensions (an initial batch dimension because "
            f"max_batch_size > 0 followed by the explicit tensor shape, making complete shape "
            f"{_shape(full)})"
        )
    return (
        f"the model expects {len(dims)} dimensions (shape {_shape(model)}) but the model "
        f"configuration specifies {len(shape)} dimensions (shape {_shape(shape)})"
    )


def _profile_problem(view: _View, io: ModelInput, shape: list[int]) -> str | None:
    """TensorRT: fixed config dims must lie in profile 0's [min, max] for the input."""
    if view.backend != "tensorrt":
        return None
    profiles = cast("PlanSignature", view.signature).profiles.get(io.name, ())
    if not profiles:
        return None
    profile = profiles[0]
    offset = 1 if view.mbs > 0 else 0
    for k, value in enumerate(shape):
        dim = k + offset
        if value == -1 or dim >= len(profile.minimum) or dim >= len(profile.maximum):
            continue
        low, high = profile.minimum[dim], profile.maximum[dim]
        if not low <= value <= high:
            return (
                f"model configuration specified invalid shape for input '{io.name}' for model "
                f"{view.config.name}. Error details: model expected the shape of dimension "
                f"{dim} to be between {low} and {high} but received {value}"
            )
    return None


@rule(
    "PL643",
    "model-shape-mismatch",
    ERROR,
    "dims (or reshape) that do not match the OpenVINO, SavedModel or TensorRT model's shape.",
    triton="model '<model>', tensor '<name>': the model expects <r> dimensions (shape <[..]>) "
    "but the model configuration specifies <k> dimensions (shape <[..]>)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def model_shape_mismatch(context: ModelContext) -> Iterator[Finding]:
    """Each backend compares `[batch] + dims` (max_batch_size > 0) or `dims` with the
    model, using `reshape.shape` when present. OpenVINO: the batch dim and -1 input
    dims are not compared, a dynamic model dim matches anything, a bounded one
    (`1..10`) only values strictly inside it, and outputs are compared in full (the
    batch dim against max_batch_size). TensorFlow, like ONNX Runtime: the model's first
    dim must be -1 when batching, a dynamic model dim accepts any input value, outputs
    are exact. TensorRT: the engine's first dim is not compared, -1 is a wildcard on
    either side for inputs, and fixed input dims must fit optimization profile 0.
    `RESHAPE_IO_LAYERS: yes` makes OpenVINO reshape inputs instead of comparing them.

    Bad:
        max_batch_size: 8
        input [ { name: "x" dims: [ -1, 4 ] ... } ]   (model.xml: x is [?,4])
    Good:
        max_batch_size: 8
        input [ { name: "x" dims: [ 4 ] ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        reshaped = _parameter(view.config, "RESHAPE_IO_LAYERS").lower() == "yes"
        for kind in ("input", "output"):
            specs = {spec.name: spec for spec in view.specs(kind)}
            for index, io in _config_tensors(view, kind):
                spec = specs.get(io.name)
                shape, field = _io_shape(io)
                if spec is None or spec.shape is None or not io.dims:
                    continue
                if any(d == 0 or d < -1 for d in shape):
                    continue  # the core rejects it first
                if view.backend == "openvino":
                    if kind == "input" and reshaped:
                        continue
                    reason = _ov_problem(view, kind, spec.shape, shape)
                else:
                    reason = _wildcard_problem(view, kind, spec.shape, shape)
                    if reason is None and view.backend == "tensorrt" and isinstance(io, ModelInput):
                        reason = _profile_problem(view, io, shape)
                if reason is None:
                    continue
                where = "reshape.shape" if field != ("dims",) else "dims"
                yield Finding(
                    f'{kind} "{io.name}": {view.file} declares {_shape(spec.shape)}, {where} '
                    f"are {config_dims(shape)} with max_batch_size {view.mbs}; Triton fails with "
                    f"\"model '{view.config.name}', tensor '{io.name}': {reason}\"",
                    at=(kind, index, *field),
                    hint=_shape_hint(view, spec.shape, where, reason),
                )

    yield from _per_view(context, check)


def _shape_hint(view: _View, model: tuple[Dim, ...], where: str, reason: str) -> str:
    dims = [d if isinstance(d, int) else -1 for d in model]
    if reason.startswith("for the model to support batching"):
        return (
            "re-export the model with a dynamic batch dim, or set max_batch_size: 0 and "
            f"{where}: {config_dims(dims)}"
        )
    if reason.startswith("model configuration specified invalid shape"):
        return "use a size inside the engine's optimization profile, or rebuild the engine"
    if view.mbs > 0 and dims:
        return f"{where}: {config_dims(dims[1:])} (the model's shape without its batch dim)"
    return f"{where}: {config_dims(dims)} (with max_batch_size 0, dims are the complete shape)"


@rule(
    "PL644",
    "openvino-data-type-converted",
    WARNING,
    "A config data_type that differs from the OpenVINO model's, which the backend converts.",
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def openvino_data_type_converted(context: ModelContext) -> Iterator[Finding]:
    """The OpenVINO backend does not refuse a data_type that differs from the model's:
    it inserts a conversion (`PrePostProcessor`) to the config's type. The model loads,
    but every request pays for the conversion, and narrowing ones lose precision
    (FP32 -> FP16) or range (INT64 -> INT32).

    Bad:
        input [ { name: "ids" data_type: TYPE_INT32 ... } ]   (model.xml: ids is i64)
    Good:
        input [ { name: "ids" data_type: TYPE_INT64 ... } ]
    """

    def check(view: _View) -> Iterator[Finding]:
        if view.backend != "openvino":
            return
        for kind in ("input", "output"):
            specs = {spec.name: spec for spec in view.specs(kind)}
            for index, io in _config_tensors(view, kind):
                spec = specs.get(io.name)
                written = type_name(io.data_type)
                if spec is None or io.data_type == DataType.TYPE_INVALID:
                    continue
                if spec.data_type == written:
                    continue
                model_type = spec.data_type or f"{spec.source_type}, which Triton cannot name"
                yield Finding(
                    f'{kind} "{io.name}": the config says {written} but {view.file} declares '
                    f"{spec.source_type} ({model_type}); the OpenVINO backend converts between "
                    "them on every request instead of failing, which costs time and may lose "
                    "precision or range",
                    at=(kind, index, "data_type"),
                    hint=f"data_type: {spec.data_type}"
                    if spec.data_type
                    else "export the model with a type Triton supports",
                )

    yield from _per_view(context, check)


@rule(
    "PL645",
    "openvino-weights-missing",
    ERROR,
    "The OpenVINO IR's model.bin is missing or shorter than the XML says.",
    triton="ModelState::Create ... reading network ... (OpenVINO cannot read the weights: "
    "model.bin missing or too short)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def openvino_weights_missing(context: ModelContext) -> Iterator[Finding]:
    """An IR is two files: `model.xml` (the graph) and `model.bin` (the constants,
    addressed by offset and size). OpenVINO reads the `.bin` of the same name next to
    the XML when the model loads; copying only the XML, or the XML of one export with
    the `.bin` of another, fails the load.

    Bad:
        m/1/model.xml          (model.bin left behind)
    Good:
        m/1/model.xml
        m/1/model.bin
    """
    for artifact, signature in _loaded(context, "openvino"):
        for problem in signature.problems:
            if problem.kind in ("weights-missing", "weights-short"):
                yield Finding(
                    f"{_shown(artifact, context)}: {problem.message}; OpenVINO fails to read "
                    f"the model, so Triton fails to load version {artifact.version} of "
                    f"'{context.model.name}'",
                    file=artifact.opened,
                    hint="copy the .bin that was exported with this .xml next to it",
                )


# --- TensorFlow SavedModel ---------------------------------------------------------------------


@rule(
    "PL650",
    "savedmodel-tag-missing",
    ERROR,
    'A SavedModel without a MetaGraph tagged "serve" (or TF_GRAPH_TAG).',
    triton="unable to load model '<model>', expected 'serve' tag",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def savedmodel_tag_missing(context: ModelContext) -> Iterator[Finding]:
    """Triton's TensorFlow backend loads the MetaGraph tagged "serve", or the tag named
    by the `TF_GRAPH_TAG` parameter. A SavedModel exported only for training (tag
    "train") or with a custom tag does not load.

    Bad:
        saved_model.pb tags: train
    Good:
        saved_model.pb tags: serve   (tf.saved_model.save writes it)
    """
    config = context.effective
    found = _loaded(context, "savedmodel")
    if config is None or not found:
        return
    from pbtxt_lint.artifacts.savedmodel import DEFAULT_TAG

    tag = _parameter(config, "TF_GRAPH_TAG") or DEFAULT_TAG
    for artifact, signature in found:
        if any(tag in graph.tags for graph in signature.meta_graphs):
            continue
        tags = sorted({t for graph in signature.meta_graphs for t in graph.tags})
        yield Finding(
            f'{_shown(artifact, context)} has no MetaGraph tagged "{tag}" (its tags: '
            f'{", ".join(tags) or "none"}); Triton fails with "unable to load model '
            f"'{context.model.name}', expected '{tag}' tag\"",
            file=artifact.opened,
            hint="export with tags=['serve'], or set parameters { key: \"TF_GRAPH_TAG\" "
            f'value {{ string_value: "{tags[0]}" }} }}'
            if tags
            else "export the model with tf.saved_model.save",
        )


@rule(
    "PL651",
    "savedmodel-signature-missing",
    ERROR,
    "A SavedModel without the serving signature Triton uses.",
    triton="unable to load model '<model>': the SavedModel has no signature to serve "
    "(no 'serving_default' and no other signature)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def savedmodel_signature_missing(context: ModelContext) -> Iterator[Finding]:
    """The backend serves the signature "serving_default" (or `TF_SIGNATURE_DEF`), and
    config names are that signature's keys. When it is missing Triton falls back to the
    first other signature (a warning: the names may not be the ones meant); with no
    signature at all the model cannot be served.

    Bad:
        saved_model.pb signatures: predict      (no serving_default)
    Good:
        saved_model.pb signatures: serving_default
    """
    config = context.effective
    found = _loaded(context, "savedmodel")
    if config is None or not found:
        return
    from pbtxt_lint.artifacts.savedmodel import DEFAULT_SIGNATURE, DEFAULT_TAG

    tag = _parameter(config, "TF_GRAPH_TAG") or DEFAULT_TAG
    key = _parameter(config, "TF_SIGNATURE_DEF") or DEFAULT_SIGNATURE
    for artifact, signature in found:
        graph, chosen = signature.select(tag, key)
        if graph is None or chosen == key:
            continue
        listed = ", ".join(sorted(graph.signatures)) or "none"
        if chosen is None:
            yield Finding(
                f"{_shown(artifact, context)} has no serving signature (its signatures: "
                f"{listed}), so Triton cannot map config tensors to the graph and fails to "
                f"load '{context.model.name}'",
                file=artifact.opened,
                hint="export with tf.saved_model.save(model, path, "
                "signatures={'serving_default': ...})",
            )
            continue
        yield Finding(
            f'{_shown(artifact, context)} has no signature "{key}" (its signatures: '
            f'{listed}); Triton falls back to "{chosen}", whose keys become the model\'s '
            "input and output names",
            file=artifact.opened,
            hint='set parameters { key: "TF_SIGNATURE_DEF" value { string_value: '
            f'"{chosen}" }} }} to make the choice explicit, or export a serving_default signature',
            severity=WARNING,
        )


# --- Python models -----------------------------------------------------------------------------


def _python(context: ModelContext) -> list[tuple[VersionArtifact, PythonSignature]]:
    return _loaded(context, "python")


def _line(line: int) -> Span | None:
    return Span.point(line, 1) if line > 0 else None


@rule(
    "PL660",
    "python-syntax-error",
    ERROR,
    "A Python model file that does not parse.",
    triton="Failed to initialize Python stub for auto-complete: SyntaxError: <message>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def python_syntax_error(context: ModelContext) -> Iterator[Finding]:
    """The Python backend imports `model.py` in its stub process; a syntax error fails
    the import, so the model never loads. pbtxt-lint parses the file with the Python it
    runs on: a line that uses syntax added in Python 3.12 (the stub's Python in recent
    containers) is only a warning when pbtxt-lint runs on an older Python.

    Bad:
        def execute(self, requests)
    Good:
        def execute(self, requests):
    """
    version = "{}.{}.{}".format(*sys.version_info[:3])
    for artifact, signature in _python(context):
        if not signature.syntax_error:
            continue
        newer = signature.syntax_maybe_newer
        message = (
            f"{_shown(artifact, context)} does not parse ({signature.syntax_error}, Python "
            f"{version}); the stub fails to import it, so Triton fails to load "
            f"'{context.model.name}'"
        )
        if newer:
            message += (
                "; the line uses syntax that Python 3.12 accepts, so it may parse in the "
                "Triton container"
            )
        yield Finding(
            message,
            file=artifact.opened,
            span=_line(signature.syntax_line),
            hint="fix the syntax; check with `python -m py_compile model.py` using the Python "
            "of the Triton container",
            severity=WARNING if newer else None,
        )


@rule(
    "PL661",
    "python-model-class-missing",
    ERROR,
    "A Python model file without a TritonPythonModel class.",
    triton="Failed to initialize Python stub: AttributeError: module 'model' has no attribute "
    "'TritonPythonModel'",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def python_model_class_missing(context: ModelContext) -> Iterator[Finding]:
    """The stub imports `model.py` and instantiates the class named exactly
    `TritonPythonModel`. Another name (`TritonModel`, `TritonPythonmodel`) fails the
    load. A class bound by an import (`from impl import TritonPythonModel`) is fine;
    star imports and dynamic definitions are not judged.

    Bad:
        class TritonModel:
    Good:
        class TritonPythonModel:
    """
    for artifact, signature in _python(context):
        if signature.syntax_error or signature.model_class != "absent":
            continue
        classes = signature.facts.get("classes", "")
        near = suggest("TritonPythonModel", classes.split(",") if classes else [], cutoff=0.6)
        found = f" (it defines {classes.replace(',', ', ')})" if classes else ""
        if signature.facts.get("statements") == "0":
            found = " (the file is empty)"
        yield Finding(
            f"{_shown(artifact, context)} defines no TritonPythonModel class{found}; the stub "
            f"looks that class up after importing the file, so Triton fails to load "
            f"'{context.model.name}'",
            file=artifact.opened,
            hint=f"rename class {near} to TritonPythonModel"
            if near
            else "define class TritonPythonModel with initialize() and execute()",
        )


@rule(
    "PL662",
    "python-execute-missing",
    ERROR,
    "A TritonPythonModel without an execute method: every request fails.",
    triton="Python model <path> does not implement `execute` method.",
    stage=INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def python_execute_missing(context: ModelContext) -> Iterator[Finding]:
    """The model loads, but the stub calls `execute(requests)` for every batch of
    requests; without it each request fails. Classes with base classes, decorators or
    a metaclass may get `execute` elsewhere and are not judged.

    Bad:
        class TritonPythonModel:
            def run(self, requests): ...
    Good:
        class TritonPythonModel:
            def execute(self, requests): ...
    """
    for artifact, signature in _python(context):
        if signature.model_class != "class" or signature.execute != "absent":
            continue
        methods = [m for m in signature.facts.get("methods", "").split(",") if m]
        near = suggest("execute", methods, cutoff=0.6)
        yield Finding(
            f"class TritonPythonModel in {_shown(artifact, context)} has no execute method; "
            f"'{context.model.name}' loads but every request fails with \"Python model "
            f'{artifact.opened.name} does not implement `execute` method."',
            file=artifact.opened,
            span=_line(signature.class_line),
            hint=f"rename {near}() to execute()"
            if near
            else "add def execute(self, requests): returning one response per request",
        )


@rule(
    "PL663",
    "python-tensor-name-unknown",
    WARNING,
    "A literal tensor name in model.py that the config does not declare.",
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def python_tensor_name_unknown(context: ModelContext) -> Iterator[Finding]:
    """The Python backend never compares the code with the config, so a renamed tensor
    surfaces only at run time: Triton refuses requests carrying inputs the config does
    not declare (so `get_input_tensor_by_name(request, "X")` returns None), never
    returns outputs the config does not declare, and
    `get_output_config_by_name(config, "Y")` returns None (usually a TypeError in
    `initialize`). Only string literals are checked; tensors built for BLS requests
    (`pb_utils.InferenceRequest`) are not outputs and are skipped.

    Bad:
        pb_utils.Tensor("OUTPUT", out)      (config output: "OUTPUT0")
    Good:
        pb_utils.Tensor("OUTPUT0", out)
    """
    for artifact, signature in _python(context):
        if not signature.parsed:
            continue
        completed = context.completed_for(artifact.version)
        config = completed.config
        if config is None or completed.error is not None or not completed.io_known:
            continue
        inputs = {io.name for io in config.input}
        outputs = {io.name for io in config.output}
        shown = _shown(artifact, context)
        checks = (
            (signature.inputs_read, inputs, "input", "reads input", "get_input_tensor_by_name "
             "always returns None for it: Triton refuses requests that carry inputs the config "
             "does not declare"),
            (signature.input_configs, inputs, "input", "looks up the config of input",
             "get_input_config_by_name returns None for it"),
            (signature.outputs_made, outputs, "output", "creates output", "Triton never returns "
             "an output the config does not declare"),
            (signature.output_configs, outputs, "output", "looks up the config of output",
             "get_output_config_by_name returns None for it (code that reads its data_type "
             "then fails in initialize)"),
        )  # fmt: skip
        for uses, declared, kind, verb, effect in checks:
            seen: set[str] = set()
            for use in uses:
                if use.name in declared or use.name in seen:
                    continue
                seen.add(use.name)
                guess = suggest(use.name, sorted(declared), cutoff=0.5)
                yield Finding(
                    f'{shown} line {use.line} {verb} "{use.name}", which the config does not '
                    f"declare (its {kind}s: {_names(declared)}); {effect}",
                    file=artifact.opened,
                    span=_line(use.line),
                    hint=f'did you mean "{guess}"?'
                    if guess
                    else f'declare {kind} "{use.name}" in config.pbtxt, or use a declared name',
                )


def _auto_complete_outcomes(
    context: ModelContext,
) -> Iterator[tuple[VersionArtifact, AutoComplete, Outcome]]:
    """Each model.py's literal auto_complete_config, emulated on the config (not strict)."""
    config = context.effective
    if context.strict or config is None:
        return
    for artifact, signature in _python(context):
        function = signature.auto_complete
        if function is not None and signature.parsed:
            yield artifact, function, function.emulate(config)


@rule(
    "PL664",
    "python-auto-complete-fails",
    ERROR,
    "model.py's auto_complete_config raises against this config.",
    triton="configuration specified max_batch_size <n>, but in auto-complete-config function "
    "for model '<model>' specified max_batch_size <k>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def python_auto_complete_fails(context: ModelContext) -> Iterator[Finding]:
    """With auto-complete on, the stub runs `TritonPythonModel.auto_complete_config`
    before the model loads. `pb_utils.ModelConfig` refuses to lower max_batch_size,
    to set dynamic batching on a sequence model, to add a tensor whose data_type or
    dims contradict config.pbtxt, unknown keys, and a changed decoupled policy; the
    function must also return the config. Any of these fails the load. pbtxt-lint runs
    literal auto_complete_config bodies in an emulator (never the code itself).

    Bad:
        max_batch_size: 16     (auto_complete_config: set_max_batch_size(8))
    Good:
        max_batch_size: 8
    """
    outcomes = list(_auto_complete_outcomes(context))
    if not outcomes:
        return
    from pbtxt_lint.artifacts.python_model import Refused

    for artifact, _, outcome in outcomes:
        if not isinstance(outcome, Refused):
            continue
        yield Finding(
            f"auto_complete_config in {_shown(artifact, context)} fails against this config: "
            f"Triton fails to load '{context.model.name}' with \"{outcome.message}\"",
            file=artifact.opened,
            span=_line(outcome.line),
            hint="make config.pbtxt agree with what auto_complete_config sets (or remove the "
            "conflicting call)",
        )


@rule(
    "PL665",
    "python-auto-complete-overrides",
    INFO,
    "model.py's auto_complete_config changes what config.pbtxt says, or makes the model decoupled.",
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def python_auto_complete_overrides(context: ModelContext) -> Iterator[Finding]:
    """The config Triton serves is config.pbtxt plus what `auto_complete_config` does.
    Filling an empty config is what the function is for; this reports the changes a
    reader of config.pbtxt would not expect: a written max_batch_size raised by
    `set_max_batch_size`, tensors added next to the ones config.pbtxt lists, data types
    or dims filled in for listed tensors, and a decoupled transaction policy (clients
    must then stream).

    Bad:
        max_batch_size: 4      (auto_complete_config: set_max_batch_size(16))
    Good:
        max_batch_size: 16
    """
    config = context.effective
    outcomes = list(_auto_complete_outcomes(context))
    if config is None or not outcomes:
        return
    from pbtxt_lint.artifacts.python_model import Completed

    for artifact, function, outcome in outcomes:
        if not isinstance(outcome, Completed):
            continue
        changes = _overrides(config, outcome)
        if not changes:
            continue
        yield Finding(
            f"auto_complete_config in {_shown(artifact, context)} {'; '.join(changes)}; "
            f"Triton serves that completed config (see `pbtxt-lint complete "
            f"{context.model.name}`)",
            file=artifact.opened,
            span=_line(function.line),
            hint="write these fields in config.pbtxt so that it shows what Triton serves",
        )


def _overrides(before: ModelConfig, outcome: Completed) -> list[str]:
    """The changes to a written config that its reader would not expect."""
    after = outcome.config
    changes = []
    if "max_batch_size" in outcome.filled and before.max_batch_size > 0:
        changes.append(
            f"raises max_batch_size from {before.max_batch_size} (config.pbtxt) to "
            f"{after.max_batch_size}"
        )
    for kind, old, new in (
        ("input", before.input, after.input),
        ("output", before.output, after.output),
    ):
        if kind not in outcome.filled or not old:
            continue
        listed = {io.name: io for io in old}
        added = [io.name for io in new if io.name not in listed]
        if added:
            changes.append(
                f"adds {kind}{'s' if len(added) > 1 else ''} {', '.join(added)} to the "
                f"{kind}s config.pbtxt lists"
            )
        filled = [
            io.name
            for io in new
            if io.name in listed and io.SerializeToString() != listed[io.name].SerializeToString()
        ]
        if filled:
            changes.append(f"sets data_type/dims of {kind} {', '.join(filled)}")
    if "model_transaction_policy" in outcome.filled and after.model_transaction_policy.decoupled:
        changes.append(
            "makes the model decoupled (clients must use streaming requests, and ensembles "
            "that use it become decoupled)"
        )
    return changes


# --- TorchScript ------------------------------------------------------------------------------


@rule(
    "PL670",
    "not-torchscript",
    ERROR,
    "A model.pt that is not TorchScript (a torch.save() pickle, a PT2 archive).",
    triton="failed to load model '<model>': PytorchStreamReader failed locating file "
    "constants.pkl: file not found",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def not_torchscript(context: ModelContext) -> Iterator[Finding]:
    """The libtorch backend loads `model.pt` with `torch::jit::load`, which needs a
    TorchScript archive (code/ and constants.pkl). `torch.save(model)` and
    `torch.save(state_dict)` write pickles of Python objects, which only Python with
    the model's class can load; PT2 archives (`torch.export`, AOTInductor) are served
    by `platform: "torch_aoti"` from `model.pt2`.

    Bad:
        torch.save(model, "model.pt")
    Good:
        torch.jit.script(model).save("model.pt")   (or torch.jit.trace(model, example))
    """
    for artifact, signature in _loaded(context, "torchscript"):
        if not signature.not_torchscript:
            continue
        pt2 = "PT2" in signature.not_torchscript
        yield Finding(
            f"{_shown(artifact, context)} is not TorchScript: {signature.not_torchscript}; "
            'libtorch fails with "PytorchStreamReader failed locating file constants.pkl", '
            f"so Triton fails to load '{context.model.name}'",
            file=artifact.opened,
            hint='serve it with platform: "torch_aoti" and name it model.pt2'
            if pt2
            else 'save with torch.jit.script(model).save("model.pt") or '
            'torch.jit.trace(model, example_inputs).save("model.pt")',
        )


@dataclass(frozen=True)
class _Torch:
    """A loaded TorchScript version whose forward() was read."""

    artifact: VersionArtifact
    signature: TorchScriptSignature
    args: tuple[ForwardArg, ...]
    config: ModelConfig

    @property
    def dict_input(self) -> bool:
        return len(self.args) == 1 and self.args[0].kind == "dict"

    @property
    def file(self) -> str:
        return self.artifact.opened.name

    @property
    def forward(self) -> str:
        return f"{self.signature.root_class.rsplit('.', 1)[-1]}.forward"


def _torch(context: ModelContext) -> list[_Torch]:
    config = context.effective
    if config is None:
        return []
    return [
        _Torch(artifact, signature, signature.forward, config)
        for artifact, signature in _loaded(context, "torchscript")
        if signature.forward is not None
    ]


def _per_torch(
    context: ModelContext, check: Callable[[_Torch], Iterable[Finding]]
) -> Iterator[Finding]:
    return _merge(context, ((t.artifact.version, check(t)) for t in _torch(context)))


def _fed(config: ModelConfig) -> int:
    """What libtorch counts against forward(): inputs, batch inputs, controls, states."""
    return (
        len(config.input)
        + len(config.batch_input)
        + len(_control_names(config))
        + len(config.sequence_batching.state)
    )


def _named_index(name: str) -> int | None:
    """The <index> of <name>__<index> as libtorch parses it (first "__", digits only)."""
    at = name.find("__")
    if at < 0:
        return None
    rest = name[at + 2 :]
    if not rest.isdigit() and rest != "":
        return None
    return int(rest) if rest else 0


def _convention(names: Sequence[str], args: Sequence[str]) -> str:
    if all(name in args for name in names):
        return "forward-argument"
    if all(_named_index(name) is not None for name in names):
        return "named-index"
    return "config-order"


def _argument_of(torch: _Torch) -> dict[int, ForwardArg]:
    """Config input index -> the forward() argument libtorch binds it to."""
    names = [io.name for io in torch.config.input]
    args = [a.name for a in torch.args]
    convention = _convention(names, args)
    bound: dict[int, ForwardArg] = {}
    for index, name in enumerate(names):
        if convention == "forward-argument":
            position: int | None = args.index(name)
        elif convention == "named-index":
            position = _named_index(name)
        else:
            position = index
        if position is not None and 0 <= position < len(torch.args):
            bound[index] = torch.args[position]
    return bound


@rule(
    "PL671",
    "torchscript-input-count",
    ERROR,
    "forward() takes another number of inputs than the config feeds.",
    triton="unable to load model '<model>', configuration expects <n> inputs, model provides <k>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def torchscript_input_count(context: ModelContext) -> Iterator[Finding]:
    """libtorch compares forward()'s arguments (self excluded) with the config's inputs
    plus batch inputs, sequence control tensors and states; a model whose forward
    takes a single `Dict[str, Tensor]` is exempt (its keys are the input names).

    Bad:
        input [ { name: "input_ids" ... } ]    (forward(self, input_ids, attention_mask))
    Good:
        input [ { name: "input_ids" ... }, { name: "attention_mask" ... } ]
    """

    def check(torch: _Torch) -> Iterator[Finding]:
        config = torch.config
        if torch.dict_input or not torch.args:
            return
        expected = _fed(config)
        if expected == len(torch.args):
            return
        args = [a.name for a in torch.args]
        fed = {io.name for io in config.input}
        unfed = [a for a in args if a not in fed]
        detail = (
            f"{torch.forward}() in {torch.file} takes {len(args)} inputs ({', '.join(args)}) "
            f"but the config feeds {expected}"
        )
        if expected > len(args):
            extra = [io.name for io in config.input if io.name not in args]
            if extra:
                detail += (
                    f" ({', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not an argument)"
                )
        yield Finding(
            f"{detail}; Triton fails with \"unable to load model '{config.name}', "
            f'configuration expects {expected} inputs, model provides {len(args)}"',
            at=("input",),
            hint=f"add input entries for {', '.join(unfed)}"
            if expected < len(args) and unfed
            else f"feed exactly the {len(args)} arguments of forward()",
        )

    yield from _per_torch(context, check)


@rule(
    "PL672",
    "torchscript-input-binding",
    WARNING,
    "Config input names that bind to forward() arguments by config order (or by a broken "
    "<name>__<index>).",
    triton="input '<name>' or previous input(s) are neither an input argument to the model "
    "'<model>' nor do they follow the <name>__<index> naming convention. Falling back to "
    "enforcing strict ordering from model configuration.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def torchscript_input_binding(context: ModelContext) -> Iterator[Finding]:
    """libtorch binds config inputs to forward() arguments by argument name when every
    config input is named like an argument, by the index of `<name>__<index>` when every
    name has one, and otherwise, silently or with a log warning, by the order of the
    config. A config that uses argument names for some inputs and other names for the
    rest is bound by order: when that order differs from forward()'s, tensors reach the
    wrong arguments and the model computes garbage without any error.

    Bad:
        input [ { name: "attention_mask" ... }, { name: "ids" ... } ]
        (forward(self, input_ids, attention_mask): attention_mask is fed to input_ids)
    Good:
        input [ { name: "input_ids" ... }, { name: "attention_mask" ... } ]
    """

    def check(torch: _Torch) -> Iterator[Finding]:
        config = torch.config
        if torch.dict_input or not config.input or _fed(config) != len(torch.args):
            return  # a count mismatch fails the load first (PL671)
        names = [io.name for io in config.input]
        args = [a.name for a in torch.args]
        convention = _convention(names, args)
        if convention == "forward-argument":
            return
        if convention == "named-index":
            yield from _index_problems(torch, names)
            return
        pairs = [
            f"{name} -> {args[i]}" if i < len(args) else f"{name} -> (no argument {i})"
            for i, name in enumerate(names)
        ]
        swapped = [
            (i, name, args.index(name))
            for i, name in enumerate(names)
            if name in args and args.index(name) != i
        ]
        message = (
            f"input names {', '.join(names)} are neither all forward() argument names "
            f"({', '.join(args)}) nor all <name>__<index>, so Triton binds them by config order: "
            f"{'; '.join(pairs)}"
        )
        if swapped:
            i, name, position = swapped[0]
            message += (
                f'; "{name}" is forward()\'s argument {position} but is fed to argument {i} '
                f"({args[i] if i < len(args) else '?'}): the tensors are swapped without any error"
            )
            at: FieldPath = ("input", i, "name")
        else:
            message += "; a reordered config or re-exported model would swap tensors silently"
            at = ("input",)
        yield Finding(
            message,
            at=at,
            hint="name every input exactly like its forward() argument ("
            + ", ".join(args)
            + "), or use INPUT__0, INPUT__1, ... in argument order",
        )

    yield from _per_torch(context, check)


def _index_problems(torch: _Torch, names: list[str]) -> Iterator[Finding]:
    count = len(torch.args)
    seen: dict[int, str] = {}
    for i, name in enumerate(names):
        index = _named_index(name)
        if index is None:
            continue
        if index >= count:
            yield Finding(
                f'input "{name}" binds to forward() argument {index}, but {torch.forward}() takes '
                f"{count} arguments (0..{count - 1}): the tensor has no argument to go to",
                at=("input", i, "name"),
                hint=f"number the inputs 0..{count - 1} in forward()'s order",
            )
        elif index in seen:
            yield Finding(
                f'input "{name}" binds to forward() argument {index} like "{seen[index]}", so '
                "one argument receives two tensors and another none",
                at=("input", i, "name"),
                hint=f"number the inputs 0..{count - 1} in forward()'s order",
            )
        else:
            seen[index] = name


@rule(
    "PL673",
    "torchscript-argument-type",
    ERROR,
    "A forward() argument libtorch cannot feed (not a Tensor, List or single Dict).",
    triton="An input of type '<type>' was detected in the model. Only a single input of type "
    "Dict(str, Tensor) or input(s) of type Tensor are supported.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def torchscript_argument_type(context: ModelContext) -> Iterator[Finding]:
    """libtorch passes each config input to forward() as a Tensor (or a List[str] for
    TYPE_STRING), or all of them as one `Dict[str, Tensor]`. An argument of another
    type (`int`, `Optional[Tensor]`, `Tuple[...]`) or a Dict next to other arguments
    fails the load.

    Bad:
        def forward(self, x: Tensor, top_k: int)
    Good:
        def forward(self, x: Tensor, top_k: Tensor)
    """

    def check(torch: _Torch) -> Iterator[Finding]:
        if torch.dict_input:
            return
        dicts = [a for a in torch.args if a.kind == "dict"]
        if len(dicts) > 1:
            yield Finding(
                f"{torch.forward}() in {torch.file} takes {len(dicts)} Dict arguments "
                f'({", ".join(a.name for a in dicts)}); Triton fails with "Multiple inputs of '
                "kind DictType were detected. Only a single input of type Dict(str, Tensor) is "
                'supported."',
                at=("input",),
                hint="take one Dict[str, Tensor] argument, or separate Tensor arguments",
            )
            return
        bound = _argument_of(torch)
        for arg in torch.args:
            if arg.kind in ("tensor", "list"):
                continue
            index = next((i for i, a in bound.items() if a is arg), None)
            yield Finding(
                f"argument `{arg.name}: {arg.annotation}` of {torch.forward}() in {torch.file} "
                'is neither a Tensor nor a List; Triton fails with "An input of type '
                f"'{arg.annotation}' was detected in the model. Only a single input of type "
                'Dict(str, Tensor) or input(s) of type Tensor are supported."',
                at=("input", index, "name") if index is not None else ("input",),
                hint=f"make {arg.name} a Tensor (wrap scalars: torch.tensor([...]))",
            )

    yield from _per_torch(context, check)


@rule(
    "PL674",
    "torchscript-string-argument",
    WARNING,
    "A TYPE_STRING input bound to a Tensor argument, or a List[str] argument fed numbers.",
    stage=INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def torchscript_string_argument(context: ModelContext) -> Iterator[Finding]:
    """libtorch hands a TYPE_STRING input to forward() as `List[str]` and every other
    type as a Tensor. An argument annotated `List[str]` fed a numeric input, or a
    Tensor argument fed TYPE_STRING, fails when TorchScript checks the argument types
    at the first request.

    Bad:
        input [ { name: "text" data_type: TYPE_STRING ... } ]   (forward(self, text: Tensor))
    Good:
        input [ { name: "text" data_type: TYPE_STRING ... } ]   (forward(self, text: List[str]))
    """

    def check(torch: _Torch) -> Iterator[Finding]:
        if torch.dict_input:
            return
        for index, arg in _argument_of(torch).items():
            io = torch.config.input[index]
            string = io.data_type == DataType.TYPE_STRING
            if string == arg.is_string_list or io.data_type == DataType.TYPE_INVALID:
                continue
            wanted = "List[str]" if string else "a Tensor"
            yield Finding(
                f'input "{io.name}" is {type_name(io.data_type)}, so libtorch passes '
                f"{wanted}, but it is bound to argument {arg.name}: {arg.annotation} of "
                f"{torch.forward}(); TorchScript rejects the call on every request",
                at=("input", index, "data_type"),
                hint=f"annotate {arg.name}: List[str] in the model"
                if string
                else "data_type: TYPE_STRING (the argument is a List[str])",
            )

    yield from _per_torch(context, check)


@rule(
    "PL675",
    "torchscript-output-index",
    ERROR,
    "A config output whose index is past the values forward() returns: every request fails.",
    triton="The output <name> in the model configuration refers to an output index which "
    "doesn't exist. This model has <n> outputs",
    stage=INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def torchscript_output_index(context: ModelContext) -> Iterator[Finding]:
    """TorchScript outputs have no names: libtorch binds config outputs by the index of
    `<name>__<index>` when every output has one, else by config order. forward()'s
    return annotation says how many values it returns (a Tuple's arity, 1 for a
    Tensor); an output bound past them fails every request after the model ran.

    Bad:
        output [ { name: "logits" ... }, { name: "hidden" ... } ]   (forward -> Tensor)
    Good:
        output [ { name: "logits" ... } ]
    """

    def check(torch: _Torch) -> Iterator[Finding]:
        count = torch.signature.output_count
        if count is None:
            return
        names = [io.name for io in torch.config.output]
        indexed = all(_named_index(name) is not None for name in names)
        for position, name in enumerate(names):
            index = _named_index(name) if indexed else position
            if index is None or index < count:
                continue
            how = "its <name>__<index>" if indexed else "its position in the config"
            returns = torch.signature.returns or "a value"
            yield Finding(
                f'output "{name}" is bound by {how} to output {index}, but {torch.forward}() '
                f"in {torch.file} returns {returns} ({count} output{'s' if count != 1 else ''}); "
                f'every request fails with "The output {name} in the model configuration refers '
                f"to an output index which doesn't exist. This model has {count} outputs\"",
                at=("output", position, "name"),
                hint=f"keep only {count} output{'s' if count != 1 else ''}, or return more values "
                "from forward()",
            )

    yield from _per_torch(context, check)


# --- files not inspected --------------------------------------------------------------------


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
    for artifact in context.artifacts.versions if context.artifacts.readable else ():
        signature = artifact.signature
        if signature is None:
            continue
        for problem in signature.problems:
            if problem.kind == "not-inspected":
                yield Finding(
                    f"{_shown(artifact, context)}: {problem.message}; the config was not "
                    "compared with it",
                    file=artifact.opened,
                    hint="check this model by loading it in Triton",
                )
