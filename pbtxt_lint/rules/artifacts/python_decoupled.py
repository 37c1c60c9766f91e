"""PL691-PL693: responses sent through the response sender, and the decoupled mode.

A decoupled model (`model_transaction_policy { decoupled: true }`) answers through
each request's response sender, as many times as it likes, ends each request's stream
with `TRITONSERVER_RESPONSE_COMPLETE_FINAL`, and returns None from `execute`. A model
that is not decoupled may use the sender for exactly one response (python_backend
`response_sender.cc` UpdateStateAndCounters: "Non-decoupled model cannot send more
than one response."), and the stub refuses a decoupled execute that returns anything
(`pb_stub.cc` ProcessReturnedResponses).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pbtxt_lint.rules.api import WARNING, Finding, ModelContext, Scope, rule
from pbtxt_lint.rules.artifacts.python_common import line_span, python_models

_DECOUPLE = "model_transaction_policy { decoupled: true }"


@rule(
    "PL691",
    "python-sender-not-decoupled",
    WARNING,
    "A model that is not decoupled streams responses, or never sends the final flag.",
    triton="Unable to send response. Non-decoupled model cannot send more than one response.",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_sender_not_decoupled(context: ModelContext) -> Iterator[Finding]:
    """Streaming code (one `sender.send(response)` per token, in a loop) needs the
    decoupled transaction policy. Without it the first response goes out and the
    second send raises, so the request fails: the HTTP client gets HTTP 500 with
    "expected a single response, got 2". Sending a single response with the final
    flag is fine on any model; a single response sent without the final flag (and
    never followed by it) leaves the request open forever (observed on tritonserver
    2.51: no answer).

    Bad:
        for token in tokens:
            sender.send(pb_utils.InferenceResponse([...]))      (not decoupled)
    Good:
        model_transaction_policy { decoupled: true }
    """
    for model in python_models(context):
        facts = model.signature.execute_facts
        if model.decoupled or facts.reads_policy:
            continue
        looped = [s for s in facts.sends if s.response and s.repeated]
        if not looped:
            answers = [s for s in facts.sends if s.response]
            if answers and not facts.final_flag and not any(s.flags for s in facts.sends):
                if not facts.returns_value:
                    yield _never_final(context, model.shown, model.artifact.opened, answers[0].line)
            continue
        line = looped[0].line
        yield Finding(
            f"{model.shown} line {line} sends responses in a loop through the response sender, "
            f"but '{context.folder.name}' is not decoupled: the second send of a request fails "
            'with "Unable to send response. Non-decoupled model cannot send more than one '
            'response." and the request gets HTTP 500 "expected a single response, got 2"',
            file=model.artifact.opened,
            span=line_span(line),
            hint=f"add {_DECOUPLE} to config.pbtxt (clients then use streaming requests), or "
            "send one response per request, with "
            "flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL",
        )


def _never_final(context: ModelContext, shown: str, opened: Path, line: int) -> Finding:
    return Finding(
        f"{shown} line {line} sends the response through the response sender without "
        f"TRITONSERVER_RESPONSE_COMPLETE_FINAL, and '{context.folder.name}' is not decoupled: "
        "the request never completes (the client waits until it times out)",
        file=opened,
        span=line_span(line),
        hint="send it with flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL (or return "
        "the responses from execute instead)",
    )


@rule(
    "PL692",
    "python-decoupled-returns-responses",
    WARNING,
    "A decoupled model whose execute returns responses.",
    triton="Python model '<instance>' is using the decoupled mode and the execute function "
    "must return None.",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_decoupled_returns_responses(context: ModelContext) -> Iterator[Finding]:
    """In decoupled mode responses go through each request's response sender and
    `execute` returns None; returning a list (even an empty one) fails every
    execution. Models copied from a regular example into a decoupled config (or the
    reverse) hit this.

    Bad:
        return responses                (decoupled: true)
    Good:
        sender.send(response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
    """
    for model in python_models(context):
        facts = model.signature.execute_facts
        if not model.decoupled or not facts.line or facts.generator or facts.reads_policy:
            continue
        returned = [r for r in facts.returns if r.kind != "none"]
        if not returned:
            continue
        line = returned[0].line
        yield Finding(
            f"{model.shown} line {line}: execute returns responses, but '{context.folder.name}' "
            "is decoupled: every request fails with \"Python model '...' is using the "
            'decoupled mode and the execute function must return None."',
            file=model.artifact.opened,
            span=line_span(line),
            hint="send each response through request.get_response_sender() (the last with "
            "flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL) and return None, or remove "
            f"{_DECOUPLE} if the model answers once per request",
        )


@rule(
    "PL693",
    "python-decoupled-no-final",
    WARNING,
    "A decoupled model that never sends TRITONSERVER_RESPONSE_COMPLETE_FINAL.",
    triton="(no message: the response stream never ends)",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_decoupled_no_final(context: ModelContext) -> Iterator[Finding]:
    """Each request of a decoupled model stays open until its sender sends the final
    flag (`sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)`, alone or
    with the last response). Without it the client receives the responses and then
    waits for the end of the stream forever (gRPC streams and /generate_stream hang,
    /infer never answers).

    Bad:
        for word in words:
            sender.send(pb_utils.InferenceResponse([...]))
    Good:
        for word in words:
            sender.send(pb_utils.InferenceResponse([...]))
        sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
    """
    for model in python_models(context):
        facts = model.signature.execute_facts
        if not model.decoupled or not facts.sends or facts.final_flag:
            continue
        if any(send.flags for send in facts.sends):
            continue
        line = facts.sends[0].line
        yield Finding(
            f"{model.shown} line {line} sends responses, but nothing in model.py sends "
            "TRITONSERVER_RESPONSE_COMPLETE_FINAL: every request of the decoupled model "
            f"'{context.folder.name}' stays open, and clients wait for the end of the stream "
            "until they time out",
            file=model.artifact.opened,
            span=line_span(line),
            hint="after the last response: sender.send(flags=pb_utils."
            "TRITONSERVER_RESPONSE_COMPLETE_FINAL)",
        )
