"""PL3xx: batching and scheduling (max_batch_size, dynamic and sequence batching).

Most errors here are `ValidateModelConfig` checks: Triton runs them on the core-
completed config when it polls the repository, in strict and auto-complete mode alike,
and refuses the model at the first failure. The implicit-state checks run when the
sequence batcher is created (load), the growable-memory ones at the start of each
sequence. The warnings are settings Triton accepts and silently ignores.
"""

from __future__ import annotations

import math
import posixpath
from collections import Counter
from collections.abc import Iterator, Sequence

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.repository.fs import FsError, is_inside, read_text_file
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import type_name, written
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.datatypes import byte_size
from pbtxt_lint.schema.model_config_pb2 import (
    ModelInstanceGroup,
    ModelQueuePolicy,
    ModelSequenceBatching,
)
from pbtxt_lint.textproto.sourcemap import FieldPath, Key
from pbtxt_lint.triton.autofill import is_ensemble

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

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
BATCH_STRATEGY = "TRITON_BATCH_STRATEGY_PATH"
INITIAL_STATE_FOLDER = "initial_state"
# Backends whose auto-complete (when enabled) adds `dynamic_batching {}` and fills
# max_batch_size from the model file whenever the model can batch; ONNX Runtime only
# when the config lacks inputs or outputs, Python only through auto_complete_config.
MODEL_COMPLETING_BACKENDS = ("tensorrt", "openvino", "tensorflow", "dali")

SEQ: FieldPath = ("sequence_batching",)
DYN: FieldPath = ("dynamic_batching",)


def _kind_name(kind: int) -> str:
    return str(Control.Kind.Name(kind)) if kind in Control.Kind.values() else str(kind)


def _model_file_mentions(context: ModelContext, text: str) -> bool:
    """Whether a loaded version's Python model file contains `text` (artifacts only)."""
    effective = context.effective
    if effective is None or context.settings.config_only:
        return False
    filename = effective.default_model_filename or "model.py"
    for version in context.selection.versions:
        try:
            source = read_text_file(
                context.repository.root, context.model.path / str(version) / filename
            )
        except FsError:
            continue
        if text.encode() in source:
            return True
    return False


def _python_caveat(context: ModelContext, python_call: str) -> str:
    """A message clause for a Python model whose model.py pbtxt-lint did not read."""
    effective = context.effective
    if effective is None or effective.backend != "python" or context.strict:
        return ""
    if not context.settings.config_only:
        return ""
    return f" (unless model.py's auto_complete_config calls {python_call}())"


def _backend_completes(context: ModelContext, python_call: str) -> bool:
    """Whether the backend's auto-complete may still add batching to this config.

    `python_call` is the `pb_utils.ModelConfig` method a Python model would call.
    """
    effective = context.effective
    if effective is None or context.strict:
        return False
    backend = effective.backend
    if backend in MODEL_COMPLETING_BACKENDS:
        return True
    if backend == "onnxruntime":
        has_inputs = bool(effective.input) or bool(effective.batch_input)
        return not (has_inputs and bool(effective.output))
    if backend == "python":
        return _model_file_mentions(context, python_call)
    return False


# --------------------------------------------------------------------------- max_batch_size


@rule(
    "PL301",
    "max-batch-size-negative",
    ERROR,
    "max_batch_size is negative.",
    triton="'max_batch_size' must be non-negative value for <model>",
)
def max_batch_size_negative(context: ModelContext) -> Iterator[Finding]:
    """`max_batch_size` is the largest batch Triton forms; 0 turns batching off and there
    is no "unlimited" value. Any model, ensembles included, with a negative value is
    refused.

    Bad:
        max_batch_size: -1
    Good:
        max_batch_size: 0
    """
    config = context.effective
    if config is None or config.max_batch_size >= 0:
        return
    yield Finding(
        f"max_batch_size {config.max_batch_size} of model '{context.model.name}' is "
        "negative; Triton refuses the model",
        at=("max_batch_size",),
        hint="use 0 to disable batching, or the largest batch the model accepts",
    )


def _preferred_sizes(config: ModelConfig) -> Iterator[tuple[FieldPath, str, int, int]]:
    """(path of the list, what it is, index, size) for dynamic and oldest preferred sizes."""
    if config.HasField("dynamic_batching"):
        path = DYN + ("preferred_batch_size",)
        for index, size in enumerate(config.dynamic_batching.preferred_batch_size):
            yield path, "dynamic_batching.preferred_batch_size", index, size
    sequence = config.sequence_batching
    if config.HasField("sequence_batching") and sequence.HasField("oldest"):
        path = SEQ + ("oldest", "preferred_batch_size")
        for index, size in enumerate(sequence.oldest.preferred_batch_size):
            yield path, "sequence_batching.oldest.preferred_batch_size", index, size


@rule(
    "PL302",
    "preferred-size-not-positive",
    ERROR,
    "A preferred batch size of 0 or less.",
    triton="dynamic batching preferred size must be positive for <model> / sequence "
    "batching preferred batch size must be positive for <model>",
)
def preferred_batch_size_not_positive(context: ModelContext) -> Iterator[Finding]:
    """Preferred batch sizes (`dynamic_batching` and the sequence batcher's `oldest`
    strategy) are batch sizes the batcher tries to form, so each must be at least 1.

    Bad:
        dynamic_batching { preferred_batch_size: [ 0, 4 ] }
    Good:
        dynamic_batching { preferred_batch_size: [ 4 ] }
    """
    config = context.effective
    if config is None:
        return
    for path, what, index, size in _preferred_sizes(config):
        if size <= 0:
            yield Finding(
                f"{what} {size} of model '{context.model.name}' is not a positive batch "
                "size; Triton refuses the model",
                at=path + (index,),
                hint="remove it; preferred sizes are batch sizes from 1 to max_batch_size",
            )


