"""Does `execute` answer every request? A path that leaves the responses list short.

The stub requires a model that is not decoupled to return exactly one response per
request (python_backend `pb_stub.cc` ProcessReturnedResponses: "Number of
InferenceResponse objects do not match the number of InferenceRequest objects"), or
the whole execution fails. The usual shape is a list filled in a loop over the
requests and returned at the end; a path through the loop body that goes on to the
next request without appending (an `if` without an `else`, a `continue`, a `break`)
leaves the list short whenever a request takes it.

Only that shape is judged, and only when it is unambiguous: one list, created empty
in execute, appended to only in that loop (not in a nested loop), used for nothing
else, and the only value execute returns. Exception handlers count as answering (a
request that raises fails either way), so only the normal flow is judged.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pbtxt_lint.artifacts.python_syntax import (
    argument,
    int_literal,
    is_name,
    own_nodes,
    string_literal,
)

_Absent = tuple[frozenset[str], ...]
_State = tuple[int, str, _Absent]
_APPENDED: _State = (0, "", ())
"""The state of a path that has appended its response; any other state says why the
path has not: the line of the branch it took, a text naming it, and the tests on the
path that hold only when the request lacks an input (each: one of these is absent)."""


@dataclass(frozen=True)
class ResponseGap:
    """A path through the loop over the requests that appends no response."""

    responses: str
    """The name of the list execute returns."""
    append_line: int
    """The first append to the list."""
    line: int
    """Where the path leaves without appending: the `if`, `continue`, `break` or `return`."""
    how: str
    """Which path: "when the test at line 12 is false", "at the continue on line 14"."""
    when_absent: tuple[frozenset[str], ...] = ()
    """Tests on the path that hold only when the request lacks one of these inputs
    (`if tensor is None: continue`; `EMPTY_BATCH`: any batch item): the path never runs
    if they are all required."""


EMPTY_BATCH = "<no batch item>"
"""In `ResponseGap.when_absent`: the test holds only when the request's batch is empty
(a list filled once per batch item is empty), which no real client sends."""


class _Unclear(Exception):
    """The code is not of the judged shape: say nothing."""


def response_gaps(execute: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[ResponseGap, ...]:
    """The paths (in source order) on which execute's loop over its requests appends
    no response to the list it returns."""
    arguments = execute.args.posonlyargs + execute.args.args
    if len(arguments) < 2:
        return ()
    requests = arguments[1].arg
    try:
        return _judge(execute, requests)
    except _Unclear:
        return ()


def _judge(
    execute: ast.FunctionDef | ast.AsyncFunctionDef, requests: str
) -> tuple[ResponseGap, ...]:
    loop = next((s for s in execute.body if _loops_over(s, requests)), None)
    if not isinstance(loop, ast.For):
        return ()
    name = _returned_list(execute)
    if name is None or not _created_empty(execute.body, name, loop):
        return ()
    appends = _appends_only(execute, name, loop)
    walker = _Walker(name, _input_tensors(execute), _per_item_lists(loop.body))
    start = (loop.lineno, "when the loop body runs to its end", ())
    ends = walker.block(loop.body, frozenset({start}))
    gaps = sorted(walker.gaps + [state for state in ends if state != _APPENDED])
    return tuple(ResponseGap(name, appends[0], line, how, absent) for line, how, absent in gaps)


def _input_tensors(execute: ast.AST) -> dict[str, str]:
    """Variables bound once to `get_input_tensor_by_name(request, "NAME")`: NAME."""
    found: dict[str, str | None] = {}
    for node in own_nodes(execute):
        if not isinstance(node, ast.Assign | ast.AnnAssign):
            continue
        value = node.value
        tensor = None
        if isinstance(value, ast.Call):
            function = value.func
            called = function.attr if isinstance(function, ast.Attribute) else ""
            called = called or (function.id if isinstance(function, ast.Name) else "")
            if called == "get_input_tensor_by_name":
                tensor = string_literal(argument(value, 1, "name"))
        for target in _targets(node):
            found[target] = tensor if target not in found or found[target] == tensor else None
    return {variable: tensor for variable, tensor in found.items() if tensor is not None}


def _loops_over(statement: ast.stmt, requests: str) -> bool:
    if not isinstance(statement, ast.For):
        return False
    source = statement.iter
    if isinstance(source, ast.Call) and is_name(source.func, "enumerate") and source.args:
        source = source.args[0]
    return is_name(source, requests)


def _returned_list(execute: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """The name every `return` of execute returns, if they all return one name."""
    names = {
        node.value.id if isinstance(node.value, ast.Name) else None
        for node in own_nodes(execute)
        if isinstance(node, ast.Return)
    }
    return names.pop() if len(names) == 1 else None


def _created_empty(body: Sequence[ast.stmt], name: str, loop: ast.For) -> bool:
    """`name = []` (or `list()`) among execute's statements before the loop."""
    for statement in body:
        if statement is loop:
            return False
        if (
            isinstance(statement, ast.Assign | ast.AnnAssign)
            and _targets(statement) == [name]
            and _is_empty_list(statement.value)
        ):
            return True
    return False


