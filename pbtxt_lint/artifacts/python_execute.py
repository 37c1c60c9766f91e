"""What a model.py's `execute` does with requests and responses, read from its syntax.

The Python backend's stub calls `execute(requests)` with every request of a batch and
checks what comes back (python_backend `pb_stub.cc` ProcessReturnedResponses): a model
that is not decoupled returns a list with one response per request; a decoupled model
returns None and answers through each request's response sender, which it must close
with `TRITONSERVER_RESPONSE_COMPLETE_FINAL` (`response_sender.cc`). Those facts are
syntax: which statements return what, which loops walk the requests, where the
senders send. They are collected here once, without the config; the rules decide.

Tensor names are followed through assignments, list appends and local helper calls
(`_TensorFlow`): a `pb_utils.Tensor` that reaches a `pb_utils.InferenceResponse` is an
answer; one that reaches a BLS `pb_utils.InferenceRequest` is an input of another
model. Everything here is bounded by the size of the tree (each node is visited a
fixed number of times).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

from pbtxt_lint.artifacts.python_responses import ResponseGap, response_gaps
from pbtxt_lint.artifacts.python_syntax import (
    Aliases,
    argument,
    is_name,
    local_function,
    own_nodes,
    string_literal,
)

FINAL_FLAG = "TRITONSERVER_RESPONSE_COMPLETE_FINAL"
Guard = Literal["checked", "unchecked", ""]
_TRY_STATEMENTS: tuple[type[ast.stmt], ...] = tuple(
    getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name)
)
_CATCHES_NONE = frozenset({"AttributeError", "Exception", "BaseException", "TypeError"})


@dataclass(frozen=True)
class InputRead:
    """A `get_input_tensor_by_name(request, "X")` with a literal name."""

    name: str
    line: int
    guard: Guard
    """"checked": the code tests the result for None (or catches the AttributeError);
    "unchecked": it dereferences the result (`.as_numpy()`) without a test; "": the
    result goes somewhere the reader does not follow."""
    deref_line: int = 0
    """Where an unchecked result is dereferenced."""
    error: str = ""
    """What Python raises there: "AttributeError: 'NoneType' object has no attribute
    'as_numpy'", "TypeError: 'NoneType' object is not subscriptable", ..."""
    decoupled: bool | None = None
    """The transaction policy under which the read runs: True when it sits in (or in a
    function only called from) the `if self.decoupled:` branch of a model.py that
    serves both modes, False in its else branch, None in both."""


@dataclass(frozen=True)
class SendCall:
    """A `.send(...)` on a response sender."""

    line: int
    response: bool
    """It sends a response (not only flags)."""
    flags: bool
    """It passes flags (the final flag, or a value the reader cannot see)."""
    repeated: bool
    """It sits in a loop other than the loop over the requests (or in a while loop)."""


@dataclass(frozen=True)
class BlsCall:
    """A BLS `pb_utils.InferenceRequest(...)`."""

    line: int
    model_name: str | None
    """The literal (or module-constant) model name; None when built at run time."""
    outputs: tuple[str, ...] | None
    """The literal requested_output_names; None when absent or not literal."""
    inputs: tuple[tuple[str, int], ...]
    """(name, line) of the literal-named Tensors passed as `inputs`."""


@dataclass(frozen=True)
class Return:
    line: int
    kind: Literal["none", "list", "value"]
    items: int = -1
    """For a list display without starred items: its length."""


