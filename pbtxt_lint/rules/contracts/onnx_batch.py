"""PL900-PL902: an ONNX graph whose axis 0 is not the batch, on a model that batches.

With max_batch_size > 0 Triton reads dim 0 of every input as the request's batch
size, requires it equal across inputs (core `infer_request.cc` Normalize: "input 'x'
batch size does not match other inputs"), concatenates requests along it (dynamic
batching), and gives each request its slice of every output along it (backend
`backend_output_responder.cc` ProcessTensor). The ONNX Runtime backend only checks
that the graph's dim 0 is dynamic, so a graph that counts boxes, detections or time
steps there loads, and then requests fail or get someone else's rows. What axis 0 is
comes from the model's contract (`pbtxt_lint.analysis.batch_axis`): the graph's dim
names and where `onnx_axis_trace` traces each axis. A finding the names alone suggest says
so; `--deep` runs the model on batches of 1 and 2 to confirm or drop it.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.batch_axis import Batch, BatchFact, confirm_batch, onnx_batch_facts
from pbtxt_lint.rules.api import WARNING, Finding, ModelContext, Scope, Stage, rule
from pbtxt_lint.rules.artifacts.common import OnnxView, per_onnx_view


def _facts(view: OnnxView, kind: str, wanted: Batch) -> Iterator[tuple[int, str, BatchFact]]:
    """(index, name, fact) of the view's `kind` tensors whose axis 0 is `wanted`."""
    if view.mbs <= 0:
        return
    facts = onnx_batch_facts(view.signature, view.config)
    names = [io.name for io in (view.config.input if kind == "input" else view.config.output)]
    for index, name in enumerate(names):
        fact = facts.get((kind, name))
        if fact is not None and fact.kind is wanted:
            yield index, name, fact


def _certainty(
    context: ModelContext, view: OnnxView, kind: str, name: str, fact: BatchFact
) -> str | None:
    """The closing words on how certain the finding is; None when --deep refutes it."""
    if fact.certain:
        return ""
    if not context.settings.deep:
        return " (judged from the dim names; `--deep` runs the model to be certain)"
    verdict = confirm_batch(view.artifact.opened, view.signature, view.config, kind, name, fact)
    if verdict.refuted:
        return None
    return f" ({verdict.words})"


def _where(view: OnnxView, kind: str, index: int) -> tuple[str, int] | None:
    return (kind, index) if view.written(kind) else None


