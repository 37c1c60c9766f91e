"""PL611-PL615, PL617, PL618: config shapes against the ONNX graph's, and batch dims.

ONNX Runtime compares `[-1] + dims` (max_batch_size > 0) or `dims` with each graph
tensor, `reshape.shape` instead of dims when present (`onnxruntime.cc` ValidateInputs,
ValidateOutputs; `onnxruntime_utils.cc` CompareDimsSupported). `_shape_issue` says
what the backend finds for one tensor, in the order it checks; each load-time rule
reports one outcome. PL617 and PL618 are shapes that load but fail requests.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterator, Sequence

from pbtxt_lint.analysis.autocomplete import ort_shape
from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import (
    OnnxPair,
    OnnxView,
    inferred_note,
    io_shape,
    model_dims,
    per_onnx_view,
)
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import config_dims
from pbtxt_lint.schema.model_config_pb2 import ModelInput

ERROR, WARNING = Severity.ERROR, Severity.WARNING
LOAD = Stage.LOAD


# --- the comparison -------------------------------------------------------------------------


def _core_valid(pair: OnnxPair) -> bool:
    """The core accepts the shape fields, so the backend gets to compare them."""
    shape, _ = io_shape(pair.io)
    dims_ok = bool(pair.io.dims) and all(d == -1 or d >= 1 for d in pair.io.dims)
    return dims_ok and all(d == -1 or d >= 1 for d in shape)


def _matches(model: Sequence[int], config: Sequence[int], exact: bool) -> bool:
    """CompareDimsSupported's element rule: model -1 matches anything unless `exact`."""
    return len(model) == len(config) and all(
        m == c or (m == -1 and not exact) for m, c in zip(model, config, strict=True)
    )


class _Shape(enum.Enum):
    RAGGED = "ragged"  # PL611
    SCALAR = "scalar"  # PL615
    NOT_BATCHABLE = "not-batchable"  # PL612
    BATCH_TWICE = "batch-twice"  # PL613, the batch dim written in dims
    MISMATCH = "mismatch"  # PL614


def _shape_issue(view: OnnxView, pair: OnnxPair) -> _Shape | None:
    """What the backend says about the tensor's shape, in the order it checks."""
    if not _core_valid(pair):
        return None  # the core rejects the config before the backend compares shapes
    shape, _ = io_shape(pair.io)
    model = ort_shape(pair.spec)
    if isinstance(pair.io, ModelInput) and pair.io.allow_ragged_batch:
        return None if model == [-1] else _Shape.RAGGED
    if pair.kind == "output" and any(
        pair.io.name in b.target_name for b in view.config.batch_output
    ):
        return None  # batch outputs are not compared
    if not model:
        return None if all(d == 1 for d in shape) else _Shape.SCALAR
    if view.mbs > 0 and model[0] != -1:
        return _Shape.NOT_BATCHABLE
    exact = pair.kind == "output"
    if _matches(model, [-1, *shape] if view.mbs > 0 else shape, exact):
        return None
    if view.mbs > 0 and len(shape) == len(model):
        if shape[0] in (-1, 1, view.mbs) or _matches(model[1:], shape[1:], exact):
            return _Shape.BATCH_TWICE
    return _Shape.MISMATCH


def _shape_findings(
    context: ModelContext, wanted: _Shape, describe: Callable[[OnnxView, OnnxPair], Finding]
) -> Iterator[Finding]:
    def check(view: OnnxView) -> Iterator[Finding]:
        for pair in view.pairs:
            if _shape_issue(view, pair) is wanted:
                yield describe(view, pair)

    return per_onnx_view(context, check)


def _suggested(model: Sequence[int], shape: Sequence[int], exact: bool) -> list[int]:
    """Dims that pass: the config's where it already matches the model, else the model's."""
    if len(model) != len(shape):
        return list(model)
    return [
        c if m == c or (m == -1 and not exact) else m for m, c in zip(model, shape, strict=True)
    ]


