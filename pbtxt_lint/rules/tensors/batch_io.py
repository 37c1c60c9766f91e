"""PL212-PL216 and PL223: batch inputs and batch outputs.

`ValidateBatchIO` (core's src/model_config_utils.cc) checks each batch input's kind,
data type and source input, and each batch output's targets and source; a batch
input's `target_name` is left to the backend, which feeds the computed tensor to the
model input of that name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from google.protobuf.descriptor import EnumDescriptor

from pbtxt_lint.rules.api import (
    ERROR,
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    rule,
    suggest,
    type_name,
)
from pbtxt_lint.schema.model_config_pb2 import BatchInput, BatchOutput


def _enum_name(descriptor: EnumDescriptor, value: int) -> str:
    """The enum value's name, or its number when it is not declared (proto3 enums are open)."""
    known = descriptor.values_by_number.get(value)
    return known.name if known else str(value)


def _batch_input_label(index: int, batch_input: BatchInput) -> str:
    targets = ", ".join(repr(t) for t in batch_input.target_name) or f"#{index + 1}"
    return f"batch_input {targets} ({_enum_name(BatchInput.Kind.DESCRIPTOR, batch_input.kind)})"


def _batch_output_label(index: int, batch_output: BatchOutput) -> str:
    kind = _enum_name(BatchOutput.Kind.DESCRIPTOR, batch_output.kind)
    return f"batch_output #{index + 1} ({kind})"


def _batch_sources(config: ModelConfig) -> Iterator[tuple[str, int, str, Sequence[str]]]:
    """(field, index, label, source_input) of every batch_input, then batch_output."""
    for index, batch_input in enumerate(config.batch_input):
        yield "batch_input", index, _batch_input_label(index, batch_input), batch_input.source_input
    for index, batch_output in enumerate(config.batch_output):
        label = _batch_output_label(index, batch_output)
        yield "batch_output", index, label, batch_output.source_input


@rule(
    "PL212",
    "batch-io-source-count",
    ERROR,
    "A batch_input or batch_output without exactly one source_input.",
    triton="batch input kind '<KIND>' expects 1 source input, got <n> for <model>",
    effective=True,
)
def batch_io_source_count(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Every batch input kind, and BATCH_SCATTER_WITH_INPUT_SHAPE outputs, are computed
    from exactly one input of the model, named in `source_input`.

    Bad:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32 } ]
    Good:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "x" } ]
    """
    for field, index, label, sources in _batch_sources(config):
        if len(sources) != 1:
            yield Finding(
                f"{label} has {len(sources)} source_input entries; Triton requires exactly "
                "one and refuses the model",
                at=(field, index, "source_input", 1) if sources else (field, index),
                hint='name the one input it is computed from: source_input: "<input>"',
            )


@rule(
    "PL213",
    "batch-input-data-type",
    ERROR,
    "A batch_input whose data_type is not TYPE_INT32 or TYPE_FP32.",
    triton="batch input data type must be TYPE_INT32 or TYPE_FP32 for <model>",
    effective=True,
)
def batch_input_data_type(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton computes batch inputs (element counts, shapes) as INT32 or FP32 tensors
    only; any other type, or none, is refused.

    Bad:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT64
                        source_input: "x" } ]
    Good:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "x" } ]
    """
    allowed = ("TYPE_INT32", "TYPE_FP32")
    for index, batch_input in enumerate(config.batch_input):
        name = type_name(batch_input.data_type)
        if name in allowed:
            continue
        what = "has no data_type" if batch_input.data_type == 0 else f"has data_type {name}"
        yield Finding(
            f"{_batch_input_label(index, batch_input)} {what}; Triton accepts only "
            "TYPE_INT32 or TYPE_FP32 and refuses the model",
            at=("batch_input", index, "data_type"),
            hint="use data_type: TYPE_INT32 (or TYPE_FP32 if the model expects floats)",
        )


