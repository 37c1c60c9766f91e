"""A light data flow of NumPy values through a model.py's `execute`, never running it.

The Python backend sends whatever array the code hands `pb_utils.Tensor(name, array)`:
its dtype and shape are never compared with the config (python_backend
`pb_stub_utils.cc` numpy_to_triton_type; server#3989: "we do not have this output
validation post inference"). So a float64 softmax goes out as FP64 where the config
promises FP32, `logits[0]` answers one row for a batch of two, and an ensemble's next
step then fails on the dtype or shape it gets.

`analyse_flow` interprets `execute` abstractly over the values of `python_values`
(arrays, Python scalars, lists, helper objects; anything else is unknown, and an
unknown never produces a finding). It starts from what the config says of each input
(`pb_utils.get_input_tensor_by_name(r, "X").as_numpy()` has X's data type, and its dims
with the batch axis in front when the model batches), follows assignments, branches
(joined), loops (once), module constants, `initialize`'s `self.` attributes and calls
to the module's own functions and methods (inlined, a few levels deep), and records
the value given to each `pb_utils.Tensor`, each reshape of a batched array to a
literal shape and the tensors each error-free `pb_utils.InferenceResponse` holds. It
is bounded by `MAX_STEPS` evaluations and `MAX_DEPTH` inlined calls.

This module walks the statements and expressions. What NumPy's functions, an array's
methods, a tokenizer and `cv2.resize` give is `python_array_calls`; what Python's
binary operators give, `python_operators`; the size of each axis, `python_dims` over
the algebra of `python_sizes`.
"""

from __future__ import annotations

import ast
import contextlib
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from pbtxt_lint.artifacts import python_numpy as npt
from pbtxt_lint.artifacts import python_sizes as sz
from pbtxt_lint.artifacts.python_array_calls import (
    ArrayCalls,
    encoded,
    resized,
    tokenized,
    tokenizer_call,
)
from pbtxt_lint.artifacts.python_dims import range_length
from pbtxt_lint.artifacts.python_operators import binop
from pbtxt_lint.artifacts.python_sizes import Dims, Size
from pbtxt_lint.artifacts.python_syntax import (
    Aliases,
    argument,
    int_literal,
    source_text,
    string_literal,
)
from pbtxt_lint.artifacts.python_values import (
    Arr,
    Encoding,
    Flow,
    InputFacts,
    OutputValue,
    Py,
    PyKind,
    Reshape,
    ResponseValue,
    Sent,
    Seq,
    Tag,
    TagKind,
    Value,
    as_int,
    constant,
    empty,
    from_request,
    input_array,
    join,
    join_env,
    length_of,
    sent_by,
    seq_of,
    size_of,
    unsized,
)

MAX_STEPS = 50_000
"""Expressions evaluated at most per model.py (inlined calls included)."""
MAX_DEPTH = 4
"""Nested calls to the module's own functions followed at most."""


def analyse_flow(
    tree: ast.Module | None,
    inputs: Mapping[str, InputFacts],
    output_types: Mapping[str, str | None],
) -> Flow:
    """The values `execute` hands `pb_utils.Tensor`, given the config's inputs and the
    NumPy dtype of each output's configured data type."""
    if tree is None:
        return Flow()
    interpreter = _Interpreter(tree, inputs, output_types)
    try:
        interpreter.run()
    except (_OutOfSteps, RecursionError):
        return Flow(complete=False)
    outputs: dict[tuple[str, int, int], Value] = {}
    for out in interpreter.outputs:
        key = (out.name, out.line, out.column)
        outputs[key] = join(outputs[key], out.value) if key in outputs else out.value
    responses: dict[tuple[int, int], ResponseValue] = {}
    for response in interpreter.responses:
        spot = (response.line, response.column)
        earlier = responses.get(spot)
        if earlier is not None:
            sent = earlier.sent.join(response.sent) if earlier.sent and response.sent else None
            response = ResponseValue(*spot, sent, earlier.fixed and response.fixed)
        responses[spot] = response
    return Flow(
        tuple(
            OutputValue(n, line, column, v if isinstance(v, Arr) else None)
            for (n, line, column), v in outputs.items()
        ),
        tuple(dict.fromkeys(interpreter.reshapes)),
        responses=tuple(responses.values()),
        guarded=frozenset(interpreter.guarded),
    )


class IndexKind(enum.Enum):
    """What one part of an array's index does (`array[0, :, None]`)."""

    INT = "int"  # takes one item: the axis goes
    SLICE = "slice"  # keeps the axis, perhaps shorter
    NEW = "new"  # None or np.newaxis: a new axis of size 1
    ELLIPSIS = "ellipsis"  # every axis not otherwise indexed
    TAKE = "take"  # an integer array of rank 1: picks items along the axis
    MASK = "mask"  # a boolean array of rank 1: keeps the items it selects


class _OutOfSteps(Exception):
    pass


class _Return(Exception):
    pass


_STR_METHODS = frozenset(
    {"format", "upper", "lower", "strip", "lstrip", "rstrip", "replace", "title", "capitalize"}
)  # fmt: skip


