"""PL695-PL696: BLS requests model.py sends to other models of the repository.

`pb_utils.InferenceRequest(model_name=..., inputs=[...], requested_output_names=[...])`
is an ordinary inference request, checked by the core when it runs: a model that is
not loaded is "not ready", and tensor names the callee does not declare are refused
(`infer_request.cc` Normalize, `model.cc` GetInput/GetOutput). Only literal names are
checked, against the models of the repository being checked.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.analysis.tensors import model_tensors
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import name_list
from pbtxt_lint.rules.artifacts.python_common import line_span, python_models
from pbtxt_lint.rules.base import Finding, rule
from pbtxt_lint.textproto.binder import suggest

WARNING = Severity.WARNING


@rule(
    "PL695",
    "python-bls-unknown-model",
    WARNING,
    "A BLS request to a model name that is not in the repository.",
    triton="Model <name> - Error when running inference: Failed for execute the inference "
    "request. Model '<name>' is not ready.",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_bls_unknown_model(context: ModelContext) -> Iterator[Finding]:
    """A BLS call names the model it runs; Triton looks the name up among the loaded
    models when the call executes, so a typo (`text_encoder` for the folder
    `text-encoder`) loads fine and then fails every request that reaches the call.
    Models served from another `--model-repository` are not seen here: the rule only
    speaks when a model of this repository has nearly the same name (case, `-`/`_` or
    one letter apart).

    Bad:
        pb_utils.InferenceRequest(model_name="text_encoder", ...)   (folder: text-encoder)
    Good:
        pb_utils.InferenceRequest(model_name="text-encoder", ...)
    """
    others = [n for n in context.repository.models if n != context.model.name]
    for model in python_models(context):
        for call in model.signature.execute_facts.bls:
            name = call.model_name
            if name is None or name in context.repository.models:
                continue
            guess = _misspelt(name, others)
            if guess is None:
                continue
            yield Finding(
                f'{model.shown} line {call.line} sends a BLS request to model "{name}", which is '
                f'not in this repository ("{guess}" is): every request that reaches the call '
                f'fails with HTTP 500 "Model {name} - Error when running inference: Failed for '
                f"execute the inference request. Model '{name}' is not ready.\"",
                file=model.artifact.opened,
                span=line_span(call.line),
                hint=f'model_name="{guess}"',
            )


def _misspelt(name: str, models: list[str]) -> str | None:
    """The model `name` is a misspelling of: the same name once case, `-` and `_` are
    ignored, or one edit away (for names of 5 characters or more)."""

    def key(text: str) -> str:
        return text.lower().replace("-", "_")

    for model in sorted(models):
        if key(model) == key(name):
            return model
    if len(name) < 5:
        return None
    close = [m for m in sorted(models) if _one_edit(key(name), key(m))]
    return close[0] if len(close) == 1 else None


def _one_edit(a: str, b: str) -> bool:
    """Whether one insertion, deletion, substitution or transposition turns a into b."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and (a[diff[1]] == b[diff[0]])
        )
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = next((k for k in range(len(short)) if short[k] != long[k]), len(short))
    return short[i:] == long[i + 1 :]