@rule(
    "PL303",
    "preferred-size-too-large",
    ERROR,
    "A preferred batch size larger than max_batch_size.",
    triton="dynamic batching preferred size must be <= max batch size for <model> / "
    "sequence batching preferred batch size must be <= max batch size for <model>",
)
def preferred_batch_size_too_large(context: ModelContext) -> Iterator[Finding]:
    """A batch can never exceed `max_batch_size`, so neither can a preferred size. With
    `max_batch_size: 0` (the default when it is left out) every preferred size is too
    large. Triton checks this at poll time, before any backend auto-completes
    `max_batch_size`.

    Bad:
        max_batch_size: 8
        dynamic_batching { preferred_batch_size: [ 4, 16 ] }
    Good:
        max_batch_size: 16
        dynamic_batching { preferred_batch_size: [ 4, 16 ] }
    """
    config = context.effective
    if config is None:
        return
    mbs = config.max_batch_size
    for path, what, index, size in _preferred_sizes(config):
        if size <= 0 or size <= mbs:
            continue
        limit = f"max_batch_size {mbs}" + (" (batching disabled)" if mbs == 0 else "")
        yield Finding(
            f"{what} {size} of model '{context.model.name}' is larger than {limit}; "
            "Triton refuses the model",
            at=path + (index,),
            hint=f"set max_batch_size to at least {size}, or remove {size} from the list",
        )


# --------------------------------------------------------------------------- priorities


@rule(
    "PL304",
    "priority-level-out-of-range",
    ERROR,
    "default_priority_level or a priority_queue_policy key outside [1, priority_levels].",
    triton="default priority level must be in range [1, <priority_levels>] for <model> / "
    "priority queue policy must have priority level in range [1, <priority_levels>] for "
    "<model>",
)
def priority_level_out_of_range(context: ModelContext) -> Iterator[Finding]:
    """With `priority_levels: N`, priorities are 1 (highest) to N. The default level
    must be one of them (it has no default of its own: leaving it out means 0), and so
    must every `priority_queue_policy` key.

    Bad:
        dynamic_batching { priority_levels: 2 }
    Good:
        dynamic_batching { priority_levels: 2 default_priority_level: 2 }
    """
    config = context.effective
    if config is None or not config.HasField("dynamic_batching"):
        return
    batching = config.dynamic_batching
    levels = batching.priority_levels
    if levels == 0:
        return
    default = batching.default_priority_level
    if default == 0 or default > levels:
        value = "is not set (0)" if default == 0 else f"is {default}"
        yield Finding(
            f"dynamic_batching.default_priority_level of model '{context.model.name}' "
            f"{value}, outside [1, {levels}] for priority_levels {levels}; Triton refuses "
            "the model",
            at=DYN + ("default_priority_level",),
            hint=f"set default_priority_level to a level from 1 to {levels}",
        )
    for key in sorted(batching.priority_queue_policy):
        if key == 0 or key > levels:
            yield Finding(
                f"dynamic_batching.priority_queue_policy has key {key}, outside [1, "
                f"{levels}] for priority_levels {levels} of model '{context.model.name}'; "
                "Triton refuses the model",
                at=DYN + ("priority_queue_policy", Key(key)),
                hint=f"use a priority level from 1 to {levels} as the key",
            )


def _delay_policies(config: ModelConfig) -> Iterator[tuple[FieldPath, str]]:
    """Queue policies that delay timed-out requests: (path, description)."""
    batching = config.dynamic_batching
    policies: list[tuple[FieldPath, str, ModelQueuePolicy]] = [
        (DYN + ("default_queue_policy",), "default_queue_policy", batching.default_queue_policy)
    ]
    for key in sorted(batching.priority_queue_policy):
        policies.append(
            (
                DYN + ("priority_queue_policy", Key(key), "value"),
                f"priority_queue_policy {key}",
                batching.priority_queue_policy[key],
            )
        )
    for path, what, policy in policies:
        if policy.timeout_action == ModelQueuePolicy.DELAY and policy.default_timeout_microseconds:
            yield path + ("timeout_action",), what


@rule(
    "PL305",
    "preserve-ordering-conflict",
    ERROR,
    "preserve_ordering with several priority levels or with a DELAY queue policy.",
    triton="Only one priority level is allowed when 'preserve_ordering' is true for <model>"
    " / Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true "
    "for <model>",
)
def preserve_ordering_conflict(context: ModelContext) -> Iterator[Finding]:
    """`preserve_ordering` returns responses in request order, which priorities and
    delayed (re-queued) timed-out requests would break. Every queue policy counts, even
    one keyed by a level that `priority_levels` does not define.

    Bad:
        dynamic_batching {
          preserve_ordering: true
          default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 1000 }
        }
    Good:
        dynamic_batching {
          preserve_ordering: true
          default_queue_policy { timeout_action: REJECT default_timeout_microseconds: 1000 }
        }
    """
    config = context.effective
    if config is None or not config.HasField("dynamic_batching"):
        return
    batching = config.dynamic_batching
    if not batching.preserve_ordering:
        return
    name = context.model.name
    if batching.priority_levels > 1:
        yield Finding(
            f"model '{name}' sets dynamic_batching.preserve_ordering with priority_levels "
            f"{batching.priority_levels}; Triton allows only one priority level with "
            "preserve_ordering and refuses the model",
            at=DYN + ("priority_levels",),
            hint="drop priority_levels (or set it to 1), or drop preserve_ordering",
        )
    for path, what in _delay_policies(config):
        yield Finding(
            f"dynamic_batching.{what} of model '{name}' delays timed-out requests "
            "(timeout_action: DELAY) while preserve_ordering is true; Triton refuses the "
            "model",
            at=path,
            hint="use timeout_action: REJECT, or drop preserve_ordering",
        )


# --------------------------------------------------------------------------- sequence batching


