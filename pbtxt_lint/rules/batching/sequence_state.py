"""PL317-PL318: implicit state pairs and growable state memory.

Duplicate states are found when the sequence batcher is created
(`SequenceBatchScheduler::GenerateInitialStateData` in core's
src/sequence_batch_scheduler/sequence_batch_scheduler.cc); growable memory is
checked at the start of every sequence (`SequenceStates::Initialize` in core's
src/sequence_state.cc), which logs the problem and runs the sequence without state.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    WARNING,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    Stage,
    model_label,
    rule,
)
from pbtxt_lint.rules.batching.common import states
from pbtxt_lint.schema.model_config_pb2 import ModelInstanceGroup


@rule(
    "PL317",
    "duplicate-state",
    ERROR,
    "Two sequence_batching states with the same input_name or output_name.",
    triton="State input name '<input_name>' specified more than once.",
    stage=Stage.LOAD,
    effective=True,
)
def duplicate_state(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
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
    name = context.folder.name
    initialised: set[str] = set()
    inputs: set[str] = set()
    outputs: set[str] = set()
    for path, state in states(config):
        if state.initial_state and state.input_name in initialised:
            yield Finding(
                f"state input_name '{state.input_name}' of {model_label(name)} is given twice, "
                "both with an initial_state; Triton fails to load the model",
                at=path + ("input_name",),
                hint="give each state its own input_name, or remove the duplicate",
            )
        elif state.input_name in inputs:
            yield Finding(
                f"state input_name '{state.input_name}' of {model_label(name)} is given twice; "
                "Triton keeps one of the two states and ignores the other",
                at=path + ("input_name",),
                hint="give each state its own input_name, or remove the duplicate",
                severity=WARNING,
            )
        elif state.output_name in outputs:
            yield Finding(
                f"state output_name '{state.output_name}' of {model_label(name)} is given "
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
    name = context.folder.name
    if not config.instance_group:
        if config.backend == "openvino":
            yield (
                f"{model_label(name)} runs on the CPU (OpenVINO's default instance group)",
                None,
                True,
            )
        elif gpus == 0:
            yield f"{model_label(name)} has no instance_group and the host has no GPU", None, True
        elif gpus is None:
            yield (
                f"{model_label(name)} has no instance_group, so it runs on the CPU on a host "
                "without GPUs",
                None,
                False,
            )
        return
    for i, group in enumerate(config.instance_group):
        at: FieldPath = ("instance_group", i, "kind")
        if group.kind in (ModelInstanceGroup.KIND_CPU, ModelInstanceGroup.KIND_MODEL):
            label = ModelInstanceGroup.Kind.Name(group.kind)
            yield f"instance_group {i} of {model_label(name)} is {label}", at, True
        elif group.kind == ModelInstanceGroup.KIND_AUTO:
            absent = gpus is not None and any(g < 0 or g >= gpus for g in group.gpus)
            if gpus == 0 or absent:
                yield (
                    f"instance_group {i} of {model_label(name)} (KIND_AUTO) runs on the CPU",
                    at,
                    True,
                )
            elif gpus is None:
                yield (
                    f"instance_group {i} of {model_label(name)} (KIND_AUTO) runs on the CPU on a "
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
    WARNING,
    "use_growable_memory without use_same_buffer_for_input_output or without GPU instances.",
    triton="Failed to initialize sequence state: In order to 'use_growable_memory', you must "
    "also enable 'use_single_buffer' for state input name '<input_name>'. / Failed to "
    "initialize sequence state: 'use_growable_memory' can only work with KIND_GPU model "
    "instances right now. Please either change the instance type to KIND_GPU or set "
    "'use_growable_memory' to false for state input '<input_name>'.",
    stage=Stage.INFERENCE,
    effective=True,
)
def growable_memory(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
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
    growable = [(path, state) for path, state in states(config) if state.use_growable_memory]
    for path, state in growable:
        if not state.use_same_buffer_for_input_output:
            yield Finding(
                f"state '{state.input_name}' of {model_label(context)} sets "
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
            severity=None if certain else INFO,
        )