def _appends_only(execute: ast.AST, name: str, loop: ast.For) -> list[int]:
    """The lines of the list's appends. Raises _Unclear unless every other use of the
    name is its creation, a return or `len()`: anything else (an extend, an index, a
    call that gets the list) could add responses the walk does not count."""
    appends = list(_append_calls(loop.body, name))
    if not appends:
        raise _Unclear
    allowed = {id(call.func.value) for call in appends if isinstance(call.func, ast.Attribute)}
    for node in own_nodes(execute):
        if isinstance(node, ast.Assign | ast.AnnAssign) and _targets(node) == [name]:
            if _is_empty_list(node.value):
                allowed.update(id(t) for t in _target_nodes(node))
        elif isinstance(node, ast.Return) and node.value is not None:
            allowed.add(id(node.value))
        elif isinstance(node, ast.Call) and is_name(node.func, "len") and len(node.args) == 1:
            allowed.add(id(node.args[0]))
    for node in own_nodes(execute):
        if isinstance(node, ast.Name) and node.id == name and id(node) not in allowed:
            raise _Unclear
    return sorted(call.lineno for call in appends)


def _append_calls(body: Sequence[ast.stmt], name: str) -> Iterable[ast.Call]:
    """`name.append(x)` statements in the loop's own flow (not in a nested loop or
    function, whose appends the walk cannot count)."""
    for statement in body:
        yield from _appends_in(statement, name)


def _appends_in(statement: ast.stmt, name: str) -> Iterable[ast.Call]:
    if isinstance(statement, ast.Expr) and _is_append(statement.value, name):
        assert isinstance(statement.value, ast.Call)
        yield statement.value
    elif isinstance(statement, ast.If):
        yield from _append_calls(statement.body, name)
        yield from _append_calls(statement.orelse, name)
    elif isinstance(statement, ast.With | ast.AsyncWith):
        yield from _append_calls(statement.body, name)
    elif isinstance(statement, ast.Try):
        for part in (statement.body, statement.orelse, statement.finalbody):
            yield from _append_calls(part, name)
        for handler in statement.handlers:
            yield from _append_calls(handler.body, name)


def _is_append(node: ast.expr, name: str) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "append"
        and is_name(node.func.value, name)
        and len(node.args) == 1
    )


class _Walker:
    """Follows the loop body's paths, each in one state: appended, or why not."""

    def __init__(self, name: str, tensors: dict[str, str], per_item: set[str]) -> None:
        self.name = name
        self.tensors = tensors
        self.per_item = per_item
        self.gaps: list[_State] = []

    def block(self, body: Sequence[ast.stmt], states: frozenset[_State]) -> frozenset[_State]:
        """The states of the paths that fall off the end of `body`."""
        for statement in body:
            if not states:
                break
            states = self.statement(statement, states)
        return states

    def statement(self, node: ast.stmt, states: frozenset[_State]) -> frozenset[_State]:
        if isinstance(node, ast.Expr) and _is_append(node.value, self.name):
            return frozenset({_APPENDED})
        if isinstance(node, ast.If):
            line = node.lineno
            absent_if_true, absent_if_false = self.absence(node.test)
            true = _branch(states, line, f"when the test at line {line} is true", absent_if_true)
            false = _branch(states, line, f"when the test at line {line} is false", absent_if_false)
            return self.block(node.body, true) | self.block(node.orelse, false)
        if isinstance(node, ast.Continue | ast.Break | ast.Return):
            word = type(node).__name__.lower()
            for _, why, absent in states - {_APPENDED}:
                self.gaps.append(
                    (node.lineno, f"{why}, at the {word} on line {node.lineno}", absent)
                )
            return frozenset()
        if isinstance(node, ast.Raise):
            return frozenset()  # the whole execution fails anyway
        if isinstance(node, ast.With | ast.AsyncWith):
            return self.block(node.body, states)
        if isinstance(node, ast.Try):
            ends = self.block(node.orelse, self.block(node.body, states))
            if node.handlers:
                ends |= {_APPENDED}  # an exception path: judged answered (see the docstring)
            return self.block(node.finalbody, ends) if node.finalbody else ends
        if isinstance(node, ast.Match):
            raise _Unclear
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            # Its continue and break leave that loop, not this one; a return leaves both.
            if any(isinstance(n, ast.Return) for n in own_nodes(node)):
                raise _Unclear
            return states
        return states

    def absence(self, test: ast.expr) -> tuple[frozenset[str], frozenset[str]]:
        """The inputs of which one must be absent for the test to be true, and for it
        to be false (empty: no such condition). `t is None`, `not t`, `t is not None`,
        and `or` / `and` of them, where `t` holds get_input_tensor_by_name's result."""
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            when_true, when_false = self.absence(test.operand)
            return when_false, when_true
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and _is_none(test.comparators[0]):
            tensor = self.tensors.get(getattr(test.left, "id", ""))
            if tensor is not None and isinstance(test.ops[0], ast.Is | ast.Eq):
                return frozenset({tensor}), frozenset()
            if tensor is not None and isinstance(test.ops[0], ast.IsNot | ast.NotEq):
                return frozenset(), frozenset({tensor})
        if isinstance(test, ast.Name) and test.id in self.tensors:
            return frozenset(), frozenset({self.tensors[test.id]})
        if self.emptiness(test):
            return frozenset(), frozenset({EMPTY_BATCH})
        if isinstance(test, ast.BoolOp):
            parts = [self.absence(value) for value in test.values]
            if isinstance(test.op, ast.Or):
                # True: one part is true (each needs an absence); false: all are false.
                trues = [true for true, _ in parts]
                falses = [false for _, false in parts if false]
                return (frozenset().union(*trues) if all(trues) else frozenset()), (
                    falses[0] if falses else frozenset()
                )
            trues = [true for true, _ in parts if true]
            falses = [false for _, false in parts]
            return (trues[0] if trues else frozenset()), (
                frozenset().union(*falses) if all(falses) else frozenset()
            )
        return frozenset(), frozenset()

    def emptiness(self, test: ast.expr) -> bool:
        """Is the test false only when a per-item list is empty? (`items`, `len(items)`,
        `len(items) > 0`, `len(items) != 0`, `len(items) >= 1`)"""
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            bound = int_literal(test.comparators[0])
            operator = test.ops[0]
            nonzero = (isinstance(operator, ast.Gt | ast.NotEq) and bound == 0) or (
                isinstance(operator, ast.GtE) and bound == 1
            )
            return nonzero and self.emptiness(test.left)
        if isinstance(test, ast.Call) and is_name(test.func, "len") and len(test.args) == 1:
            test = test.args[0]
        return isinstance(test, ast.Name) and test.id in self.per_item


