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

The batch axis is the fact Triton assumes and never checks. For ONNX graphs it is
read from `onnx_axes`: which input dim or node each axis comes from, and the dim
names the exporter wrote (`BatchFact.certain` says whether the graph shows it or only
the names suggest it).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbtxt_lint.analysis.context import ModelContext, Workspace
from pbtxt_lint.analysis.ensemble import (
    Endpoint,
    EnsembleGraph,
    Step,
    TensorType,
    build_graph,
    describe_model,
)
from pbtxt_lint.artifacts.formats import artifact_format
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput
from pbtxt_lint.triton.autofill import backend_of, is_ensemble

if TYPE_CHECKING:
    from pathlib import Path

    from pbtxt_lint.artifacts.onnx_axes import Axes, AxisTrace, Origin
    from pbtxt_lint.artifacts.onnx_probe import Verdict
    from pbtxt_lint.artifacts.signature import Signature


class Batch(enum.Enum):
    """What axis 0 of a tensor is, against Triton's assumption that it is the batch."""

    NONE = "none"
    """The model does not batch (max_batch_size 0): every dim is the request's own."""
    DIM0 = "dim0"
    """Axis 0 is the batch, as Triton assumes."""
    AXIS = "axis"
    """The batch sits at another axis (`BatchFact.axis`)."""
    OTHER = "other"
    """Axis 0 counts something else (`BatchFact.counts`)."""
    UNKNOWN = "unknown"
    """Triton treats axis 0 as the batch; nothing says whether the model does."""


@dataclass(frozen=True)
class BatchFact:
    kind: Batch
    axis: int = 0
    counts: str = ""
    """What axis 0 counts instead ("num_boxes"; "the boxes node 'nms' (NonMaxSuppression)
    keeps"), or the name of the batch dim found at `axis`."""
    evidence: str = ""
    """Why, in words a message can quote."""
    certain: bool = False
    """The graph shows it; else only the dim names suggest it."""
    follows: str = ""
    """For an output: the input whose dim 0 it carries (the finding is that input's)."""
    suspect: str = ""
    """For an input whose dim 0 the names call a batch but the graph never ties to the
    other inputs' (`input01_dynamic_axes_1` beside `input00_dynamic_axes_1`): why only
    running the model (`--deep`) can tell whether it counts something else."""


UNKNOWN = BatchFact(Batch.UNKNOWN)
NOT_BATCHED = BatchFact(Batch.NONE, certain=True)


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


_BATCH_NAME = re.compile(
    r"(?i)^(?:.*batch.*|b|n|bs|nb|unk__\d+|.*dynamic_axes_\d+|s\d+|\?|dim_?0|d0)$"
)
"""Names exporters give the batch dim: `batch`, `batch_size`, `N`, tf2onnx's `unk__123`,
torch.onnx's `input_dynamic_axes_1`, dynamo's `s0`."""
_COUNT_NAME = re.compile(
    r"(?i)(box|roi|point|pts|anchor|prompt|quer|det|object|instance|mask|label|coord|keypoint"
    r"|^num_|^n_|_count$|^count)"
)
"""Names of a dim that counts things of one request."""
_SEQUENCE_NAME = re.compile(r"(?i)(seq|len|time|frame|token|step|^t$|^l$)")


def _named(origin: Origin) -> str:
    # deferred: the ONNX axis types load with the first ONNX model whose batch axis is read
    from pbtxt_lint.artifacts.onnx_axes import InputDim

    return origin.name if isinstance(origin, InputDim) else ""


def batch_named(origin: Origin) -> bool:
    """The dim's name is one exporters give the batch (an unnamed dynamic dim counts)."""
    from pbtxt_lint.artifacts.onnx_axes import InputDim

    if not isinstance(origin, InputDim):
        return False
    return not origin.name or bool(_BATCH_NAME.match(origin.name))


def onnx_batch_facts(signature: Signature, config: ModelConfig) -> dict[tuple[str, str], BatchFact]:
    """What axis 0 of each config input and output of an ONNX model is, for a config
    with max_batch_size > 0 (keys: ("input" | "output", name))."""
    trace: AxisTrace | None = getattr(signature, "axes", None)
    if trace is None:
        return {}
    inputs = {io.name: trace.inputs.get(io.name) for io in config.input}
    facts: dict[tuple[str, str], BatchFact] = {}
    for name, axes in inputs.items():
        if axes:
            facts[("input", name)] = _input_fact(trace, name, axes, inputs)
    batches = [
        axes[0]
        for name, axes in inputs.items()
        if axes and facts[("input", name)].kind in (Batch.DIM0, Batch.UNKNOWN)
    ]
    others = {
        axes[0]: facts[("input", name)]
        for name, axes in inputs.items()
        if axes and facts[("input", name)].kind is Batch.OTHER
    }
    declared = _declared_shapes(signature)
    for io in config.output:
        axes = trace.outputs.get(io.name)
        if axes:
            shown = declared.get(io.name) or _shape_text(axes)
            facts[("output", io.name)] = _output_fact(trace, io.name, shown, axes, batches, others)
    return facts


