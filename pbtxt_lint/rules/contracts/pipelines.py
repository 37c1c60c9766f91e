"""PL920: what an ensemble's steps make of its clients' requests.

An ensemble's transaction policy is not its own: Triton sets it decoupled when any
step is (`EnsembleModel` in core ensemble_model.cc, from the steps' configs), and the
HTTP and gRPC front ends refuse plain inference on a decoupled model
(`HTTPAPIServer::CheckTransactionPolicy`, `ModelInferHandler`). The step's batching
(PL527) and sequence batching (PL529) reach the clients the same way; the ensemble's
contract (`analysis.contract`) holds all three, and `pbtxt-lint request` checks a
client's body against them.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.contract import model_contract
from pbtxt_lint.rules.api import INFO, Finding, ModelContext, Scope, Stage, rule


@rule(
    "PL920",
    "ensemble-streaming-only",
    INFO,
    "An ensemble with a decoupled step: Triton makes it decoupled, so plain HTTP /infer "
    "and gRPC ModelInfer requests to it fail.",
    triton="HTTP end point doesn't support models with decoupled transaction policy",
    stage=Stage.INFERENCE,
    scope=Scope.ENSEMBLE,
)
def ensemble_streaming_only(context: ModelContext) -> Iterator[Finding]:
    """A streaming LLM (vLLM, TensorRT-LLM in decoupled mode, a Python model that
    sends through its response sender) makes every ensemble around it decoupled,
    whatever the ensemble's own config says. Clients then have to stream: HTTP
    `/v2/models/<ensemble>/generate_stream` (or `/generate`), or gRPC
    `ModelStreamInfer`. A client written for `/v2/models/<ensemble>/infer` (the
    tritonclient `infer()` call, perf_analyzer without `--streaming`) gets an error.
    Observed on tritonserver 2.51: HTTP 501 `{"error":"HTTP end point doesn't support
    models with decoupled transaction policy"}` for `/infer`; the same ensemble answers
    on `/generate` and `/generate_stream`. Over gRPC the refusal is
    `[StatusCode.UNIMPLEMENTED] ModelInfer RPC doesn't support models with decoupled
    transaction policy` (server `grpc/infer_handler.cc` ModelInferHandler::Execute).
    An info, not a warning: the repository is right for streaming clients, and the
    client half is what `pbtxt-lint request` checks.

    Bad:
        (a client sends POST /v2/models/chat/infer to an ensemble whose llm step is decoupled)
    Good:
        (it streams: POST /v2/models/chat/generate_stream, or gRPC ModelStreamInfer)
    """
    contract = model_contract(context)
    if contract is None or not contract.ensemble or not contract.decoupled:
        return
    steps = contract.decoupled_models
    named = ", ".join(f"'{s}'" for s in steps) or "one of its steps"
    index = _step_index(context, steps[0]) if steps else None
    yield Finding(
        f"ensemble '{contract.name}' is decoupled because its step {named} is: Triton sets "
        "the flag from the steps, so a plain request to POST /v2/models/"
        f"{contract.name}/infer fails with HTTP 501 \"HTTP end point doesn't support models "
        'with decoupled transaction policy", and gRPC ModelInfer (tritonclient infer(), '
        'perf_analyzer without --streaming) with [StatusCode.UNIMPLEMENTED] "ModelInfer RPC '
        "doesn't support models with decoupled transaction policy\"",
        at=("ensemble_scheduling", "step", index, "model_name") if index is not None else None,
        hint=f"clients stream: POST /v2/models/{contract.name}/generate_stream (or "
        "/generate), or gRPC ModelStreamInfer; `pbtxt-lint request` checks a request body",
    )


def _step_index(context: ModelContext, name: str) -> int | None:
    config = context.effective
    if config is None:
        return None
    for index, step in enumerate(config.ensemble_scheduling.step):
        if step.model_name == name:
            return index
    return None