@rule(
    "PL223",
    "batch-io-unknown-kind",
    ERROR,
    "A batch_input or batch_output kind given as a number that is not a declared kind.",
    triton="unknown batch input kind '' for <model> / unknown batch output kind '' for <model>",
    effective=True,
)
def batch_io_unknown_kind(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """`kind` is an enum; written as a number that is not one of its values (proto3
    accepts it), Triton does not know what to compute and refuses the model.

    Bad:
        batch_input [ { kind: 7 target_name: "n" data_type: TYPE_INT32 source_input: "x" } ]
    Good:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "x" } ]
    """
    kinds: list[tuple[str, int, int, EnumDescriptor]] = [
        ("batch_input", i, b.kind, BatchInput.Kind.DESCRIPTOR)
        for i, b in enumerate(config.batch_input)
    ]
    kinds += [
        ("batch_output", i, b.kind, BatchOutput.Kind.DESCRIPTOR)
        for i, b in enumerate(config.batch_output)
    ]
    for field, index, kind, descriptor in kinds:
        if kind not in descriptor.values_by_number:
            known = ", ".join(v.name for v in descriptor.values)
            yield Finding(
                f"{field} #{index + 1} has kind {kind}, which is not a {field} kind; Triton "
                "refuses the model",
                at=(field, index, "kind"),
                hint=f"use one of {known}",
            )


def _not_declared_hint(name: str, declared: Sequence[str], what: str) -> str:
    guess = suggest(name, declared)
    if guess:
        return f"did you mean '{guess}'?"
    listed = ", ".join(repr(d) for d in declared) or "none"
    return f"use one of the model's {what}s ({listed})"


@rule(
    "PL214",
    "batch-io-unknown-source",
    ERROR,
    "A batch_input or batch_output source_input that is not an input of the model.",
    triton="unknown source input name '<name>' for <model>",
    effective=True,
)
def batch_io_unknown_source(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """`source_input` names one of the model's own `input` entries (not an output, not
    the batch input's target name).

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "X" } ]
    Good:
        batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: "n" data_type: TYPE_INT32
                        source_input: "x" } ]
    """
    inputs = [i.name for i in config.input]
    for field, index, label, sources in _batch_sources(config):
        for position, source in enumerate(sources):
            if source not in inputs:
                yield Finding(
                    f"{label}: source_input '{source}' is not an input of this model; "
                    "Triton refuses the model",
                    at=(field, index, "source_input", position),
                    hint=_not_declared_hint(source, inputs, "input"),
                )


@rule(
    "PL215",
    "batch-output-target-invalid",
    ERROR,
    "A batch_output target_name that is not an output, or that is listed twice.",
    triton="unknown target output name '<name>' for <model> / target output name '<name>' "
    "can only be specified once for <model>",
    effective=True,
)
def batch_output_target_invalid(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """A batch output scatters a model output back to the requests; its `target_name`
    entries must be declared outputs, each listed once.

    Bad:
        output [ { name: "y" data_type: TYPE_FP32 dims: [ -1 ] } ]
        batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: [ "y", "y" ]
                         source_input: "x" } ]
    Good:
        batch_output [ { kind: BATCH_SCATTER_WITH_INPUT_SHAPE target_name: "y"
                         source_input: "x" } ]
    """
    outputs = [o.name for o in config.output]
    for index, batch_output in enumerate(config.batch_output):
        label = _batch_output_label(index, batch_output)
        seen: set[str] = set()
        for position, target in enumerate(batch_output.target_name):
            at = ("batch_output", index, "target_name", position)
            if target not in outputs:
                yield Finding(
                    f"{label}: target_name '{target}' is not an output of this model; Triton "
                    "refuses the model",
                    at=at,
                    hint=_not_declared_hint(target, outputs, "output"),
                )
            elif target in seen:
                yield Finding(
                    f"{label}: target_name '{target}' is listed twice; Triton allows each "
                    "target once and refuses the model",
                    at=at,
                    hint=f"remove the second '{target}'",
                )
            seen.add(target)


@rule(
    "PL216",
    "batch-io-target-suspicious",
    WARNING,
    "A batch_input target_name that is empty, repeated or also a declared input, or a "
    "batch_output with no target.",
    effective=True,
)
def batch_io_target_suspicious(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton never checks `batch_input.target_name`, the model input the backend feeds
    the computed tensor to. An empty name matches no model input; a name that is also a
    declared `input`, or shared by two batch inputs, binds two tensors to one model
    input (TensorRT refuses that at load: "has already appeared as an input or output").
    A `batch_output` without `target_name` applies to no output.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
        batch_input [ { kind: BATCH_ACCUMULATED_ELEMENT_COUNT target_name: "x"
                        data_type: TYPE_INT32 source_input: "x" } ]
    Good:
        batch_input [ { kind: BATCH_ACCUMULATED_ELEMENT_COUNT target_name: "x_offsets"
                        data_type: TYPE_INT32 source_input: "x" } ]
    """
    inputs = {i.name for i in config.input}
    targets: Counter[str] = Counter()
    for index, batch_input in enumerate(config.batch_input):
        label = _batch_input_label(index, batch_input)
        if not batch_input.target_name:
            yield Finding(
                f"{label} has no target_name; the backend feeds the computed tensor to the "
                "model input of that name, so it reaches no model input",
                at=("batch_input", index),
                hint='add target_name: "<model input that receives it>"',
            )
        for position, target in enumerate(batch_input.target_name):
            at = ("batch_input", index, "target_name", position)
            if not target:
                problem = "is empty, so it reaches no model input"
            elif target in inputs:
                problem = "is also a declared input, so two tensors are bound to one name"
            elif targets[target]:
                problem = "is already the target of another batch_input"
            else:
                problem = ""
            targets[target] += 1
            if problem:
                yield Finding(
                    f"{label}: target_name '{target}' {problem}; Triton does not check it, "
                    "the backend fails (TensorRT at load, others at inference)",
                    at=at,
                    hint="name the model input that receives the batch input; it must not be "
                    "declared in input",
                )
    for index, batch_output in enumerate(config.batch_output):
        if not batch_output.target_name:
            yield Finding(
                f"{_batch_output_label(index, batch_output)} has no target_name, so it "
                "applies to no output",
                at=("batch_output", index),
                hint='add target_name: "<output to scatter>"',
            )