@rule(
    "PL306",
    "sequence-response-cache",
    ERROR,
    "The response cache enabled on a model with sequence batching.",
    triton="Response Cache does not currently support model <model> with sequence batching "
    "scheduler. Please disable the response cache.",
)
def sequence_batching_response_cache(context: ModelContext) -> Iterator[Finding]:
    """Responses of a stateful model depend on the sequence's earlier requests, so
    Triton cannot cache them and refuses the combination.

    Bad:
        sequence_batching { }
        response_cache { enable: true }
    Good:
        sequence_batching { }
    """
    config = context.effective
    if config is None or not config.HasField("sequence_batching"):
        return
    if config.response_cache.enable:
        yield Finding(
            f"model '{context.model.name}' uses sequence_batching and enables "
            "response_cache; Triton does not cache sequence models and refuses the model",
            at=("response_cache", "enable"),
            hint="remove response_cache (or set enable: false)",
        )


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
)
def control_input_name(context: ModelContext) -> Iterator[Finding]:
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
    config = context.effective
    if config is None:
        return
    seen: set[str] = set()
    for i, control_input in _control_inputs(config):
        path = SEQ + ("control_input", i)
        if not control_input.name:
            yield Finding(
                f"sequence_batching.control_input {i} of model '{context.model.name}' has "
                "no name; Triton refuses the model",
                at=path + ("name",),
                hint="set name to the model input that receives the control values",
            )
        elif control_input.name in seen:
            yield Finding(
                f"sequence_batching.control_input '{control_input.name}' of model "
                f"'{context.model.name}' is listed twice; Triton refuses the model",
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
)
def control_kind_repeated(context: ModelContext) -> Iterator[Finding]:
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
    config = context.effective
    if config is None:
        return
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
            f"'{context.model.name}' {earlier}; Triton allows one tensor per control kind "
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
)
def boolean_control_values(context: ModelContext) -> Iterator[Finding]:
    """Triton writes the false or the true value into the START, END and READY tensors,
    so each such control needs one list `[false, true]`, whose type (INT32, FP32 or
    BOOL) is the tensor's data type.

    Bad:
        control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 1 ] } ]
    Good:
        control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ]
    """
    config = context.effective
    if config is None:
        return
    name = context.model.name
    for path, tensor, control in _controls(config):
        if control.kind not in BOOLEAN_KINDS:
            continue
        kind = _kind_name(control.kind)
        given = [field for field in FALSE_TRUE_LISTS if len(getattr(control, field))]
        if not given:
            yield Finding(
                f"{kind} control of tensor '{tensor}' (model '{name}') has no "
                "int32_false_true, fp32_false_true or bool_false_true; Triton refuses the "
                "model",
                at=path,
                hint="add the tensor's false and true values, e.g. int32_false_true: [ 0, 1 ]",
            )
        elif len(given) > 1:
            yield Finding(
                f"{kind} control of tensor '{tensor}' (model '{name}') sets both "
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
)
def corrid_control(context: ModelContext) -> Iterator[Finding]:
    """The CORRID control carries the sequence's correlation id, not a flag: it takes a
    `data_type` (UINT64, INT64, UINT32, INT32 or STRING; leaving it out is invalid) and
    no false/true values.

    Bad:
        control [ { kind: CONTROL_SEQUENCE_CORRID int32_false_true: [ 0, 1 ] } ]
    Good:
        control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ]
    """
    config = context.effective
    if config is None:
        return
    name = context.model.name
    for path, tensor, control in _controls(config):
        if control.kind != CORRID:
            continue
        for field in FALSE_TRUE_LISTS:
            if len(getattr(control, field)):
                yield Finding(
                    f"CONTROL_SEQUENCE_CORRID control of tensor '{tensor}' (model '{name}') "
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
                f"CONTROL_SEQUENCE_CORRID control of tensor '{tensor}' (model '{name}') "
                f"{what}; Triton passes correlation ids only as TYPE_UINT64, TYPE_INT64, "
                "TYPE_UINT32, TYPE_INT32 or TYPE_STRING and refuses the model",
                at=path + ("data_type",),
                hint="set data_type to the tensor's type, e.g. TYPE_UINT64",
            )


@rule(
    "PL311",
    "slot-utilization-out-of-range",
    ERROR,
    "sequence_batching.direct.minimum_slot_utilization below 0 or above 1.",
    triton="sequence batching minimum slot utilization must be in range (0.0, 1.0] for <model>",
)
def slot_utilization_out_of_range(context: ModelContext) -> Iterator[Finding]:
    """The minimum slot utilization is a fraction of the sequence slots. Triton's
    message says (0.0, 1.0], but it accepts 0.0 (the default: never wait).

    Bad:
        sequence_batching { direct { minimum_slot_utilization: 50 } }
    Good:
        sequence_batching { direct { minimum_slot_utilization: 0.5 } }
    """
    config = context.effective
    if config is None or not config.sequence_batching.HasField("direct"):
        return
    value = config.sequence_batching.direct.minimum_slot_utilization
    if value < 0.0 or value > 1.0:
        yield Finding(
            f"sequence_batching.direct.minimum_slot_utilization of model "
            f"'{context.model.name}' is {value:g}, not a fraction between 0 and 1; Triton "
            "refuses the model",
            at=SEQ + ("direct", "minimum_slot_utilization"),
            hint="give a fraction of the slots, e.g. 0.5 for half of them",
        )


# --------------------------------------------------------------------------- batch strategy


@rule(
    "PL312",
    "batch-strategy-with-sequence",
    ERROR,
    "TRITON_BATCH_STRATEGY_PATH on a model with sequence batching.",
    triton="TRITON_BATCH_STRATEGY_PATH cannot be specified with sequence batcher, using "
    "default batching strategy",
    stage=Stage.LOAD,
)
def batch_strategy_with_sequence_batching(context: ModelContext) -> Iterator[Finding]:
    """A custom batching strategy plugs into the dynamic batcher only. Despite its
    wording ("using default batching strategy"), Triton's message is an error: the
    model fails to load.

    Bad:
        sequence_batching { }
        parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/m/lib.so" } }
    Good:
        sequence_batching { }
    """
    config = context.effective
    if config is None or not config.HasField("sequence_batching"):
        return
    if BATCH_STRATEGY in config.parameters:
        yield Finding(
            f"model '{context.model.name}' uses sequence_batching and sets the "
            f"{BATCH_STRATEGY} parameter; Triton fails to load it, although its message "
            "says it is 'using default batching strategy'",
            at=("parameters", Key(BATCH_STRATEGY)),
            hint=f"remove the {BATCH_STRATEGY} parameter (custom strategies only apply to "
            "dynamic_batching)",
        )


