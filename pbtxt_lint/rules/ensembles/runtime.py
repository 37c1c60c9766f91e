"""PL527-PL529: what an ensemble's requests meet at run time, beyond the load checks.

Triton's load check (`ValidateTensorConsistency`) lets -1 match any size, so a step
output declared `[-1,-1]` may feed an input declared `[300,4]`. Each step's request
then goes through the composing model's own shape check (`InferenceRequest::Normalize`
in core's src/infer_request.cc), which fails the ensemble request whenever the size
actually produced differs. Whether it does is a fact about the producing model, not
about the configs: on public configs, none of the -1 to fixed edges is a demonstrable
bug from the configs alone. So the edge is a fact (info), unless the -1 is the batch
axis of a batching step feeding a step without batching that takes a fixed count,
while the ensemble accepts larger batches: then larger requests fail (a warning). A
producer's model file cannot fix the size behind a -1 of a model that loads (ONNX
Runtime, TensorRT, TensorFlow and OpenVINO refuse a -1 where their model's dim is
fixed), but it can name the varying axis.

Python producers are left to the model.py rules, which read what the code returns
(PL657, PL658: the size the code gives each axis, a constant or one the request decides).

A step with sequence batching makes every ensemble request a sequence request
(`Sequencer::SetupSequenceRequest` in src/sequence_batch_scheduler/sequence_utils.h).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    INFERENCE,
    INFO,
    WARNING,
    Finding,
    ModelContext,
    Scope,
    backend_of,
    rule,
)
from pbtxt_lint.rules.ensembles.common import ensemble_finding, ensemble_graph

if TYPE_CHECKING:  # the graph module loads with the first ensemble checked
    from pbtxt_lint.analysis.ensemble import Endpoint, EnsembleGraph, Step
    from pbtxt_lint.analysis.ensemble_batch import BatchEdge

VARIABLE = -1


def _shape(values: Sequence[int]) -> str:
    return "[" + ",".join(str(v) for v in values) + "]"


@dataclass(frozen=True)
class Edge:
    """A step output declared with -1 where the step reading it declares a fixed size."""

    producer: Endpoint
    consumer: Endpoint
    made: tuple[int, ...]
    """The producer's full shape (batch axis first when it batches)."""
    wanted: tuple[int, ...]
    """The consumer's full shape."""
    axes: tuple[int, ...]
    """Positions where `made` has -1 and `wanted` a size."""

    @property
    def producer_step(self) -> Step:
        assert self.producer.step is not None
        return self.producer.step

    @property
    def consumer_step(self) -> Step:
        assert self.consumer.step is not None
        return self.consumer.step


def _full(endpoint: Endpoint) -> tuple[int, ...] | None:
    kind = endpoint.type
    if kind is None or not kind.complete or kind.batching is None:
        return None
    return ((VARIABLE,) if kind.batching else ()) + kind.dims


def variable_edges(graph: EnsembleGraph) -> Iterator[Edge]:
    """Every step-to-step edge where a -1 of the producer meets a fixed consumer size."""
    for tensor in graph.tensors.values():
        for producer in tensor.writers:
            made = _full(producer)
            if made is None or VARIABLE not in made:
                continue
            for consumer in tensor.readers:
                wanted = _full(consumer)
                if wanted is None or len(wanted) != len(made):
                    continue
                axes = tuple(
                    i
                    for i, (m, w) in enumerate(zip(made, wanted, strict=True))
                    if m == VARIABLE and w > 0
                )
                if axes:
                    yield Edge(producer, consumer, made, wanted, axes)


def _producer_backend(edge: Edge) -> str | None:
    model = edge.producer_step.model
    config = model.config if model is not None else None
    return backend_of(config) if config is not None else None


