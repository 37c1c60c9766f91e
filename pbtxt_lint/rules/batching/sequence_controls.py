"""PL307-PL310 and PL325: the sequence batcher's control tensors.

Triton checks each control kind in `GetBooleanSequenceControlProperties` and
`GetTypedSequenceControlProperties` (core's src/model_config_utils.cc), called from
`ValidateModelConfig` at poll.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    WARNING,
    DataType,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    model_label,
    rule,
    type_name,
    written,
)
from pbtxt_lint.rules.batching.common import SEQ
from pbtxt_lint.schema.model_config_pb2 import ModelSequenceBatching

Control = ModelSequenceBatching.Control
START, READY, END, CORRID = (
    Control.CONTROL_SEQUENCE_START,
    Control.CONTROL_SEQUENCE_READY,
    Control.CONTROL_SEQUENCE_END,
    Control.CONTROL_SEQUENCE_CORRID,
)
BOOLEAN_KINDS = (START, END, READY)
FALSE_TRUE_LISTS = ("int32_false_true", "fp32_false_true", "bool_false_true")
CORRID_TYPES = (
    DataType.TYPE_UINT64,
    DataType.TYPE_INT64,
    DataType.TYPE_UINT32,
    DataType.TYPE_INT32,
    DataType.TYPE_STRING,
)


def _kind_name(kind: int) -> str:
    return str(Control.Kind.Name(kind)) if kind in Control.Kind.values() else str(kind)


def _control_inputs(
    config: ModelConfig,
) -> Iterator[tuple[int, ModelSequenceBatching.ControlInput]]:
    if config.HasField("sequence_batching"):
        yield from enumerate(config.sequence_batching.control_input)


def _controls(config: ModelConfig) -> Iterator[tuple[FieldPath, str, Control]]:
    """Every control entry: (its path, its tensor's name, the control)."""
    for i, control_input in _control_inputs(config):
        for j, control in enumerate(control_input.control):
            yield SEQ + ("control_input", i, "control", j), control_input.name, control


@rule(
    "PL307",
    "control-input-name",
    ERROR,
    "A sequence control_input without a name, or two control_input entries with one name.",
    triton="sequence batching control tensor must have a name for <model> / sequence "
    "batching control tensor '<tensor>' is specified for multiple control kinds for <model>",
    effective=True,
)
def control_input_name(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Each `control_input` names the model input tensor that carries the controls,
    once. Triton checks every entry, even one with no `control`. Several controls for
    one tensor go in that entry's `control` list.

    Bad:
        control_input [
          { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
          { name: "START" control [ { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] }
        ]
    Good:
        control_input [
          { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
          { name: "END" control [ { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] }
        ]
    """
    seen: set[str] = set()
    for i, control_input in _control_inputs(config):
        path = SEQ + ("control_input", i)
        if not control_input.name:
            yield Finding(
                f"sequence_batching.control_input {i} of {model_label(context)} has "
                "no name; Triton refuses the model",
                at=path + ("name",),
                hint="set name to the model input that receives the control values",
            )
        elif control_input.name in seen:
            yield Finding(
                f"sequence_batching.control_input '{control_input.name}' of model "
                f"'{context.folder.name}' is listed twice; Triton refuses the model",
                at=path + ("name",),
                hint="merge the two entries into one control_input with several controls",
            )
        seen.add(control_input.name)


@rule(
    "PL308",
    "control-kind-repeated",
    ERROR,
    "The same sequence control kind (START, END, READY, CORRID) given twice.",
    triton="sequence batching specifies multiple <KIND> tensors for <model>",
    effective=True,
)
def control_kind_repeated(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton delivers each control kind to exactly one tensor. A `control` with no
    `kind` is CONTROL_SEQUENCE_START (the enum's first value).

    Bad:
        control_input [
          { name: "S" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
          { name: "T" control [ { int32_false_true: [ 0, 1 ] } ] }
        ]
    Good:
        control_input [
          { name: "S" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
          { name: "T" control [ { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] }
        ]
    """
    first: dict[int, str] = {}
    for path, tensor, control in _controls(config):
        kind = control.kind
        if kind not in (*BOOLEAN_KINDS, CORRID):
            continue  # an undeclared enum number: Triton's checks look for these four only
        if kind not in first:
            first[kind] = tensor
            continue
        implicit = "" if written(context, path + ("kind",)) else " (no kind means START)"
        earlier = "again" if first[kind] == tensor else f"after tensor '{first[kind]}'"
        yield Finding(
            f"{_kind_name(kind)}{implicit} is given for tensor '{tensor}' of model "
            f"'{context.folder.name}' {earlier}; Triton allows one tensor per control kind "
            "and refuses the model",
            at=path + ("kind",),
            hint="remove the repeated control, or give it the kind you meant",
        )


@rule(
    "PL309",
    "boolean-control-values",
    ERROR,
    "A START, END or READY control without exactly one two-entry *_false_true list.",
    triton="sequence batching must specify either 'int32_false_true', 'fp32_false_true' or "
    "'bool_false_true' for <KIND> for <model> / sequence batching specifies more than one "
    "from 'int32_false_true', 'fp32_false_true' and 'bool_false_true' for <KIND> for <model>"
    " / sequence batching control '<list>' must have exactly 2 entries for <KIND> for <model>",
    effective=True,
)
def boolean_control_values(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton writes the false or the true value into the START, END and READY tensors,
    so each such control needs one list `[false, true]`, whose type (INT32, FP32 or
    BOOL) is the tensor's data type.

    Bad:
        control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 1 ] } ]
    Good:
        control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ]
    """
    name = context.folder.name
    for path, tensor, control in _controls(config):
        if control.kind not in BOOLEAN_KINDS:
            continue
        kind = _kind_name(control.kind)
        given = [field for field in FALSE_TRUE_LISTS if len(getattr(control, field))]
        if not given:
            yield Finding(
                f"{kind} control of tensor '{tensor}' ({model_label(name)}) has no "
                "int32_false_true, fp32_false_true or bool_false_true; Triton refuses the "
                "model",
                at=path,
                hint="add the tensor's false and true values, e.g. int32_false_true: [ 0, 1 ]",
            )
        elif len(given) > 1:
            yield Finding(
                f"{kind} control of tensor '{tensor}' ({model_label(name)}) sets both "
                f"{given[0]} and {given[1]}; Triton takes exactly one and refuses the model",
                at=path + (given[1],),
                hint="keep only the list whose type matches the tensor's data type",
            )
        else:
            values = list(getattr(control, given[0]))
            if len(values) != 2:
                yield Finding(
                    f"{given[0]} of the {kind} control of tensor '{tensor}' (model "
                    f"'{name}') has {len(values)} value{'' if len(values) == 1 else 's'}; "
                    "Triton expects exactly [false, true] and refuses the model",
                    at=path + (given[0],),
                    hint=f"write {given[0]}: [ <false>, <true> ], e.g. [ 0, 1 ]",
                )


@rule(
    "PL310",
    "corrid-control",
    ERROR,
    "A CORRID control with a *_false_true list or a data type Triton cannot pass ids in.",
    triton="sequence batching must not specify either 'int32_false_true', 'fp32_false_true' "
    "or 'bool_false_true' for CONTROL_SEQUENCE_CORRID for <model> / unexpected data type for "
    "control CONTROL_SEQUENCE_CORRID for <model>. Allowed data types are TYPE_UINT64, "
    "TYPE_INT64, TYPE_UINT32, TYPE_INT32 and TYPE_STRING",
    effective=True,
)
def corrid_control(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The CORRID control carries the sequence's correlation id, not a flag: it takes a
    `data_type` (UINT64, INT64, UINT32, INT32 or STRING; leaving it out is invalid) and
    no false/true values.

    Bad:
        control [ { kind: CONTROL_SEQUENCE_CORRID int32_false_true: [ 0, 1 ] } ]
    Good:
        control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ]
    """
    name = context.folder.name
    for path, tensor, control in _controls(config):
        if control.kind != CORRID:
            continue
        for field in FALSE_TRUE_LISTS:
            if len(getattr(control, field)):
                yield Finding(
                    f"CONTROL_SEQUENCE_CORRID control of tensor '{tensor}' ({model_label(name)}) "
                    f"sets {field}; a correlation id takes no false/true values and Triton "
                    "refuses the model",
                    at=path + (field,),
                    hint=f"remove {field} and set data_type (e.g. TYPE_UINT64)",
                )
        if control.data_type not in CORRID_TYPES:
            what = (
                "has no data_type"
                if control.data_type == DataType.TYPE_INVALID
                else f"has data_type {type_name(control.data_type)}"
            )
            yield Finding(
                f"CONTROL_SEQUENCE_CORRID control of tensor '{tensor}' ({model_label(name)}) "
                f"{what}; Triton passes correlation ids only as TYPE_UINT64, TYPE_INT64, "
                "TYPE_UINT32, TYPE_INT32 or TYPE_STRING and refuses the model",
                at=path + ("data_type",),
                hint="set data_type to the tensor's type, e.g. TYPE_UINT64",
            )


@rule(
    "PL325",
    "control-input-without-control",
    WARNING,
    "A sequence control_input with no control: Triton never fills that tensor.",
    effective=True,
)
def control_input_without_control(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """A `control_input` names the tensor and its `control` list says what Triton writes
    into it. Without a control Triton accepts the entry but never sets the tensor, so the
    model does not get the sequence signal it was meant to receive.

    Bad:
        control_input [ { name: "START" } ]
    Good:
        control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START
                                                    int32_false_true: [ 0, 1 ] } ] } ]
    """
    for i, control_input in _control_inputs(config):
        if control_input.name and not control_input.control:
            yield Finding(
                f"sequence_batching.control_input '{control_input.name}' of model "
                f"'{context.folder.name}' has no control; Triton never fills this tensor",
                at=SEQ + ("control_input", i, "name"),
                hint="add control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] "
                "} ] (or the kind you meant), or remove the entry",
            )