def _declared_shapes(signature: Signature) -> dict[str, str]:
    """Each output's shape as the model file declares it: `[num_dets, 7]`."""
    from pbtxt_lint.artifacts.onnx_signature import declared_shape

    found = {}
    for spec in signature.outputs:
        shape = declared_shape(spec)
        if shape is not None:
            found[spec.name] = "[" + ", ".join("?" if d == -1 else str(d) for d in shape) + "]"
    return found


def _input_fact(
    trace: AxisTrace, name: str, axes: Axes, inputs: Mapping[str, Axes | None]
) -> BatchFact:
    from pbtxt_lint.artifacts.onnx_axes import InputDim

    first = axes[0]
    if not isinstance(first, InputDim):
        return UNKNOWN  # a fixed dim 0 is PL612's
    shown = _shape_text(axes)
    for axis, origin in enumerate(axes[1:], start=1):
        if isinstance(origin, InputDim) and origin in trace.recurrent_batch and origin != first:
            node = trace.recurrent_batch[origin]
            return BatchFact(
                Batch.AXIS, axis, origin.label,
                f"{node} reads axis {axis} of '{name}' {shown} as its batch (layout 0: "
                "[seq_length, batch_size, input_size])",
                certain=True,
            )  # fmt: skip
    other_batches = {
        axes_j[0]: other
        for other, axes_j in inputs.items()
        if other != name and axes_j and batch_named(axes_j[0])
    }
    for axis, origin in enumerate(axes[1:], start=1):
        if origin in other_batches and not trace.same(first, origin) and origin is not None:
            other = other_batches[origin]
            return BatchFact(
                Batch.AXIS, axis, _named(origin) or f"dim 0 of '{other}'",
                f"'{name}' is {shown}: axis {axis} is the dim '{_named(origin)}' that is "
                f"dim 0 of '{other}'",
                certain=True,
            )  # fmt: skip
    if (
        len(axes) >= 2
        and _SEQUENCE_NAME.search(_named(first))
        and not batch_named(first)
        and "batch" in _named(axes[1]).lower()
    ):
        return BatchFact(
            Batch.AXIS, 1, _named(axes[1]),
            f"the model file declares '{name}' as {shown}: a {_named(first)} axis first and "
            f"the batch at axis 1",
        )  # fmt: skip
    batched_others = [o for o in other_batches if not trace.same(first, o)]
    if batched_others and not batch_named(first) and _COUNT_NAME.search(_named(first)):
        other = next(n for n, a in inputs.items() if a and a[0] == batched_others[0])
        return BatchFact(
            Batch.OTHER, 0, _named(first),
            f"the model file declares '{name}' as {shown} and '{other}' as "
            f"{_shape_text(inputs[other] or ())}: dim 0 of '{name}' counts {_named(first)}, "
            "not the batch",
        )  # fmt: skip
    reference = next(iter(inputs))
    reference_axes = inputs[reference]
    if name != reference and reference_axes and not trace.same(first, reference_axes[0]):
        return BatchFact(
            Batch.DIM0,
            suspect=f"the model file declares '{name}' as {shown} and '{reference}' as "
            f"{_shape_text(reference_axes)}: their dims 0 have names of their own, and nothing "
            "in the graph makes them equal",
        )
    return BatchFact(Batch.DIM0, certain=batch_named(first))


def _output_fact(
    trace: AxisTrace,
    name: str,
    shown: str,
    axes: Axes,
    batches: list[Origin],
    others: Mapping[Origin, BatchFact],
) -> BatchFact:
    from pbtxt_lint.artifacts.onnx_axes import DataCount

    first = axes[0]
    if isinstance(first, DataCount):
        return BatchFact(
            Batch.OTHER, 0, f"what {first.label} selects",
            f"the model file declares '{name}' as {shown}, and its dim 0 is the number of "
            f"results {first.label} selects over the whole batch",
            certain=True,
        )  # fmt: skip
    if any(trace.same(first, b) for b in batches):
        return BatchFact(Batch.DIM0, certain=True)
    for origin, fact in others.items():
        if trace.same(first, origin):
            return BatchFact(
                Batch.OTHER, 0, fact.counts,
                f"dim 0 of '{name}' {shown} is dim 0 of an input that counts {fact.counts}",
                certain=fact.certain,
                follows=fact.counts,
            )  # fmt: skip
    for axis, origin in enumerate(axes[1:], start=1):
        if origin is not None and any(trace.same(origin, b) for b in batches):
            return BatchFact(
                Batch.AXIS, axis, _named(origin),
                f"the graph makes '{name}' {shown}: the batch at axis {axis}",
                certain=True,
            )  # fmt: skip
    return UNKNOWN


