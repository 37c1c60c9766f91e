"""PL668, PL669, PL677, PL694: what execute returns for the requests it gets.

The stub hands `execute` every request of a batch and, for a model that is not
decoupled, requires a list with exactly one response per request (python_backend
`pb_stub.cc` ProcessReturnedResponses: "Number of InferenceResponse objects do not
match the number of InferenceRequest objects"); returning None answers nothing. A
request may leave out an input the config marks `optional: true`, and then
`get_input_tensor_by_name` returns None.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import EMPTY_BATCH, WARNING, Finding, ModelContext, Scope, rule
from pbtxt_lint.rules.artifacts.python_common import line_span, python_models


@rule(
    "PL668",
    "python-one-response-for-many",
    WARNING,
    "execute answers a fixed number of requests where Triton may hand it more.",
    triton="Number of InferenceResponse objects do not match the number of InferenceRequest "
    "objects. InferenceRequest(s) size is:<n>, and InferenceResponse(s) size is:1",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_one_response_for_many(context: ModelContext) -> Iterator[Finding]:
    """With dynamic (or sequence) batching on a model that batches, Triton hands
    `execute` several requests at once, and it must return one response per request,
    in order. Code copied from a single-request example (`request = requests[0]`, or
    all requests stacked into one array and answered with `return [response]`) works
    while requests arrive one by one and fails as soon as two are batched: the whole
    execution fails and every request in it gets HTTP 500 (observed on tritonserver
    2.51 with four concurrent requests; the sequence batcher even pads a batch with
    null requests for idle sequence slots).

    Bad:
        request = requests[0]
        ...
        return [pb_utils.InferenceResponse([out])]
    Good:
        responses = []
        for request in requests:
            ...
            responses.append(pb_utils.InferenceResponse([out]))
        return responses
    """
    for model in python_models(context):
        facts = model.signature.execute_facts
        if not facts.line or model.decoupled or not model.several_requests:
            continue
        fixed = [r for r in facts.returns if r.kind == "list" and r.items >= 1]
        if not fixed or len(fixed) != len(facts.returns):
            continue
        count = max(r.items for r in fixed)
        if model.config.max_batch_size <= count:
            continue  # never more than `count` requests at once
        batcher = (
            "dynamic_batching" if model.config.HasField("dynamic_batching") else "sequence_batching"
        )
        how = (
            f"execute reads requests[0] (line {facts.first_request[0]}) and returns"
            if facts.first_request
            else "execute returns"
        )
        yield Finding(
            f"{model.shown}: {how} a list of {count} response{'s' if count > 1 else ''} "
            f"(line {fixed[0].line}), but with {batcher} and max_batch_size "
            f"{model.config.max_batch_size} Triton hands execute up to "
            f"{model.config.max_batch_size} requests at once: when {count + 1} requests are "
            'batched, all of them fail with HTTP 500 "Number of InferenceResponse objects do '
            f"not match the number of InferenceRequest objects. InferenceRequest(s) size is:"
            f'{count + 1}, and InferenceResponse(s) size is:{count}"',
            file=model.artifact.opened,
            span=line_span(fixed[0].line),
            hint="loop over requests and return one InferenceResponse per request, in order",
        )


@rule(
    "PL677",
    "python-request-without-response",
    WARNING,
    "A path through execute's loop over the requests that appends no response.",
    triton="Number of InferenceResponse objects do not match the number of InferenceRequest "
    "objects. InferenceRequest(s) size is:1, and InferenceResponse(s) size is:0",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_request_without_response(context: ModelContext) -> Iterator[Finding]:
    """execute must return one response per request. When the loop over the requests
    appends its response only on some paths (an `if` without an `else`, a `continue`
    before the append), a request that takes the other path leaves the list short, and
    the stub fails the whole execution: that request, and every request batched with
    it, gets HTTP 500 (observed on tritonserver 2.51). Nothing to return is still an
    answer: an empty output, or an error response that fails only that request. (A
    branch taken only when a required input is missing never runs: Triton refuses
    such a request before execute; so does a test that fails only on a request with
    an empty batch.)

    Bad:
        for request in requests:
            boxes = detect(request)
            if len(boxes):
                responses.append(pb_utils.InferenceResponse([to_tensor(boxes)]))
        return responses
    Good:
        for request in requests:
            boxes = detect(request)  # an empty [0, 4] array when nothing is found
            responses.append(pb_utils.InferenceResponse([to_tensor(boxes)]))
        return responses
    """
    for model in python_models(context):
        if model.decoupled:
            continue
        required = {io.name for io in model.config.input if not io.optional}
        if model.config.max_batch_size > 0:
            required.add(EMPTY_BATCH)  # a batch of no items: no client sends one
        gap = next(
            (
                gap
                for gap in model.signature.execute_facts.response_gaps
                # `if tensor is None: continue` never runs for a required input: Triton
                # refuses a request that lacks one before execute sees it.
                if not any(names <= required for names in gap.when_absent)
            ),
            None,
        )
        if gap is None:
            continue
        left_out = sorted({name for names in gap.when_absent for name in names} - required)
        who = (
            f" (a request that leaves out the optional input {', '.join(left_out)})"
            if left_out
            else ""
        )
        yield Finding(
            f"{model.shown}: {gap.how}{who}, the request gets no response in "
            f"'{gap.responses}' (appended at line {gap.append_line}), so execute returns "
            "fewer responses than requests: that request and every request batched with it "
            'fail with HTTP 500 "Number of InferenceResponse objects do not match the number '
            "of InferenceRequest objects. InferenceRequest(s) size is:1, and "
            'InferenceResponse(s) size is:0"',
            file=model.artifact.opened,
            span=line_span(gap.line),
            hint="append a response on that path too: an empty output, or "
            'pb_utils.InferenceResponse(error=pb_utils.TritonError("...")) to fail only '
            "that request",
        )


@rule(
    "PL669",
    "python-optional-input-unchecked",
    WARNING,
    "model.py uses an optional input without checking that the request sent it.",
    triton="AttributeError: 'NoneType' object has no attribute 'as_numpy'",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_optional_input_unchecked(context: ModelContext) -> Iterator[Finding]:
    """`optional: true` lets a request leave an input out; `get_input_tensor_by_name`
    then returns None, and calling `.as_numpy()` on it fails the request with an
    AttributeError (HTTP 500). Test for None (or catch the error) and fall back to a
    default.

    Bad:
        top_k = pb_utils.get_input_tensor_by_name(request, "TOP_K").as_numpy()
    Good:
        tensor = pb_utils.get_input_tensor_by_name(request, "TOP_K")
        top_k = tensor.as_numpy() if tensor is not None else np.array([[10]])
    """
    for model in python_models(context):
        optional = {io.name for io in model.config.input if io.optional}
        reported: set[str] = set()
        for read in model.signature.execute_facts.input_reads:
            if read.name not in optional or read.guard != "unchecked" or read.name in reported:
                continue
            if read.decoupled is not None and read.decoupled != model.decoupled:
                continue  # code for the other transaction policy never runs
            reported.add(read.name)
            line = read.deref_line or read.line
            yield Finding(
                f'{model.shown} line {line} uses input "{read.name}" without checking for '
                "None, but the config marks it optional: a request that leaves it out fails "
                f'with HTTP 500 "{read.error}"',
                file=model.artifact.opened,
                span=line_span(line),
                hint=f'test the tensor for None and use a default when "{read.name}" is absent '
                "(or remove optional: true if every request sends it)",
            )


@rule(
    "PL694",
    "python-execute-returns-nothing",
    WARNING,
    "execute of a model that is not decoupled returns no responses and sends none.",
    triton="(no message: the request never completes)",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_execute_returns_nothing(context: ModelContext) -> Iterator[Finding]:
    """A model that is not decoupled answers by returning its list of responses from
    `execute`. If execute builds the responses but never returns them (a lost
    `return responses`) and sends nothing through a response sender either, no
    request ever gets an answer: clients wait until they time out (observed on
    tritonserver 2.51: no answer after 10 s).

    Bad:
        def execute(self, requests):
            responses = [...]
    Good:
        def execute(self, requests):
            responses = [...]
            return responses
    """
    for model in python_models(context):
        facts = model.signature.execute_facts
        if not facts.line or model.decoupled or facts.generator or facts.ends_in_raise:
            continue
        if facts.returns_value or facts.sender_lines or facts.sends:
            continue
        yield Finding(
            f"{model.shown}: execute (line {facts.line}) of '{context.folder.name}', which is "
            "not decoupled, returns no responses and sends none: every request waits for an "
            "answer that never comes, until the client times out",
            file=model.artifact.opened,
            span=line_span(facts.line),
            hint="return the list of responses, one per request",
        )
