"""PL314-PL316: the initial values of implicit state.

Triton checks and reads each state's `initial_state` when it creates the sequence
batcher (`SequenceBatchScheduler::Create` and `GenerateInitialStateData` in core's
src/sequence_batch_scheduler/sequence_batch_scheduler.cc) and fails the load on any
problem.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    Scope,
    Stage,
    is_inside,
    model_label,
    rule,
    type_name,
)
from pbtxt_lint.rules.batching.common import states
from pbtxt_lint.schema.datatypes import byte_size
from pbtxt_lint.schema.model_config_pb2 import ModelSequenceBatching

INITIAL_STATE_FOLDER = "initial_state"


def _initial_states(
    config: ModelConfig,
) -> Iterator[tuple[FieldPath, ModelSequenceBatching.State, ModelSequenceBatching.InitialState]]:
    for path, state in states(config):
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
    effective=True,
)
def initial_state_incomplete(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
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
    name = context.folder.name
    for path, state in states(config):
        count = len(state.initial_state)
        if count > 1:
            yield Finding(
                f"state '{state.input_name}' of {model_label(name)} has {count} initial_state "
                "entries; Triton accepts at most one and fails to load the model",
                at=path + ("initial_state", 1),
                hint="keep a single initial_state",
            )
    for path, state, initial in _initial_states(config):
        if not initial.name:
            yield Finding(
                f"initial_state of state '{state.input_name}' ({model_label(name)}) has no "
                "name; Triton fails to load the model",
                at=path + ("name",),
                hint='add a name, e.g. name: "initial"',
            )
        if initial.WhichOneof("state_data") is None:
            yield Finding(
                f"initial_state of state '{state.input_name}' ({model_label(name)}) sets "
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
    effective=True,
)
def initial_state_mismatch(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
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
    name = context.folder.name
    for path, state, initial in _initial_states(config):
        subject = f"initial_state of state '{state.input_name}' ({model_label(name)})"
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
    scope=Scope.FILES,
    effective=True,
)
def initial_state_data_file(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
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
    folder = context.folder.path / INITIAL_STATE_FOLDER
    for path, state, initial in _initial_states(config):
        if initial.WhichOneof("state_data") != "data_file":
            continue
        data_file = folder / initial.data_file.lstrip("/")
        if not is_inside(context.repository.root, data_file):
            continue  # never read outside the repository
        shown = data_file.relative_to(context.folder.repository)
        subject = (
            f"initial_state data_file '{initial.data_file}' of state '{state.input_name}' "
            f"({model_label(context)})"
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
                hint=f"put the file in {context.folder.name}/{INITIAL_STATE_FOLDER}/ (not in "
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