def _shape_text(axes: Axes) -> str:
    from pbtxt_lint.artifacts.onnx_axes import DataCount, InputDim

    parts = []
    for origin in axes:
        if isinstance(origin, InputDim):
            parts.append(origin.name or "?")
        elif isinstance(origin, DataCount):
            parts.append("?")
        else:
            parts.append("?" if origin is None else str(origin))
    return "[" + ", ".join(parts) + "]"


def confirm_batch(
    path: Path, signature: Signature, config: ModelConfig, kind: str, name: str, fact: BatchFact
) -> Verdict:
    """`--deep`: run the ONNX model to confirm (or refute) a fact the dim names suggest."""
    # deferred: ONNX Runtime loads only for --deep
    from pbtxt_lint.artifacts import onnx_probe

    if fact.kind is Batch.OTHER and kind == "output":
        return onnx_probe.output_count(path, signature.inputs, name)
    trace: AxisTrace | None = getattr(signature, "axes", None)
    if (fact.kind is Batch.OTHER or fact.suspect) and trace is not None:
        axes = trace.inputs.get(name)
        first = axes[0] if axes else None
        counted = [n for n, a in trace.inputs.items() if a and first is not None and a[0] == first]
        return onnx_probe.input_count(path, signature.inputs, counted or [name])
    return onnx_probe.Verdict(
        False, "judged from the dim names: running the model cannot tell a time axis from a batch"
    )


# --- the request's batch through an ensemble -------------------------------------------------


@dataclass(frozen=True)
class BatchEdge:
    """An ensemble tensor that carries the request's batch, read by a step without
    batching that takes it for one batch size only.

    `EnsembleContext::ReshapeTensorDims` (core ensemble_scheduler.cc) hands such a step
    the tensor as it is, `[batch, *item]`, stripping the batch axis only when the batch
    is 1 and the step's dims do not already match; the step's own shape check then
    refuses every other batch size.
    """

    producer: Endpoint
    """The ensemble input, or the batching step's write."""
    consumer: Endpoint
    item: tuple[int, ...]
    """The tensor's dims without the batch axis, as the producer declares them."""
    wanted: tuple[int, ...]
    """The consumer's dims."""
    takes: int
    """The one batch size the consumer takes (1 when its dims lack the batch axis)."""
    python: bool = False
    """The producer is a Python step: its config says the batch, model.py decides."""

    @property
    def stripped(self) -> bool:
        """The consumer's dims lack the batch axis (only a batch of 1 passes, stripped)."""
        return len(self.wanted) == len(self.item)


def batch_edges(graph: EnsembleGraph, python: bool = False) -> list[BatchEdge]:
    """Every edge where the ensemble's batch meets a step that takes one batch size,
    in an ensemble that accepts larger batches. A tensor carries the request's batch
    when it is an input of a batching ensemble, or the output of a batching step that
    reads one. A Python step's outputs are what model.py returns, so they are included
    only with `python` (their edges say so: the caller asks the value flow)."""
    if graph.max_batch_size <= 1:
        return []
    carrying: dict[str, Endpoint] = {e.tensor: e for e in graph.inputs}
    for step in _in_flow_order(graph):
        batches = step.reads and all(r.type is not None and r.type.batching for r in step.reads)
        if batches and any(r.tensor in carrying for r in step.reads):
            for write in step.writes:
                carrying.setdefault(write.tensor, write)
    edges = []
    for name, producer in carrying.items():
        made = producer.type
        from_python = _python_step(producer)
        if made is None or not made.complete or (from_python and not python):
            continue
        tensor = graph.tensors.get(name)
        for consumer in tensor.readers if tensor is not None else ():
            kind = consumer.type
            if kind is None or kind.batching is not False or not kind.complete:
                continue
            item, wanted = made.dims, kind.dims
            if len(wanted) == len(item) and _alike(wanted, item, made):
                takes = 1
            elif len(wanted) == len(item) + 1 and wanted[0] >= 1 and _alike(wanted[1:], item, made):
                takes = wanted[0]
            else:
                continue
            if graph.max_batch_size > takes:
                edges.append(BatchEdge(producer, consumer, item, wanted, takes, from_python))
    return edges


def _in_flow_order(graph: EnsembleGraph) -> list[Step]:
    ready = {e.tensor for e in graph.inputs}
    pending = list(graph.flow_steps)
    ordered: list[Step] = []
    progress = True
    while progress:
        progress = False
        for step in list(pending):
            if all(r.tensor in ready for r in step.reads):
                ordered.append(step)
                ready.update(w.tensor for w in step.writes)
                pending.remove(step)
                progress = True
    return ordered


def _python_step(endpoint: Endpoint) -> bool:
    model = endpoint.step.model if endpoint.step is not None else None
    config = model.config if model is not None else None
    return config is not None and backend_of(config) == "python"


def _alike(left: tuple[int, ...], right: tuple[int, ...], kind: TensorType) -> bool:
    """CompareDimsWithWildcard (same rank, -1 matches any size), as the ensemble
    check compares dims."""
    return TensorType(kind.data_type, left, False).compatible(
        TensorType(kind.data_type, right, False)
    )
