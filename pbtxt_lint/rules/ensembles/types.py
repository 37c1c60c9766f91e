"""Types along every edge (`ValidateTensorConsistency`: data types and shapes agree
where a tensor is declared, written and read) and decoupled steps that fan in
(`ValidateEnsembleConfig`), checked when the ensemble loads."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    ERROR,
    WARNING,
    FieldPath,
    Finding,
    ModelContext,
    Scope,
    Stage,
    rule,
)
from pbtxt_lint.rules.ensembles.common import endpoint_phrase, ensemble_finding, ensemble_graph

if TYPE_CHECKING:  # the graph module loads with the first ensemble checked
    from pbtxt_lint.analysis.ensemble import Endpoint, Step, Tensor, TensorType


@rule(
    "PL522",
    "tensor-dtype-mismatch",
    ERROR,
    "An ensemble tensor with different data types where it is written, read or declared.",
    triton="in ensemble <model>, ensemble tensor <t>: inconsistent data type: <A> is "
    "inferred from model <a> while <B> is inferred from model <b>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
)
def tensor_dtype_mismatch(context: ModelContext) -> Iterator[Finding]:
    """Triton does not convert between steps: the producing output, every consuming input
    and the ensemble's own declaration must have the same data type (INT32 vs INT64 from
    a tokenizer is the classic).

    Bad:
        tokenizer output input_ids: TYPE_INT32     encoder input input_ids: TYPE_INT64
    Good:
        tokenizer output input_ids: TYPE_INT64     encoder input input_ids: TYPE_INT64
    """
    for _tensor, (reference, ref_type), others, _ in _typed_tensors(context):
        for other, other_type in others:
            if other_type.data_type == ref_type.data_type:
                continue
            yield ensemble_finding(
                context,
                f"{endpoint_phrase(reference, True, ref_type.type_name)}; "
                f"{endpoint_phrase(other, False, other_type.type_name)}",
                _type_path(other, "data_type"),
                "make both data types the same (convert in the producing model if needed)",
                marks=[(other, f"{other_type.type_name} vs {ref_type.type_name}")],
            )


@rule(
    "PL523",
    "tensor-shape-mismatch",
    ERROR,
    "An ensemble tensor whose shapes cannot match where it is written, read or declared.",
    triton="in ensemble <model>, ensemble tensor <t>: inconsistent shape: <[..]> is inferred "
    "from model <a> while <[..]> is inferred from model <b>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
)
def tensor_shape_mismatch(context: ModelContext) -> Iterator[Finding]:
    """Triton compares shapes with -1 as a wildcard, first without and then with the batch
    dimension that max_batch_size > 0 adds in front (so `[-1,16]` of a non-batching
    model meets `[16]` of a batching one). Where Triton's check passes only thanks to a
    -1 elsewhere but producer and consumer still disagree, requests fail at run time: a
    warning.

    Bad:
        preprocess output: dims [ 3, 224, 224 ]    classifier input: dims [ 3, 256, 256 ]
    Good:
        preprocess output: dims [ 3, 224, 224 ]    classifier input: dims [ 3, 224, 224 ]
    """
    for tensor, (reference, ref_type), others, uncertain in _typed_tensors(context):
        for other, other_type in others:
            if other_type.data_type != ref_type.data_type:
                continue  # tensor-dtype-mismatch
            if ref_type.compatible(other_type):
                continue
            yield ensemble_finding(
                context,
                f"{endpoint_phrase(reference, True, ref_type.shape)}; "
                f"{endpoint_phrase(other, False, other_type.shape)}",
                _type_path(other, "dims"),
                _reshape_hint(context, other, ref_type)
                or "make the shapes agree (-1 matches any size; the batch dimension is "
                "implied by max_batch_size > 0)",
                severity=WARNING if uncertain else None,
                marks=[(other, f"shape {other_type.shape} vs {ref_type.shape}")],
            )
        yield from _hidden_shape_mismatches(context, tensor, [(reference, ref_type), *others])


Typed = tuple["Endpoint", "TensorType"]


def _reshape_hint(context: ModelContext, endpoint: Endpoint, wanted: TensorType) -> str:
    """When the step's `reshape` is the shape the other side routes: a reshape changes
    what the model sees, never what the ensemble routes or compares (its `dims`)."""
    from pbtxt_lint.analysis.contract import contract_of
    from pbtxt_lint.analysis.ensemble import Role, TensorType, format_dims

    step = endpoint.step
    contract = contract_of(context.workspace, step.model_name) if step is not None else None
    if contract is None:
        return ""
    tensors = contract.inputs if endpoint.role is Role.READ else contract.outputs
    tensor = tensors.get(endpoint.port)
    if tensor is None or tensor.reshape is None:
        return ""
    routed = TensorType(wanted.data_type, tensor.reshape, wanted.batching)
    if not routed.compatible(wanted):
        return ""
    return (
        f"the ensemble routes and compares `dims`, not `reshape`: give `{endpoint.port}` "
        f"dims {format_dims(tensor.reshape)} (what the ensemble passes) and reshape "
        f"{format_dims(tensor.dims)} (what the model takes)"
    )


def _typed_tensors(context: ModelContext) -> Iterator[tuple[Tensor, Typed, list[Typed], bool]]:
    """`ValidateTensorConsistency`'s view of each tensor with two or more known types:
    (tensor, Triton's reference endpoint and type, the others, whether an unknown type
    could have been the reference).

    Triton compares each place a tensor appears with the first place it saw it (the
    ensemble's I/O, then the steps in order).
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for t in graph.tensors.values():
        endpoints = t.endpoints()
        typed = [
            (e, e.type)
            for e in endpoints
            if e.type is not None and e.type.complete and (e.step is None or e.step.checked)
        ]
        # Unknown types could be Triton's reference: then a shape verdict is a guess.
        uncertain = any(
            (e.step is not None and not e.step.checked and e.step.model)
            or (e.type is not None and not e.type.complete)
            for e in endpoints
        )
        if len(typed) < 2:
            continue
        reference, *others = typed
        yield t, reference, others, bool(uncertain)


def _hidden_shape_mismatches(
    context: ModelContext, t: Tensor, typed: list[Typed]
) -> Iterator[Finding]:
    """Producer/consumer pairs that both match a wildcard reference but not each other.

    Shapes with -1 are not transitive: a writer and a reader that both match the
    reference can still disagree, which Triton only finds when a request fails.
    """
    (reference, ref_type), *_ = typed
    producer = t.input or (t.writers[0] if t.writers else None)
    fits = {
        e: ty for e, ty in typed if ty.data_type == ref_type.data_type and ref_type.compatible(ty)
    }
    if producer is None or producer is reference or producer not in fits:
        return
    made = fits[producer]
    for consumer, ty in fits.items():
        if not consumer.consumes or consumer is reference:
            continue
        if made.compatible(ty):
            continue
        yield ensemble_finding(
            context,
            f"{endpoint_phrase(producer, True, made.shape)}; "
            f"{endpoint_phrase(consumer, False, ty.shape)}. "
            f"Triton accepts this at load (both match {ref_type.shape}) but requests "
            "fail when the shapes meet",
            _type_path(consumer, "dims"),
            "make the shapes agree",
            severity=WARNING,
            marks=[(consumer, f"shape {ty.shape} vs {made.shape}")],
        )


def _type_path(endpoint: Endpoint, attribute: str) -> FieldPath:
    """Where to point for a type problem: the map entry, or the I/O's attribute."""
    return endpoint.path if endpoint.step is not None else endpoint.path + (attribute,)


@rule(
    "PL524",
    "decoupled-fan-in",
    ERROR,
    "A step (or the ensemble's outputs) combining tensors from different decoupled steps.",
    triton="in ensemble <model>, step of model '<m>' receives inputs originated from "
    "different decoupled models",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
)
def decoupled_fan_in(context: ModelContext) -> Iterator[Finding]:
    """A decoupled model may send any number of responses, so its outputs cannot be lined
    up with tensors from another branch. Every step's inputs (and all ensemble outputs)
    must come through the same decoupled step, or through none.

    Bad:
        step 1 (decoupled `generate`) writes "tokens";
        step 2 reads "tokens" and the ensemble input "prompt"
    Good:
        step 2 reads "tokens" and "prompt_copy", which step 1 also writes
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    flow = graph.decoupled_flow
    for step in flow.fan_ins:
        labels = flow.fan_in_labels[step.index]
        sources = "; ".join(
            f"`{r.tensor}` from {_origin_of(labels[r.tensor], flow.origin)}" for r in step.reads
        )
        yield ensemble_finding(
            context,
            f"{step.label} receives inputs that originate from different decoupled steps "
            f"({sources}); Triton refuses such an ensemble",
            step.path + ("model_name",),
            "a step may only combine tensors that come through the same decoupled step",
            marks=[(step, "inputs from different decoupled steps")],
        )
    finals = {flow.labels[e.tensor] for e in graph.outputs if e.tensor in flow.labels}
    if len(finals) > 1:
        sources = "; ".join(
            f"`{e.tensor}` from {_origin_of(flow.labels[e.tensor], flow.origin)}"
            for e in graph.outputs
            if e.tensor in flow.labels
        )
        yield ensemble_finding(
            context,
            f"the ensemble's outputs originate from different decoupled steps ({sources}); "
            "Triton refuses to collect them into one response",
            ("output",),
            "produce all ensemble outputs downstream of the same decoupled step",
        )


def _origin_of(label: int, origin: Mapping[int, Step]) -> str:
    return (
        f"decoupled {origin[label].label}"
        if label
        else "the ensemble inputs, through no decoupled step"
    )