def _model_file_size(edge: Edge, axis: int) -> int | str | None:
    """The size the producer's model file declares for that axis of its output: an int,
    a symbolic name, or None when the file was not read (or has no such output)."""
    model = edge.producer_step.model
    if model is None or model.context is None or model.config is None:
        return None
    outputs = [o for o in model.config.output if o.name == edge.producer.port]
    if not outputs or outputs[0].HasField("reshape"):
        return None
    artifact = model.context.artifacts.version()
    signature = artifact.signature if artifact is not None else None
    if signature is None:
        return None
    specs = [s for s in signature.outputs if s.name == edge.producer.port]
    if not specs or specs[0].shape is None or len(specs[0].shape) != len(edge.made):
        return None
    return specs[0].shape[axis]


@dataclass(frozen=True)
class Verdict:
    """Why an edge fails (warning) or may fail (info)."""

    certain: bool
    why: str
    request: str


def _verdict(graph: EnsembleGraph, edge: Edge) -> Verdict | None:
    """Certain when the -1 is a batch the consumer cannot take; uncertain when nothing
    decides the size; None when every -1 is known to fit."""
    backend = _producer_backend(edge)
    if backend in (None, "", "python"):
        return None  # unknown, a nested ensemble, or model.py (PL657 and PL658 read it)
    step, consumer = edge.producer_step, edge.consumer_step
    batching = edge.producer.type is not None and edge.producer.type.batching
    consumer_batching = edge.consumer.type is not None and edge.consumer.type.batching
    failing = f"\"in ensemble '{graph.name}', [request id: <id_unknown>] unexpected shape for "
    failing += f"input '{edge.consumer.port}' for model '{consumer.model_name}'. Expected "
    open_axes: list[str] = []
    for axis in edge.axes:
        wanted = edge.wanted[axis]
        if axis == 0 and batching and not consumer_batching:
            if graph.max_batch_size <= wanted:
                continue  # the ensemble never sends a larger batch
            got = [wanted + 1, *edge.wanted[1:]]
            return Verdict(
                True,
                f"axis 0 of `{edge.producer.port}` is the batch of {step.label}, which batches "
                f"requests, while {consumer.label} has max_batch_size 0 and takes exactly "
                f"{wanted}; the ensemble accepts batches up to {graph.max_batch_size}",
                f"a request with a batch of {wanted + 1} fails with {failing}"
                f'{_shape(edge.wanted)}, got {_shape(got)}"',
            )
        # A model file that fixes the size is no evidence for a model that loads: the
        # ONNX Runtime, TensorRT, TensorFlow and OpenVINO backends refuse -1 in dims
        # where their model's dim is fixed (PL614, PL643). It can name the axis, though.
        size = _model_file_size(edge, axis)
        open_axes.append(f"'{size}'" if isinstance(size, str) else "")
    if not open_axes:
        return None
    named = [name for name in open_axes if name]
    why = (
        f"{step.label}'s model file leaves that size variable ({', '.join(named)})"
        if named
        else f"nothing in the configs says what size {step.label} produces there"
    )
    return Verdict(False, why, "requests for which it produces another size fail")


def _message(edge: Edge, verdict: Verdict) -> str:
    return (
        f"{edge.producer_step.label} writes `{edge.producer.tensor}` as "
        f"{_shape(edge.made)} and {edge.consumer_step.label} reads it as "
        f"`{edge.consumer.port}` {_shape(edge.wanted)}: Triton accepts the -1 at load, but "
        f"{verdict.why}; {verdict.request}"
    )


