"""How the Python backend's stub calls TritonPythonModel's methods, and which calls fail.

The stub (python_backend src/pb_stub.cc) makes fixed calls: `TritonPythonModel()`, then
`auto_complete_config(config)` on the class itself (`Stub::AutoCompleteModelConfig`, with
auto-complete on), `initialize(args)` on the instance (`Stub::Initialize`), and
`execute(requests)` for every batch of requests (`Stub::ProcessRequests`). A method whose
parameters do not take that call raises TypeError in the stub: at load for the first
three, on every request for execute. Python's message is predictable from the `def`
alone, so this module works it out with `ast`, never running the code.

`execute` must also return a list (one response per request) unless the model is
decoupled: `Stub::ProcessReturnedResponses` refuses anything else. And a BLS request
sent before `initialize` has returned is refused (`InferRequest::Exec` in
src/infer_request.cc checks `Stub::IsInitialized`, set after `initialize`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pbtxt_lint.artifacts.python_syntax import called_name

__all__ = [
    "LoadTimeBls",
    "StubCall",
    "bad_calls",
    "load_time_bls",
    "model_class",
    "non_list_returns",
]

STUB_CALLS: tuple[tuple[str, int, str], ...] = (
    ("__init__", 0, "load"),
    ("auto_complete_config", 1, "auto-complete"),
    ("initialize", 1, "load"),
    ("execute", 1, "request"),
)
"""(method, positional arguments the stub passes besides self, when)."""


@dataclass(frozen=True)
class StubCall:
    """A method the stub calls with arguments its `def` does not take."""

    method: str
    line: int
    when: str
    """"load", "auto-complete" (at load, with auto-complete on) or "request"."""
    message: str
    """Python's TypeError, as the stub prints it after "TypeError: "."""


def model_class(module: ast.Module | None, line: int) -> ast.ClassDef | None:
    """The TritonPythonModel class statement defined at `line` of the module."""
    if module is None:
        return None
    for node in ast.walk(module):
        if isinstance(node, ast.ClassDef) and node.name == "TritonPythonModel":
            if node.lineno == line:
                return node
    return None


def _opaque(cls: ast.ClassDef) -> bool:
    """Bases, a metaclass or class decorators may supply or wrap methods."""
    plain = all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases)
    return not plain or bool(cls.keywords) or bool(cls.decorator_list)


def _methods(cls: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef | None]:
    """The class body's functions by name (None where a later statement rebinds it)."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef | None] = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = node
        else:
            for target in _bound_names(node):
                found[target] = None
    return found


def _bound_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign | ast.AugAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


def bad_calls(cls: ast.ClassDef) -> tuple[StubCall, ...]:
    """The stub's calls this class's methods cannot take."""
    if _opaque(cls):
        return ()
    methods = _methods(cls)
    found = []
    for name, passed, when in STUB_CALLS:
        function = methods.get(name)
        if function is None:
            continue
        kinds = {_decorator(d) for d in function.decorator_list}
        if kinds - {"staticmethod", "classmethod"}:
            continue  # another decorator may change the signature
        bound = "classmethod" in kinds or (
            "staticmethod" not in kinds and name != "auto_complete_config"
        )  # auto_complete_config is called on the class: a plain function gets no self
        message = _call_error(function, passed + (1 if bound else 0))
        if message:
            found.append(StubCall(name, function.lineno, when, f"TritonPythonModel.{message}"))
    return tuple(found)


def _decorator(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return "?"


def _call_error(function: ast.FunctionDef | ast.AsyncFunctionDef, given: int) -> str:
    """Python's TypeError for calling `function` with `given` positional arguments ("" if
    the call binds)."""
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    name = f"{function.name}()"
    if given > len(positional) and arguments.vararg is None:
        takes = len(positional)
        noun = "argument" if takes == 1 else "arguments"
        verb = "was" if given == 1 else "were"
        return f"{name} takes {takes} positional {noun} but {given} {verb} given"
    required = len(positional) - len(arguments.defaults)
    missing = [a.arg for a in positional[given:required]]
    if missing:
        return f"{name} missing {_count(missing, 'required positional argument')}"
    keyword_only = [
        a.arg
        for a, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        if default is None
    ]
    if keyword_only:
        return f"{name} missing {_count(keyword_only, 'required keyword-only argument')}"
    return ""


def _count(names: list[str], what: str) -> str:
    """Python's `missing 2 required positional arguments: 'a' and 'b'`."""
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        listed = quoted[0]
    elif len(quoted) == 2:
        listed = f"{quoted[0]} and {quoted[1]}"
    else:
        listed = ", ".join(quoted[:-1]) + f", and {quoted[-1]}"
    return f"{len(names)} {what}{'s' if len(names) > 1 else ''}: {listed}"