def _strategy_candidates(model: str, value: str) -> list[tuple[str, ...]] | None:
    """Where an absolute strategy path lands relative to the model folder.

    The server's model folder is `<repository>/<model>`, so a path inside it has a
    `<model>` segment; each such segment gives one candidate (the parts after it).
    None: the path has no such segment and is outside the model folder.
    """
    parts = posixpath.normpath(value).split("/")
    candidates = [tuple(parts[i + 1 :]) for i, part in enumerate(parts) if part == model]
    return [c for c in candidates if c] or None


@rule(
    "PL313",
    "batch-strategy-path",
    ERROR,
    "TRITON_BATCH_STRATEGY_PATH outside the model folder or not found.",
    triton="Batching library path escapes model repository. / Batching library path not "
    "found: <path>",
    stage=Stage.LOAD,
)
def batch_strategy_path(context: ModelContext) -> Iterator[Finding]:
    """The custom batching library must be a file inside the model's folder; Triton
    opens the path as given, so a relative path is resolved against the server's
    working directory, not the model folder. pbtxt-lint maps an absolute path onto the
    repository through the model's folder name (`/models/m/lib.so` is `m/lib.so`).

    Bad:
        parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/opt/lib.so" } }
    Good:
        parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/models/m/lib.so" } }
    """
    config = context.effective
    if config is None or config.HasField("sequence_batching"):
        return
    if BATCH_STRATEGY not in config.parameters:
        return
    value = config.parameters[BATCH_STRATEGY].string_value
    name = context.model.name
    at: FieldPath = ("parameters", Key(BATCH_STRATEGY), "value", "string_value")
    if not value:
        yield Finding(
            f"{BATCH_STRATEGY} of model '{name}' is empty; Triton fails to load the model "
            "with 'Batching library path not found'",
            at=at,
            hint=f"give the absolute path of the library inside the model folder, or remove "
            f"the {BATCH_STRATEGY} parameter",
        )
        return
    if not value.startswith("/"):
        yield Finding(
            f"{BATCH_STRATEGY} '{value}' of model '{name}' is relative: Triton resolves it "
            "against the server's working directory, not the model folder, so whether the "
            "library is found depends on where tritonserver is started",
            at=at,
            hint=f"use the absolute path the library has on the server, e.g. "
            f"/models/{name}/{posixpath.basename(value)}",
            severity=WARNING,
        )
        return
    candidates = _strategy_candidates(name, value)
    if candidates is None:
        yield Finding(
            f"{BATCH_STRATEGY} '{value}' of model '{name}' is outside the model folder; "
            "current Triton releases refuse a batching library that escapes the model "
            "repository and fail to load the model",
            at=at,
            hint="copy the library into the model folder and give its path there "
            f"(<repository path on the server>/{name}/<library>.so)",
        )
        return
    model_root = context.model.path.resolve()
    located = [context.model.path.joinpath(*parts) for parts in candidates]
    inside = [path for path in located if is_inside(model_root, path)]
    if any(path.is_file() for path in inside):
        return
    if not inside:
        yield Finding(
            f"{BATCH_STRATEGY} '{value}' of model '{name}' leads outside the model folder "
            "(through '..' or a symlink); current Triton releases refuse a batching "
            "library that escapes the model repository and fail to load the model",
            at=at,
            hint="put the library itself (not a link to it) inside the model folder",
        )
        return
    shown = inside[0].relative_to(context.model.repository)
    yield Finding(
        f"{BATCH_STRATEGY} '{value}' of model '{name}' does not exist ('{shown}' is "
        "missing from the repository); Triton fails to load the model with 'Batching "
        "library path not found'",
        at=at,
        hint=f"copy the library to {shown}, or fix the path",
    )


# --------------------------------------------------------------------------- implicit state


def _states(
    config: ModelConfig,
) -> Iterator[tuple[FieldPath, ModelSequenceBatching.State]]:
    if config.HasField("sequence_batching"):
        for s, state in enumerate(config.sequence_batching.state):
            yield SEQ + ("state", s), state


def _initial_states(
    config: ModelConfig,
) -> Iterator[tuple[FieldPath, ModelSequenceBatching.State, ModelSequenceBatching.InitialState]]:
    for path, state in _states(config):
        for k, initial in enumerate(state.initial_state):
            yield path + ("initial_state", k), state, initial