@rule(
    "PL527",
    "ensemble-batch-into-fixed-step",
    WARNING,
    "The request's batch (an ensemble input, or a batching step's output) feeding a step "
    "without batching that takes one batch size: larger requests fail at that step.",
    triton="in ensemble '<ensemble>', [request id: <id_unknown>] unexpected shape for input "
    "'<input>' for model '<model>'. Expected [...], got [...]",
    stage=INFERENCE,
    scope=Scope.ENSEMBLE,
)
def ensemble_batch_into_fixed_step(context: ModelContext) -> Iterator[Finding]:
    """A step with max_batch_size > 0 passes on the batch it received: its output's
    first axis is the request's batch. Triton's ensemble check lets that -1 meet the
    fixed first dim of a next step without batching (`dims: [ 1, 16 ]`), but that
    step's shape check then refuses every request whose batch is larger, although
    the ensemble's own max_batch_size promised to accept it. The same holds for an
    ensemble input read directly by such a step, and for a step whose dims lack the
    batch axis (`dims: [ 16 ]`): Triton strips the batch axis only from a batch of 1
    (`EnsembleContext::ReshapeTensorDims`), so it works for batch 1 and fails for
    every larger batch. A batching Python step counts as well when its model.py
    answers the tensor with the request's batch on axis 0 (the value flow shows it:
    `images[:, :, 16:48, 64:192]`), e.g. a text detector writing crops into a
    recognizer with `max_batch_size: 0` and `dims: [ 3, 32, 128 ]` (observed on
    tritonserver 2.51: "unexpected shape for input 'CROP' for model 'reid_embedder'.
    Expected [3,32,32], got [2,3,32,32]" for a batch of 2; a batch of 1 is answered).

    Bad:
        ensemble max_batch_size: 16
        embedder: max_batch_size 16, output emb dims [ 16 ]
        head: max_batch_size 0, input emb dims [ 1, 16 ]
    Good:
        ensemble max_batch_size: 1    (or give head max_batch_size 16 and dims [ 16 ])
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for message, consumer, mark in _batch_failures(context, graph):
        yield ensemble_finding(
            context,
            message,
            consumer.path,
            "give the consumer batching (max_batch_size > 0 and dims without the batch), or "
            "lower the ensemble's max_batch_size to what it takes",
            marks=[(consumer, mark)],
        )


def _batch_failures(
    context: ModelContext, graph: EnsembleGraph
) -> Iterator[tuple[str, Endpoint, str]]:
    """(message, consumer, mark) of every edge where larger batches fail: a batching
    step's -1 into a fixed first dim, then the request's batch followed from the
    ensemble's inputs (analysis.ensemble_batch): an ensemble input read directly, and a
    step whose dims lack the batch axis."""
    for edge in variable_edges(graph):
        verdict = _verdict(graph, edge)
        if verdict is not None and verdict.certain:
            mark = f"{_shape(edge.made)} into {_shape(edge.wanted)}"
            yield _message(edge, verdict), edge.consumer, mark
    # deferred: the batch edges load with the first ensemble checked
    from pbtxt_lint.analysis.ensemble_batch import batch_edges

    for batch in batch_edges(graph, python=True):
        if batch.python and not (batch.stripped and _answers_batch(context, batch)):
            continue  # a Python step's other edges are PL658's (the value flow's sizes)
        if batch.producer.step is None or batch.stripped:  # else: the edges above
            mark = f"a batch into {_shape(batch.wanted)}"
            yield _batch_message(graph, batch), batch.consumer, mark


def _answers_batch(context: ModelContext, batch: BatchEdge) -> bool:
    """The producing Python step's model.py answers the tensor with the request's batch
    size on axis 0 and the declared item dims after it, on every answer the flow sees."""
    from pbtxt_lint.rules.artifacts.python_common import answers, python_models

    step = batch.producer.step
    producer = context.workspace.model(step.model_name) if step is not None else None
    if producer is None:
        return False
    sizes = [
        answer.array.dims
        for model in python_models(producer)
        for answer in answers(model)
        if answer.output.name == batch.producer.port
    ]
    return bool(sizes) and all(
        dims is not None
        and len(dims) == len(batch.item) + 1
        and dims[0] is not None
        and dims[0].is_batch
        for dims in sizes
    )


def _batch_message(graph: EnsembleGraph, batch: BatchEdge) -> str:
    consumer = batch.consumer
    assert consumer.step is not None
    full = _shape((VARIABLE, *batch.item))
    if batch.producer.step is None:
        made = f"ensemble input `{batch.producer.tensor}` {full} carries the request's batch"
    else:
        made = (
            f"{batch.producer.step.label} batches requests and writes "
            f"`{batch.producer.tensor}` as {full}"
        )
    size = 2 if batch.stripped else batch.takes + 1
    got = _shape((size, *batch.item))
    why = (
        "Triton strips the batch axis only from a batch of 1"
        if batch.stripped
        else f"it takes exactly {batch.takes} there"
    )
    return (
        f"{made} (the ensemble accepts batches up to {graph.max_batch_size}), and "
        f"{consumer.step.label} reads it as `{consumer.port}` {_shape(batch.wanted)} with "
        f'max_batch_size 0: {why}, so a request with a batch of {size} fails with "in '
        f"ensemble '{graph.name}', [request id: <id_unknown>] unexpected shape for input "
        f"'{consumer.port}' for model '{consumer.step.model_name}'. Expected "
        f'{_shape(batch.wanted)}, got {got}"'
    )


@rule(
    "PL528",
    "ensemble-variable-into-fixed",
    INFO,
    "A step output declared -1 feeding a step input of fixed size: requests fail whenever "
    "the producer makes another size.",
    triton="in ensemble '<ensemble>', [request id: <id_unknown>] unexpected shape for input "
    "'<input>' for model '<model>'. Expected [...], got [...]",
    stage=INFERENCE,
    scope=Scope.ENSEMBLE,
)
def ensemble_variable_into_fixed(context: ModelContext) -> Iterator[Finding]:
    """Triton accepts a -1 output feeding a fixed-size input when the ensemble loads;
    each request then works only if the producer made exactly that size. Often it does
    (a detector that always returns 300 boxes declared loosely), so this is a fact to
    check, not a verdict: declare the fixed size on the producer too if it is fixed.

    Bad:
        detector output dims [ -1, -1 ]     postprocess input dims [ 300, 4 ]
    Good:
        detector output dims [ 300, 4 ]     postprocess input dims [ 300, 4 ]
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for edge in variable_edges(graph):
        verdict = _verdict(graph, edge)
        if verdict is None or verdict.certain:
            continue
        yield ensemble_finding(
            context,
            _message(edge, verdict),
            edge.consumer.path,
            "if the producer always makes that size, declare it in its output dims; if not, "
            "let the consumer take -1",
        )