@dataclass(frozen=True)
class NonList:
    """A `return` in execute whose value cannot be the list the stub wants."""

    line: int
    type_name: str
    """The type Python reports: `c_python_backend_utils.InferenceResponse`, `tuple`..."""
    item: bool = False
    """A list whose items are not responses (`[pb_utils.Tensor(...)]`), not another value."""


_DISPLAYS: tuple[tuple[type[ast.expr], str], ...] = (
    (ast.Tuple, "tuple"),
    (ast.Dict, "dict"),
    (ast.Set, "set"),
    (ast.DictComp, "dict"),
    (ast.SetComp, "set"),
    (ast.GeneratorExp, "generator"),
    (ast.JoinedStr, "str"),
)


def non_list_returns(cls: ast.ClassDef) -> tuple[NonList, ...]:
    """Returns of execute whose value is certainly not a list of responses: a single
    InferenceResponse, a tuple, a dict, a set, a generator, a str or a number, or a
    list of Tensors."""
    if _opaque(cls):
        return ()
    function = _methods(cls).get("execute")
    if function is None:
        return ()
    found = []
    for node in _own_returns(function):
        kind = _not_a_list(node.value)
        if kind:
            found.append(NonList(node.lineno, kind))
        elif isinstance(node.value, ast.List) and any(_is_tensor(e) for e in node.value.elts):
            found.append(NonList(node.lineno, "c_python_backend_utils.Tensor", item=True))
    return tuple(found)


def _is_tensor(node: ast.expr) -> bool:
    """`pb_utils.Tensor(...)`: an output tensor where a response belongs."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "Tensor"
    )


def _own_returns(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """The returns of `function` itself, not of functions or classes nested in it."""
    returns: list[ast.Return] = []
    pending: list[ast.AST] = list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if isinstance(node, ast.Return):
            returns.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return sorted(returns, key=lambda r: r.lineno)


def _not_a_list(value: ast.expr | None) -> str:
    if value is None:
        return ""
    for display, name in _DISPLAYS:
        if isinstance(value, display):
            return name
    if isinstance(value, ast.Constant) and value.value is not None:
        return type(value.value).__name__
    if isinstance(value, ast.Call):
        called = called_name(value)
        if called == "InferenceResponse":
            return "c_python_backend_utils.InferenceResponse"
        if called in ("tuple", "dict", "set"):
            return called
    return ""


LOADING_METHODS = ("__init__", "auto_complete_config", "initialize")
"""The methods the stub calls while the model loads, before it counts as initialized."""


@dataclass(frozen=True)
class LoadTimeBls:
    """A BLS request's `exec()` that runs while the model loads."""

    method: str
    """The method the stub calls (one of LOADING_METHODS) that reaches it."""
    line: int


def load_time_bls(cls: ast.ClassDef) -> tuple[LoadTimeBls, ...]:
    """`.exec()` on a `pb_utils.InferenceRequest` that runs while the model loads: in
    `__init__`, `auto_complete_config` or `initialize`, or in a method of the class they
    call through `self.`. Not in a nested function or lambda (it may run later, from
    execute or a thread), nor inside a `try` that has a handler (the error is caught)."""
    if _opaque(cls):
        return ()
    methods = _methods(cls)
    found: dict[int, LoadTimeBls] = {}
    for entry in LOADING_METHODS:
        pending, seen = [entry], set()
        while pending:
            name = pending.pop()
            function = methods.get(name)
            if name in seen or function is None:
                continue
            seen.add(name)
            requests = _request_names(function)
            for node in _runs_now(function.body):
                if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                    continue
                receiver = node.func.value
                if node.func.attr == "exec" and _is_request(receiver, requests):
                    line = node.func.end_lineno or node.lineno  # where `.exec` is written
                    found.setdefault(line, LoadTimeBls(entry, line))
                elif isinstance(receiver, ast.Name) and receiver.id == "self":
                    pending.append(node.func.attr)
    return tuple(sorted(found.values(), key=lambda bls: bls.line))


def _runs_now(body: list[ast.stmt]) -> list[ast.AST]:
    """The nodes of `body` that run when it runs, uncaught: not those of nested
    functions, lambdas and classes, nor the body of a `try` with a handler."""
    nodes: list[ast.AST] = []
    pending: list[ast.AST] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        nodes.append(node)
        if isinstance(node, ast.Try) and node.handlers:
            pending.extend([*node.handlers, *node.orelse, *node.finalbody])
            continue
        pending.extend(ast.iter_child_nodes(node))
    return nodes


def _is_request_call(node: ast.expr) -> bool:
    """`pb_utils.InferenceRequest(...)` (or the name imported alone)."""
    return isinstance(node, ast.Call) and called_name(node) == "InferenceRequest"


def _request_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Local names `function` binds to a new InferenceRequest."""
    return {
        target.id
        for node in ast.walk(function)
        if isinstance(node, ast.Assign) and _is_request_call(node.value)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def _is_request(node: ast.expr, requests: set[str]) -> bool:
    return _is_request_call(node) or (isinstance(node, ast.Name) and node.id in requests)
