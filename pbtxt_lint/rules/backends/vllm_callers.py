"""PL813: Python models of the repository that call a vLLM model through BLS.

A vLLM model is always decoupled (its auto_complete_config sets the policy, and
`initialize` asserts it), so it answers a request with a stream of responses. The
python backend's BLS refuses to run a request to a decoupled model unless the caller
asks for that stream: `exec(decoupled=True)` or `async_exec(decoupled=True)`. Ensembles
that run a vLLM step need nothing of the kind here: the core sees the vLLM model's
completed config (`analysis.autocomplete`), so the PL5xx data-flow checks judge it.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import WARNING, Finding, ModelContext, Scope, rule
from pbtxt_lint.rules.artifacts.python_common import line_span, python_models
from pbtxt_lint.rules.backends.vllm_common import BACKEND, vllm_config


@rule(
    "PL813",
    "vllm-bls-not-decoupled",
    WARNING,
    "A BLS request to a vLLM model run without decoupled=True.",
    triton="Model '<name>' is using the decoupled. The current BLS request call doesn't "
    "support models using the decoupled transaction policy. Please use 'decoupled=True' "
    "argument to the 'exec' or 'async_exec' calls for decoupled models.",
    scope=Scope.MODEL_FILES,
    backend=BACKEND,
)
def vllm_bls_not_decoupled(context: ModelContext) -> Iterator[Finding]:
    """`InferenceRequest(model_name=<a vLLM model>, ...).exec()` waits for exactly one
    response, which a decoupled model does not promise; the python backend refuses the
    call, and every request of the caller that reaches it fails. Iterate over the
    responses of `exec(decoupled=True)` instead (the last one carries the
    TRITONSERVER_RESPONSE_COMPLETE_FINAL flag, possibly without outputs).

    Bad:
        response = pb_utils.InferenceRequest(model_name="vllm_model", ...).exec()
    Good:
        for response in pb_utils.InferenceRequest(model_name="vllm_model", ...).exec(
            decoupled=True
        ):
            ...
    """
    for model in python_models(context):
        for call in model.signature.execute_facts.bls:
            if call.decoupled is not False or not call.model_name:
                continue
            callee = context.workspace.model(call.model_name)
            if callee is None or vllm_config(callee) is None:
                continue
            yield Finding(
                f"{model.shown} line {call.line} sends a BLS request to vLLM model "
                f'"{call.model_name}", which is decoupled, without decoupled=True: every '
                f"request that reaches the call fails with \"Model '{call.model_name}' is "
                "using the decoupled. The current BLS request call doesn't support models "
                'using the decoupled transaction policy."',
                file=model.artifact.opened,
                span=line_span(call.line),
                hint="call exec(decoupled=True) (or async_exec(decoupled=True)) and iterate "
                "over the responses",
            )