def _sequence_steps(graph: EnsembleGraph) -> Iterator[Step]:
    for step in graph.steps:
        config = step.model.config if step.model is not None else None
        if config is None or not config.HasField("sequence_batching"):
            continue
        if not config.sequence_batching.iterative_sequence:
            yield step


@rule(
    "PL529",
    "ensemble-sequence-step",
    INFO,
    "An ensemble with a step that uses sequence batching: every ensemble request needs a "
    "sequence ID.",
    triton="in ensemble '<ensemble>', inference request to model '<model>' must specify a "
    "non-zero or non-empty correlation ID",
    stage=INFERENCE,
    scope=Scope.ENSEMBLE,
)
def ensemble_sequence_step(context: ModelContext) -> Iterator[Finding]:
    """An ensemble passes each request's sequence ID and flags on to its steps. When a
    step is a stateful model with sequence batching, the ensemble is a sequence model
    too: clients must send a sequence ID, start and end flags with every request, and
    one that sends none fails at that step. Streaming pipelines do exactly that; a
    REST client that does not know it gets errors.

    Bad:
        (a client sends plain requests to an ensemble whose encoder step is stateful)
    Good:
        (clients send sequence_id, sequence_start and sequence_end with every request)
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    steps = list(_sequence_steps(graph))
    if not steps:
        return
    listed = ", ".join(step.label for step in steps)
    uses = "uses" if len(steps) == 1 else "use"
    yield ensemble_finding(
        context,
        f"{listed} {uses} sequence batching, so every request to ensemble '{graph.name}' "
        "must carry a sequence ID (and the start and end flags); one without fails with "
        f"\"in ensemble '{graph.name}', inference request to model '{steps[0].model_name}' "
        'must specify a non-zero or non-empty correlation ID"',
        steps[0].path + ("model_name",),
        "send sequence_id, sequence_start and sequence_end with every request to the ensemble",
    )