@rule(
    "PL314",
    "initial-state-incomplete",
    ERROR,
    "A state with several initial_state entries, or an initial_state without name or data.",
    triton="initial_state field for state input '<input_name>' must contain exactly one or "
    "zero element. Found '<n>' elements. / Field 'name' must be set when using initial_state "
    "for state input '<input_name>'. / initial_state setting expects state'<input_name>' to "
    "have state_data set",
    stage=Stage.LOAD,
)
def initial_state_incomplete(context: ModelContext) -> Iterator[Finding]:
    """A state starts from at most one `initial_state`, which needs a `name` and its data:
    `zero_data: true` or a `data_file` in the model's `initial_state/` folder. Triton
    checks this when it creates the sequence batcher and fails the load.

    Bad:
        state [ { input_name: "IN_STATE" output_name: "OUT_STATE" data_type: TYPE_FP32
                  dims: [ 4 ] initial_state: { data_type: TYPE_FP32 dims: [ 4 ] } } ]
    Good:
        state [ { input_name: "IN_STATE" output_name: "OUT_STATE" data_type: TYPE_FP32
                  dims: [ 4 ]
                  initial_state: { name: "zeros" data_type: TYPE_FP32 dims: [ 4 ]
                                   zero_data: true } } ]
    """
    config = context.effective
    if config is None:
        return
    name = context.model.name
    for path, state in _states(config):
        count = len(state.initial_state)
        if count > 1:
            yield Finding(
                f"state '{state.input_name}' of model '{name}' has {count} initial_state "
                "entries; Triton accepts at most one and fails to load the model",
                at=path + ("initial_state", 1),
                hint="keep a single initial_state",
            )
    for path, state, initial in _initial_states(config):
        if not initial.name:
            yield Finding(
                f"initial_state of state '{state.input_name}' (model '{name}') has no "
                "name; Triton fails to load the model",
                at=path + ("name",),
                hint='add a name, e.g. name: "initial"',
            )
        if initial.WhichOneof("state_data") is None:
            yield Finding(
                f"initial_state of state '{state.input_name}' (model '{name}') sets "
                "neither zero_data nor data_file; Triton fails to load the model",
                at=path,
                hint='add zero_data: true, or data_file: "<file in initial_state/>"',
            )


@rule(
    "PL315",
    "initial-state-mismatch",
    ERROR,
    "An initial_state whose data type or shape differs from its state's.",
    triton="The data type used for 'initial_state' field of state '<input_name>' does not "
    "match the state data type. / Number of dimensions in 'initial_state' doesn't match the "
    "size of 'state' dimensions for state input '<input_name>'. <a> != <b> / 'initial_state' "
    "field for state input name '<input_name>' contains variable dimensions. / "
    "'initial_state' dim for input name '<input_name>' doesn't match 'state' dim "
    "description. <a> != <b>",
    stage=Stage.LOAD,
)
def initial_state_mismatch(context: ModelContext) -> Iterator[Finding]:
    """The initial value is a concrete tensor of the state: same data type, same rank,
    no -1, and equal to every fixed dimension of the state (a -1 in the state admits
    any size).

    Bad:
        state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_FP32 dims: [ -1, 4 ]
                  initial_state: { name: "init" data_type: TYPE_FP32 dims: [ -1, 4 ]
                                   zero_data: true } } ]
    Good:
        state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_FP32 dims: [ -1, 4 ]
                  initial_state: { name: "init" data_type: TYPE_FP32 dims: [ 1, 4 ]
                                   zero_data: true } } ]
    """
    config = context.effective
    if config is None:
        return
    name = context.model.name
    for path, state, initial in _initial_states(config):
        subject = f"initial_state of state '{state.input_name}' (model '{name}')"
        if initial.data_type != state.data_type:
            yield Finding(
                f"{subject} has data_type {type_name(initial.data_type)} but the state is "
                f"{type_name(state.data_type)}; Triton fails to load the model",
                at=path + ("data_type",),
                hint=f"set data_type: {type_name(state.data_type)}",
            )
        dims, expected = list(initial.dims), list(state.dims)
        for d, dim in enumerate(dims):
            if dim == -1:
                yield Finding(
                    f"{subject} has -1 in dims {dims}; an initial value needs a concrete "
                    "shape and Triton fails to load the model",
                    at=path + ("dims", d),
                    hint="give the size of the first request's state, e.g. 1",
                )
        if len(dims) != len(expected):
            yield Finding(
                f"{subject} has dims {dims} ({len(dims)} dimensions) but the state has "
                f"dims {expected} ({len(expected)}); Triton fails to load the model",
                at=path + ("dims",),
                hint="give the initial value the state's rank",
            )
            continue
        for d, (dim, want) in enumerate(zip(dims, expected, strict=True)):
            if dim != -1 and want != -1 and dim != want:
                yield Finding(
                    f"{subject} has dimension {dim} where the state's dims {expected} "
                    f"fix {want}; Triton fails to load the model",
                    at=path + ("dims", d),
                    hint=f"use {want}",
                )


def _expected_bytes(initial: ModelSequenceBatching.InitialState) -> int | None:
    """Bytes Triton reads for a fixed-size initial state; None if it does not check."""
    size = byte_size(type_name(initial.data_type))
    if size is None or not initial.dims or any(dim < 1 for dim in initial.dims):
        return None
    return math.prod(initial.dims) * size


@rule(
    "PL316",
    "initial-state-data-file",
    ERROR,
    "An initial_state data_file missing from initial_state/ or smaller than the state.",
    triton="failed to open text file for read <path>: <strerror> / initial_state setting "
    "expects <N> bytes, but the data provided from <file>only has <M> bytes.",
    stage=Stage.LOAD,
)
def initial_state_data_file(context: ModelContext) -> Iterator[Finding]:
    """`data_file` is read from `<model>/initial_state/<data_file>` (not the version
    folder) when the sequence batcher is created. It holds the raw little-endian values
    and must be at least (element count) * (element size) bytes (any size for TYPE_STRING).

    Bad:
        initial_state: { name: "init" data_type: TYPE_FP32 dims: [ 4 ] data_file: "init.bin" }
        (no m/initial_state/init.bin, or a file of fewer than 16 bytes)
    Good:
        initial_state: { name: "init" data_type: TYPE_FP32 dims: [ 4 ] data_file: "init.bin" }
        m/initial_state/init.bin (16 bytes)
    """
    config = context.effective
    if config is None:
        return
    folder = context.model.path / INITIAL_STATE_FOLDER
    for path, state, initial in _initial_states(config):
        if initial.WhichOneof("state_data") != "data_file":
            continue
        data_file = folder / initial.data_file.lstrip("/")
        if not is_inside(context.repository.root, data_file):
            continue  # never read outside the repository
        shown = data_file.relative_to(context.model.repository)
        subject = (
            f"initial_state data_file '{initial.data_file}' of state '{state.input_name}' "
            f"(model '{context.model.name}')"
        )
        try:
            info = data_file.stat()
        except OSError:
            info = None
        if info is None or not data_file.is_file():
            problem = (
                "does not exist: Triton reads '{}' and fails to load the model"
                if info is None
                else "is not a regular file: Triton reads '{}' and may abort altogether "
                "(a folder there crashes tritonserver with std::length_error)"
            )
            yield Finding(
                f"{subject} {problem.format(shown)}",
                at=path + ("data_file",),
                hint=f"put the file in {context.model.name}/{INITIAL_STATE_FOLDER}/ (not in "
                "the version folder)",
            )
            continue
        expected = _expected_bytes(initial)
        if expected is not None and info.st_size < expected:
            yield Finding(
                f"{subject} has {info.st_size} bytes but dims {list(initial.dims)} of "
                f"{type_name(initial.data_type)} need {expected}; Triton fails to load the "
                "model",
                at=path + ("data_file",),
                hint="write the complete tensor (raw little-endian values) to the file",
            )


