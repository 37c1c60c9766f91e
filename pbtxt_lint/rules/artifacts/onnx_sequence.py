"""PL616: the sequence batcher's control tensors against the ONNX graph's inputs.

Triton feeds START, END, READY and CORRID as model inputs; ONNX Runtime validates the
first control of each kind like a config input, by name, shape and data type
(`onnxruntime.cc` ValidateBooleanSequenceControl, ValidateTypedSequenceControl).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.autocomplete import graph_inputs, ort_shape
from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import (
    OnnxView,
    control_tensors,
    control_type,
    model_dims,
    per_onnx_view,
)
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import config_dims
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath

ERROR = Severity.ERROR
LOAD = Stage.LOAD


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
    backend="onnxruntime",
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

    def check(view: OnnxView) -> Iterator[Finding]:
        config = view.config
        if not config.HasField("sequence_batching"):
            return
        graph = {spec.name: spec for spec in graph_inputs(view.signature)}
        inputs = config.sequence_batching.control_input
        for i, j, kind, name in control_tensors(config):
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
                    f'{kind} control tensor "{name}" has dims {config_dims(debatched)} in '
                    f"{view.file} (model shape {model_dims(spec.shape)}"
                    f"{', batch dim removed' if view.mbs > 0 else ''}) but must be [ 1 ]",
                    at=at,
                    hint="give the control input shape [batch, 1] (max_batch_size > 0) or "
                    "[1] (max_batch_size 0) in the model",
                )
            wanted = control_type(inputs[i].control[j])
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

    yield from per_onnx_view(context, check)
