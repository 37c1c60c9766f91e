"""PL652-PL653, PL656: TritonPythonModel methods the stub cannot call, execute's return,
and BLS requests sent while the model loads.

The Python backend's stub calls the model class with fixed arguments (python_backend
src/pb_stub.cc: `Stub::AutoCompleteModelConfig`, `Stub::Initialize`,
`Stub::ProcessRequests`) and wants a list back from execute unless the model is
decoupled (`Stub::ProcessReturnedResponses`). `pbtxt_lint.artifacts.python_methods`
reads the class with `ast` and works out Python's TypeError for each call that fails.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import ERROR, WARNING, Finding, ModelContext, Scope, Stage, rule
from pbtxt_lint.rules.artifacts.common import loaded, shown_path
from pbtxt_lint.rules.artifacts.python_common import line_span, python_models

_STUB_SAYS = {
    "load": "Failed to initialize Python stub: TypeError: ",
    "auto-complete": "Failed to initialize Python stub for auto-complete: TypeError: ",
}
_SIGNATURES = {
    "__init__": "def __init__(self)",
    "auto_complete_config": "@staticmethod def auto_complete_config(auto_complete_model_config)",
    "initialize": "def initialize(self, args)",
    "execute": "def execute(self, requests)",
}


@rule(
    "PL652",
    "python-method-signature",
    ERROR,
    "A TritonPythonModel __init__, initialize or auto_complete_config that cannot take the "
    "stub's call: the model fails to load.",
    triton="Failed to initialize Python stub: TypeError: TritonPythonModel.initialize() takes "
    "1 positional argument but 2 were given",
    stage=Stage.LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_method_signature(context: ModelContext) -> Iterator[Finding]:
    """The stub creates the model with `TritonPythonModel()`, calls
    `TritonPythonModel.auto_complete_config(config)` on the class (when auto-complete is
    on) and `initialize(args)` on the instance, all while the model loads. A method that
    cannot take that call raises TypeError and the load fails: `initialize(self)`
    without the args dict, an `__init__` with required parameters, and an
    `auto_complete_config(self, config)` without `@staticmethod` (called on the class,
    `config` is missing). Confirmed with tritonserver 2.51's Python backend.

    Bad:
        def initialize(self):
        def auto_complete_config(self, auto_complete_model_config):
    Good:
        def initialize(self, args):
        @staticmethod
        def auto_complete_config(auto_complete_model_config):
    """
    # deferred: the reader of the model class loads with the first model.py
    from pbtxt_lint.rules.api import bad_calls, model_class

    for artifact, signature in loaded(context, "python"):
        cls = model_class(signature.module, signature.class_line) if signature.parsed else None
        if cls is None:
            continue
        for call in bad_calls(cls):
            if call.when == "request" or (
                call.when == "auto-complete" and not context.auto_complete
            ):
                continue
            yield Finding(
                f"{shown_path(artifact, context)} line {call.line}: the Python backend calls "
                f"{call.method} in a way its def does not take, so '{context.folder.name}' fails "
                f'to load with "{_STUB_SAYS[call.when]}{call.message}"',
                file=artifact.opened,
                span=line_span(call.line),
                hint=f"declare it as the stub calls it: {_SIGNATURES[call.method]}",
            )


@rule(
    "PL653",
    "python-execute-call-or-return",
    WARNING,
    "A TritonPythonModel.execute that cannot take the request list, or that returns something "
    "other than a list on a model that is not decoupled: every request fails.",
    triton="Failed to process the request(s) for model '<instance>', message: Expected a list "
    "in the execute return, found type '<class 'c_python_backend_utils.InferenceResponse'>'.",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_execute_call_or_return(context: ModelContext) -> Iterator[Finding]:
    """The stub calls `execute(requests)` with the list of requests of one batch and,
    unless the model is decoupled, wants one list back with a response (or None) per
    request. An `execute(self)` without the requests parameter, or one that returns a
    single InferenceResponse, a tuple or a dict, fails every request with a 500 after
    the model loaded fine. Confirmed with tritonserver 2.51's Python backend.

    Bad:
        return pb_utils.InferenceResponse(output_tensors=[out])
    Good:
        return [pb_utils.InferenceResponse(output_tensors=[out])]
    """
    # deferred: the reader of the model class loads with the first model.py
    from pbtxt_lint.rules.api import bad_calls, model_class, non_list_returns

    for model in python_models(context):
        cls = model_class(model.signature.module, model.signature.class_line)
        if cls is None:
            continue
        fails = (
            f'every request fails with "Failed to process the request(s) for model '
            f"'{context.folder.name}_0', message: "
        )
        for call in bad_calls(cls):
            if call.when != "request":
                continue
            yield Finding(
                f"{model.shown} line {call.line}: the Python backend calls execute(requests), "
                f'which its def does not take; {fails}TypeError: {call.message}"',
                file=model.artifact.opened,
                span=line_span(call.line),
                hint=f"declare it as the stub calls it: {_SIGNATURES['execute']}",
            )
        facts = model.signature.execute_facts
        if model.decoupled or facts.reads_policy or facts.generator:
            continue  # a decoupled execute returns None (PL692)
        for returned in non_list_returns(cls):
            found = f"found type '<class '{returned.type_name}'>'."
            says = (
                "Expected an 'InferenceResponse' object in the execute function return list, "
                + found
                if returned.item
                else "Expected a list in the execute return, " + found
            )
            what = "a list of Tensors" if returned.item else f"a {returned.type_name}"
            yield Finding(
                f"{model.shown} line {returned.line}: execute returns {what}, but "
                f"'{context.folder.name}' is not decoupled, so the stub wants a list with one "
                f'InferenceResponse per request; {fails}{says}"',
                file=model.artifact.opened,
                span=line_span(returned.line),
                hint="return a list with one InferenceResponse per request, in the order of "
                "the requests: return [pb_utils.InferenceResponse(output_tensors=[...])]",
            )


@rule(
    "PL656",
    "python-bls-while-loading",
    ERROR,
    "model.py sends a BLS request (InferenceRequest.exec()) from __init__, initialize or "
    "auto_complete_config: the model fails to load.",
    triton="failed to load '<model>' version 1: Internal: TritonModelException: BLS is only "
    "supported during the 'execute' function.",
    stage=Stage.LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_bls_while_loading(context: ModelContext) -> Iterator[Finding]:
    """The stub counts the model as initialized only once `initialize` has returned, and
    `InferenceRequest.exec()` refuses to run before that (python_backend
    src/infer_request.cc, `InferRequest::Exec`: "BLS is only supported during the
    'execute' function."). A warm-up request to another model sent from `initialize`,
    directly or through a method it calls, therefore fails the load. Calls inside a
    `try` with a handler, and in functions defined there for later (a thread, a
    callback), are left alone. Confirmed with tritonserver 2.51's Python backend
    (tests/test_python_runtime_live.py).

    Bad:
        def initialize(self, args):
            pb_utils.InferenceRequest(model_name="encoder", ...).exec()  # warm-up
    Good:
        def execute(self, requests):
            if not self.warm:
                pb_utils.InferenceRequest(model_name="encoder", ...).exec()
                self.warm = True
    """
    # deferred: the reader of the model class loads with the first model.py
    from pbtxt_lint.rules.api import load_time_bls, model_class

    for artifact, signature in loaded(context, "python"):
        cls = model_class(signature.module, signature.class_line) if signature.parsed else None
        if cls is None:
            continue
        for bls in load_time_bls(cls):
            if bls.method == "auto_complete_config" and not context.auto_complete:
                continue
            yield Finding(
                f"{shown_path(artifact, context)} line {bls.line} sends a BLS request while "
                f"the model loads (reached from {bls.method}), so '{context.folder.name}' "
                'fails to load with "TritonModelException: BLS is only supported during the '
                "'execute' function.\"",
                file=artifact.opened,
                span=line_span(bls.line),
                hint="send it from execute (a warm-up: on the first request)",
            )