@rule(
    "PL317",
    "duplicate-state",
    ERROR,
    "Two sequence_batching states with the same input_name or output_name.",
    triton="State input name '<input_name>' specified more than once.",
    stage=Stage.LOAD,
)
def duplicate_state(context: ModelContext) -> Iterator[Finding]:
    """Each implicit state is one input/output pair. Two states with the same
    `input_name` and an `initial_state` each fail the load; otherwise Triton keeps one of
    the duplicates and ignores the other, at most with a log line (a warning here).

    Bad:
        state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_FP32 dims: [ 4 ] },
                { input_name: "S" output_name: "S_OUT2" data_type: TYPE_FP32 dims: [ 4 ] } ]
    Good:
        state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_FP32 dims: [ 4 ] },
                { input_name: "T" output_name: "T_OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
    """
    config = context.effective
    if config is None:
        return
    name = context.model.name
    initialised: set[str] = set()
    inputs: set[str] = set()
    outputs: set[str] = set()
    for path, state in _states(config):
        if state.initial_state and state.input_name in initialised:
            yield Finding(
                f"state input_name '{state.input_name}' of model '{name}' is given twice, "
                "both with an initial_state; Triton fails to load the model",
                at=path + ("input_name",),
                hint="give each state its own input_name, or remove the duplicate",
            )
        elif state.input_name in inputs:
            yield Finding(
                f"state input_name '{state.input_name}' of model '{name}' is given twice; "
                "Triton keeps one of the two states and ignores the other",
                at=path + ("input_name",),
                hint="give each state its own input_name, or remove the duplicate",
                severity=WARNING,
            )
        elif state.output_name in outputs:
            yield Finding(
                f"state output_name '{state.output_name}' of model '{name}' is given "
                "twice; Triton keeps the first state and ignores this one",
                at=path + ("output_name",),
                hint="give each state its own output_name, or remove the duplicate",
                severity=WARNING,
            )
        if state.initial_state:
            initialised.add(state.input_name)
        inputs.add(state.input_name)
        outputs.add(state.output_name)


def _non_gpu_instances(
    context: ModelContext, config: ModelConfig
) -> Iterator[tuple[str, FieldPath | None, bool]]:
    """Instance groups that do not run on a GPU: (what, where, certain).

    Not certain: a KIND_AUTO group (or the default group) on a host whose GPUs are
    unknown (`--gpus` not given).
    """
    gpus = context.settings.gpus
    name = context.model.name
    if not config.instance_group:
        if config.backend == "openvino":
            yield f"model '{name}' runs on the CPU (OpenVINO's default instance group)", None, True
        elif gpus == 0:
            yield f"model '{name}' has no instance_group and the host has no GPU", None, True
        elif gpus is None:
            yield (
                f"model '{name}' has no instance_group, so it runs on the CPU on a host "
                "without GPUs",
                None,
                False,
            )
        return
    for i, group in enumerate(config.instance_group):
        at: FieldPath = ("instance_group", i, "kind")
        if group.kind in (ModelInstanceGroup.KIND_CPU, ModelInstanceGroup.KIND_MODEL):
            label = ModelInstanceGroup.Kind.Name(group.kind)
            yield f"instance_group {i} of model '{name}' is {label}", at, True
        elif group.kind == ModelInstanceGroup.KIND_AUTO:
            absent = gpus is not None and any(g < 0 or g >= gpus for g in group.gpus)
            if gpus == 0 or absent:
                yield f"instance_group {i} of model '{name}' (KIND_AUTO) runs on the CPU", at, True
            elif gpus is None:
                yield (
                    f"instance_group {i} of model '{name}' (KIND_AUTO) runs on the CPU on a "
                    "host without GPUs",
                    at,
                    False,
                )


_NO_STATE = (
    "the model loads, but every sequence starts with 'Failed to initialize sequence state' "
    "in Triton's log and runs without its state"
)


