"""What each BLS request in a model.py sends and what the code reads from its answer.

`pb_utils.InferenceRequest(model_name=..., inputs=[...], requested_output_names=[...])`
is checked by Triton's core only when it runs (`InferenceRequest::Normalize`): the
called model's input names, data types and shapes, its required inputs, and a
correlation ID for a model with sequence batching. Its answer holds exactly the
requested outputs, so `pb_utils.get_output_tensor_by_name(response, "x")` for any
other name returns None. This module reads, with `ast` only, for every request: the
`pb_utils.Tensor(...)` calls that reach its `inputs` (through names bound in the same
function, list appends and the module's own helper functions and methods, whose
returns are followed a few levels deep), whether that list is complete (every tensor
of it found, each with a literal name), its correlation ID, and the literal names the
code reads from the responses of its `exec()` / `async_exec()`. The arrays given to
each Tensor are the value flow's (`python_flow`), matched by position.

A Tensor whose name is a loop variable (`for name, value in feeds.items()`,
`[pb_utils.Tensor(n, encoded[n]) for n in NAMES]`, `zip(NAMES, arrays)`) stands for one
tensor per name the loop can take, when those names are literals the module spells out:
a list or tuple (written there or as a module constant) or the keys of a dict literal
(bound in the function, or returned by a helper), plus the literal keys stored into it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

from pbtxt_lint.artifacts.python_names import literal_names, loop_position, parameter_key
from pbtxt_lint.artifacts.python_syntax import (
    Aliases,
    argument,
    local_function,
    own_nodes,
    string_literal,
)

MAX_DEPTH = 3
"""Nested helper calls followed when collecting a request's tensors."""

_TENSORS = ("Tensor", "Tensor.from_dlpack")


@dataclass(frozen=True)
class BlsTensor:
    """A `pb_utils.Tensor(name, array)` that reaches a request's inputs."""

    name: str | None
    """The literal name (None: computed)."""
    line: int
    column: int
    spread: bool = False
    """One of the names a loop gives this Tensor call (its array is not this one's)."""


@dataclass(frozen=True)
class BlsRead:
    """`pb_utils.get_output_tensor_by_name(response, "name")` on the request's answer."""

    name: str
    line: int


@dataclass(frozen=True)
class BlsRequest:
    line: int
    model_name: str | None
    """The literal (or module-constant) model name; None when computed."""
    inputs: tuple[BlsTensor, ...]
    complete: bool
    """Every tensor the request can hold is among `inputs`, with a literal name."""
    requested: tuple[str, ...] | None
    """The literal requested_output_names (None: computed)."""
    correlation: bool | None
    """A correlation_id is passed (None: **kwargs, which may pass one)."""
    reads: tuple[BlsRead, ...] = ()
    model_parameter: str | None = None
    """When the model name is read from the config (`self.model_config["parameters"]
    ["KEY"]["string_value"]`, bound to a name or an attribute of self): KEY."""


def bls_requests(module: ast.Module | None) -> tuple[BlsRequest, ...]:
    """Every `pb_utils.InferenceRequest(...)` of the module, in source order."""
    if module is None:
        return ()
    reader = _Reader(module)
    return tuple(reader.requests())


