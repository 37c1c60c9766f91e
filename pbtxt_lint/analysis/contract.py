"""A model's tensor contract: what each input and output is, as Triton routes it.

Triton checks a request against the model's config (`InferenceRequest::Normalize`):
names, data types, `dims` (with the batch axis in front when `max_batch_size > 0`).
It then treats axis 0 as the batch: dynamic batching concatenates requests along it,
and the backend splits each output along it, one slice per request
(`BackendOutputResponder::ProcessTensor`). Ensembles route each tensor with the shape
it was made with (`EnsembleContext::InitStep`), and BLS calls and clients send what
they build. Every one of those meets the same facts, so they are computed here once
per model (`model_contract`), with where each comes from: the config as Triton
completes it (`composing_config`: the backend's auto-complete where pbtxt-lint
emulates it), an ensemble's decoupled flag as Triton computes it from its steps, the
sequence batchers an ensemble's requests go through, and what the model file says of
the batch axis.

The batch axis is the fact Triton assumes and never checks: what the model file says
of it is `batch_axis.py`'s (ONNX graphs: which input dim or node each axis comes from,
and the dim names the exporter wrote), and where an ensemble hands the request's batch
to a step that takes one size is `ensemble_batch.py`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbtxt_lint.analysis.batch_axis import NOT_BATCHED, UNKNOWN, BatchFact, onnx_batch_facts
from pbtxt_lint.analysis.context import ModelContext, Workspace
from pbtxt_lint.analysis.ensemble import build_graph, describe_model
from pbtxt_lint.analysis.ensemble_batch import batch_edges
from pbtxt_lint.artifacts.formats import artifact_format
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput
from pbtxt_lint.triton.autofill import is_ensemble

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.signature import Signature


@dataclass(frozen=True)
class TensorContract:
    """One input or output as Triton checks, routes and hands it over."""

    name: str
    data_type: int
    dims: tuple[int, ...]
    """The config's dims (what requests are checked against; batch axis excluded)."""
    reshape: tuple[int, ...] | None
    """What the model gets (inputs) or makes (outputs) instead, when set."""
    optional: bool
    batch: BatchFact

    def full_shape(self, batching: bool) -> tuple[int, ...]:
        """The shape Triton prints: [-1] + dims when the model batches."""
        return ((-1,) if batching else ()) + self.dims


@dataclass(frozen=True)
class BatchLimit:
    """A step of an ensemble that takes the request's batch for one size only (`BatchEdge`)."""

    step: str
    port: str
    wanted: tuple[int, ...]
    item: tuple[int, ...]
    takes: int


@dataclass(frozen=True)
class ModelContract:
    """What Triton promises about a model to its requests, its ensembles and its BLS callers."""

    name: str
    config: ModelConfig
    """The config as Triton completes it (the effective config when nothing completes it)."""
    inputs: Mapping[str, TensorContract]
    outputs: Mapping[str, TensorContract]
    known: bool
    """The inputs and outputs are those Triton serves; False when a backend fills them
    in at load and pbtxt-lint cannot tell what it fills (`why_unknown`)."""
    batching_known: bool
    decoupled: bool
    """As Triton computes it: for an ensemble, whether any step is decoupled."""
    sequence_models: tuple[str, ...]
    """The models with sequence batching every request goes through: the model itself,
    or an ensemble's steps (nested ensembles included)."""
    decoupled_models: tuple[str, ...]
    """For an ensemble: the steps that make it decoupled."""
    source: str
    """Where the inputs and outputs come from, for messages."""
    why_unknown: str = ""
    batch_limits: tuple[BatchLimit, ...] = ()
    """For an ensemble: steps without batching that take one batch size of the request's."""

    @property
    def max_batch_size(self) -> int:
        return self.config.max_batch_size

    @property
    def batching(self) -> bool:
        return self.config.max_batch_size > 0

    @property
    def ensemble(self) -> bool:
        return is_ensemble(self.config)

    @property
    def required_inputs(self) -> tuple[str, ...]:
        return tuple(name for name, io in self.inputs.items() if not io.optional)


def model_contract(context: ModelContext) -> ModelContract | None:
    """The contract of the context's model, computed once (None: its config cannot be read)."""
    return context.shared(_model_contract)


def contract_of(workspace: Workspace, name: str) -> ModelContract | None:
    """The contract of model `name` of the repository (None: no such model, or no config)."""
    context = workspace.model(name)
    return model_contract(context) if context is not None else None