@rule(
    "PL318",
    "growable-memory",
    ERROR,
    "use_growable_memory without use_same_buffer_for_input_output or without GPU instances.",
    triton="Failed to initialize sequence state: In order to 'use_growable_memory', you must "
    "also enable 'use_single_buffer' for state input name '<input_name>'. / Failed to "
    "initialize sequence state: 'use_growable_memory' can only work with KIND_GPU model "
    "instances right now. Please either change the instance type to KIND_GPU or set "
    "'use_growable_memory' to false for state input '<input_name>'.",
    stage=Stage.INFERENCE,
)
def growable_memory(context: ModelContext) -> Iterator[Finding]:
    """Growable state memory is GPU virtual memory shared by the state's input and output.
    Without `use_same_buffer_for_input_output: true`, or on a non-GPU instance, the model
    loads, but at the start of every sequence Triton logs "Failed to initialize sequence
    state" and runs the model without its state: requests fail in backends that expect the
    state tensor, and compute from nothing in the others.

    Bad:
        state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_FP32 dims: [ -1 ]
                  use_growable_memory: true } ]
    Good:
        state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_FP32 dims: [ -1 ]
                  use_same_buffer_for_input_output: true use_growable_memory: true } ]
        instance_group [ { kind: KIND_GPU } ]
    """
    config = context.effective
    if config is None:
        return
    growable = [(path, state) for path, state in _states(config) if state.use_growable_memory]
    for path, state in growable:
        if not state.use_same_buffer_for_input_output:
            yield Finding(
                f"state '{state.input_name}' of model '{context.model.name}' sets "
                f"use_growable_memory without use_same_buffer_for_input_output; {_NO_STATE}",
                at=path + ("use_growable_memory",),
                hint="add use_same_buffer_for_input_output: true",
            )
    if not growable:
        return
    inputs = ", ".join(f"'{state.input_name}'" for _, state in growable)
    first: FieldPath = growable[0][0] + ("use_growable_memory",)
    for what, at, certain in _non_gpu_instances(context, config):
        yield Finding(
            f"{what}, but state {inputs} sets use_growable_memory, which works only on "
            f"KIND_GPU instances; {_NO_STATE}",
            at=at or first,
            hint="use instance_group [ { kind: KIND_GPU } ], or set use_growable_memory: false",
            severity=None if certain else WARNING,
        )


# --------------------------------------------------------------------------- accepted, ignored


@rule(
    "PL319",
    "batching-without-scheduler",
    INFO,
    "max_batch_size above 1 but no dynamic_batching or sequence_batching: requests are "
    "never batched together.",
)
def batching_without_scheduler(context: ModelContext) -> Iterator[Finding]:
    """Without a scheduling block Triton uses its default scheduler, which never combines
    requests: only batches a client sends itself reach the model. In auto-complete mode
    TensorRT, OpenVINO, TensorFlow and DALI add `dynamic_batching {}` when the model
    batches, ONNX Runtime only when the config lacks inputs or outputs, and a Python model
    only if its `auto_complete_config` calls `set_dynamic_batching()`.

    Bad:
        max_batch_size: 8
    Good:
        max_batch_size: 8
        dynamic_batching { }
    """
    config = context.effective
    if config is None or config.max_batch_size <= 1 or is_ensemble(config):
        return
    if config.WhichOneof("scheduling_choice") is not None:
        return
    if _backend_completes(context, "set_dynamic_batching"):
        return
    caveat = _python_caveat(context, "set_dynamic_batching")
    yield Finding(
        f"model '{context.model.name}' has max_batch_size {config.max_batch_size} but no "
        f"dynamic_batching or sequence_batching{caveat}; Triton's default scheduler never "
        "batches requests together",
        at=("max_batch_size",),
        hint="add dynamic_batching { } (and max_queue_delay_microseconds to let batches fill)",
    )


@rule(
    "PL320",
    "batcher-without-max-batch-size",
    WARNING,
    "dynamic_batching on a model whose max_batch_size is 0: the batcher has nothing to do.",
)
def dynamic_batching_without_max_batch_size(context: ModelContext) -> Iterator[Finding]:
    """With `max_batch_size: 0` (also when it is left out) the model takes no batch
    dimension, so the dynamic batcher never combines requests. Triton loads it silently.
    In auto-complete mode a backend that reads the model file (TensorRT, OpenVINO,
    TensorFlow, DALI, ONNX Runtime when inputs or outputs are missing) or a Python
    `auto_complete_config` calling `set_max_batch_size()` may still fill it in.

    Bad:
        dynamic_batching { max_queue_delay_microseconds: 100 }
    Good:
        max_batch_size: 8
        dynamic_batching { max_queue_delay_microseconds: 100 }
    """
    config = context.effective
    if config is None or config.max_batch_size != 0 or is_ensemble(config):
        return
    if not config.HasField("dynamic_batching"):
        return
    if written(context, DYN + ("preferred_batch_size",)):
        return  # preferred sizes above max_batch_size 0 are refused: PL303 says so
    if _backend_completes(context, "set_max_batch_size"):
        return
    caveat = _python_caveat(context, "set_max_batch_size")
    yield Finding(
        f"model '{context.model.name}' enables dynamic_batching but max_batch_size is 0"
        f"{caveat}; the model takes no batch dimension and requests are never batched",
        at=DYN,
        hint="set max_batch_size to the largest batch the model accepts (dims then exclude "
        "the batch dimension), or remove dynamic_batching",
    )


@rule(
    "PL321",
    "priority-settings-ignored",
    WARNING,
    "default_priority_level or priority_queue_policy without priority_levels.",
)
def priority_settings_ignored(context: ModelContext) -> Iterator[Finding]:
    """Priorities exist only when `priority_levels` is set; without it Triton ignores
    `default_priority_level` and the per-level queue policies without a word (and maps
    every request priority to the default queue).

    Bad:
        dynamic_batching { default_priority_level: 1
                           priority_queue_policy { key: 1 value { max_queue_size: 8 } } }
    Good:
        dynamic_batching { priority_levels: 2 default_priority_level: 1
                           priority_queue_policy { key: 1 value { max_queue_size: 8 } } }
    """
    config = context.effective
    if config is None or not config.HasField("dynamic_batching"):
        return
    batching = config.dynamic_batching
    if batching.priority_levels != 0:
        return
    name = context.model.name
    if batching.default_priority_level:
        yield Finding(
            f"dynamic_batching.default_priority_level {batching.default_priority_level} of "
            f"model '{name}' is ignored because priority_levels is not set",
            at=DYN + ("default_priority_level",),
            hint="set priority_levels, or remove default_priority_level",
        )
    for key in sorted(batching.priority_queue_policy):
        yield Finding(
            f"dynamic_batching.priority_queue_policy {key} of model '{name}' is ignored "
            "because priority_levels is not set",
            at=DYN + ("priority_queue_policy", Key(key)),
            hint="set priority_levels, or move the settings to default_queue_policy",
        )


