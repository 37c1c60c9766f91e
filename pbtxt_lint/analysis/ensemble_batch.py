"""Where the request's batch meets an ensemble step that takes one batch size only
(`BatchEdge`): the tensors that carry the batch, followed through the steps in the
order they run.

Apart from the contract (`contract.py`), which lists these edges as `BatchLimit`s,
because the PL5 runtime rules walk the same edges with the endpoints they need.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbtxt_lint.analysis.ensemble import Endpoint, EnsembleGraph, Step, TensorType
from pbtxt_lint.triton.autofill import backend_of


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