@rule(
    "PL696",
    "python-bls-unknown-tensor",
    WARNING,
    "A BLS request with an input or requested output the called model does not declare.",
    triton="Model <model> - Error when running inference: unexpected inference output "
    "'<name>' for model '<model>'",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_bls_unknown_tensor(context: ModelContext) -> Iterator[Finding]:
    """The called model's config decides the names a BLS request may use: inputs must
    be its inputs, `requested_output_names` its outputs. Any other name fails the
    call ("unexpected inference input" / "unexpected inference output"), and with it
    every request that reaches it.

    Bad:
        requested_output_names=["detections"]      (person_detector's output: DETECTIONS)
    Good:
        requested_output_names=["DETECTIONS"]
    """
    for model in python_models(context):
        for call in model.signature.execute_facts.bls:
            callee = context.workspace.model(call.model_name) if call.model_name else None
            if callee is None or callee.model.name == context.model.name:
                continue
            completed = callee.completed
            config = completed.config
            if config is None or completed.error is not None or not completed.io_known:
                continue
            tensors = model_tensors(config)
            outputs = [io.name for io in config.output]
            wrong = [
                (n, call.line, "output", outputs) for n in call.outputs or () if n not in outputs
            ]
            inputs = sorted(tensors.requestable)
            wrong += [(n, line, "input", inputs) for n, line in call.inputs if n not in inputs]
            for name, line, kind, known in wrong:
                guess = suggest(name, known, cutoff=0.5)
                yield Finding(
                    f'{model.shown} line {line} sends a BLS request to "{call.model_name}" with '
                    f'{kind} "{name}", which that model does not declare (its {kind}s: '
                    f"{name_list(known)}): every request that reaches the call fails with HTTP "
                    f'500 "Model {call.model_name} - Error when running inference: unexpected '
                    f"inference {kind} '{name}' for model '{call.model_name}'\"",
                    file=model.artifact.opened,
                    span=line_span(line),
                    hint=f'did you mean "{guess}"?'
                    if guess
                    else f"use the {kind} names of {call.model_name}'s config",
                )


@rule(
    "PL655",
    "python-bls-decoupled-callee",
    WARNING,
    "A BLS exec() without decoupled=True on a model that is decoupled: every call fails.",
    triton="Model <name> - Error when running inference: Model <name> is using the decoupled. "
    "The current BLS request call doesn't support models using the decoupled transaction "
    "policy. Please use 'decoupled=True' argument to the 'exec' or 'async_exec' calls for "
    "decoupled models.",
    scope=Scope.MODEL_FILES,
    backend=("python", "vllm"),
)
def python_bls_decoupled_callee(context: ModelContext) -> Iterator[Finding]:
    """`request.exec()` and `request.async_exec()` wait for exactly one response, so the
    python backend refuses to run them on a decoupled model (an LLM served by vLLM or
    TensorRT-LLM, a streaming Python model); `exec(decoupled=True)` returns an iterator
    over its responses instead (python_backend src/request_executor.cc,
    `RequestExecutor::Infer`). The call returns a response that carries this error and
    no outputs (observed on tritonserver 2.51: code that reads the outputs then fails
    with "Output tensor for inference response should not be empty."). The model
    loads; every request that reaches the call fails.

    Bad:
        response = pb_utils.InferenceRequest(model_name="vllm_model", ...).exec()
    Good:
        for response in pb_utils.InferenceRequest(model_name="vllm_model", ...).exec(
            decoupled=True
        ):
    """
    # deferred: the reader of exec calls loads with the first model.py that sends BLS requests
    from pbtxt_lint.artifacts.python_bls_exec import bls_execs

    for model in python_models(context):
        calls = {call.line: call for call in model.signature.execute_facts.bls}
        for done in bls_execs(model.signature.module, frozenset(calls)):
            name = calls[done.request_line].model_name
            callee = context.workspace.model(name) if name else None
            if done.decoupled is not False or callee is None or name == context.model.name:
                continue
            completed = callee.completed
            config = completed.config
            if config is None or not config.model_transaction_policy.decoupled:
                continue
            yield Finding(
                f'{model.shown} line {done.line} runs a BLS request to "{name}" with exec() '
                f'and no decoupled=True, but "{name}" is decoupled: the call answers with an '
                f'error instead of outputs ("Model {name} - Error when running inference: Model '
                f"{name} is using the decoupled. The current BLS request call doesn't support "
                "models using the decoupled transaction policy. Please use 'decoupled=True' "
                "argument to the 'exec' or 'async_exec' calls for decoupled models.\"), so "
                "every request that reaches it fails or gets no output",
                file=model.artifact.opened,
                span=line_span(done.line),
                hint="call exec(decoupled=True) and iterate over the responses it returns "
                "(the last one carries the final flag)",
            )