def _written_preferred(
    context: ModelContext, config: ModelConfig
) -> Iterator[tuple[FieldPath, str, Sequence[int], int]]:
    """Preferred size lists the user wrote: (path, what, sizes, queue delay)."""
    dynamic = config.dynamic_batching
    if written(context, DYN + ("preferred_batch_size",)):
        yield (
            DYN + ("preferred_batch_size",),
            "dynamic_batching.preferred_batch_size",
            dynamic.preferred_batch_size,
            dynamic.max_queue_delay_microseconds,
        )
    oldest = config.sequence_batching.oldest
    if written(context, SEQ + ("oldest", "preferred_batch_size")):
        yield (
            SEQ + ("oldest", "preferred_batch_size"),
            "sequence_batching.oldest.preferred_batch_size",
            oldest.preferred_batch_size,
            oldest.max_queue_delay_microseconds,
        )


@rule(
    "PL322",
    "preferred-size-ineffective",
    INFO,
    "Preferred batch sizes listed twice, or set with no queue delay to wait for them.",
)
def preferred_batch_size_ineffective(context: ModelContext) -> Iterator[Finding]:
    """Triton keeps preferred sizes as a set, so a repeated size does nothing. And with
    `max_queue_delay_microseconds: 0` (the default) the batcher never waits to reach a
    preferred size: it runs whatever is queued at once, and preferred sizes only shape
    batches when more requests are already waiting (capping them at the largest one).

    Bad:
        dynamic_batching { preferred_batch_size: [ 4, 8, 8 ] }
    Good:
        dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100 }
    """
    config = context.config
    if config is None or config.max_batch_size <= 0:
        return  # no batching at all: PL303 and PL320 speak about that
    name = context.model.name
    for path, what, sizes, delay in _written_preferred(context, config):
        repeated = sorted(size for size, count in Counter(sizes).items() if count > 1)
        for size in repeated:
            index = [i for i, s in enumerate(sizes) if s == size][1]
            yield Finding(
                f"{what} of model '{name}' lists {size} more than once; the repeat has no effect",
                at=path + (index,),
                hint=f"list {size} once",
            )
        if sizes and delay == 0:
            yield Finding(
                f"{what} of model '{name}' is set but max_queue_delay_microseconds is 0, so "
                "the batcher never waits to form a preferred batch size",
                at=path,
                hint="set max_queue_delay_microseconds (e.g. 100) in the same block, or "
                "remove preferred_batch_size",
            )


@rule(
    "PL323",
    "slot-utilization-delay-ignored",
    WARNING,
    "A direct-strategy queue delay that never applies because minimum_slot_utilization is 0.",
)
def slot_utilization_delay_ignored(context: ModelContext) -> Iterator[Finding]:
    """The direct sequence batcher waits up to `max_queue_delay_microseconds` only while
    fewer than `minimum_slot_utilization` of the slots have a request. At 0.0 (also the
    default when it is left out) it never waits, so the delay has no effect.

    Bad:
        sequence_batching { direct { max_queue_delay_microseconds: 5000 } }
    Good:
        sequence_batching { direct { max_queue_delay_microseconds: 5000
                                     minimum_slot_utilization: 0.5 } }
    """
    config = context.effective
    if config is None or not config.sequence_batching.HasField("direct"):
        return
    direct = config.sequence_batching.direct
    if direct.max_queue_delay_microseconds == 0 or direct.minimum_slot_utilization != 0.0:
        return
    yield Finding(
        f"sequence_batching.direct.max_queue_delay_microseconds "
        f"{direct.max_queue_delay_microseconds} of model '{context.model.name}' never "
        "applies: minimum_slot_utilization is 0.0, so the batcher never waits",
        at=SEQ + ("direct", "max_queue_delay_microseconds"),
        hint="set minimum_slot_utilization (e.g. 0.5) to the fraction of slots worth "
        "waiting for, or remove the delay",
    )


@rule(
    "PL324",
    "sequence-idle-zero",
    INFO,
    "max_sequence_idle_microseconds: 0, which Triton replaces by 1 second.",
)
def sequence_idle_zero(context: ModelContext) -> Iterator[Finding]:
    """0 does not mean "never time out": Triton treats it as unset and frees a sequence's
    slot after 1 000 000 µs (1 s) without a request. A client that pauses longer then
    gets "must specify the START flag on the first request of the sequence".

    Bad:
        sequence_batching { max_sequence_idle_microseconds: 0 }
    Good:
        sequence_batching { max_sequence_idle_microseconds: 60000000 }
    """
    path = SEQ + ("max_sequence_idle_microseconds",)
    config = context.config
    if config is None or config.sequence_batching.max_sequence_idle_microseconds != 0:
        return
    if written(context, path):
        yield Finding(
            f"sequence_batching.max_sequence_idle_microseconds 0 of model "
            f"'{context.model.name}' means the default, 1 s, not 'no timeout'",
            at=path,
            hint="write the idle time you want in microseconds (e.g. 60000000 for a minute)",
        )


@rule(
    "PL325",
    "control-input-without-control",
    WARNING,
    "A sequence control_input with no control: Triton never fills that tensor.",
)
def control_input_without_control(context: ModelContext) -> Iterator[Finding]:
    """A `control_input` names the tensor and its `control` list says what Triton writes
    into it. Without a control Triton accepts the entry but never sets the tensor, so the
    model does not get the sequence signal it was meant to receive.

    Bad:
        control_input [ { name: "START" } ]
    Good:
        control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START
                                                    int32_false_true: [ 0, 1 ] } ] } ]
    """
    config = context.effective
    if config is None:
        return
    for i, control_input in _control_inputs(config):
        if control_input.name and not control_input.control:
            yield Finding(
                f"sequence_batching.control_input '{control_input.name}' of model "
                f"'{context.model.name}' has no control; Triton never fills this tensor",
                at=SEQ + ("control_input", i, "name"),
                hint="add control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] "
                "} ] (or the kind you meant), or remove the entry",
            )
