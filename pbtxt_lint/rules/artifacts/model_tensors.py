"""PL640-PL642: config tensors against an OpenVINO IR, a SavedModel's serving signature
or a deserialized TensorRT engine: names, input counts and data types.

Each backend looks config tensors up in its model by exact name and counts the inputs
the config feeds, in its own way (openvino_backend `openvino.cc` ValidateInputs and
ValidateOutputs, tensorflow_backend `tensorflow.cc` ValidateTRITONTFModel,
tensorrt_backend `instance_state.cc` ValidateIO); each rule's docstring says how.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import (
    ModelView,
    control_names,
    name_list,
    per_model_view,
    triton_type,
)
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import type_name
from pbtxt_lint.schema import DataType
from pbtxt_lint.textproto.binder import suggest

if TYPE_CHECKING:  # the OpenVINO reader loads with the first IR
    from pbtxt_lint.artifacts.openvino import OpenVinoSignature

ERROR, WARNING = Severity.ERROR, Severity.WARNING
LOAD = Stage.LOAD


@rule(
    "PL640",
    "model-tensor-unknown",
    ERROR,
    "A config input or output name the OpenVINO, SavedModel or TensorRT model does not have.",
    triton="unexpected inference input '<name>', allowed inputs are: <a>, <b>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend=("tensorrt", "openvino", "tensorflow"),
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

    def check(view: ModelView) -> Iterator[Finding]:
        aliases = (
            cast("OpenVinoSignature", view.signature).aliases if view.backend == "openvino" else {}
        )
        names = {kind: {spec.name for spec in view.specs(kind)} for kind in ("input", "output")}
        for kind in ("input", "output"):
            if not view.checked(kind):
                continue
            allowed = names[kind]
            for index, io in view.config_tensors(kind):
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
                listed = name_list(allowed)
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

    yield from per_model_view(context, check)


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
    backend=("tensorrt", "openvino", "tensorflow"),
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

    def check(view: ModelView) -> Iterator[Finding]:
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
            fed += control_names(config)
        if len(fed) == len(model_inputs):
            return
        missing = [name for name in model_inputs if name not in fed]
        detail = f"{view.file} has {len(model_inputs)} inputs ({name_list(model_inputs)})"
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

    yield from per_model_view(context, check)


def _engine_bindings(view: ModelView, engine_inputs: list[str]) -> Iterator[Finding]:
    """TensorRT: at most as many inputs as the engine; every binding configured."""
    config = view.config
    if len(config.input) > len(engine_inputs):
        yield Finding(
            f"the config lists {len(config.input)} inputs but the engine has "
            f'{len(engine_inputs)} ({name_list(engine_inputs)}); Triton fails with "unable to '
            f"load model '{config.name}', configuration expects {len(config.input)} inputs, "
            f'model provides at most {len(engine_inputs)}"',
            at=("input",),
            hint="remove the inputs the engine does not have",
        )
    fed = {io.name for io in config.input}
    fed |= {name for b in config.batch_input for name in b.target_name}
    fed |= set(control_names(config))
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
    backend=("tensorrt", "tensorflow"),
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

    def check(view: ModelView) -> Iterator[Finding]:
        if view.backend == "openvino":
            return
        for kind in ("input", "output"):
            specs = {spec.name: spec for spec in view.specs(kind)}
            for index, io in view.config_tensors(kind):
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
                        f"model provides {triton_type(spec.data_type)}"
                    )
                yield Finding(
                    f'{kind} "{io.name}": the config says {written} but {view.file} declares '
                    f'{spec.source_type} ({spec.data_type}); Triton fails with "{said}"',
                    at=(kind, index, "data_type"),
                    hint=f"data_type: {spec.data_type}",
                )

    yield from per_model_view(context, check)
