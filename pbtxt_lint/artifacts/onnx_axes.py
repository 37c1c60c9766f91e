"""Where each axis of an ONNX graph's outputs comes from: which input dim, or which node.

With `max_batch_size > 0` Triton treats axis 0 of every input and output as the batch:
it checks that every input of a request has the same dim 0
(`InferenceRequest::Normalize`), concatenates requests along it (dynamic batching) and
splits each output along it, one slice per request
(`BackendOutputResponder::ProcessTensor`). A graph may disagree: a second input whose
dim 0 counts boxes, an output whose dim 0 counts the detections NonMaxSuppression
selected over the whole batch, a sequence model whose batch sits at axis 1. The
declared dim names hint at it; the trace follows the graph to show it.

This module holds what a trace says (`AxisTrace`: the origin of every axis), which the
contract reads (`analysis/batch_axis.py`); the walk is `onnx_axis_trace`, and what each
op does to the axes of its inputs is `onnx_axis_ops`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class InputDim:
    """A dynamic dim of a graph input: every dim named `name` shares it; an unnamed one
    is its own (`input`, `axis`)."""

    key: str
    name: str = field(compare=False)
    input: str = field(compare=False)
    axis: int = field(compare=False)

    @property
    def label(self) -> str:
        return self.name or f"dim {self.axis} of '{self.input}'"


@dataclass(frozen=True, slots=True)
class DataCount:
    """A size a node computes from the data: how many boxes NonMaxSuppression keeps."""

    node: str
    op: str

    @property
    def label(self) -> str:
        return f"node '{self.node}' ({self.op})" if self.node != self.op else self.op


Origin = int | InputDim | DataCount | None
"""A fixed size, an input's dynamic dim, a data-dependent count, or unknown."""
Axes = tuple[Origin, ...]


DATA_COUNTS = frozenset({"NonMaxSuppression", "NonZero", "Compress", "Unique"})
"""Ops whose output size depends on the values of their inputs."""
RECURRENT = frozenset({"LSTM", "GRU", "RNN"})
"""Ops that run over a sequence, with the batch at axis 1 of their input (layout 0)."""


@dataclass(frozen=True)
class AxisTrace:
    """The origin of every axis of the graph's inputs and outputs."""

    inputs: Mapping[str, Axes | None]
    outputs: Mapping[str, Axes | None]
    equal: frozenset[frozenset[InputDim]] = frozenset()
    """Pairs of input dims the graph combines in a way that requires them equal."""
    recurrent_batch: Mapping[InputDim, str] = field(default_factory=dict)
    """Input dims a recurrent node reads as its batch axis (not axis 0 of its input),
    with the node's label."""
    counting: tuple[str, ...] = ()
    """Labels of the nodes that compute a size from the data."""

    def same(self, a: Origin, b: Origin) -> bool:
        """Whether two origins are one size: the same dim, or dims the graph equates."""
        if a == b:
            return True
        return (
            isinstance(a, InputDim)
            and isinstance(b, InputDim)
            and (frozenset((a, b)) in self.equal)
        )