@rule(
    "PL900",
    "onnx-input-dim0-not-batch",
    WARNING,
    "An ONNX input whose dim 0 counts something else (boxes, points) on a model with "
    "max_batch_size > 0: requests with another count than images fail.",
    triton="input '<name>' batch size does not match other inputs for '<model>'",
    stage=Stage.INFERENCE,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def onnx_input_dim0_not_batch(context: ModelContext) -> Iterator[Finding]:
    """A second input of a detector or segmenter often carries its own count at axis 0:
    `boxes [num_boxes, 4]` beside `images [batch, 3, H, W]`. With max_batch_size > 0
    Triton reads dim 0 of every input as the batch and requires one value across them,
    so a request with one image and three boxes fails, and dynamic batching
    concatenates the boxes of several requests into one list. Inputs whose batch dim
    is only named differently (`batch`, `batch_size`, `N`, `unk__123`) are not
    reported, nor dims the graph combines with the batch.

    Bad:
        max_batch_size: 8      (model.onnx: images [batch,3,640,640], boxes [num_boxes,4])
    Good:
        max_batch_size: 0      input images dims [ -1, 3, 640, 640 ], boxes dims [ -1, 4 ]
    """

    def check(view: OnnxView) -> Iterator[Finding]:
        found = list(_facts(view, "input", Batch.OTHER))
        if context.settings.deep:
            found += _suspects(context, view)
        batch = [io.name for io in view.config.input if io.name not in {n for _, n, _ in found}]
        reported: set[str] = set()
        for index, name, fact in found:
            if fact.counts in reported:
                continue
            reported.add(fact.counts)
            certainty = _certainty(context, view, "input", name, fact)
            if certainty is None:
                continue
            alike = [n for _, n, f in found if f.counts == fact.counts]
            listed = " and ".join(f"'{n}'" for n in alike)
            other = f"'{batch[0]}'" if batch else "the other inputs"
            yield Finding(
                f"input '{name}': {fact.evidence}. With max_batch_size {view.mbs} Triton reads "
                f"dim 0 of every input as the batch: a request with 3 rows of {listed} and 1 of "
                f"{other} fails with \"input '{name}' batch size does not match other inputs "
                f"for '{context.folder.name}'\", so only requests with exactly one row of "
                f"{listed} per row of {other} pass{_batched(view)}{certainty}",
                at=_where(view, "input", index),
                hint="set max_batch_size: 0 and write each input's whole shape in dims (dim 0 "
                "included, -1 where it varies); or export the model with a batch axis in "
                f"front of {fact.counts}",
            )

    yield from per_onnx_view(context, check)


def _suspects(context: ModelContext, view: OnnxView) -> list[tuple[int, str, BatchFact]]:
    """`--deep`: inputs whose dim 0 only the graph's silence leaves in doubt, when the
    run shows the model takes another count there than the batch."""
    found = []
    for index, name, fact in _facts(view, "input", Batch.DIM0):
        if not fact.suspect:
            continue
        path, signature = view.artifact.opened, view.signature
        verdict = confirm_batch(path, signature, view.config, "input", name, fact)
        if not verdict.refuted and verdict.words.startswith("confirmed"):
            counts = f"the rows of '{name}'"
            evidence = f"{fact.suspect}; {verdict.words}"
            found.append((index, name, BatchFact(Batch.OTHER, 0, counts, evidence, True)))
    return found


def _batched(view: OnnxView) -> str:
    if not view.config.HasField("dynamic_batching"):
        return ""
    return "; dynamic batching then concatenates them across requests into one list"


@rule(
    "PL901",
    "onnx-output-dim0-not-batch",
    WARNING,
    "An ONNX output whose dim 0 counts results over the whole batch (NonMaxSuppression, "
    "NonZero) on a model with max_batch_size > 0: each request gets the wrong rows.",
    triton="failed to split the output tensor '<name>' in responses: expected batch size of "
    "at least <n> in model output, got <m>",
    stage=Stage.INFERENCE,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def onnx_output_dim0_not_batch(context: ModelContext) -> Iterator[Finding]:
    """Detectors exported with NMS inside (`NonMaxSuppression`, then a Gather of the
    selected boxes) return `[num_dets, 7]`: one row per detection over the whole batch,
    with the image index in a column. With max_batch_size > 0 the backend splits every
    output along dim 0, giving each request as many rows as images it sent: a request
    for one image gets the first detection only (HTTP 200, a wrong answer), and one
    whose images have no detection fails ("failed to split the output tensor 'dets' in
    responses: expected batch size of at least 1 in model output, got 0"). The same
    export served with max_batch_size 0 is right.

    Bad:
        max_batch_size: 8      (model.onnx: dets [num_dets, 7] from NonMaxSuppression)
    Good:
        max_batch_size: 0      output dets dims [ -1, 7 ]
    """

    def check(view: OnnxView) -> Iterator[Finding]:
        for index, name, fact in _facts(view, "output", Batch.OTHER):
            if fact.follows:
                continue  # the input it follows is PL900's finding
            certainty = _certainty(context, view, "output", name, fact)
            if certainty is None:
                continue
            yield Finding(
                f"output '{name}': {fact.evidence}, not the batch. With max_batch_size "
                f"{view.mbs} the backend gives each request the first rows of '{name}', as "
                "many as the images it sent: a request for one image gets one row of all it "
                f"found (a wrong answer, HTTP 200), and one with nothing found fails with "
                f"\"failed to split the output tensor '{name}' in responses: expected batch "
                f'size of at least 1 in model output, got 0"{certainty}',
                at=_where(view, "output", index),
                hint="set max_batch_size: 0 and write the whole shapes in dims (-1 for the "
                "count), sending one image per request; or export a fixed number of "
                "results per image ([batch, max_det, ...])",
            )

    yield from per_onnx_view(context, check)


@rule(
    "PL902",
    "onnx-batch-not-axis-0",
    WARNING,
    "An ONNX input whose batch sits at axis 1 ([seq_len, batch, hidden]) on a model with "
    "max_batch_size > 0: Triton batches along the sequence.",
    triton="inference request batch-size must be <= <max_batch_size> for '<model>'",
    stage=Stage.INFERENCE,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def onnx_batch_not_axis_0(context: ModelContext) -> Iterator[Finding]:
    """Sequence models exported time-major (PyTorch's `nn.LSTM`, `nn.GRU` and
    `nn.Transformer` default to `batch_first=False`) take `[seq_len, batch, hidden]`.
    With max_batch_size > 0 Triton reads axis 0, the sequence length, as the batch: a
    request of 20 steps counts as a batch of 20 (refused above max_batch_size), and
    dynamic batching concatenates requests along the time axis, so the model runs
    several requests as one longer sequence (wrong answers, no error).

    Bad:
        max_batch_size: 8      (model.onnx: x [seq_len, batch, 80], an LSTM with layout 0)
    Good:
        max_batch_size: 0      input x dims [ -1, -1, 80 ]
    """

    def check(view: OnnxView) -> Iterator[Finding]:
        for index, name, fact in _facts(view, "input", Batch.AXIS):
            certainty = _certainty(context, view, "input", name, fact)
            if certainty is None:
                continue
            concatenated = (
                ", and dynamic batching concatenates requests along axis 0, running several "
                "requests as one longer sequence (wrong answers, no error)"
                if view.config.HasField("dynamic_batching")
                else ""
            )
            yield Finding(
                f"input '{name}': {fact.evidence}. With max_batch_size {view.mbs} Triton reads "
                f"axis 0 as the batch: a request of {view.mbs + 1} steps counts as a batch of "
                f'{view.mbs + 1} and fails with "inference request batch-size must be <= '
                f"{view.mbs} for '{context.folder.name}'\"{concatenated}{certainty}",
                at=_where(view, "input", index),
                hint="set max_batch_size: 0 and write the model's whole shape in dims (-1 "
                f"where it varies); or export the model batch-first ('{fact.counts}' at axis 0)",
            )

    yield from per_onnx_view(context, check)