@dataclass
class _Interpreter:
    tree: ast.Module
    inputs: Mapping[str, InputFacts]
    output_types: Mapping[str, str | None]
    steps: int = 0
    depth: int = 0
    outputs: list[OutputValue] = field(default_factory=list)
    reshapes: list[Reshape] = field(default_factory=list)
    responses: list[ResponseValue] = field(default_factory=list)
    guarded: set[str] = field(default_factory=set)
    branches: list[bool] = field(default_factory=list)
    """Whether each `if` around the statement being followed reads request data."""
    module_env: dict[str, Value] = field(default_factory=dict)
    self_env: dict[str, Value] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    memo: dict[tuple[int, tuple[object, ...]], Value] = field(default_factory=dict)
    returns: list[Value] = field(default_factory=list)

    def __post_init__(self) -> None:
        nodes = list(ast.walk(self.tree))
        imports = [n for n in nodes if isinstance(n, ast.Import | ast.ImportFrom)]
        self.aliases = Aliases.of(imports)
        self.cv2 = {
            alias.asname or alias.name
            for node in imports
            if isinstance(node, ast.Import)
            for alias in node.names
            if alias.name == "cv2"
        }
        self.rebound = _rebound(self.tree, nodes)
        self.array_calls = ArrayCalls(self)

    # --- entry ---------------------------------------------------------------------------

    def run(self) -> None:
        model: ast.ClassDef | None = None
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[node.name] = node
            elif isinstance(node, ast.ClassDef) and node.name == "TritonPythonModel":
                model = node
        self.block(
            [n for n in self.tree.body if not isinstance(n, ast.FunctionDef | ast.ClassDef)],
            self.module_env,
        )
        if model is None:
            return
        for node in model.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                self.methods[node.name] = node
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        value = self.ev(node.value, dict(self.module_env))
                        if f"self.{target.id}" in self.rebound or "self.*" in self.rebound:
                            value = unsized(value)
                        self.self_env[target.id] = _named(target, node.value, value)
        for name, first in (("initialize", None), ("execute", Tag(TagKind.REQUESTS))):
            method = self.methods.get(name)
            if method is not None:
                self.invoke(method, [Tag(TagKind.SELF), first], {}, record_memo=False)

    def invoke(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        args: Sequence[Value],
        kwargs: Mapping[str, Value],
        record_memo: bool = True,
    ) -> Value:
        key = (id(function), (*args, *sorted(kwargs.items())))
        if record_memo and key in self.memo:
            return self.memo[key]
        if self.depth >= MAX_DEPTH:
            return None
        env: dict[str, Value] = {}
        parameters = [*function.args.posonlyargs, *function.args.args]
        for index, parameter in enumerate(parameters):
            env[parameter.arg] = args[index] if index < len(args) else kwargs.get(parameter.arg)
        saved = self.returns
        self.returns = []
        self.depth += 1
        try:
            self.block(function.body, env)
        except _Return:
            pass
        finally:
            self.depth -= 1
            returned, self.returns = self.returns, saved
        result: Value = None
        for index, value in enumerate(returned):
            result = value if index == 0 else join(result, value)
        self.memo[key] = result
        return result

    # --- statements ----------------------------------------------------------------------

    def block(self, body: Sequence[ast.stmt], env: dict[str, Value]) -> None:
        for statement in body:
            self.statement(statement, env)

    def statement(self, node: ast.stmt, env: dict[str, Value]) -> None:
        self.step()
        if isinstance(node, ast.Assign):
            value = self.ev(node.value, env)
            for target in node.targets:
                self.assign(target, _named(target, node.value, value), env)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            value = self.ev(node.value, env)
            self.assign(node.target, _named(node.target, node.value, value), env)
        elif isinstance(node, ast.AugAssign):
            current = self.ev(node.target, env) if isinstance(node.target, ast.Name) else None
            self.assign(node.target, binop(node.op, current, self.ev(node.value, env), node), env)
        elif isinstance(node, ast.Expr):
            self.ev(node.value, env)
        elif isinstance(node, ast.Return):
            self.returns.append(
                self.ev(node.value, env) if node.value is not None else Py(PyKind.NONE)
            )
            raise _Return
        elif isinstance(node, ast.Raise):
            raise _Return
        elif isinstance(node, ast.If):
            self.ev(node.test, env)
            before = dict(env)
            other = dict(env)
            reads = self.reads_request(node.test, before)
            self.branches.append(reads)
            try:
                self.branch(node.body, env)
                self.branch(node.orelse, other)
            finally:
                self.branches.pop()
            if not reads:
                self.guarded.update(_added(before, env) | _added(before, other))
            self.merge(env, other)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.bind_loop(node.target, node.iter, env)
            before = dict(env)
            self.branch(node.body, env)
            self.branch(node.orelse, env)
            self.merge(env, before)
            _loop_grown(before, env)
        elif isinstance(node, ast.While):
            before = dict(env)
            self.branch(node.body, env)
            self.merge(env, before)
            _loop_grown(before, env)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                value = self.ev(item.context_expr, env)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, None, env)
                del value
            self.branch(node.body, env)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            before = dict(env)
            self.branch(getattr(node, "body", []), env)
            self.guarded.update(_added(before, env))
            self.branch(getattr(node, "orelse", []), env)
            for handler in getattr(node, "handlers", []):
                other = dict(before)
                self.branch(handler.body, other)
                self.merge(env, other)
            self.branch(getattr(node, "finalbody", []), env)

    def reads_request(self, test: ast.expr, env: Mapping[str, Value]) -> bool:
        """Whether an if statement's test reads the request's data: a name bound to an
        array, a size or a text derived from an input. A test of which outputs the
        request asks for, or of whether an optional input was sent, does not count: an
        output those decide is left out by design."""
        found = False
        for node in ast.walk(test):
            if isinstance(node, ast.Attribute) and node.attr == "requested_output_names":
                return False
            if isinstance(node, ast.Name):
                value = env.get(node.id, self.module_env.get(node.id))
                if isinstance(value, Tag) and value.kind in (TagKind.REQUESTED, TagKind.TENSOR):
                    return False
                found = found or from_request(value)
        return found

    def branch(self, body: Sequence[ast.stmt], env: dict[str, Value]) -> None:
        """A block that may stop early (return, raise, break): what it assigned before
        that still counts."""
        with contextlib.suppress(_Return):
            self.block(body, env)

    def assign(self, target: ast.expr, value: Value, env: dict[str, Value]) -> None:
        if isinstance(target, ast.Name):
            if env is self.module_env and target.id in self.rebound:
                value = unsized(value)
            env[target.id] = value
        elif isinstance(target, ast.Attribute) and _is_self(target.value):
            if f"self.{target.attr}" in self.rebound or "self.*" in self.rebound:
                value = unsized(value)
            self.self_env[target.attr] = value
        elif isinstance(target, ast.Tuple | ast.List):
            item = value.item if isinstance(value, Seq) else None
            elements = value.elements if isinstance(value, Seq) else None
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            if elements is not None and len(elements) == len(target.elts) and not starred:
                for element, part in zip(target.elts, elements, strict=True):
                    self.assign(element, part, env)
                return
            for element in target.elts:
                self.assign(element, item, env)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, None, env)

    def bind_loop(self, target: ast.expr, iterable: ast.expr, env: dict[str, Value]) -> Size | None:
        """Bind a loop or comprehension target to an element of `iterable`; how many
        elements it has, when known."""
        if (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and iterable.func.id in ("enumerate", "zip")
            and iterable.func.id not in env
        ):
            values = [self.ev(a, env) for a in iterable.args]
            parts: list[Value] = [
                self.element(v, a) for v, a in zip(values, iterable.args, strict=True)
            ]
            lengths = [length_of(v) for v in values]
            if iterable.func.id == "enumerate":
                parts = [Py(PyKind.INT), *(parts[:1] or [None])]
            if isinstance(target, ast.Tuple):
                for element, value in zip(target.elts, parts, strict=False):
                    self.assign(element, value, env)
            else:
                self.assign(target, None, env)
            single = iterable.func.id == "enumerate" or len(lengths) == 1
            return lengths[0] if lengths and single else None
        value = self.ev(iterable, env)
        self.assign(target, self.element(value, iterable), env)
        return length_of(value)

    def element(self, value: Value, node: ast.expr) -> Value:
        """An item of `value` when iterated."""
        if isinstance(value, Tag) and value.kind == TagKind.REQUESTS:
            return Tag(TagKind.REQUEST)
        if isinstance(value, Seq):
            return value.item
        if isinstance(value, Arr):
            where = f"for ... in {source_text(node)} (line {node.lineno})"
            return self.drop_axis0(value, where)
        return None

    # --- expressions ---------------------------------------------------------------------

    def step(self, cost: int = 1) -> None:
        self.steps += cost
        if self.steps > MAX_STEPS:
            raise _OutOfSteps

    def merge(self, env: dict[str, Value], other: dict[str, Value]) -> None:
        """`env` after a branch point whose other path gives `other` (each entry of the
        environments counts as a step: large ones joined often cost time)."""
        self.step(1 + (len(env) + len(other)) // 8)
        env.update(join_env(env, other))

    def ev(self, node: ast.expr | None, env: dict[str, Value]) -> Value:
        if node is None:
            return None
        self.step()
        if isinstance(node, ast.Constant):
            return constant(node.value, node.lineno)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.module_env:
                return self.module_env[node.id]
            if node.id in npt.BUILTIN_DTYPES:
                return Tag(TagKind.PYTYPE, node.id)
            numpy = self.aliases.numpy(node)
            return self.numpy_attribute(numpy) if numpy else None
        if isinstance(node, ast.Attribute):
            return self.attribute(node, env)
        if isinstance(node, ast.List | ast.Tuple):
            return self.display(node.elts, env)
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            inner = dict(env)
            lengths: list[Size | None] = []
            for generator in node.generators:
                lengths.append(self.bind_loop(generator.target, generator.iter, inner))
                for condition in generator.ifs:
                    self.ev(condition, inner)
            simple = len(node.generators) == 1 and not node.generators[0].ifs
            made = replace(seq_of(self.ev(node.elt, inner)), length=lengths[0] if simple else None)
            names = self.tensor_names(node, env) if simple else None
            return replace(made, sent=Sent(names, names)) if names else made
        if isinstance(node, ast.BinOp):
            return binop(node.op, self.ev(node.left, env), self.ev(node.right, env), node)
        if isinstance(node, ast.UnaryOp):
            operand = self.ev(node.operand, env)
            if isinstance(node.op, ast.Not):
                return Py(PyKind.BOOL)
            if isinstance(operand, Py) and operand.kind == PyKind.BOOL:
                return Py(PyKind.INT)
            if isinstance(operand, Py) and isinstance(node.op, ast.USub):
                why = f"{source_text(node)} (line {node.lineno})"
                return replace(operand, size=sz.multiply(operand.size, Size(-1), why))
            return operand if isinstance(operand, Arr | Py) else None
        if isinstance(node, ast.Compare):
            values = [self.ev(node.left, env), *(self.ev(c, env) for c in node.comparators)]
            arrays = [v for v in values if isinstance(v, Arr)]
            if arrays:
                ranks = [a.rank for a in arrays]
                rank = max(ranks) if None not in ranks else None  # type: ignore[type-var]
                dims = arrays[0].dims
                for other in arrays[1:]:
                    dims = sz.broadcast(dims, other.dims)
                return replace(arrays[0], dtype="bool", why=f"a comparison (line {node.lineno}) "
                               "gives bool", rank=rank, dims=dims)  # fmt: skip
            return Py(PyKind.BOOL)
        if isinstance(node, ast.BoolOp):
            result: Value = None
            for index, operand_node in enumerate(node.values):
                operand = self.ev(operand_node, env)
                result = operand if index == 0 else join(result, operand)
            return result
        if isinstance(node, ast.IfExp):
            self.ev(node.test, env)
            return join(self.ev(node.body, env), self.ev(node.orelse, env))
        if isinstance(node, ast.Subscript):
            return self.subscript(node, env)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.JoinedStr):
            return Py(PyKind.STR)
        if isinstance(node, ast.NamedExpr):
            value = self.ev(node.value, env)
            self.assign(node.target, value, env)
            return value
        if isinstance(node, ast.Await):
            self.ev(node.value, env)
        return None

    def tensor_names(
        self, node: ast.ListComp | ast.GeneratorExp, env: Mapping[str, Value]
    ) -> frozenset[str] | None:
        """The output tensors of `[pb_utils.Tensor(name, ...) for name in NAMES]`, where
        NAMES is a list or tuple of literal strings, written there or as a module
        constant bound once."""
        element, loop = node.elt, node.generators[0]
        if not (isinstance(element, ast.Call) and self.aliases.utility(element.func) == "Tensor"):
            return None
        given = argument(element, 0, "name")
        if not (isinstance(given, ast.Name) and isinstance(loop.target, ast.Name)):
            return None
        if given.id != loop.target.id:
            return None
        domain: ast.expr | None = loop.iter
        if isinstance(domain, ast.Name):
            if domain.id in env or domain.id in self.rebound:
                return None
            bound = [
                statement.value
                for statement in self.tree.body
                if isinstance(statement, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == domain.id for t in statement.targets)
            ]
            domain = bound[0] if len(bound) == 1 else None
        if not isinstance(domain, ast.List | ast.Tuple) or not domain.elts:
            return None
        names = [string_literal(e) for e in domain.elts]
        if any(n is None for n in names):
            return None
        return frozenset(n for n in names if n is not None)

    def display(self, elements: Sequence[ast.expr], env: dict[str, Value]) -> Value:
        if any(isinstance(e, ast.Starred) for e in elements):
            for element in elements:
                self.ev(element, env)
            return Seq(None)
        values = [self.ev(e, env) for e in elements]
        item: Value = None
        for index, value in enumerate(values):
            item = value if index == 0 else join(item, value)
        depth = item.depth + 1 if isinstance(item, Seq) else 1
        ints = tuple(int_literal(e) for e in elements)
        literal = tuple(i for i in ints if i is not None) if None not in ints else None
        sent = Sent()
        for value in values:
            sent = sent.union(sent_by(value))
        return Seq(item if values else None, depth, len(values), literal, tuple(values), sent=sent)

    def attribute(self, node: ast.Attribute, env: dict[str, Value]) -> Value:
        if _is_self(node.value):
            return self.self_env.get(node.attr)
        numpy = self.aliases.numpy(node)
        if numpy is not None:
            return self.numpy_attribute(numpy)
        owner = self.ev(node.value, env)
        if isinstance(owner, Encoding):
            return encoded(owner, node.attr, node)
        if isinstance(owner, Arr):
            if node.attr == "T":
                batch = None if owner.rank != 1 else owner.batch
                return replace(owner, batch=batch, dims=sz.permuted(owner.dims, None))
            if node.attr == "shape":
                return Tag(TagKind.SHAPE, ref=owner)
            if node.attr == "dtype":
                return Tag(TagKind.DTYPE, owner.dtype or "")
            if node.attr == "ndim" and owner.rank is not None:
                why = f"{source_text(node)} (line {node.lineno})"
                return Py(PyKind.INT, size=Size(owner.rank, (), why))
            if node.attr == "size" and owner.dims is not None:
                why = f"{source_text(node)} (line {node.lineno})"
                total = sz.product(owner.dims)
                size = sz.constant(total, why) if total is not None else sz.opaque(
                    "size", owner.dims, why
                )  # fmt: skip
                return Py(PyKind.INT, size=size)
            if node.attr in ("ndim", "size", "itemsize", "nbytes"):
                return Py(PyKind.INT)
        if self.aliases.utility(node.value) is not None or (
            isinstance(node.value, ast.Name) and node.value.id in self.aliases.utils_modules
        ):
            return Py(PyKind.INT) if node.attr.startswith("TRITONSERVER_") else None
        return None

    def numpy_attribute(self, name: str) -> Value:
        if name in npt.DTYPE_NAMES:
            return Tag(TagKind.DTYPE, npt.DTYPE_NAMES[name])
        if name == "newaxis":
            return Py(PyKind.NONE)
        if name in ("pi", "e", "inf", "nan"):
            return Py(PyKind.FLOAT)
        return Tag(TagKind.NUMPY, name)

    def subscript(self, node: ast.Subscript, env: dict[str, Value]) -> Value:
        owner = self.ev(node.value, env)
        index = node.slice
        if isinstance(owner, Tag):
            if owner.kind == TagKind.REQUESTS:
                self.ev(index, env)
                return Tag(TagKind.REQUEST)
            if owner.kind == TagKind.OUTPUT_CONFIG and string_literal(index) == "data_type":
                return Tag(TagKind.OUTPUT_CONFIG_TYPE, owner.name)
            if owner.kind == TagKind.SHAPE and owner.ref is not None:
                return self.shape_part(owner.ref, index, node, env)
            return None
        if isinstance(owner, Encoding):
            return encoded(owner, string_literal(index), node)
        if isinstance(owner, Seq):
            if not isinstance(index, ast.Slice):
                position = int_literal(index)
                if position is None:
                    self.ev(index, env)
                elements = owner.elements
                if (
                    elements is not None
                    and position is not None
                    and -len(elements) <= position < len(elements)
                ):
                    return elements[position]
                return owner.item
            length, literal = self.slice_of(owner.size, index, node, env)
            elements = owner.elements[literal] if literal is not None and owner.elements else None
            items = len(elements) if elements is not None else -1
            return replace(owner, items=items, ints=None, elements=elements, length=length)
        if not isinstance(owner, Arr):
            self.ev(index, env)
            return None
        parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        where = f"{source_text(node)} (line {node.lineno})"
        removed = added = 0
        kinds: list[tuple[IndexKind, Value]] = []
        for part in parts:
            kind, value = self.index_kind(part, env)
            if kind is None:
                return replace(owner, rank=None, batch=None, size=None)
            if kind is IndexKind.INT:
                removed += 1
            elif kind is IndexKind.NEW:
                added += 1
            kinds.append((kind, value))
        rank = owner.rank - removed + added if owner.rank is not None else None
        if rank is not None and rank < 0:
            return None
        dims = self.indexed_dims(owner, parts, kinds, node, env)
        first = kinds[0][0]
        if first is IndexKind.INT:
            result = self.drop_axis0(owner, where)
            return replace(result, rank=rank, size=None, dims=dims)
        if first in (IndexKind.NEW, IndexKind.TAKE, IndexKind.MASK):
            return replace(owner, rank=rank, batch=None, size=None, dropped="", dims=dims)
        size = owner.size if removed == added == 0 else None
        return replace(owner, rank=rank, size=size, dims=dims)

    def shape_part(
        self, array: Arr, index: ast.expr, node: ast.AST, env: dict[str, Value]
    ) -> Value:
        """`array.shape[index]`: an int (`Tag(TagKind.DIM0)` for axis 0), or a tuple of them."""
        dims = array.dims
        position = int_literal(index)
        if position == 0 and not isinstance(index, ast.Slice):
            return Tag(TagKind.DIM0, ref=array)
        if position is not None:
            inside = dims is not None and -len(dims) <= position < len(dims)
            return Py(PyKind.INT, size=dims[position] if dims is not None and inside else None)
        if isinstance(index, ast.Slice) and array.rank is not None:
            _, literal = self.slice_of(Size(array.rank), index, node, env)
            if literal is None:
                return Seq(Py(PyKind.INT))
            axes = range(array.rank)[literal]
            elements = tuple(Py(PyKind.INT, size=dims[a] if dims else None) for a in axes)
            return Seq(Py(PyKind.INT), 1, len(elements), elements=elements)
        self.ev(index, env)
        return None

    def slice_of(
        self, size: Size | None, index: ast.expr, node: ast.AST, env: dict[str, Value]
    ) -> tuple[Size | None, slice | None]:
        """The length of `seq[index]` (a slice) for a `seq` of `size` items, and the
        slice itself when its bounds are literals."""
        if not isinstance(index, ast.Slice):
            self.ev(index, env)
            return None, None
        bounds = (index.lower, index.upper, index.step)
        values = [size_of(self.ev(b, env)) if b is not None else None for b in bounds]
        ints = [int_literal(b) if b is not None else None for b in bounds]
        literal = None
        if (
            all(i is not None or b is None for i, b in zip(ints, bounds, strict=True))
            and ints[2] != 0
        ):
            literal = slice(*ints)
        given = (index.lower is not None, index.upper is not None, index.step is not None)
        why = f"{source_text(node)} (line {getattr(node, 'lineno', 0)})" if any(given) else ""
        return sz.sliced(size, values[0], values[1], values[2], given, why), literal

    def index_kind(self, part: ast.expr, env: dict[str, Value]) -> tuple[IndexKind | None, Value]:
        """What one part of an index does (None: anything else), and its value."""
        if isinstance(part, ast.Slice):
            return IndexKind.SLICE, None  # its bounds are evaluated by indexed_dims
        if isinstance(part, ast.Constant):
            if part.value is None:
                return IndexKind.NEW, None
            if part.value is Ellipsis:
                return IndexKind.ELLIPSIS, None
            integer = isinstance(part.value, int) and not isinstance(part.value, bool)
            return (IndexKind.INT if integer else None), None
        value = self.ev(part, env)
        if isinstance(value, Py) and value.kind == PyKind.NONE:
            return IndexKind.NEW, value
        if (isinstance(value, Py) and value.kind == PyKind.INT) or (
            isinstance(value, Tag) and value.kind == TagKind.DIM0
        ):
            return IndexKind.INT, value
        if isinstance(value, Arr) and value.rank == 1 and value.dtype is not None:
            if value.dtype == "bool":
                return IndexKind.MASK, value
            if value.dtype.startswith(("int", "uint")):
                return IndexKind.TAKE, value
        return None, value

    def indexed_dims(
        self,
        owner: Arr,
        parts: Sequence[ast.expr],
        kinds: Sequence[tuple[IndexKind, Value]],
        node: ast.Subscript,
        env: dict[str, Value],
    ) -> Dims | None:
        """The dims of `owner[parts]` (a basic index plus at most one rank-1 array)."""
        dims = owner.dims
        if (
            sum(kind in (IndexKind.TAKE, IndexKind.MASK) for kind, _ in kinds) > 1
            or owner.rank is None
        ):
            dims = None  # NumPy's advanced indexing of several arrays: not followed
        consumed = sum(
            kind in (IndexKind.INT, IndexKind.SLICE, IndexKind.TAKE, IndexKind.MASK)
            for kind, _ in kinds
        )
        result: list[Size | None] = []
        axis = 0
        for part, (kind, value) in zip(parts, kinds, strict=True):
            if kind is IndexKind.SLICE:
                size = dims[axis] if dims is not None and axis < len(dims) else None
                result.append(self.slice_of(size, part, node, env)[0])
                axis += 1
            elif kind is IndexKind.INT:
                axis += 1
            elif kind is IndexKind.NEW:
                result.append(Size(1, (), f"{source_text(node)} (line {node.lineno})"))
            elif kind is IndexKind.ELLIPSIS and dims is not None:
                count = len(dims) - consumed
                result.extend(dims[axis : axis + count])
                axis += max(count, 0)
            elif kind is IndexKind.TAKE and isinstance(value, Arr):
                result.append(value.dims[0] if value.dims else None)
                axis += 1
            elif kind is IndexKind.MASK and isinstance(value, Arr):
                request = value.source or owner.source
                why = f"{source_text(node)} (line {node.lineno})"
                result.append(
                    sz.symbol(f"r:mask@{node.lineno}:{node.col_offset}", why) if request else None
                )
                axis += 1
        if dims is None or axis > len(dims):
            return None
        return (*result, *dims[axis:])

    def drop_axis0(self, array: Arr, where: str) -> Arr:
        """`array` without its axis 0 (an index or an iteration)."""
        rank = array.rank - 1 if array.rank is not None and array.rank > 0 else None
        dims = array.dims[1:] if array.dims else None
        if array.batch is True:
            return replace(array, rank=rank, batch=False, size=array.size, dropped=where, dims=dims)
        if array.batch is False and array.source and not array.axis0 and self.whole(array):
            return replace(array, rank=rank, batch=None, size=None, axis0=where, dims=dims)
        return replace(array, rank=rank, batch=None, size=None, dims=dims)

    def whole(self, array: Arr) -> bool:
        """Whether `array` still has the rank of the input it comes from (so its axis 0
        is the input's first dim)."""
        facts = self.inputs.get(array.source or "")
        return facts is not None and facts.rank is not None and array.rank == facts.rank

    # --- calls ---------------------------------------------------------------------------

    def call(self, node: ast.Call, env: dict[str, Value]) -> Value:
        func = node.func
        args = [self.ev(a.value if isinstance(a, ast.Starred) else a, env) for a in node.args]
        kwargs = {k.arg: self.ev(k.value, env) for k in node.keywords if k.arg is not None}
        utility = self.aliases.utility(func)
        if utility is not None:
            return self.utility(utility, node, args, kwargs)
        numpy = self.aliases.numpy(func)
        if numpy is not None:
            return self.array_calls.numpy_call(numpy, node, args, kwargs)
        if isinstance(func, ast.Attribute) and _is_self(func.value) and func.attr in self.methods:
            return self.invoke(self.methods[func.attr], [Tag(TagKind.SELF), *args], kwargs)
        if tokenizer_call(node) and not (isinstance(func, ast.Name) and func.id in self.functions):
            return tokenized(node, args, kwargs)
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "resize"
            and isinstance(func.value, ast.Name)
            and func.value.id in self.cv2
        ):
            return resized(node, args, kwargs)
        if isinstance(func, ast.Attribute):
            owner = self.ev(func.value, env)
            if isinstance(owner, Seq) and func.attr in ("append", "insert", "extend") and args:
                self.grow(func.value, owner, func.attr, args[-1], env)
                return None
            return self.method(owner, func.attr, node, args, kwargs)
        if isinstance(func, ast.Name):
            if func.id in self.functions and func.id not in env:
                return self.invoke(self.functions[func.id], args, kwargs)
            return self.builtin(func.id, node, args)
        return None

    def grow(
        self, target: ast.expr, owner: Seq, how: str, added: Value, env: dict[str, Value]
    ) -> None:
        """`target.append(added)` (or insert / extend): the list's items now include it."""
        item = (added.item if isinstance(added, Seq) else None) if how == "extend" else added
        grown = seq_of(item) if empty(owner) else seq_of(join(owner.item, item))
        if owner.sent is not None:
            more = sent_by(added)
            if how == "extend":
                known = isinstance(added, Seq) and added.sent is not None
                more = (
                    added.sent if isinstance(added, Seq) and added.sent else Sent(unknown=not known)
                )
            grown = replace(grown, sent=owner.sent.union(more))
        if isinstance(target, ast.Name):
            env[target.id] = grown
        elif isinstance(target, ast.Attribute) and _is_self(target.value):
            self.self_env[target.attr] = grown

    def utility(
        self, name: str, node: ast.Call, args: list[Value], kwargs: Mapping[str, Value]
    ) -> Value:
        if name == "get_input_tensor_by_name":
            return Tag(TagKind.TENSOR, string_literal(argument(node, 1, "name")) or "")
        if name == "get_output_config_by_name":
            return Tag(TagKind.OUTPUT_CONFIG, string_literal(argument(node, 1, "name")) or "")
        if name == "triton_string_to_numpy":
            given = args[0] if args else None
            if isinstance(given, Tag) and given.kind == TagKind.OUTPUT_CONFIG_TYPE:
                dtype = self.output_types.get(given.name)
                return Tag(TagKind.DTYPE, dtype) if dtype else None
            return None
        if name in ("Tensor", "Tensor.from_dlpack"):
            tensor_name = string_literal(argument(node, 0, "name"))
            value = args[1] if len(args) > 1 and name == "Tensor" else None
            if tensor_name is not None:
                self.outputs.append(
                    OutputValue(
                        tensor_name,
                        node.lineno,
                        node.col_offset,
                        value if isinstance(value, Arr) else None,
                    )
                )
            return Tag(TagKind.OUTPUT_TENSOR, tensor_name or "")
        if name == "InferenceResponse":
            error = argument(node, 1, "error")
            if error is None or (isinstance(error, ast.Constant) and error.value is None):
                given = args[0] if node.args else kwargs.get("output_tensors")
                if argument(node, 0, "output_tensors") is not None:
                    sent = given.sent if isinstance(given, Seq) else None
                    fixed = not all(self.branches)
                    self.responses.append(ResponseValue(node.lineno, node.col_offset, sent, fixed))
            return Tag(TagKind.RESPONSE)
        return None

    def builtin(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        value = args[0] if args else None
        sizes = name in ("float", "int", "range", "min", "max", "round", "abs")
        why = f"{source_text(node)} (line {node.lineno})" if sizes else ""
        if name in ("float", "int") and isinstance(value, Arr):
            request = value.source is not None and value.rank in (0, 1, None)
            size = sz.symbol(f"r:value@{node.lineno}:{node.col_offset}", why) if request else None
            return Py(PyKind(name), size=size)  # int(x[0]): a value of the request
        if name in ("float", "int"):
            size = size_of(as_int(value))
            if name == "int" and isinstance(value, Py) and value.kind == PyKind.FLOAT:
                size = size if size is None or size.constant is not None else sz.opaque(
                    "int", (size,), why
                )  # fmt: skip
            return Py(PyKind(name), size=size)
        if name in ("bool", "str", "bytes"):
            return Py(PyKind(name))
        if name == "len":
            if isinstance(value, Arr):
                return Tag(TagKind.DIM0, ref=value)
            if isinstance(value, Encoding):
                return Py(PyKind.INT, size=value.count)
            if isinstance(value, Seq | Py):
                return Py(PyKind.INT, size=value.size)
            return Py(PyKind.INT)
        if name == "range":
            return Seq(Py(PyKind.INT), length=range_length([size_of(as_int(a)) for a in args], why))
        if name in ("list", "tuple", "sorted"):
            if isinstance(value, Seq):
                return value
            if isinstance(value, Arr):
                return replace(seq_of(self.element(value, node.args[0])), length=length_of(value))
            return Seq(None)
        if name in ("min", "max") and len(args) >= 2:
            numbers = [as_int(a) for a in args]
            if all(isinstance(n, Py) and n.kind in (PyKind.INT, PyKind.FLOAT) for n in numbers):
                floats = any(isinstance(n, Py) and n.kind is PyKind.FLOAT for n in numbers)
                kind = PyKind.FLOAT if floats else PyKind.INT
                return Py(kind, size=sz.extreme(name, [size_of(n) for n in numbers], why))
            return None
        if name in ("round", "abs") and isinstance(as_int(value), Py):
            number = as_int(value)
            assert isinstance(number, Py)
            size = size_of(number)
            if size is not None and size.constant is not None and name == "abs":
                size = sz.constant(abs(size.constant), why)
            elif size is not None and size.constant is None:
                size = sz.opaque(name, (size,), why)
            kind = PyKind.INT if name == "round" and len(args) == 1 else number.kind
            return Py(kind, size=size)
        return None

    def method(
        self,
        owner: Value,
        name: str,
        node: ast.Call,
        args: list[Value],
        kwargs: Mapping[str, Value],
    ) -> Value:
        if isinstance(owner, Tag) and owner.kind == TagKind.TENSOR and name == "as_numpy":
            return input_array(self.inputs, owner.name, node.lineno)
        if (
            isinstance(owner, Tag)
            and owner.kind == TagKind.REQUEST
            and name == "get_response_sender"
        ):
            return Tag(TagKind.SENDER)
        if (
            isinstance(owner, Tag)
            and owner.kind == TagKind.REQUEST
            and name == "requested_output_names"
        ):
            return Tag(TagKind.REQUESTED)
        if isinstance(owner, Arr):
            return self.array_calls.array_method(owner, name, node, args, kwargs)
        if isinstance(owner, Py) and owner.kind in (PyKind.STR, PyKind.BYTES):
            why = f"{source_text(node)} (line {node.lineno})"
            size = sz.opaque(name, (owner.size,), why)
            if name == "join" or name in _STR_METHODS:
                return Py(owner.kind, size=size)
            if name == "split":
                part = Py(owner.kind, size=sz.opaque("part", (owner.size,), why))
                return Seq(part, length=size)
            if name in ("decode", "encode"):
                return Py(PyKind.STR if name == "decode" else PyKind.BYTES, size=owner.size)
        if name == "decode":
            return Py(PyKind.STR)
        if name == "encode" and (not node.args or string_literal(node.args[0]) is not None):
            return Py(PyKind.BYTES)  # text.encode() or .encode("utf-8"), not tokenizer.encode(text)
        if isinstance(owner, Seq) and name in ("append", "extend", "insert"):
            return None
        return None


def _added(before: Mapping[str, Value], after: Mapping[str, Value]) -> set[str]:
    """The tensor names lists gained between two states of an environment."""
    added: set[str] = set()
    for key, value in after.items():
        old = before.get(key)
        if isinstance(value, Seq) and value.sent is not None:
            was = old.sent.may if isinstance(old, Seq) and old.sent is not None else frozenset()
            added |= value.sent.may - was
    return added


def _loop_grown(before: Mapping[str, Value], env: dict[str, Value]) -> None:
    """After a loop: a list that gained tensors in its body holds them only if the loop
    ran, which the flow cannot tell (`for box in boxes`), so what it holds is unknown."""
    for key, value in env.items():
        if isinstance(value, Seq) and value.sent is not None and _added(before, {key: value}):
            env[key] = replace(value, sent=replace(value.sent, unknown=True))


def _rebound(tree: ast.Module, nodes: Sequence[ast.AST]) -> frozenset[str]:
    """Module names and `self.` attributes bound in more than one place (or declared
    `global` in a function): the value the flow follows first may not be the one
    execute reads, so their sizes are not trusted. "self.*" when setattr(...) may bind
    any attribute."""
    counts: dict[str, int] = {}

    def count(name: str, times: int = 1) -> None:
        counts[name] = counts.get(name, 0) + times

    stack: list[ast.AST] = list(tree.body)
    while stack:  # module level, without function and class bodies
        node = stack.pop()
        if type(node) is ast.Name and isinstance(node.ctx, ast.Store):
            count(node.id)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    for node in nodes:
        kind = type(node)
        if kind is ast.Attribute:
            assert isinstance(node, ast.Attribute)
            if isinstance(node.ctx, ast.Store) and _is_self(node.value):
                count(f"self.{node.attr}")
        elif kind is ast.Global:
            assert isinstance(node, ast.Global)
            for name in node.names:
                count(name, 2)
        elif kind is ast.ClassDef:
            assert isinstance(node, ast.ClassDef)
            if node.name == "TritonPythonModel":
                for statement in node.body:
                    for target in statement.targets if isinstance(statement, ast.Assign) else []:
                        if isinstance(target, ast.Name):
                            count(f"self.{target.id}")
        elif kind is ast.Call:
            assert isinstance(node, ast.Call)
            if isinstance(node.func, ast.Name) and node.func.id == "setattr":
                count("self.*", 2)
    return frozenset(name for name, times in counts.items() if times > 1)


def _named(target: ast.expr, node: ast.expr, value: Value) -> Value:
    """`value` bound by `target = node`: a literal constant is then known by its name
    (`MAX_LENGTH = 256 (line 5)`), which is how messages cite it."""
    literal = node.operand if isinstance(node, ast.UnaryOp) else node
    if not isinstance(value, Py) or value.size is None or not isinstance(literal, ast.Constant):
        return value
    name = source_text(target)
    return replace(
        value, size=replace(value.size, why=f"{name} = {source_text(node)} (line {node.lineno})")
    )


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"