def _per_item_lists(body: Sequence[ast.stmt]) -> set[str]:
    """Lists created empty in the loop body and appended to on every turn of a loop
    over the batch items (`for b in range(x.shape[0])` or `range(len(x))`, the bound
    maybe named first): empty only when the batch is."""
    sizes = {
        target
        for statement in body
        if isinstance(statement, ast.Assign) and _batch_size(statement.value, set())
        for target in _targets(statement)
    }
    created = {
        target
        for statement in body
        if isinstance(statement, ast.Assign) and _is_empty_list(statement.value)
        for target in _targets(statement)
    }
    found: set[str] = set()
    for statement in body:
        if not isinstance(statement, ast.For) or statement.orelse:
            continue
        source = statement.iter
        if not (
            isinstance(source, ast.Call)
            and is_name(source.func, "range")
            and len(source.args) == 1
            and _batch_size(source.args[0], sizes)
        ):
            continue
        if _leaves_a_turn(statement.body):
            continue  # a turn may end before the append
        for inner in statement.body:
            if isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Call):
                function = inner.value.func
                if isinstance(function, ast.Attribute) and function.attr == "append":
                    if isinstance(function.value, ast.Name) and function.value.id in created:
                        found.add(function.value.id)
    return found


def _leaves_a_turn(body: Sequence[ast.stmt]) -> bool:
    """A continue, break, return or raise of this loop (not of a loop nested in it)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Continue | ast.Break | ast.Return | ast.Raise):
            return True
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            stack.extend(node.orelse)  # its body's jumps are its own
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _batch_size(node: ast.expr | None, names: set[str]) -> bool:
    """`x.shape[0]`, `len(x)`, or a name bound to one of them."""
    if isinstance(node, ast.Name):
        return node.id in names
    if isinstance(node, ast.Call) and is_name(node.func, "len") and len(node.args) == 1:
        return True
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "shape"
        and int_literal(node.slice) == 0
    )


def _branch(
    states: frozenset[_State], line: int, why: str, absent: frozenset[str]
) -> frozenset[_State]:
    """States entering a branch: a path that has not appended is now known by it, and
    carries the branch's condition on absent inputs, if it has one."""
    return frozenset(
        (line, why, state[2] + ((absent,) if absent else ())) if state != _APPENDED else state
        for state in states
    )


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _targets(node: ast.Assign | ast.AnnAssign) -> list[str]:
    return [t.id for t in _target_nodes(node) if isinstance(t, ast.Name)]


def _target_nodes(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return list(node.targets) if isinstance(node, ast.Assign) else [node.target]


def _is_empty_list(node: ast.expr | None) -> bool:
    if isinstance(node, ast.List):
        return not node.elts
    return isinstance(node, ast.Call) and is_name(node.func, "list") and not node.args