@dataclass(frozen=True)
class ExecuteFacts:
    """What `TritonPythonModel.execute` does, as far as the syntax shows."""

    line: int = 0
    """Where execute is defined (0: not defined in the class)."""
    generator: bool = False
    returns: tuple[Return, ...] = ()
    ends_in_raise: bool = False
    first_request: tuple[int, ...] = ()
    """Lines that index the requests with 0 (`requests[0]`)."""
    per_request: bool = False
    """Some loop, comprehension or call walks the requests (or takes their length)."""
    sender_lines: tuple[int, ...] = ()
    """Lines anywhere in the module that call `get_response_sender()`."""
    sends: tuple[SendCall, ...] = ()
    final_flag: bool = False
    """TRITONSERVER_RESPONSE_COMPLETE_FINAL appears anywhere in the module."""
    reads_policy: bool = False
    """The code looks at the transaction policy (a name with "decoupled" in it, or
    `using_decoupled_model_transaction_policy`), so it may serve both modes."""
    input_reads: tuple[InputRead, ...] = ()
    config_reads: tuple[InputRead, ...] = ()
    """The `get_input_config_by_name` / `get_output_config_by_name` calls with a literal
    name, and whether their result is used without a None test."""
    response_tensors: frozenset[tuple[int, int]] = frozenset()
    """(line, column) of the Tensor(...) calls that reach an InferenceResponse."""
    bls_tensors: frozenset[tuple[int, int]] = frozenset()
    """(line, column) of the Tensor(...) calls that reach a BLS InferenceRequest."""
    bls: tuple[BlsCall, ...] = ()
    response_gaps: tuple[ResponseGap, ...] = ()
    """Paths of the loop over the requests that append no response to the returned list."""

    @property
    def returns_value(self) -> bool:
        return any(r.kind != "none" for r in self.returns)

    def read(self, name: str, line: int) -> InputRead | None:
        return _find(self.input_reads, name, line)

    def config_read(self, name: str, line: int) -> InputRead | None:
        return _find(self.config_reads, name, line)


def _find(reads: tuple[InputRead, ...], name: str, line: int) -> InputRead | None:
    for read in reads:
        if read.name == name and read.line == line:
            return read
    return None


def position(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


@dataclass
class _Index:
    """What the checks need from the whole tree, gathered in one walk (each walk of a
    large module costs about as much as a tenth of parsing it)."""

    up: dict[int, ast.AST] = field(default_factory=dict)
    """id(node) -> its parent."""
    calls: list[ast.Call] = field(default_factory=list)
    bindings: list[tuple[ast.AST, ast.AST]] = field(default_factory=list)
    """(target, value) of assignments, for loops and comprehensions."""
    identifiers: set[str] = field(default_factory=set)
    """Every Name id and attribute name."""

    @classmethod
    def of(cls, tree: ast.Module) -> _Index:
        index = cls()
        up = index.up
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            for child in ast.iter_child_nodes(node):
                up[id(child)] = node
                stack.append(child)
            if isinstance(node, ast.Call):
                index.calls.append(node)
            elif isinstance(node, ast.Name):
                index.identifiers.add(node.id)
            elif isinstance(node, ast.Attribute):
                index.identifiers.add(node.attr)
            elif isinstance(node, ast.Assign) and node.value is not None:
                index.bindings.extend((target, node.value) for target in node.targets)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign) and node.value is not None:
                index.bindings.append((node.target, node.value))
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                index.bindings.append((node.target, node.iter))
        index.calls.sort(key=position)  # source order, the order findings are reported in
        return index

    def function_of(self, node: ast.AST) -> ast.AST | None:
        """The function (or lambda) whose own code `node` is, None at module level."""
        current = self.up.get(id(node))
        while current is not None:
            if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                return current
            current = self.up.get(id(current))
        return None


def execute_facts(tree: ast.Module, cls: ast.ClassDef | None, aliases: Aliases) -> ExecuteFacts:
    """The facts of `cls.execute` (and of the module around it)."""
    index = _Index.of(tree)
    methods = _local_functions(tree, cls)
    execute = methods.get("execute") if cls is not None else None
    if execute is not None and not _defined_in(execute, cls):
        execute = None
    flow = _TensorFlow(aliases, index, methods)
    names = index.identifiers
    facts = ExecuteFacts(
        sender_lines=tuple(
            c.lineno
            for c in index.calls
            if isinstance(c.func, ast.Attribute) and c.func.attr == "get_response_sender"
        ),
        sends=tuple(_sends(index)),
        final_flag=FINAL_FLAG in names,
        reads_policy=any("decoupled" in name.lower() for name in names),
        input_reads=tuple(_input_reads(index, aliases, _TENSOR_LOOKUPS)),
        config_reads=tuple(_input_reads(index, aliases, _CONFIG_LOOKUPS)),
        response_tensors=flow.reaching("InferenceResponse"),
        bls_tensors=flow.reaching("InferenceRequest"),
        bls=tuple(_bls_calls(tree, aliases, index.calls)),
    )
    if execute is None:
        return facts
    requests = _requests_parameter(execute)
    body = list(own_nodes(execute))
    returns = _Returns(methods)
    last = execute.body[-1] if execute.body else None
    return ExecuteFacts(
        line=execute.lineno,
        generator=any(isinstance(n, ast.Yield | ast.YieldFrom) for n in body),
        returns=tuple(returns.of(n) for n in body if isinstance(n, ast.Return)),
        ends_in_raise=isinstance(last, ast.Raise),
        first_request=tuple(
            n.lineno
            for n in body
            if isinstance(n, ast.Subscript)
            and is_name(n.value, requests)
            and isinstance(n.slice, ast.Constant)
            and n.slice.value == 0
        ),
        per_request=_walks_requests(body, requests),
        sender_lines=facts.sender_lines,
        sends=facts.sends,
        final_flag=facts.final_flag,
        reads_policy=facts.reads_policy,
        input_reads=facts.input_reads,
        config_reads=facts.config_reads,
        response_tensors=facts.response_tensors,
        bls_tensors=facts.bls_tensors,
        bls=facts.bls,
        response_gaps=response_gaps(execute),
    )