def _model_contract(context: ModelContext) -> ModelContract | None:
    described = describe_model(context.workspace, context.folder.name)
    completed = described.completed
    if completed is None:
        return None
    config = completed.config
    facts = _batch_facts(context, config) if config.max_batch_size > 0 else {}

    def fact(kind: str, name: str) -> BatchFact:
        if config.max_batch_size <= 0:
            return NOT_BATCHED
        return facts.get((kind, name), UNKNOWN)

    inputs = {io.name: _tensor(io, fact("input", io.name)) for io in config.input}
    outputs = {io.name: _tensor(io, fact("output", io.name)) for io in config.output}
    decoupled_models: tuple[str, ...] = ()
    limits: tuple[BatchLimit, ...] = ()
    if is_ensemble(config):
        name = context.folder.name
        decoupled_models = _decoupled_steps(context.workspace, config, frozenset({name}))
        graph = context.shared(build_graph)
        limits = tuple(
            BatchLimit(e.consumer.step.model_name, e.consumer.port, e.wanted, e.item, e.takes)
            for e in (batch_edges(graph) if graph is not None else ())
            if e.consumer.step is not None
        )
    return ModelContract(
        context.folder.name,
        config,
        inputs,
        outputs,
        completed.io_known,
        completed.batching_known,
        described.decoupled,
        _sequence_models(context.workspace, context.folder.name, config),
        decoupled_models,
        _source(context),
        completed.reason,
        limits,
    )


def _tensor(io: ModelInput | ModelOutput, batch: BatchFact) -> TensorContract:
    reshape = tuple(io.reshape.shape) if io.HasField("reshape") else None
    optional = isinstance(io, ModelInput) and io.optional
    return TensorContract(io.name, io.data_type, tuple(io.dims), reshape, optional, batch)


def _source(context: ModelContext) -> str:
    completed = context.completed
    filled = {"input", "output"} & set(completed.filled)
    if filled and completed.signature is not None:
        return f"config.pbtxt completed from {completed.signature.path.name}"
    return "config.pbtxt"


def _sequence_models(workspace: Workspace, name: str, config: ModelConfig) -> tuple[str, ...]:
    """The models with sequence batching a request to `name` goes through, in the order
    the steps are written. A walk that enters each nested ensemble once: a diamond of
    nested ensembles has exponentially many paths, and a chain is as deep as it is long."""
    found: list[str] = []
    entered = {name}
    pending: list[tuple[str, ModelConfig]] = [(name, config)]
    while pending:
        current, current_config = pending.pop()
        sequence = current_config.sequence_batching
        if current_config.HasField("sequence_batching") and not sequence.iterative_sequence:
            if current not in found:
                found.append(current)
            continue
        if not is_ensemble(current_config):
            continue
        inner: list[tuple[str, ModelConfig]] = []
        for step in current_config.ensemble_scheduling.step:
            if step.model_name in entered:
                continue
            context = workspace.model(step.model_name)
            step_config = context.effective if context is not None else None
            if step_config is not None:
                entered.add(step.model_name)
                inner.append((step.model_name, step_config))
        pending.extend(reversed(inner))  # depth first, in the written order
    return tuple(found)


def _decoupled_steps(
    workspace: Workspace, config: ModelConfig, visiting: frozenset[str]
) -> tuple[str, ...]:
    """The steps of an ensemble that are decoupled (or contain one)."""
    found: list[str] = []
    for step in config.ensemble_scheduling.step:
        name = step.model_name
        if not name or name in visiting or name in found:
            continue
        if describe_model(workspace, name).decoupled:
            found.append(name)
    return tuple(found)


# --- the model file's shapes and batch axis ------------------------------------------------


def _signature(context: ModelContext) -> Signature | None:
    artifact = context.artifacts.version() if context.artifacts.enabled else None
    return artifact.signature if artifact is not None else None


def _batch_facts(context: ModelContext, config: ModelConfig) -> dict[tuple[str, str], BatchFact]:
    """What the model file says of axis 0 (ONNX graphs only: the other readers give
    no graph to follow), read only for a model that batches."""
    if is_ensemble(config) or artifact_format(config) != "onnx":
        return {}
    signature = _signature(context)
    if signature is None or signature.format != "onnx":
        return {}
    return onnx_batch_facts(signature, config)
