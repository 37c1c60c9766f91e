"""PL659: a declared output that some paths of model.py's execute leave out of the
response.

The Python backend sends the tensors a response holds and never checks that a requested
output is among them (python_backend `infer_response.cc` InferResponse::Send sends
`OutputTensors()`; `PruneOutputTensors` only drops the ones not asked for). A client
that asks for the output then gets HTTP 200 without it; in an ensemble, a step that
reads it never gets its input, and an ensemble output is simply missing
(`ensemble_scheduler.cc` CheckAndSetEnsembleOutput skips it; older releases failed with
"unexpected deadlock, at least one output is not set while no more ensemble steps can
be made"). Which tensors each `pb_utils.InferenceResponse` holds comes from the value
flow of `execute` (`pbtxt_lint.artifacts.python_flow`): tensors with literal names in
lists, followed through appends, branches and helper calls, and comprehensions over a
list or tuple of literal names (`[pb_utils.Tensor(n, d[n]) for n in NAMES]`). Error responses
(`InferenceResponse(error=...)`) carry no outputs by design and are not counted, nor are
outputs added only when `request.requested_output_names()` asks for them, nor
decoupled models (whose responses may each carry part of the answer).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import WARNING, Finding, ModelContext, Scope, rule
from pbtxt_lint.rules.artifacts.python_common import (
    PythonModel,
    consumers,
    line_span,
    python_models,
)

if TYPE_CHECKING:  # the flow loads with the first model.py
    from pbtxt_lint.rules.api import ResponseValue


@rule(
    "PL659",
    "python-output-omitted",
    WARNING,
    "model.py answers without a declared output: on some paths, or, where an ensemble "
    "reads it, on every path.",
    triton="missing required input(s) ['<name>']. Please provide all required input(s).",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_output_omitted(context: ModelContext) -> Iterator[Finding]:
    """A postprocessing step that appends CLASSES only `if len(keep):` answers an image
    without detections with BOXES alone. Triton does not fill the gap: a client that
    asks for CLASSES gets HTTP 200 without it (observed on tritonserver 2.51:
    `"outputs":[]` when only CLASSES was asked for), an ensemble that returns it answers
    without it, and an ensemble step that reads it fails the request (HTTP 400 `in
    ensemble 'ens', expected 1 inputs but got 0 inputs for model 'consumer'. Got input(s)
    [], but missing required input(s) ['C']. Please provide all required input(s).`).
    Send the output on every path, empty when there is nothing to report (an array
    with a 0-sized axis), or answer with an error response. Left out by design, and
    not reported: error responses, answers that are empty on purpose
    (`output_tensors=[]`, as for a sequence's START request), outputs sent only when
    an optional input is or when `request.requested_output_names()` asks for them,
    branches on settings rather than on the request's data, and decoupled models. An
    output that no response holds on any path is reported where an ensemble reads it
    (its step then never gets the input, or the ensemble answers without it).

    Bad:
        outputs = [pb_utils.Tensor("BOXES", boxes)]
        if len(keep):
            outputs.append(pb_utils.Tensor("CLASSES", classes))
    Good:
        outputs = [pb_utils.Tensor("BOXES", boxes), pb_utils.Tensor("CLASSES", classes)]
    """
    for model in python_models(context):
        flow = model.flow
        if model.decoupled or not flow.complete:
            continue
        sites = [r for r in flow.responses if r.sent is not None]
        sent = set().union(*(r.sent.may for r in sites if r.sent is not None))
        for io in model.config.output:
            if io.name in flow.guarded:
                continue
            if io.name not in sent:
                yield from _never_sent(context, model, io.name, sites)
                continue
            lacking = [r for r in sites if _lacks(r, io.name)]
            if not lacking:
                continue
            site = lacking[0]
            assert site.sent is not None
            made = sorted({o.line for o in flow.outputs if o.name == io.name})
            tensor = f'pb_utils.Tensor("{io.name}", ...)' + (f" at line {made[0]}" if made else "")
            if io.name in site.sent.may:
                how = (
                    f'answers without "{io.name}" on some paths: {tensor} joins the response '
                    "only under a condition on the request's data"
                )
            else:
                how = f'answers without "{io.name}", which the code sends on other paths ({tensor})'
            yield Finding(
                f"{model.shown} line {site.line} {how}. A request that takes that path and asks "
                f'for "{io.name}" gets HTTP 200 without it' + _ensemble_effect(context, io.name),
                file=model.artifact.opened,
                span=line_span(site.line),
                hint=f'send "{io.name}" on every path (an empty array when there is nothing '
                "to report), or answer with pb_utils.InferenceResponse(error=...)",
            )


def _never_sent(
    context: ModelContext, model: PythonModel, name: str, sites: list[ResponseValue]
) -> Iterator[Finding]:
    """A declared output no response holds on any path, where an ensemble reads it: the
    contract between the steps says the step makes it, and model.py never does."""
    if not sites or any(r.sent is None or r.sent.unknown for r in sites):
        return
    if any(o.name == name for o in model.flow.outputs):
        return  # a Tensor of that name exists: the flow does not see where it goes
    effect = _ensemble_effect(context, name)
    if not effect:
        return
    held = sorted(set().union(*(r.sent.may for r in sites if r.sent is not None)))
    holds = ", ".join(f'"{n}"' for n in held) if held else "no tensor"
    yield Finding(
        f'{model.shown} never answers with "{name}", which its config declares: its '
        f"responses (line {sites[0].line}) hold {holds}" + effect,
        file=model.artifact.opened,
        span=line_span(sites[0].line),
        hint=f'add pb_utils.Tensor("{name}", ...) to the response, or map the step to an '
        "output it makes",
    )


def _lacks(response: ResponseValue, name: str) -> bool:
    """Whether a response leaves out `name` on some path the request's data decides:
    not a response that is empty on purpose (`output_tensors=[]`, the answer to a
    control request), nor one in a branch the same on every request."""
    sent = response.sent
    if sent is None or sent.unknown or response.fixed or name in sent.must:
        return False
    return bool(sent.may)


def _ensemble_effect(context: ModelContext, output: str) -> str:
    """What an ensemble that uses this model does without the output."""
    for consumer in consumers(context, output):
        if consumer.input.optional:
            continue
        return (
            f"; in ensemble '{consumer.ensemble}' the step '{consumer.model}' that reads it "
            f"then fails with HTTP 400 \"in ensemble '{consumer.ensemble}', ... inputs for "
            f"model '{consumer.model}'. ... missing required input(s) "
            f"['{consumer.input.name}']. Please provide all required input(s).\""
        )
    from pbtxt_lint.analysis.ensemble import graphs_running  # deferred: with an ensemble

    for graph in graphs_running(context):
        returned = {io.tensor for io in graph.outputs}
        for step in graph.steps_running(context.folder.name):
            for write in step.writes:
                if write.port == output and write.tensor in returned:
                    return (
                        f"; ensemble '{graph.config.name or graph.name}' then answers without "
                        f"its output '{write.tensor}' (HTTP 200)"
                    )
    return ""