# --- load time: what the backend refuses --------------------------------------------------


@rule(
    "PL611",
    "ragged-input-shape",
    ERROR,
    "allow_ragged_batch on an input whose model shape is not [-1].",
    triton="unable to load model '<model>', configuration expects model provides input "
    "with shape [-1]  for ragged input '<name>', model provides <[..]>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def ragged_input_shape(context: ModelContext) -> Iterator[Finding]:
    """A ragged input is fed to ONNX Runtime as the concatenation of all requests'
    elements, a 1-D tensor, so the graph input must be exactly one dynamic dim
    (`[-1]`, whatever max_batch_size is); a batch input usually carries the offsets.

    Bad:
        input [ { name: "tokens" allow_ragged_batch: true ... } ]  (model: [batch, seq])
    Good:
        input [ { name: "tokens" allow_ragged_batch: true ... } ]  (model: [total_tokens])
    """

    def describe(view: OnnxView, pair: OnnxPair) -> Finding:
        return Finding(
            f"{pair.label} allows ragged batches, so Triton feeds it as one 1-D tensor, but "
            f"{view.file} declares {model_dims(pair.spec.shape)}; the model must take "
            "shape [-1]",
            at=pair.at("allow_ragged_batch"),
            hint="re-export the input as a flat 1-D tensor (with a batch input for the "
            "offsets), or remove allow_ragged_batch",
        )

    yield from _shape_findings(context, _Shape.RAGGED, describe)


@rule(
    "PL612",
    "batch-dim-not-dynamic",
    ERROR,
    "max_batch_size > 0 on a model whose first dim is fixed.",
    triton="model '<model>', tensor '<name>': for the model to support batching the shape "
    "should have at least 1 dimension and the first dimension must be -1; but shape "
    "expected by the model is <[..]>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def batch_dim_not_dynamic(context: ModelContext) -> Iterator[Finding]:
    """With max_batch_size > 0 Triton puts the batch dim in front of every tensor, so the
    model's first dim must be dynamic. Models exported without a dynamic batch axis
    (`[1, 3, 640, 640]`) have a fixed one: re-export, or serve them unbatched with
    max_batch_size 0 and the full shape in dims. The shape is the one ONNX Runtime
    reports: an output declared `[batch, 10]` whose graph reshapes it to `[1, 10]` is
    reported, and refused, as `[1, 10]` (graph inputs keep their declared shape).

    Bad:
        max_batch_size: 8
        input [ { name: "images" dims: [ 3, 640, 640 ] ... } ]   (model: [1, 3, 640, 640])
    Good:
        max_batch_size: 0
        input [ { name: "images" dims: [ 1, 3, 640, 640 ] ... } ]
    """

    def describe(view: OnnxView, pair: OnnxPair) -> Finding:
        model = ort_shape(pair.spec)
        source = pair.spec.inferred.dims[0] if pair.spec.inferred else None
        fix = (
            f"change node '{source.node}' so that it keeps the first dim dynamic"
            if source is not None and source.op
            else "re-export with a dynamic batch axis (dynamic_axes={"
            f"'{pair.io.name}': {{0: 'batch'}}}})"
        )
        note = inferred_note(pair.spec, 0)
        fixed = (
            f"{note[2:]}, so the first dim is fixed"
            if note
            else f"{view.file} declares {model_dims(pair.spec.shape)} with a fixed first dim "
            f"{model[0]}"
        )
        return Finding(
            f"{pair.label}: {fixed}, but max_batch_size {view.mbs} makes Triton treat the "
            "first dim as the batch dim, which must be dynamic (-1)",
            at=("max_batch_size",),
            hint=f"{fix}, or set max_batch_size: 0 and dims: {config_dims(model)}",
        )

    yield from _shape_findings(context, _Shape.NOT_BATCHABLE, describe)


@rule(
    "PL613",
    "batch-dim-in-dims",
    ERROR,
    "dims repeat the batch dim that max_batch_size > 0 already adds.",
    triton="model '<model>', tensor '<name>': the model expects <r> dimensions (shape "
    "<[..]>) but the model configuration specifies <r+1> dimensions (an initial batch "
    "dimension because max_batch_size > 0 followed by the explicit tensor shape, making "
    "complete shape <[-1,..]>)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def batch_dim_in_dims(context: ModelContext) -> Iterator[Finding]:
    """With max_batch_size > 0, `dims` is the shape of one sample: Triton prepends the
    batch dim itself. Writing the model's full shape (batch included) in dims counts the
    batch dim twice.

    Bad:
        max_batch_size: 32
        input [ { name: "input_ids" dims: [ -1, -1 ] ... } ]   (model: [batch, seq])
    Good:
        max_batch_size: 32
        input [ { name: "input_ids" dims: [ -1 ] ... } ]
    """

    def describe(view: OnnxView, pair: OnnxPair) -> Finding:
        shape, field = io_shape(pair.io)
        model = ort_shape(pair.spec)
        exact = pair.kind == "output"
        fixed = _suggested(model[1:], shape[1:], exact)
        where = "reshape.shape" if field != ("dims",) else "dims"
        return Finding(
            f"{pair.label}: {view.file} has {len(model)} dims {model_dims(pair.spec.shape)}; "
            f"with max_batch_size {view.mbs} Triton prepends the batch dim, so {where} should "
            f"be {config_dims(fixed)}, not {config_dims(shape)} (the batch dim is written twice)"
            f"{inferred_note(pair.spec)}",
            at=pair.at(*field, 0),
            hint=f"{where}: {config_dims(fixed)}, or set max_batch_size: 0 to keep the full shape",
        )

    yield from _shape_findings(context, _Shape.BATCH_TWICE, describe)


def _mismatch(view: OnnxView, pair: OnnxPair) -> Finding:
    """PL614's finding: the dims that differ from the model's, and dims that pass."""
    shape, field = io_shape(pair.io)
    model = ort_shape(pair.spec)
    offset = 1 if view.mbs > 0 else 0
    full = [-1, *shape] if offset else shape
    exact = pair.kind == "output"
    where = "reshape.shape" if field != ("dims",) else "dims"
    shown = model_dims(pair.spec.shape)
    if len(full) != len(model):
        if not offset and len(shape) + 1 == len(model) and model[0] == -1:
            fixed = [-1, *_suggested(model[1:], shape, exact)]
            return Finding(
                f"{pair.label}: {view.file} has {len(model)} dims {shown} starting with a "
                f"dynamic batch dim; with max_batch_size 0 {where} is the complete shape, so "
                f"it should be {config_dims(fixed)}, not {config_dims(shape)}"
                f"{inferred_note(pair.spec)}",
                at=pair.at(*field),
                hint=f"{where}: {config_dims(fixed)}, or set max_batch_size > 0 so that Triton "
                "adds the batch dim",
            )
        fixed = model[offset:]
        batch = f"the batch dim and {where} " if offset else f"{where} "
        return Finding(
            f"{pair.label}: {view.file} has {len(model)} dims {shown} but {batch}"
            f"{config_dims(shape)} make {len(full)}{inferred_note(pair.spec)}",
            at=pair.at(*field),
            hint=f"{where}: {config_dims(fixed)}",
        )
    wrong = [
        k
        for k, (m, c) in enumerate(zip(model, full, strict=True))
        if not (m == c or (m == -1 and not exact))
    ]
    reasons = []
    for k in wrong:
        m, c, i = model[k], full[k], k - offset
        named = pair.spec.shape[k] if pair.spec.shape else m
        if m == -1:
            reasons.append(
                f"{where}[{i}] is {c}, but dim {k} of {view.file} is dynamic ({named}) and "
                "outputs must match exactly, so it must be -1"
            )
        elif c == -1:
            reasons.append(
                f"{where}[{i}] is -1, but dim {k} of {view.file} is fixed to {m}, and -1 only "
                "matches a dynamic model dim"
            )
        else:
            reasons.append(f"{where}[{i}] is {c}, but dim {k} of {view.file} is {m}")
    fixed = _suggested(model, full, exact)[offset:]
    return Finding(
        f"{pair.label}: {'; '.join(reasons)} (model {shown}, {where} {config_dims(shape)})"
        f"{inferred_note(pair.spec, *wrong)}",
        at=pair.at(*field, wrong[0] - offset),
        hint=f"{where}: {config_dims(fixed)}",
    )


@rule(
    "PL614",
    "shape-mismatch",
    ERROR,
    "dims (or reshape) that do not match the model's shape.",
    triton="model '<model>', tensor '<name>': the model expects <r> dimensions (shape "
    "<[..]>) but the model configuration specifies <k> dimensions (shape <[..]>)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def shape_mismatch(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime compares `[-1] + dims` (max_batch_size > 0) or `dims` (0) with the
    graph, using `reshape.shape` instead of dims when present. Inputs: a dynamic model
    dim accepts any config value, a fixed one must be repeated (a config -1 there
    fails). Outputs are compared exactly: -1 where the model is dynamic, the same
    number where it is fixed. An output's shape is the one ONNX Runtime reports, its
    declaration merged with its shape inference: a dim declared `classes` that a
    4x10 MatMul weight fixes is 10, so the config must say 10.

    Bad:
        output [ { name: "logits" dims: [ 1000 ] ... } ]   (model: [batch, num_classes])
    Good:
        output [ { name: "logits" dims: [ -1 ] ... } ]
    """
    yield from _shape_findings(context, _Shape.MISMATCH, _mismatch)


@rule(
    "PL615",
    "scalar-dims",
    ERROR,
    "dims other than [ 1 ] for a tensor the model declares as a scalar (or without shape).",
    triton="unable to load model '<model>', scalar tensor '<name>', should only provide 1 "
    "in the model configuration when the model doesn't support batching. Model "
    "configuration provided: <[..]>.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def scalar_dims(context: ModelContext) -> Iterator[Finding]:
    """For a rank-0 graph tensor ONNX Runtime skips the shape comparison and requires
    every config dim (reshape if present) to be 1. A graph tensor declared without a
    shape (unknown rank) is reported the same way, so `dims: [ -1, 16 ]` on it fails.

    Bad:
        input [ { name: "temperature" dims: [ -1 ] ... } ]   (model: scalar)
    Good:
        input [ { name: "temperature" dims: [ 1 ] ... } ]
    """

    def describe(view: OnnxView, pair: OnnxPair) -> Finding:
        shape, field = io_shape(pair.io)
        what = (
            "declares no shape for it (unknown rank), which ONNX Runtime reports as a scalar"
            if pair.spec.shape is None
            else "declares it as a scalar (rank 0)"
        )
        where = "reshape.shape" if field != ("dims",) else "dims"
        return Finding(
            f"{pair.label}: {view.file} {what}, so Triton requires every config dim to be 1, "
            f"not {where} {config_dims(shape)}",
            at=pair.at(*field),
            hint="dims: [ 1 ]"
            + (" (or give the model input a real shape)" if pair.spec.shape is None else ""),
        )

    yield from _shape_findings(context, _Shape.SCALAR, describe)


# --- inference time: shapes that load but fail requests ----------------------------------


@rule(
    "PL617",
    "scalar-input-with-batching",
    WARNING,
    "A scalar model input on a model with max_batch_size > 0: every request fails.",
    triton="onnx runtime error 2: Invalid rank for input: <name> Got: 1 Expected: 0 Please "
    "fix either the inputs/outputs or the model.",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def scalar_input_with_batching(context: ModelContext) -> Iterator[Finding]:
    """The load succeeds (ONNX Runtime does not compare scalar shapes), but with
    max_batch_size > 0 every request carries a batch dim, so the input reaches ONNX
    Runtime with rank 1 while the graph wants rank 0, and every request fails.

    Bad:
        max_batch_size: 8
        input [ { name: "temperature" dims: [ 1 ] reshape { shape: [ ] } ... } ]  (scalar)
    Good:
        max_batch_size: 0
        input [ { name: "temperature" dims: [ 1 ] ... } ]
    """

    def check(view: OnnxView) -> Iterator[Finding]:
        if view.mbs <= 0:
            return
        for pair in view.pairs:
            if pair.kind != "input" or pair.spec.shape != () or _shape_issue(view, pair):
                continue
            if isinstance(pair.io, ModelInput) and pair.io.allow_ragged_batch:
                continue
            yield Finding(
                f"{pair.label}: {view.file} declares a scalar (rank 0), but with "
                f"max_batch_size {view.mbs} every request carries a batch dim, so ONNX "
                'Runtime receives rank 1 and every request fails ("Invalid rank for input")',
                at=("max_batch_size",),
                hint=f"set max_batch_size: 0, or re-export {pair.io.name} with a batch dim "
                "([batch] or [batch, 1])",
            )

    yield from per_onnx_view(context, check)


@rule(
    "PL618",
    "shared-dim-conflict",
    WARNING,
    "Inputs whose dims the model declares equal get different sizes in the config.",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def shared_dim_conflict(context: ModelContext) -> Iterator[Finding]:
    """Exporters give dims that must be equal the same name (`input_ids [batch, seq]`,
    `attention_mask [batch, seq]`). A config dim fixed where the model is dynamic is
    fine, and so is -1; but fixing `seq` to 128 on one input and leaving -1 (or 64) on
    the other loads, and then the requests whose sizes differ fail inside ONNX Runtime.

    Bad:
        input [ { name: "input_ids" dims: [ 128 ] ... },
                { name: "attention_mask" dims: [ -1 ] ... } ]
    Good:
        input [ { name: "input_ids" dims: [ 128 ] ... },
                { name: "attention_mask" dims: [ 128 ] ... } ]
    """

    def check(view: OnnxView) -> Iterator[Finding]:
        offset = 1 if view.mbs > 0 else 0
        uses: dict[str, list[tuple[OnnxPair, int, int]]] = {}
        for pair in view.pairs:
            if pair.kind != "input" or _shape_issue(view, pair) or not pair.spec.shape:
                continue
            if isinstance(pair.io, ModelInput) and pair.io.allow_ragged_batch:
                continue
            shape, _ = io_shape(pair.io)
            if len(shape) + offset != len(pair.spec.shape):
                continue
            for k, dim in enumerate(pair.spec.shape[offset:]):
                if isinstance(dim, str):
                    uses.setdefault(dim, []).append((pair, k, shape[k]))
        for symbol, group in uses.items():
            fixed = sorted({value for _, _, value in group if value != -1})
            if not fixed:
                continue
            first, first_k, first_value = next(u for u in group if u[2] == fixed[0])
            for pair, k, value in group:
                if value == fixed[0]:
                    continue
                _, field = io_shape(pair.io)
                when = (
                    f"requests whose {pair.io.name} has another {symbol} size than {fixed[0]} fail"
                    if value == -1
                    else "every request fails"
                )
                yield Finding(
                    f'{pair.label}: {view.file} declares dim {k + offset} as "{symbol}", the '
                    f"same dim as {first.label} dim {first_k + offset}, which the config fixes "
                    f"to {first_value}; this config says {value}, so {when} inside ONNX "
                    "Runtime when the model combines them",
                    at=pair.at(*field, k),
                    hint=f"write {fixed[0]} here too, or -1 on both",
                )

    yield from per_onnx_view(context, check)
