"""PL860-PL862: the PyTorch backend's `<name>__<index>` naming and sequence tensors.

TorchScript arguments and return values have positions, not Triton names, so the
libtorch backend places every tensor by the `<index>` of `<name>__<index>` (pytorch_backend
src/libtorch.cc, `ModelInstanceState`): sequence control tensors always
(`ValidateBooleanSequenceControl`, `ValidateTypedSequenceControl`), every input, output
and state of a model with implicit state (`GetNamingConvention`), outputs whenever all
of them follow it (`ValidateOutputs`). The checks here read the config only; the model's
forward() decides the rest (rules/artifacts/torchscript.py).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    BACKENDS,
    ERROR,
    WARNING,
    DataType,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    Stage,
    backend_of,
    rule,
    type_name,
)
from pbtxt_lint.rules.artifacts.torchscript import named_index, torch_models
from pbtxt_lint.schema.model_config_pb2 import ModelSequenceBatching

CORRID = ModelSequenceBatching.Control.CONTROL_SEQUENCE_CORRID
INDEX_HINT = (
    "where <index> is the position of its argument of forward() (0 for the first, self not counted)"
)


def is_torchscript(config: ModelConfig | None) -> bool:
    """A model the PyTorch backend serves from TorchScript (not a torch_aoti model.pt2)."""
    return (
        config is not None and backend_of(config) == "pytorch" and config.platform != "torch_aoti"
    )


def torch_types_lacking() -> frozenset[str]:
    """Config types libtorch has no tensor type for (`ModelConfigDataTypeToTorchType`);
    TYPE_STRING goes in and out as a List[str] where the backend allows it."""
    return BACKENDS["pytorch"].unsupported_types


@rule(
    "PL860",
    "pytorch-index-naming",
    ERROR,
    "A sequence control tensor, or any tensor of a model with implicit state, not named "
    "<name>__<index> on the PyTorch backend.",
    triton="input '<name>' does not follow <name>__<index> naming convention.",
    stage=Stage.LOAD,
    backend="pytorch",
    effective=True,
)
def pytorch_index_naming(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The PyTorch backend hands sequence control tensors (START, END, READY, CORRID) to
    forward() at the argument position their name ends in, so each must be named
    `<name>__<index>` or the model fails to load. A model with implicit state
    (`sequence_batching.state`) must name every input, every output and each state's
    input_name and output_name that way: "PyTorch model '<model>' is using sequence
    batching with state but not all inputs and outputs follow the <name>__<index>
    naming convention."

    Bad:
        control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START ... } ] } ]
    Good:
        control_input [ { name: "START__1" control [ { kind: CONTROL_SEQUENCE_START ... } ] } ]
    """
    if not is_torchscript(config) or not config.HasField("sequence_batching"):
        return
    batching = config.sequence_batching
    for index, control_input in enumerate(batching.control_input):
        if not control_input.control or named_index(control_input.name) is not None:
            continue
        yield Finding(
            f"sequence control tensor '{control_input.name}' of PyTorch model '{config.name}' "
            "is not named <name>__<index>: the PyTorch backend places it among forward()'s "
            'arguments by that index, so the model fails to load with "input '
            f"'{control_input.name}' does not follow <name>__<index> naming convention.\"",
            at=("sequence_batching", "control_input", index, "name"),
            hint=f"name it {control_input.name}__<index>, {INDEX_HINT}",
        )
    if not batching.state:
        return
    for index, state in enumerate(batching.state):
        for field in ("input_name", "output_name"):
            name = getattr(state, field)
            if named_index(name) is None:
                yield Finding(
                    f"state {field} '{name}' of PyTorch model '{config.name}' is not named "
                    f'<name>__<index>; the model fails to load with "PyTorch model '
                    f"'{config.name}' is using sequence batching with state but state "
                    f"'{name}' does not follow the <name>__<index> naming convention.\"",
                    at=("sequence_batching", "state", index, field),
                    hint=f"name it {name}__<index>, {INDEX_HINT}",
                )
    unnamed = _unindexed_tensors(context, config)
    if unnamed:
        path, name = unnamed[0]
        others = f" (and {len(unnamed) - 1} more)" if len(unnamed) > 1 else ""
        yield Finding(
            f"PyTorch model '{config.name}' keeps implicit state, so every input and output "
            f"must be named <name>__<index>, but '{name}'{others} is not; the model fails to "
            f"load with \"PyTorch model '{config.name}' is using sequence batching with state "
            'but not all inputs and outputs follow the <name>__<index> naming convention."',
            at=path,
            hint="name the inputs INPUT__0, INPUT__1, ... in forward()'s argument order and "
            "the outputs OUTPUT__0, ... in the order forward() returns them",
        )


