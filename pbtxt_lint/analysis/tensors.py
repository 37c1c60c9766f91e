"""Which tensors Triton hands a model, and which it may return.

A client's request carries only the config's inputs: the core's `Model::GetInput`
refuses any other name ("unexpected inference input"). The model itself sees more:

- every `sequence_batching.control_input` that has a control (START, END, READY,
  CORRID): the sequence batcher adds it to each request as an override input
  (core `sequence_batch_scheduler.cc` SetControlTensors);
- every `sequence_batching.state` input: `InferenceRequest::LoadInputStates` (core
  `infer_request.cc`) adds it to each request of a sequence, and the state's
  `output_name` is an output the backend may produce (the core keeps it as the next
  state when the backend implements implicit state; otherwise nothing reads it);
- `batch_input` targets, which are not request inputs at all: the backend computes
  them from the batch (backend_common's BackendInputCollector), so only backends that
  implement batch inputs feed them to the model file. The Python backend hands
  `execute` exactly the request's inputs (python_backend `python_be.cc`
  SaveRequestsToSharedMemory) and never computes batch inputs.

`batch_output` targets must be config outputs (core `model_config_utils.cc`
ValidateBatchIO), so they add no name. Warmup samples may name control tensors; they
exist only on warmup requests and are not listed here.

Every check that compares tensor names (model.py against the config, model files
against the config) asks `model_tensors` instead of reading `input`/`output` alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.schema.model_config_pb2 import BatchInput, ModelSequenceBatching
from pbtxt_lint.textproto.sourcemap import FieldPath
from pbtxt_lint.triton.backends import backend

Role = Literal["input", "output", "control", "state", "batch_input"]

_KINDS = ModelSequenceBatching.Control.Kind


@dataclass(frozen=True)
class ModelTensor:
    """One tensor name the model can read or produce, and where the config declares it."""

    name: str
    role: Role
    described: str
    """How messages name it: 'input', 'CONTROL_SEQUENCE_START control tensor',
    'implicit state input (state_out is its output)', ..."""
    at: FieldPath
    optional: bool = False
    """An input a request may leave out (`optional: true`)."""


@dataclass(frozen=True)
class ModelTensors:
    """The tensor names of one model's (completed) config, by what Triton does with them."""

    handed: Mapping[str, ModelTensor]
    """Inputs the model receives: config inputs, control tensors, state inputs, and the
    batch inputs its backend computes."""
    returned: Mapping[str, ModelTensor]
    """Outputs the model may produce that Triton takes: config outputs and state outputs."""
    not_handed: Mapping[str, ModelTensor]
    """Declared, but this backend never feeds them (batch inputs on the Python backend)."""
    requestable: frozenset[str]
    """The inputs a client may send: the config's inputs."""
    sequence: bool
    """The model uses the sequence batcher."""

    @property
    def controls(self) -> tuple[ModelTensor, ...]:
        return tuple(t for t in self.handed.values() if t.role == "control")

    @property
    def states(self) -> tuple[ModelTensor, ...]:
        return tuple(t for t in self.handed.values() if t.role == "state")


def model_tensors(config: ModelConfig) -> ModelTensors:
    """What `config` (the effective or completed config) makes Triton hand the model."""
    handed: dict[str, ModelTensor] = {}
    returned: dict[str, ModelTensor] = {}
    not_handed: dict[str, ModelTensor] = {}
    for index, io in enumerate(config.input):
        handed.setdefault(
            io.name, ModelTensor(io.name, "input", "input", ("input", index), io.optional)
        )
    for index, out in enumerate(config.output):
        returned.setdefault(out.name, ModelTensor(out.name, "output", "output", ("output", index)))
    sequence = config.HasField("sequence_batching")
    if sequence:
        batching = config.sequence_batching
        for index, control_input in enumerate(batching.control_input):
            if not control_input.name or not control_input.control:
                continue  # the core adds a control tensor only for a control kind
            kinds = " / ".join(_kind_name(c.kind) for c in control_input.control)
            handed.setdefault(
                control_input.name,
                ModelTensor(
                    control_input.name,
                    "control",
                    f"{kinds} control tensor",
                    ("sequence_batching", "control_input", index, "name"),
                ),
            )
        for index, state in enumerate(batching.state):
            at: FieldPath = ("sequence_batching", "state", index)
            if state.input_name:
                handed.setdefault(
                    state.input_name,
                    ModelTensor(
                        state.input_name,
                        "state",
                        f'implicit state input (its output_name is "{state.output_name}")',
                        (*at, "input_name"),
                    ),
                )
            if state.output_name:
                returned.setdefault(
                    state.output_name,
                    ModelTensor(
                        state.output_name,
                        "state",
                        f'implicit state output (its input_name is "{state.input_name}")',
                        (*at, "output_name"),
                    ),
                )
    entry = backend(config.backend)
    computes = entry.batch_inputs if entry is not None else None
    for index, batch_input in enumerate(config.batch_input):
        kind = _batch_kind_name(batch_input.kind)
        for position, target in enumerate(batch_input.target_name):
            tensor = ModelTensor(
                target,
                "batch_input",
                f"{kind} batch input",
                ("batch_input", index, "target_name", position),
            )
            (not_handed if computes is False else handed).setdefault(target, tensor)
    return ModelTensors(
        MappingProxyType(handed),
        MappingProxyType(returned),
        MappingProxyType(not_handed),
        frozenset(io.name for io in config.input),
        sequence,
    )


def _kind_name(kind: int) -> str:
    return str(_KINDS.Name(kind)) if kind in _KINDS.values() else f"control kind {kind}"


def _batch_kind_name(kind: int) -> str:
    kinds = BatchInput.Kind
    return str(kinds.Name(kind)) if kind in kinds.values() else f"kind {kind}"
