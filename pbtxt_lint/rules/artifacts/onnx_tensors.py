"""PL608-PL610: config tensors against the ONNX graph's names, input count and types.

ONNX Runtime's ValidateInputs and ValidateOutputs (`onnxruntime.cc`) look every config
tensor up in the graph by name, count the inputs the config feeds against the graph's,
and require the config's data_type to be the graph's element type.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.autocomplete import graph_inputs
from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import (
    OnnxView,
    control_tensors,
    per_onnx_view,
    triton_type,
)
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import type_name
from pbtxt_lint.schema import DataType
from pbtxt_lint.textproto.binder import suggest

ERROR = Severity.ERROR
LOAD = Stage.LOAD


@rule(
    "PL608",
    "unknown-tensor-name",
    ERROR,
    "A config input or output name the model does not have.",
    triton="unexpected inference input '<name>', allowed inputs are: <a>, <b>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
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

    def check(view: OnnxView) -> Iterator[Finding]:
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

    yield from per_onnx_view(context, check)


@rule(
    "PL609",
    "input-count-mismatch",
    ERROR,
    "The config does not feed every required input of the model, or feeds more.",
    triton="unable to load model '<model>', configuration expects <n> inputs, model provides <k>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
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

    def check(view: OnnxView) -> Iterator[Finding]:
        config = view.config
        required = [spec.name for spec in graph_inputs(view.signature)]
        controls = control_tensors(config)
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

    yield from per_onnx_view(context, check)


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
    backend="onnxruntime",
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

    def check(view: OnnxView) -> Iterator[Finding]:
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
            written = type_name(pair.io.data_type)
            if pair.io.data_type == DataType.TYPE_INVALID or written == model_type:
                continue
            yield Finding(
                f"{pair.label}: the config says {written} but {view.file} declares "
                f'{pair.spec.source_type} ({model_type}); Triton fails with "configuration '
                f"expects datatype {written} for {pair.kind} '{pair.io.name}', model provides "
                f'{triton_type(model_type)}"',
                at=pair.at("data_type"),
                hint=f"data_type: {model_type}",
            )

    yield from per_onnx_view(context, check)
