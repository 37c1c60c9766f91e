"""What the model file says of each tensor's axis 0, against Triton's assumption that it
is the batch (`BatchFact`): for ONNX graphs, read from where `onnx_axes` traces each
axis and from the dim names the exporter wrote.

Apart from the contract (`contract.py`) because the facts are a reading of one graph,
and the PL9 rules and `--deep` ask for them on their own (`onnx_batch_facts`,
`confirm_batch`).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from pbtxt_lint.artifacts.onnx_axes import Axes, AxisTrace, Origin
    from pbtxt_lint.artifacts.onnx_probe import Verdict
    from pbtxt_lint.artifacts.signature import Signature
    from pbtxt_lint.schema import ModelConfig


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