# --- execute's own statements --------------------------------------------------------


def _defined_in(function: ast.AST, cls: ast.ClassDef | None) -> bool:
    return cls is not None and any(node is function for node in cls.body)


def _local_functions(
    tree: ast.Module, cls: ast.ClassDef | None
) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module-level functions and the model class's methods, by name."""
    found: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = node
    for node in cls.body if cls is not None else []:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = node
    return found


def _requests_parameter(function: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    positional = [*function.args.posonlyargs, *function.args.args]
    return positional[1].arg if len(positional) >= 2 else None


class _Returns:
    """What return statements return; `return self.helper(requests)` is what the
    helper returns (None when none of its returns has a value). Each helper is judged
    once, following helpers at most `DEPTH` deep."""

    DEPTH = 8

    def __init__(self, functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> None:
        self.functions = functions
        self.none_of: dict[int, bool] = {}

    def of(self, node: ast.Return, depth: int = 0) -> Return:
        value = node.value
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return Return(node.lineno, "none")
        if isinstance(value, ast.List):
            starred = any(isinstance(e, ast.Starred) for e in value.elts)
            return Return(node.lineno, "list", -1 if starred else len(value.elts))
        if isinstance(value, ast.Await):
            value = value.value
        helper = _called_helper(value, self.functions)
        if helper is not None and depth < self.DEPTH and self.returns_none(helper, depth + 1):
            return Return(node.lineno, "none")
        return Return(node.lineno, "value")

    def returns_none(self, helper: ast.FunctionDef | ast.AsyncFunctionDef, depth: int) -> bool:
        key = id(helper)
        if key not in self.none_of:
            self.none_of[key] = False  # while it is judged (a recursive helper): a value
            nodes = list(own_nodes(helper))
            self.none_of[key] = not any(
                isinstance(n, ast.Yield | ast.YieldFrom) for n in nodes
            ) and all(self.of(n, depth).kind == "none" for n in nodes if isinstance(n, ast.Return))
        return self.none_of[key]


def _called_helper(
    value: ast.expr, functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    if isinstance(func, ast.Name):
        return functions.get(func.id)
    if isinstance(func, ast.Attribute) and is_name(func.value, "self"):
        return functions.get(func.attr)
    return None


def _walks_requests(body: list[ast.AST], requests: str | None) -> bool:
    """Whether any loop, comprehension or call (other than an index) uses the requests
    as a whole: `for r in requests`, `len(requests)`, `zip(requests, ...)`, a helper
    call `self.run(requests)`."""
    if requests is None:
        return True  # execute(self, *args): not judged
    for node in body:
        if isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
            if any(is_name(n, requests) for n in ast.walk(node.iter)):
                return True
        elif isinstance(node, ast.Call):
            if any(is_name(a, requests) for a in node.args) or any(
                is_name(k.value, requests) for k in node.keywords
            ):
                return True
        elif (
            isinstance(node, ast.Return | ast.Assign)
            and node.value is not None
            and is_name(node.value, requests)
        ):
            return True  # handed on whole
    return False


# --- response senders ------------------------------------------------------------------


def _sends(index: _Index) -> Iterator[SendCall]:
    """`.send(...)` calls on objects bound from `get_response_sender()` (by any name or
    `self.` attribute), or on that call itself."""
    senders = {_target_key(t) for t, value in index.bindings if _is_sender_call(value)}
    senders.discard("")
    for node in index.calls:
        if not (isinstance(node.func, ast.Attribute) and node.func.attr == "send"):
            continue
        owner = node.func.value
        if not (_is_sender_call(owner) or _target_key(owner) in senders):
            continue
        response = argument(node, 0, "response") or argument(node, 0, "infer_response")
        flags = argument(node, 1, "flags")
        sends_response = response is not None and not (
            isinstance(response, ast.Constant) and response.value is None
        )
        yield SendCall(
            node.lineno,
            sends_response,
            flags is not None and not (isinstance(flags, ast.Constant) and flags.value == 0),
            _in_repeating_loop(node, index.up, index.function_of(node)),
        )


def _is_sender_call(node: ast.AST | None) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get_response_sender"
    )


def _target_key(node: ast.AST) -> str:
    """`name` or `self.name` for a simple assignment target ("" otherwise)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return ""


def _in_repeating_loop(node: ast.AST, up: Mapping[int, ast.AST], function: ast.AST | None) -> bool:
    """Whether a loop around `node` (inside `function`) repeats per request: a while
    loop, or a for loop (or comprehension) over something that is not the requests."""
    current = up.get(id(node))
    child: ast.AST = node
    while current is not None and current is not function:
        if isinstance(current, ast.While) and child is not current.test:
            return True
        if isinstance(current, ast.For | ast.AsyncFor) and child is not current.iter:
            if not _over_requests(current.iter):
                return True
        if isinstance(current, ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.DictComp):
            if not all(_over_requests(g.iter) for g in current.generators):
                return True
        child, current = current, up.get(id(current))
    return False


def _over_requests(node: ast.AST) -> bool:
    """An iterable that walks the requests: a name (or zip/enumerate/range(len(...)) of
    one) that mentions "request"."""
    return any(isinstance(n, ast.Name) and "request" in n.id.lower() for n in ast.walk(node))


# --- inputs read -----------------------------------------------------------------------


_TENSOR_LOOKUPS = frozenset({"get_input_tensor_by_name"})
_CONFIG_LOOKUPS = frozenset({"get_input_config_by_name", "get_output_config_by_name"})


def _input_reads(index: _Index, aliases: Aliases, lookups: frozenset[str]) -> Iterator[InputRead]:
    """The lookups by literal name that may return None, and how their result is used."""
    uses_in: dict[int, dict[str, list[ast.AST]]] = {}
    for node in index.calls:
        if aliases.utility(node.func) not in lookups:
            continue
        name = string_literal(argument(node, 1, "name"))
        if name is None:
            continue
        function = index.function_of(node)
        if function is None:
            continue
        uses = uses_in.get(id(function))
        if uses is None:  # the reads of each name in this function, found once
            uses = uses_in[id(function)] = {}
            for other in own_nodes(function):
                key = _target_key(other) if isinstance(other, ast.Name | ast.Attribute) else ""
                if key and not isinstance(getattr(other, "ctx", None), ast.Store):
                    uses.setdefault(key, []).append(other)
        guard, user = _guard(node, index.up, function, uses)
        mode = _mode_of(node, index)
        yield InputRead(name, node.lineno, guard, *_failure(user), decoupled=mode)


def _policy_branch(node: ast.AST, index: _Index) -> bool | None:
    """True/False when `node` sits in the body/else of an `if` that tests the
    transaction policy (`if self.decoupled:`, `if not is_decoupled:`), within its
    function; None otherwise."""
    child, current = node, index.up.get(id(node))
    while current is not None and not isinstance(
        current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    ):
        if isinstance(current, ast.If | ast.IfExp) and child is not current.test:
            test, negated = current.test, False
            while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                test, negated = test.operand, not negated
            names = [
                n.id if isinstance(n, ast.Name) else n.attr
                for n in ast.walk(test)
                if isinstance(n, ast.Name | ast.Attribute)
            ]
            only_policy = not any(isinstance(n, ast.BoolOp) for n in ast.walk(test))
            if only_policy and any("decoupled" in n.lower() for n in names):
                body = current.body
                inside = child in body if isinstance(body, list) else child is body
                return inside != negated
        child, current = current, index.up.get(id(current))
    return None


def _mode_of(node: ast.AST, index: _Index) -> bool | None:
    """The transaction policy `node` runs under (see InputRead.decoupled): its own
    branch, else the branch of every call of its function (one level up)."""
    mode = _policy_branch(node, index)
    function = index.function_of(node)
    if mode is not None or not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return mode
    callers = [
        call
        for call in index.calls
        if (isinstance(call.func, ast.Attribute) and call.func.attr == function.name)
        or (isinstance(call.func, ast.Name) and call.func.id == function.name)
    ]
    modes = {_policy_branch(call, index) for call in callers}
    return modes.pop() if len(modes) == 1 else None


def _failure(user: ast.AST | None) -> tuple[int, str]:
    """(line, Python's error) where None meets the expression that uses it."""
    if isinstance(user, ast.Attribute):
        return user.lineno, f"AttributeError: 'NoneType' object has no attribute '{user.attr}'"
    if isinstance(user, ast.Subscript):
        return user.lineno, "TypeError: 'NoneType' object is not subscriptable"
    if isinstance(user, ast.Call):
        return user.lineno, "TypeError: 'NoneType' object is not callable"
    return 0, ""


def _guard(
    call: ast.Call,
    up: Mapping[int, ast.AST],
    function: ast.AST,
    uses: Mapping[str, list[ast.AST]],
) -> tuple[Guard, ast.AST | None]:
    """Whether the None a missing input gives is tested before it is used (and the
    expression that uses it when it is not)."""
    parent = up.get(id(call))
    if _caught(call, up, function):
        return "checked", None
    if isinstance(parent, ast.Attribute | ast.Subscript) and parent.value is call:
        return "unchecked", parent
    if _tests(call, parent):
        return "checked", None
    if isinstance(parent, ast.NamedExpr) and _tests(parent, up.get(id(parent))):
        return "checked", None  # if (tensor := get_input_tensor_by_name(...)):
    if not isinstance(parent, ast.Assign | ast.AnnAssign | ast.NamedExpr):
        return "", None
    targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
    deref: ast.AST | None = None
    for key in {_target_key(t) for t in targets} - {""}:
        # in source order: the first dereference is where a request fails
        for node in sorted(uses.get(key, ()), key=position):
            holder = up.get(id(node))
            if _tests(node, holder):
                return "checked", None
            if deref is not None or holder is None or _caught(holder, up, function):
                continue
            if (isinstance(holder, ast.Attribute | ast.Subscript) and holder.value is node) or (
                isinstance(holder, ast.Call) and holder.func is node
            ):
                deref = holder
    return ("unchecked", deref) if deref is not None else ("", None)


def _tests(node: ast.AST, holder: ast.AST | None) -> bool:
    """Whether `holder` tests `node` for None or truth."""
    if isinstance(holder, ast.Compare | ast.BoolOp | ast.IfExp | ast.UnaryOp):
        return True
    if isinstance(holder, ast.If | ast.While | ast.Assert) and holder.test is node:
        return True
    return (
        isinstance(holder, ast.Call)
        and isinstance(holder.func, ast.Name)
        and holder.func.id in ("bool", "isinstance", "getattr", "hasattr")
    )


def _caught(node: ast.AST, up: Mapping[int, ast.AST], function: ast.AST) -> bool:
    """Whether `node` sits in a try body whose handlers catch an AttributeError."""
    child, current = node, up.get(id(node))
    while current is not None and current is not function:
        if isinstance(current, _TRY_STATEMENTS) and any(
            child is stmt for stmt in getattr(current, "body", [])
        ):
            for handler in getattr(current, "handlers", []):
                if handler.type is None or any(
                    isinstance(n, ast.Name | ast.Attribute)
                    and (n.id if isinstance(n, ast.Name) else n.attr) in _CATCHES_NONE
                    for n in ast.walk(handler.type)
                ):
                    return True
        child, current = current, up.get(id(current))
    return False


# --- BLS requests ----------------------------------------------------------------------


def _bls_calls(tree: ast.Module, aliases: Aliases, calls: list[ast.Call]) -> Iterator[BlsCall]:
    constants: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], string_literal(node.value)
            if isinstance(target, ast.Name) and value is not None:
                constants[target.id] = value
    for call in calls:
        if aliases.utility(call.func) != "InferenceRequest":
            continue
        name_node = argument(call, 99, "model_name")
        model = string_literal(name_node)
        if model is None and isinstance(name_node, ast.Name):
            model = constants.get(name_node.id)
        wanted = argument(call, 99, "requested_output_names")
        outputs: tuple[str, ...] | None = None
        if isinstance(wanted, ast.List | ast.Tuple):
            names = [string_literal(e) for e in wanted.elts]
            if all(n is not None for n in names):
                outputs = tuple(n for n in names if n is not None)
        tensors: list[tuple[str, int]] = []
        given = argument(call, 99, "inputs")
        if isinstance(given, ast.List | ast.Tuple):
            for element in given.elts:
                if isinstance(element, ast.Call) and aliases.utility(element.func) in (
                    "Tensor",
                    "Tensor.from_dlpack",
                ):
                    name = string_literal(argument(element, 0, "name"))
                    if name is not None:
                        tensors.append((name, element.lineno))
        yield BlsCall(call.lineno, model, outputs, tuple(tensors))


# --- where Tensor(...) values go ---------------------------------------------------------


@dataclass
class _TensorFlow:
    """Which `Tensor(...)` calls reach a sink call (by assignment, append, helper return
    or helper parameter), by name across the module: a name bound in one function and
    read in another counts, which only ever adds reach (and so removes warnings)."""

    aliases: Aliases
    index: _Index
    functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]
    _values: dict[str, list[ast.AST]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for target, value in self.index.bindings:
            for name in _bound_names(target):
                self._values.setdefault(name, []).append(value)
        for call in self.index.calls:
            func = call.func
            if isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert"):
                key = _target_key(func.value)
                if key:
                    self._values.setdefault(key, []).extend(call.args)

    def reaching(self, sink: str) -> frozenset[tuple[int, int]]:
        starts: list[ast.AST] = []
        for call in self.index.calls:
            if self.aliases.utility(call.func) == sink:
                starts.extend([*call.args, *(k.value for k in call.keywords)])
        starts.extend(self._helper_arguments(sink))
        seen: set[int] = set()
        found: set[tuple[int, int]] = set()
        names: set[str] = set()
        stack = starts
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, ast.Call) and self.aliases.utility(node.func) in (
                "Tensor",
                "Tensor.from_dlpack",
            ):
                found.add(position(node))
            key = _target_key(node) if isinstance(node, ast.Name | ast.Attribute) else ""
            if key and key not in names:
                names.add(key)
                stack.extend(self._values.get(key, ()))
            if isinstance(node, ast.Call):
                helper = local_function(node.func, self.functions)
                if helper is not None and id(helper) not in seen:
                    seen.add(id(helper))
                    stack.extend(
                        n.value for n in own_nodes(helper) if isinstance(n, ast.Return) and n.value
                    )
            stack.extend(ast.iter_child_nodes(node))
        return frozenset(found)

    def _helper_arguments(self, sink: str) -> Iterator[ast.AST]:
        """Arguments of calls to local helpers that pass a parameter on to the sink."""
        used: dict[int, set[str]] = {}
        for call in self.index.calls:
            if self.aliases.utility(call.func) != sink:
                continue
            function = self.index.function_of(call)
            if function is not None:
                used.setdefault(id(function), set()).update(
                    n.id
                    for a in (*call.args, *(k.value for k in call.keywords))
                    for n in ast.walk(a)
                    if isinstance(n, ast.Name)
                )
        passing: dict[str, set[int]] = {}
        for name, function in self.functions.items():
            names = used.get(id(function))
            if names:
                parameters = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
                passing[name] = {i for i, p in enumerate(parameters) if p in names}
        for call in self.index.calls:
            func = call.func
            called: str | None = func.id if isinstance(func, ast.Name) else None
            offset = 0
            if isinstance(func, ast.Attribute) and is_name(func.value, "self"):
                called, offset = func.attr, 1
            if called is None or called not in passing:
                continue
            for index, arg in enumerate(call.args):
                if index + offset in passing[called]:
                    yield arg
            yield from (k.value for k in call.keywords)


def _bound_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _bound_names(element)
    elif isinstance(target, ast.Starred):
        yield from _bound_names(target.value)
    else:
        key = _target_key(target)
        if key:
            yield key