@dataclass
class _Reader:
    module: ast.Module
    aliases: Aliases = field(init=False)
    parents: dict[int, ast.AST] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    constants: dict[str, str] = field(default_factory=dict)
    name_lists: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        imports = []
        for node in ast.walk(self.module):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
            if isinstance(node, ast.Import | ast.ImportFrom):
                imports.append(node)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions.setdefault(node.name, node)
        self.aliases = Aliases.of(imports)
        for node in self.module.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                value = string_literal(node.value)
                if isinstance(node.targets[0], ast.Name) and value is not None:
                    self.constants[node.targets[0].id] = value
                listed = literal_names(node.value)
                if isinstance(node.targets[0], ast.Name) and listed is not None:
                    self.name_lists[node.targets[0].id] = listed

    def requests(self) -> Iterator[BlsRequest]:
        calls = [
            node
            for node in ast.walk(self.module)
            if isinstance(node, ast.Call) and self.aliases.utility(node.func) == "InferenceRequest"
        ]
        for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
            scope = self.scope_of(call)
            name_node = argument(call, 4, "model_name")
            model = string_literal(name_node)
            if model is None and isinstance(name_node, ast.Name):
                model = self.constants.get(name_node.id)
            parameter = None if model is not None else self.parameter_of(name_node, scope)
            given = argument(call, 2, "inputs")
            found: list[ast.Call] = []
            complete = given is not None and self.tensors(given, scope, found, 0)
            tensors = tuple(
                tensor
                for t in sorted(dict.fromkeys(found), key=lambda t: (t.lineno, t.col_offset))
                for tensor in self.named(t)
            )
            complete = complete and all(t.name is not None for t in tensors)
            yield BlsRequest(
                call.lineno,
                model,
                tensors,
                complete,
                _names(argument(call, 3, "requested_output_names")),
                _correlation(call),
                tuple(self.reads(call, scope)),
                parameter,
            )

    def parameter_of(self, node: ast.expr | None, scope: ast.AST) -> str | None:
        """The key of the config parameter whose string_value `node` holds: read there, or
        bound once to the local name or the attribute of self that `node` is."""
        value: ast.expr | None = node
        if isinstance(node, ast.Name):
            value = self.single_value(node.id, scope)
        elif isinstance(node, ast.Attribute) and _is(node.value, "self"):
            bound = [
                n.value
                for n in ast.walk(self.module)
                if isinstance(n, ast.Assign)
                and any(
                    isinstance(t, ast.Attribute) and _is(t.value, "self") and t.attr == node.attr
                    for t in n.targets
                )
            ]
            value = bound[0] if len(bound) == 1 else None
        return parameter_key(value)

    def scope_of(self, node: ast.AST) -> ast.AST:
        """The function whose own code `node` is (the module at top level)."""
        current = self.parents.get(id(node))
        while current is not None:
            if isinstance(current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                return current
            current = self.parents.get(id(current))
        return self.module

    # --- the tensors a request holds --------------------------------------------------------

    def named(self, call: ast.Call) -> Iterator[BlsTensor]:
        """The tensor(s) one Tensor call makes: its literal name, or one per name of the
        loop that binds its name argument."""
        given = argument(call, 0, "name")
        literal = string_literal(given)
        if literal is None and isinstance(given, ast.Name):
            literal = self.constants.get(given.id)
        if literal is not None or not isinstance(given, ast.Name):
            yield BlsTensor(literal, call.lineno, call.col_offset)
            return
        names = self.loop_names(call, given.id)
        if names is None:
            yield BlsTensor(None, call.lineno, call.col_offset)
            return
        for name in names:
            yield BlsTensor(name, call.lineno, call.col_offset, spread=True)

    def loop_names(self, node: ast.AST, name: str) -> tuple[str, ...] | None:
        """The literal names the innermost loop around `node` that binds `name` iterates
        over (None: no such loop, or names the module does not spell out)."""
        scope = self.scope_of(node)
        current = self.parents.get(id(node))
        while current is not None and current is not scope:
            loops: list[ast.For | ast.AsyncFor | ast.comprehension] = []
            if isinstance(current, ast.For | ast.AsyncFor):
                loops = [current]
            elif isinstance(current, ast.ListComp | ast.GeneratorExp | ast.SetComp):
                loops = list(current.generators)
            for loop in loops:
                index = loop_position(loop.target, name)
                if index is not None:
                    return self.iterated(loop.iter, index, scope)
            current = self.parents.get(id(current))
        return None

    def iterated(self, node: ast.expr, index: int, scope: ast.AST) -> tuple[str, ...] | None:
        """The literal names at position `index` (-1: the item itself) of what `node`
        iterates over."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "zip" and index >= 0 and index < len(node.args):
                return self.iterated(node.args[index], -1, scope)
            if node.func.id in ("list", "tuple", "sorted") and len(node.args) == 1:
                return self.iterated(node.args[0], index, scope)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("items", "keys") and not node.args:
                keys = self.dict_keys(node.func.value, scope, 0)
                wanted = 0 if node.func.attr == "items" else -1
                return keys if index == wanted else None
            return None
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            if index < 0:
                return literal_names(node)
            picked = [
                e.elts[index] for e in node.elts if isinstance(e, ast.Tuple) and index < len(e.elts)
            ]
            if len(picked) == len(node.elts):
                return literal_names(ast.List(picked))
            return None
        if isinstance(node, ast.Name) and index < 0:
            local = self.single_value(node.id, scope)
            if local is not None:
                listed = literal_names(local)
                return listed if listed is not None else self.dict_keys(node, scope, 0)
            return self.name_lists.get(node.id)
        return None

    def single_value(self, name: str, scope: ast.AST) -> ast.expr | None:
        """The one value `name` is bound to in `scope` (None: unbound there, or bound more
        than once, or bound by a loop)."""
        values = []
        for node in own_nodes(scope):
            if isinstance(node, ast.Assign) and any(_is(t, name) for t in node.targets):
                values.append(node.value)
            elif isinstance(node, ast.AnnAssign | ast.AugAssign) and _is(node.target, name):
                return None
            elif isinstance(node, ast.For | ast.comprehension | ast.With) and _binds(node, name):
                return None
        return values[0] if len(values) == 1 else None

    def dict_keys(self, node: ast.expr, scope: ast.AST, depth: int) -> tuple[str, ...] | None:
        """The literal keys of the dict `node` holds: a dict literal bound once in the
        function (or returned by every return of a helper), plus the literal keys stored
        into it there; None when a key is computed or the dict is changed otherwise."""
        if isinstance(node, ast.Dict):
            keys = [string_literal(k) if k is not None else None for k in node.keys]
            return None if any(k is None for k in keys) else tuple(k for k in keys if k)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "dict"
        ):
            if node.args or any(k.arg is None for k in node.keywords):
                return None
            return tuple(k.arg for k in node.keywords if k.arg)
        if isinstance(node, ast.Call) and depth < MAX_DEPTH:
            helper = local_function(node.func, self.functions)
            if helper is None:
                return None
            returns = [n.value for n in own_nodes(helper) if isinstance(n, ast.Return)]
            found = {self.dict_keys(r, helper, depth + 1) for r in returns if r is not None}
            return found.pop() if len(found) == 1 else None
        if not isinstance(node, ast.Name):
            return None
        value = self.single_value(node.id, scope)
        if value is None:
            return None
        found_keys = self.dict_keys(value, scope, depth)
        if found_keys is None:
            return None
        added = list(found_keys)
        for inner in own_nodes(scope):
            if isinstance(inner, ast.Assign):
                for target in inner.targets:
                    if isinstance(target, ast.Subscript) and _is(target.value, node.id):
                        key = string_literal(target.slice)
                        if key is None:
                            return None
                        added.append(key)
            elif (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and _is(inner.func.value, node.id)
                and inner.func.attr in ("update", "pop", "setdefault", "clear", "popitem")
            ):
                return None
            elif isinstance(inner, ast.Delete):
                return None
        return tuple(dict.fromkeys(added))

    def tensors(self, node: ast.expr, scope: ast.AST, found: list[ast.Call], depth: int) -> bool:
        """Collect the Tensor calls `node` may hold into `found`; whether all were found."""
        if isinstance(node, ast.List | ast.Tuple):
            results = [self.tensors(e, scope, found, depth) for e in node.elts]
            return all(results)
        if isinstance(node, ast.Starred):
            return self.tensors(node.value, scope, found, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.tensors(node.left, scope, found, depth)
            return self.tensors(node.right, scope, found, depth) and left
        if isinstance(node, ast.IfExp):
            body = self.tensors(node.body, scope, found, depth)
            return self.tensors(node.orelse, scope, found, depth) and body
        if isinstance(node, ast.Name):
            return self.bound(node.id, scope, found, depth)
        if isinstance(node, ast.Call):
            utility = self.aliases.utility(node.func)
            if utility in _TENSORS:
                found.append(node)
                return True
            if isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple") and node.args:
                return self.tensors(node.args[0], scope, found, depth)
            helper = local_function(node.func, self.functions)
            if helper is not None and depth < MAX_DEPTH:
                returns = [n.value for n in own_nodes(helper) if isinstance(n, ast.Return)]
                results = [self.tensors(r, helper, found, depth + 1) for r in returns if r]
                return bool(results) and all(results)
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            inner: list[ast.Call] = []
            self.tensors(node.elt, scope, inner, depth)
            found.extend(inner)
            # Complete when the element is a Tensor call whose name the loops give.
            return (
                len(inner) == 1
                and inner[0] is node.elt
                and all(t.name is not None for t in self.named(inner[0]))
            )
        return False

    def bound(self, name: str, scope: ast.AST, found: list[ast.Call], depth: int) -> bool:
        """What the name `name` holds in `scope`: every value bound to it there, and
        everything appended or added to it."""
        complete = True
        seen = False
        for node in own_nodes(scope):
            if isinstance(node, ast.Assign) and any(_is(t, name) for t in node.targets):
                seen = True
                complete = self.tensors(node.value, scope, found, depth) and complete
            elif isinstance(node, ast.AnnAssign | ast.AugAssign) and _is(node.target, name):
                if node.value is not None:
                    seen = True
                    complete = self.tensors(node.value, scope, found, depth) and complete
            elif isinstance(node, ast.For | ast.comprehension | ast.With) and _binds(node, name):
                return False
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and _is(node.func.value, name)
                and node.func.attr in ("append", "extend", "insert")
                and node.args
            ):
                seen = True
                added = node.args[-1]
                if node.func.attr == "extend":
                    complete = self.tensors(added, scope, found, depth) and complete
                else:
                    complete = self.tensors(ast.List([added]), scope, found, depth) and complete
        return seen and complete

    # --- what the code reads from the answers -------------------------------------------------

    def reads(self, call: ast.Call, scope: ast.AST) -> Iterator[BlsRead]:
        """Literal output names read from the responses of this request's exec calls: a
        read whose response name was last bound (before it, in source order) to an exec
        of this request, directly or through the name last bound to the request."""
        bindings: dict[str, list[tuple[tuple[int, int], ast.expr]]] = {}
        for node in own_nodes(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bindings.setdefault(target.id, []).append((_at(node), node.value))
            elif isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.target, ast.Name):
                bindings.setdefault(node.target.id, []).append((_at(node), node.iter))

        def last(name: str, before: tuple[int, int]) -> ast.expr | None:
            earlier = [(at, value) for at, value in bindings.get(name, ()) if at < before]
            return max(earlier, key=lambda e: e[0])[1] if earlier else None

        for node in own_nodes(scope):
            if not isinstance(node, ast.Call):
                continue
            if self.aliases.utility(node.func) != "get_output_tensor_by_name":
                continue
            owner = argument(node, 0, "response")
            name = string_literal(argument(node, 1, "name"))
            if not isinstance(owner, ast.Name) or name is None:
                continue
            value = last(owner.id, _at(node))
            if isinstance(value, ast.Await):
                value = value.value
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)):
                continue
            if value.func.attr not in ("exec", "async_exec"):
                continue
            receiver = value.func.value
            if isinstance(receiver, ast.Name):
                receiver = last(receiver.id, _at(value)) or receiver
            if receiver is call:
                yield BlsRead(name, node.lineno)


def _at(node: ast.AST) -> tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _binds(node: ast.For | ast.comprehension | ast.With, name: str) -> bool:
    targets: list[ast.expr] = []
    if isinstance(node, ast.For | ast.comprehension):
        targets = [node.target]
    else:
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    return any(_is(n, name) for t in targets for n in ast.walk(t))


def _names(node: ast.expr | None) -> tuple[str, ...] | None:
    if isinstance(node, ast.List | ast.Tuple):
        names = [string_literal(e) for e in node.elts]
        if all(n is not None for n in names):
            return tuple(n for n in names if n is not None)
    return None


def _correlation(call: ast.Call) -> bool | None:
    if any(k.arg is None for k in call.keywords):
        return None
    given = argument(call, 1, "correlation_id")
    if given is None:
        return False
    return not (isinstance(given, ast.Constant) and given.value in (0, ""))