def _unindexed_tensors(context: ModelContext, config: ModelConfig) -> list[tuple[FieldPath, str]]:
    """Inputs and outputs that keep the backend from binding by <name>__<index>.

    Inputs are bound by argument name when every input is named like an argument of
    forward(), which a model with state refuses as well; a forward() that takes one
    Dict (or nothing) has no input binding to check.
    """
    found: list[tuple[FieldPath, str]] = []
    models = torch_models(context)
    inputs_bound = not any(t.dict_input or not t.args for t in models)
    if inputs_bound:
        names = [io.name for io in config.input]
        for t in models:
            arguments = {a.name for a in t.args}
            if names and all(name in arguments for name in names):
                found.append((("input", 0, "name"), names[0]))  # bound by argument name
                break
        found += [
            (("input", i, "name"), io.name)
            for i, io in enumerate(config.input)
            if named_index(io.name) is None
        ]
    found += [
        (("output", i, "name"), io.name)
        for i, io in enumerate(config.output)
        if named_index(io.name) is None
    ]
    return found


@rule(
    "PL861",
    "pytorch-sequence-data-type",
    ERROR,
    "A CORRID control or implicit state whose data type the PyTorch backend cannot take.",
    triton="input '<name>' type 'TYPE_UINT64' is not supported by PyTorch.",
    stage=Stage.LOAD,
    backend="pytorch",
    effective=True,
)
def pytorch_sequence_data_type(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The PyTorch backend turns the correlation ID and every state into a torch tensor
    of the config's type when the model loads. libtorch has no unsigned type wider than
    8 bits and no BF16: a CORRID control of TYPE_UINT64 (the type most examples use)
    or TYPE_STRING, or a state of such a type, fails the load. A TYPE_STRING state is
    a List[str] of one dimension: with max_batch_size > 0 the batch axis is already
    that dimension, so the load fails too.

    Bad:
        control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ]
    Good:
        control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_INT64 } ]
    """
    if not is_torchscript(config) or not config.HasField("sequence_batching"):
        return
    lacking = torch_types_lacking()
    batching = config.sequence_batching
    for i, control_input in enumerate(batching.control_input):
        for j, control in enumerate(control_input.control):
            written_type = type_name(control.data_type)
            if control.kind != CORRID or control.data_type == DataType.TYPE_INVALID:
                continue
            if written_type in lacking or control.data_type == DataType.TYPE_STRING:
                yield Finding(
                    f"CORRID control '{control_input.name}' of PyTorch model '{config.name}' is "
                    f"{written_type}, which libtorch has no tensor type for; the model fails to "
                    f"load with \"input '{control_input.name}' type '{written_type}' is not "
                    'supported by PyTorch."',
                    at=("sequence_batching", "control_input", i, "control", j, "data_type"),
                    hint="data_type: TYPE_INT64 (or TYPE_INT32), and send correlation IDs "
                    "that fit in it",
                )
    for i, state in enumerate(batching.state):
        written_type = type_name(state.data_type)
        at: FieldPath = ("sequence_batching", "state", i, "data_type")
        if written_type in lacking:
            yield Finding(
                f"state '{state.input_name}' of PyTorch model '{config.name}' is {written_type}, "
                f"which libtorch has no tensor type for; the model fails to load with "
                f"\"unsupported datatype {written_type} for input state '{state.input_name}' for "
                f"model '{config.name}'\"",
                at=at,
                hint="keep the state in a signed or floating-point type (TYPE_INT64, TYPE_FP32)",
            )
        elif state.data_type == DataType.TYPE_STRING:
            batched = config.max_batch_size > 0
            if not batched and len(state.dims) <= 1:
                continue
            kind, name = ("input", state.input_name) if batched else ("output", state.output_name)
            why = (
                f"max_batch_size is {config.max_batch_size}, so the batch axis already is the "
                "one dimension a List[str] has"
                if batched
                else f"dims {list(state.dims)} give it {len(state.dims)} dimensions"
            )
            yield Finding(
                f"state '{state.input_name}' of PyTorch model '{config.name}' is TYPE_STRING, "
                f"which the backend keeps as a 1-dimensional List[str], but {why}; the model "
                f'fails to load with "Triton only supports 1 dimensional List of String as '
                f"{kind} for '{name}' for model '{config.name}'\"",
                at=at,
                hint="keep the state as numbers (token ids), or serve the model with "
                "max_batch_size: 0 and one dim",
            )


@rule(
    "PL862",
    "pytorch-output-binding",
    WARNING,
    "PyTorch outputs bound to forward()'s values otherwise than their <name>__<index> says: "
    "two outputs on one value, or indexed names bound by config order.",
    triton="output '<name>' or previous output(s) of the model '<model>' do not follow the "
    "<name>__<index> naming convention. Falling back to enforcing strict ordering from "
    "model configuration.",
    stage=Stage.INFERENCE,
    backend="pytorch",
    effective=True,
)
def pytorch_output_binding(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """TorchScript returns values, not names. The PyTorch backend binds output `k` to
    forward()'s value `<index>` when every output is named `<name>__<index>`, and
    otherwise by the order of the config (`GetNamingConvention`). Two outputs with the
    same index both answer the same value, and the value meant for one of them is never
    sent. When one output name lacks the `__<index>`, the others lose theirs too: an
    `OUTPUT__1` written first is bound to value 0. Either way the model loads and
    answers with the wrong tensors.

    Bad:
        output [ { name: "scores__1" ... }, { name: "labels" ... }, { name: "boxes__0" ... } ]
    Good:
        output [ { name: "boxes__0" ... }, { name: "scores__1" ... }, { name: "labels__2" ... } ]
    """
    if not is_torchscript(config) or len(config.output) < 2:
        return
    names = [io.name for io in config.output]
    indexes = [named_index(name) for name in names]
    if all(index is not None for index in indexes):
        first: dict[int | None, str] = {}
        for position, (name, index) in enumerate(zip(names, indexes, strict=True)):
            if index in first:
                yield Finding(
                    f"outputs '{first[index]}' and '{name}' of PyTorch model '{config.name}' "
                    f"both bind to forward()'s value {index}: both answer that tensor, and "
                    "no output answers the value the second one was meant for",
                    at=("output", position, "name"),
                    hint="give every output its own index, in the order forward() returns "
                    "the values",
                )
            first.setdefault(index, name)
        return
    loose = names[indexes.index(None)]
    for position, (name, index) in enumerate(zip(names, indexes, strict=True)):
        if index is not None and index != position:
            yield Finding(
                f"output '{name}' of PyTorch model '{config.name}' is bound to forward()'s value "
                f"{position} (its place in the config), not {index}: output '{loose}' is not "
                "named <name>__<index>, so the backend binds every output by config order "
                "and its answers are swapped without any error",
                at=("output", position, "name"),
                hint=f"name every output <name>__<index> (for example {loose}__<index>), or "
                "list them in the order forward() returns them",
            )
