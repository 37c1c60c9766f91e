"""A light data flow of NumPy values through a model.py's `execute`, never running it.

The Python backend sends whatever array the code hands `pb_utils.Tensor(name, array)`:
its dtype and shape are never compared with the config (python_backend
`pb_stub_utils.cc` numpy_to_triton_type; server#3989: "we do not have this output
validation post inference"). So a float64 softmax goes out as FP64 where the config
promises FP32, `logits[0]` answers one row for a batch of two, and an ensemble's next
step then fails on the dtype or shape it gets.

`analyse_flow` interprets `execute` abstractly: every value is an `Arr` (dtype, rank,
whether axis 0 is still the request's batch axis, which input it comes from) or a
Python scalar, list or helper object; anything else is unknown, and an unknown never
produces a finding. It starts from what the config says of each input
(`pb_utils.get_input_tensor_by_name(r, "X").as_numpy()` has X's data type, and its dims
with the batch axis in front when the model batches), follows assignments, branches
(joined), loops (once), module constants, `initialize`'s `self.` attributes and calls
to the module's own functions and methods (inlined, a few levels deep), and records
the value given to each `pb_utils.Tensor` and each reshape of a batched array to a
literal shape. It is bounded by `MAX_STEPS` evaluations and `MAX_DEPTH` inlined calls.
"""

from __future__ import annotations

import ast
import contextlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from pbtxt_lint.artifacts import python_numpy as npt
from pbtxt_lint.artifacts.python_syntax import Aliases, argument, string_literal

MAX_STEPS = 50_000
"""Expressions evaluated at most per model.py (inlined calls included)."""
MAX_DEPTH = 4
"""Nested calls to the module's own functions followed at most."""

_NO_RANK = -1


@dataclass(frozen=True)
class InputFacts:
    """What the config says of one input, as `as_numpy()` shows it."""

    dtype: str | None
    rank: int | None
    """Batch axis included."""
    item_size: int | None
    """Elements per batch item (per request when the model does not batch); None when a
    dim is variable."""
    batched: bool


@dataclass(frozen=True)
class Arr:
    """An abstract NumPy array."""

    dtype: str | None
    why: str = ""
    """How it got that dtype: 'np.argmax(...) returns int64 (line 13)'."""
    rank: int | None = None
    batch: bool | None = None
    """True: axis 0 is the request's batch axis; False: there is none; None: unknown."""
    source: str | None = None
    """The input it derives from."""
    size: int | None = None
    """Elements per batch item (batch True) or in all (batch False); None: unknown."""
    dropped: str = ""
    """The operation that removed the batch axis: 'logits[0] (line 17)'."""
    axis0: str = ""
    """An operation that treats axis 0 of an input without batch axis as a batch."""


@dataclass(frozen=True)
class Py:
    """A Python scalar: "int", "float", "bool", "str", "bytes" or "none"."""

    kind: str
    text: str = ""
    """A short string literal's value (a dtype may be named by one: "float32")."""


@dataclass(frozen=True)
class Seq:
    """A list or tuple whose items are `item` (joined)."""

    item: Value
    depth: int = 1
    items: int = -1
    """Its length when written out (a display); -1 otherwise."""
    ints: tuple[int, ...] | None = None
    """Its items, when all are integer literals (a literal shape)."""


@dataclass(frozen=True)
class Tag:
    """A value the checks know by role: the requests, one request, an input tensor, a
    dtype, an output's config, an array's shape or first dim, ..."""

    kind: str
    name: str = ""
    ref: Arr | None = None


Value = Arr | Py | Seq | Tag | None


@dataclass(frozen=True)
class OutputValue:
    """The value given to `pb_utils.Tensor(name, value)`."""

    name: str
    line: int
    column: int
    value: Arr | None


@dataclass(frozen=True)
class Reshape:
    """A batched array reshaped to a literal shape that holds exactly one item."""

    line: int
    source: str
    shape: tuple[int, ...]
    item_size: int


@dataclass(frozen=True)
class Flow:
    outputs: tuple[OutputValue, ...] = ()
    reshapes: tuple[Reshape, ...] = ()
    complete: bool = True
    """False when the step budget ran out (the findings are then dropped)."""


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
        outputs[key] = _join(outputs[key], out.value) if key in outputs else out.value
    return Flow(
        tuple(
            OutputValue(n, line, column, v if isinstance(v, Arr) else None)
            for (n, line, column), v in outputs.items()
        ),
        tuple(dict.fromkeys(interpreter.reshapes)),
    )


class _OutOfSteps(Exception):
    pass


class _Return(Exception):
    pass


def _join(a: Value, b: Value) -> Value:
    """What a value is after two paths that give `a` and `b`."""
    if a == b:
        return a
    if isinstance(a, Arr) and isinstance(b, Arr):
        return Arr(
            a.dtype if a.dtype == b.dtype else None,
            a.why if a.dtype == b.dtype else "",
            a.rank if a.rank == b.rank else None,
            a.batch if a.batch == b.batch else None,
            a.source if a.source == b.source else None,
            a.size if a.size == b.size else None,
            a.dropped if a.dropped == b.dropped else "",
            a.axis0 if a.axis0 == b.axis0 else "",
        )
    if isinstance(a, Py) and isinstance(b, Py):
        if a.kind == b.kind:
            return Py(a.kind)
        if {a.kind, b.kind} <= {"int", "float", "bool"}:
            return Py("float" if "float" in (a.kind, b.kind) else "int")
        return None
    if isinstance(a, Seq) and isinstance(b, Seq):
        return Seq(_join(a.item, b.item), a.depth if a.depth == b.depth else 1)
    return None


def _join_env(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    return {k: _join(a.get(k), b.get(k)) for k in a.keys() | b.keys() if a.get(k) != b.get(k)}


_SAME = frozenset(
    {"abs", "absolute", "negative", "positive", "clip", "round", "around", "rint", "floor",
     "ceil", "trunc", "sign", "sort", "flip", "fliplr", "flipud", "roll", "ascontiguousarray",
     "asfortranarray", "copy", "nan_to_num", "square", "pad", "sigmoid"}
)  # fmt: skip
_FLOAT_FUNCTIONS = frozenset(
    {"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "cbrt", "sin", "cos",
     "tan", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "arctanh", "deg2rad",
     "rad2deg", "erf"}
)  # fmt: skip
_BINARY = frozenset({"add", "subtract", "multiply", "maximum", "minimum", "power", "fmax", "fmin"})
_INDEX_FUNCTIONS = frozenset({"argmax", "argmin", "nanargmax", "nanargmin"})
_REDUCE_SAME = frozenset({"max", "min", "amax", "amin", "nanmax", "nanmin", "ptp"})
_REDUCE_MEAN = frozenset({"mean", "average", "std", "var", "median", "nanmean", "nanstd"})
_REDUCE_SUM = frozenset({"sum", "prod", "nansum", "nanprod"})
_BOOL_FUNCTIONS = frozenset(
    {"isnan", "isinf", "isfinite", "logical_and", "logical_or", "logical_not", "greater",
     "less", "equal", "not_equal", "greater_equal", "less_equal", "isclose"}
)  # fmt: skip
_CREATE = frozenset({"zeros", "ones", "empty"})
_LIKE = frozenset({"zeros_like", "ones_like", "empty_like", "full_like"})
_ARRAY = frozenset({"array", "asarray", "asanyarray"})
_DTYPE_POSITION: Mapping[str, int] = {
    **dict.fromkeys(("array", "asarray", "asanyarray", "zeros", "ones", "empty"), 1),
    **dict.fromkeys(("zeros_like", "ones_like", "empty_like", "frombuffer", "fromstring"), 1),
    "full": 2,
    "full_like": 2,
}
"""Where each creation function takes `dtype` positionally."""
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
    module_env: dict[str, Value] = field(default_factory=dict)
    self_env: dict[str, Value] = field(default_factory=dict)
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    memo: dict[tuple[int, tuple[object, ...]], Value] = field(default_factory=dict)
    returns: list[Value] = field(default_factory=list)

    def __post_init__(self) -> None:
        imports = [n for n in ast.walk(self.tree) if isinstance(n, ast.Import | ast.ImportFrom)]
        self.aliases = Aliases.of(imports)

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
                        self.self_env[target.id] = self.ev(node.value, dict(self.module_env))
        for name, first in (("initialize", None), ("execute", Tag("requests"))):
            method = self.methods.get(name)
            if method is not None:
                self.invoke(method, [Tag("self"), first], {}, record_memo=False)

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
            result = value if index == 0 else _join(result, value)
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
                self.assign(target, value, env)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.assign(node.target, self.ev(node.value, env), env)
        elif isinstance(node, ast.AugAssign):
            current = self.ev(node.target, env) if isinstance(node.target, ast.Name) else None
            self.assign(
                node.target, self.binop(node.op, current, self.ev(node.value, env), node), env
            )
        elif isinstance(node, ast.Expr):
            self.ev(node.value, env)
        elif isinstance(node, ast.Return):
            self.returns.append(self.ev(node.value, env) if node.value is not None else Py("none"))
            raise _Return
        elif isinstance(node, ast.Raise):
            raise _Return
        elif isinstance(node, ast.If):
            self.ev(node.test, env)
            other = dict(env)
            self.branch(node.body, env)
            self.branch(node.orelse, other)
            self.merge(env, other)
        elif isinstance(node, ast.For | ast.AsyncFor):
            self.bind_loop(node.target, node.iter, env)
            before = dict(env)
            self.branch(node.body, env)
            self.branch(node.orelse, env)
            self.merge(env, before)
        elif isinstance(node, ast.While):
            before = dict(env)
            self.branch(node.body, env)
            self.merge(env, before)
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
            self.branch(getattr(node, "orelse", []), env)
            for handler in getattr(node, "handlers", []):
                other = dict(before)
                self.branch(handler.body, other)
                self.merge(env, other)
            self.branch(getattr(node, "finalbody", []), env)

    def branch(self, body: Sequence[ast.stmt], env: dict[str, Value]) -> None:
        """A block that may stop early (return, raise, break): what it assigned before
        that still counts."""
        with contextlib.suppress(_Return):
            self.block(body, env)

    def assign(self, target: ast.expr, value: Value, env: dict[str, Value]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, ast.Attribute) and _is_self(target.value):
            self.self_env[target.attr] = value
        elif isinstance(target, ast.Tuple | ast.List):
            item = value.item if isinstance(value, Seq) else None
            for element in target.elts:
                self.assign(element, item, env)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, None, env)

    def bind_loop(self, target: ast.expr, iterable: ast.expr, env: dict[str, Value]) -> None:
        """Bind a loop or comprehension target to an element of `iterable`."""
        if (
            isinstance(iterable, ast.Call)
            and isinstance(iterable.func, ast.Name)
            and iterable.func.id in ("enumerate", "zip")
            and iterable.func.id not in env
            and isinstance(target, ast.Tuple)
        ):
            parts: list[Value] = [self.element(self.ev(a, env), a) for a in iterable.args]
            if iterable.func.id == "enumerate":
                parts = [Py("int"), *(parts[:1] or [None])]
            for element, value in zip(target.elts, parts, strict=False):
                self.assign(element, value, env)
            return
        self.assign(target, self.element(self.ev(iterable, env), iterable), env)

    def element(self, value: Value, node: ast.expr) -> Value:
        """An item of `value` when iterated."""
        if isinstance(value, Tag) and value.kind == "requests":
            return Tag("request")
        if isinstance(value, Tag) and value.kind == "range":
            return Py("int")
        if isinstance(value, Seq):
            return value.item
        if isinstance(value, Arr):
            where = f"for ... in {_text(node)} (line {node.lineno})"
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
        env.update(_join_env(env, other))

    def ev(self, node: ast.expr | None, env: dict[str, Value]) -> Value:
        if node is None:
            return None
        self.step()
        if isinstance(node, ast.Constant):
            return _constant(node.value)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            if node.id in self.module_env:
                return self.module_env[node.id]
            if node.id in npt.BUILTIN_DTYPES:
                return Tag("pytype", node.id)
            numpy = self.aliases.numpy(node)
            return self.numpy_attribute(numpy) if numpy else None
        if isinstance(node, ast.Attribute):
            return self.attribute(node, env)
        if isinstance(node, ast.List | ast.Tuple):
            return self.display(node.elts, env)
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            inner = dict(env)
            for generator in node.generators:
                self.bind_loop(generator.target, generator.iter, inner)
                for condition in generator.ifs:
                    self.ev(condition, inner)
            return _seq(self.ev(node.elt, inner))
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.ev(node.left, env), self.ev(node.right, env), node)
        if isinstance(node, ast.UnaryOp):
            operand = self.ev(node.operand, env)
            if isinstance(node.op, ast.Not):
                return Py("bool")
            if isinstance(operand, Py) and operand.kind == "bool":
                return Py("int")
            return operand if isinstance(operand, Arr | Py) else None
        if isinstance(node, ast.Compare):
            values = [self.ev(node.left, env), *(self.ev(c, env) for c in node.comparators)]
            arrays = [v for v in values if isinstance(v, Arr)]
            if arrays:
                ranks = [a.rank for a in arrays]
                rank = max(ranks) if None not in ranks else None  # type: ignore[type-var]
                return replace(arrays[0], dtype="bool", why=f"a comparison (line {node.lineno}) "
                               "gives bool", rank=rank)  # fmt: skip
            return Py("bool")
        if isinstance(node, ast.BoolOp):
            result: Value = None
            for index, operand_node in enumerate(node.values):
                operand = self.ev(operand_node, env)
                result = operand if index == 0 else _join(result, operand)
            return result
        if isinstance(node, ast.IfExp):
            self.ev(node.test, env)
            return _join(self.ev(node.body, env), self.ev(node.orelse, env))
        if isinstance(node, ast.Subscript):
            return self.subscript(node, env)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.JoinedStr):
            return Py("str")
        if isinstance(node, ast.NamedExpr):
            value = self.ev(node.value, env)
            self.assign(node.target, value, env)
            return value
        if isinstance(node, ast.Await):
            self.ev(node.value, env)
        return None

    def display(self, elements: Sequence[ast.expr], env: dict[str, Value]) -> Value:
        if any(isinstance(e, ast.Starred) for e in elements):
            for element in elements:
                self.ev(element, env)
            return Seq(None)
        values = [self.ev(e, env) for e in elements]
        item: Value = None
        for index, value in enumerate(values):
            item = value if index == 0 else _join(item, value)
        depth = item.depth + 1 if isinstance(item, Seq) else 1
        ints = tuple(_int_literal(e) for e in elements)
        literal = tuple(i for i in ints if i is not None) if None not in ints else None
        return Seq(item if values else None, depth, len(values), literal)

    def attribute(self, node: ast.Attribute, env: dict[str, Value]) -> Value:
        if _is_self(node.value):
            return self.self_env.get(node.attr)
        numpy = self.aliases.numpy(node)
        if numpy is not None:
            return self.numpy_attribute(numpy)
        owner = self.ev(node.value, env)
        if isinstance(owner, Arr):
            if node.attr == "T":
                return replace(owner, batch=None if owner.rank != 1 else owner.batch)
            if node.attr == "shape":
                return Tag("shape", ref=owner)
            if node.attr == "dtype":
                return Tag("dtype", owner.dtype or "")
            if node.attr in ("ndim", "size", "itemsize", "nbytes"):
                return Py("int")
        if self.aliases.utility(node.value) is not None or (
            isinstance(node.value, ast.Name) and node.value.id in self.aliases.utils_modules
        ):
            return Py("int") if node.attr.startswith("TRITONSERVER_") else None
        return None

    def numpy_attribute(self, name: str) -> Value:
        if name in npt.DTYPE_NAMES:
            return Tag("dtype", npt.DTYPE_NAMES[name])
        if name == "newaxis":
            return Py("none")
        if name in ("pi", "e", "inf", "nan"):
            return Py("float")
        return Tag("numpy", name)

    def subscript(self, node: ast.Subscript, env: dict[str, Value]) -> Value:
        owner = self.ev(node.value, env)
        index = node.slice
        if isinstance(owner, Tag):
            if owner.kind == "requests":
                self.ev(index, env)
                return Tag("request")
            if owner.kind == "output_config" and string_literal(index) == "data_type":
                return Tag("output_config_type", owner.name)
            if owner.kind == "shape" and owner.ref is not None and _int_literal(index) == 0:
                return Tag("dim0", ref=owner.ref)
            if owner.kind == "shape":
                return Py("int") if _int_literal(index) is not None else None
            return None
        if isinstance(owner, Seq):
            self.ev(index, env)
            return owner.item if not isinstance(index, ast.Slice) else owner
        if not isinstance(owner, Arr):
            self.ev(index, env)
            return None
        parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        where = f"{_text(node)} (line {node.lineno})"
        removed = added = 0
        first = ""
        for position, part in enumerate(parts):
            kind = self.index_kind(part, env)
            if kind is None:
                return replace(owner, rank=None, batch=None, size=None)
            if kind == "ellipsis" and position == 0:
                first = "keep"
            if kind == "int":
                removed += 1
            elif kind == "new":
                added += 1
            if position == 0 and not first:
                first = kind
        rank = owner.rank - removed + added if owner.rank is not None else None
        if rank is not None and rank < 0:
            return None
        if first == "int":
            result = self.drop_axis0(owner, where)
            return replace(result, rank=rank, size=None)
        if first == "new":
            return replace(owner, rank=rank, batch=None, size=None, dropped="")
        return replace(owner, rank=rank, size=owner.size if removed == added == 0 else None)

    def index_kind(self, part: ast.expr, env: dict[str, Value]) -> str | None:
        """ "int", "slice", "new" (None / np.newaxis), "ellipsis" or None (an array)."""
        if isinstance(part, ast.Slice):
            for bound in (part.lower, part.upper, part.step):
                self.ev(bound, env)
            return "slice"
        if isinstance(part, ast.Constant):
            if part.value is None:
                return "new"
            if part.value is Ellipsis:
                return "ellipsis"
            return (
                "int" if isinstance(part.value, int) and not isinstance(part.value, bool) else None
            )
        value = self.ev(part, env)
        if isinstance(value, Py) and value.kind == "none":
            return "new"
        if (isinstance(value, Py) and value.kind == "int") or (
            isinstance(value, Tag) and value.kind == "dim0"
        ):
            return "int"
        return None

    def drop_axis0(self, array: Arr, where: str) -> Arr:
        """`array` without its axis 0 (an index or an iteration)."""
        rank = array.rank - 1 if array.rank is not None and array.rank > 0 else None
        if array.batch is True:
            return replace(array, rank=rank, batch=False, size=array.size, dropped=where)
        if array.batch is False and array.source and not array.axis0 and self.whole(array):
            return replace(array, rank=rank, batch=None, size=None, axis0=where)
        return replace(array, rank=rank, batch=None, size=None)

    def whole(self, array: Arr) -> bool:
        """Whether `array` still has the rank of the input it comes from (so its axis 0
        is the input's first dim)."""
        facts = self.inputs.get(array.source or "")
        return facts is not None and facts.rank is not None and array.rank == facts.rank

    # --- operators -----------------------------------------------------------------------

    def binop(self, op: ast.operator, left: Value, right: Value, node: ast.AST) -> Value:
        line = getattr(node, "lineno", 0)
        symbol = _SYMBOLS.get(type(op), "?")
        if isinstance(left, Py) and isinstance(right, Py):
            kinds = {left.kind, right.kind}
            if kinds & {"str", "bytes"}:
                return Py(left.kind) if left.kind in ("str", "bytes") else Py(right.kind)
            if isinstance(op, ast.Div) or "float" in kinds:
                return Py("float")
            return Py("int") if kinds <= {"int", "bool"} else None
        if isinstance(left, Seq) and isinstance(right, Seq) and isinstance(op, ast.Add):
            if _empty(left) or _empty(right):
                return _seq(right.item if _empty(left) else left.item)
            return _seq(_join(left.item, right.item))
        if not (isinstance(left, Arr) or isinstance(right, Arr)):
            return None
        arrays = [v for v in (left, right) if isinstance(v, Arr)]
        scalar = next((v for v in (left, right) if isinstance(v, Py)), None)
        if len(arrays) == 2:
            a, b = arrays
            dtype = npt.promote(a.dtype, b.dtype)
            if isinstance(op, ast.MatMult):
                base = a
                rank = _matmul_rank(a.rank, b.rank)
            else:
                base = a if (a.rank or 0) >= (b.rank or 0) else b
                rank = max(a.rank, b.rank) if a.rank is not None and b.rank is not None else None
            why = a.why if dtype == a.dtype else b.why if dtype == b.dtype else ""
            if not why and dtype is not None:
                why = f"{a.dtype} {symbol} {b.dtype} gives {dtype} (line {line})"
            size = base.size if a.rank == b.rank and not isinstance(op, ast.MatMult) else None
            result = replace(base, dtype=dtype, why=why, rank=rank, size=size)
        elif scalar is not None and scalar.kind in ("int", "float", "bool"):
            array = arrays[0]
            dtype = npt.with_scalar(array.dtype, scalar.kind)
            why = array.why if dtype == array.dtype else (
                f"{array.dtype} array {symbol} Python {scalar.kind} gives {dtype} (line {line})"
            )  # fmt: skip
            result = replace(array, dtype=dtype, why=why)
        else:
            array = arrays[0]
            return replace(array, dtype=None, why="", rank=None, batch=None, size=None)
        if isinstance(op, ast.Div):
            divided = npt.true_divide(result.dtype)
            if divided != result.dtype:
                operands = " / ".join(
                    f"{v.dtype} array" if isinstance(v, Arr) else f"Python {getattr(v, 'kind', '')}"
                    for v in (left, right)
                )
                result = replace(
                    result, dtype=divided, why=f"{operands} gives {divided} (line {line})"
                )
        return result

    # --- calls ---------------------------------------------------------------------------

    def call(self, node: ast.Call, env: dict[str, Value]) -> Value:
        func = node.func
        args = [self.ev(a.value if isinstance(a, ast.Starred) else a, env) for a in node.args]
        kwargs = {k.arg: self.ev(k.value, env) for k in node.keywords if k.arg is not None}
        utility = self.aliases.utility(func)
        if utility is not None:
            return self.utility(utility, node, args)
        numpy = self.aliases.numpy(func)
        if numpy is not None:
            return self.numpy_call(numpy, node, args, kwargs)
        if isinstance(func, ast.Attribute):
            if _is_self(func.value) and func.attr in self.methods:
                return self.invoke(self.methods[func.attr], [Tag("self"), *args], kwargs)
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
        grown = _seq(item) if _empty(owner) else _seq(_join(owner.item, item))
        if isinstance(target, ast.Name):
            env[target.id] = grown
        elif isinstance(target, ast.Attribute) and _is_self(target.value):
            self.self_env[target.attr] = grown

    def utility(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        if name == "get_input_tensor_by_name":
            return Tag("tensor", string_literal(argument(node, 1, "name")) or "")
        if name == "get_output_config_by_name":
            return Tag("output_config", string_literal(argument(node, 1, "name")) or "")
        if name == "triton_string_to_numpy":
            given = args[0] if args else None
            if isinstance(given, Tag) and given.kind == "output_config_type":
                dtype = self.output_types.get(given.name)
                return Tag("dtype", dtype) if dtype else None
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
            return Tag("output_tensor")
        return None

    def builtin(self, name: str, node: ast.Call, args: list[Value]) -> Value:
        if name in ("float", "int", "bool", "str", "bytes"):
            return Py(name)
        if name == "len":
            value = args[0] if args else None
            if isinstance(value, Arr):
                return Tag("dim0", ref=value)
            return Py("int")
        if name == "range":
            return Tag("range")
        if name in ("list", "tuple", "sorted"):
            value = args[0] if args else None
            if isinstance(value, Seq):
                return value
            if isinstance(value, Arr):
                return _seq(self.element(value, node.args[0]))
            return Seq(None)
        if name in ("round", "abs"):
            return args[0] if args and isinstance(args[0], Py) else None
        return None

    def method(
        self,
        owner: Value,
        name: str,
        node: ast.Call,
        args: list[Value],
        kwargs: Mapping[str, Value],
    ) -> Value:
        if isinstance(owner, Tag) and owner.kind == "tensor" and name == "as_numpy":
            return self.input_array(owner.name, node.lineno)
        if isinstance(owner, Tag) and owner.kind == "request" and name == "get_response_sender":
            return Tag("sender")
        if isinstance(owner, Arr):
            return self.array_method(owner, name, node, args, kwargs)
        if isinstance(owner, Py) and owner.kind in ("str", "bytes"):
            if name == "join" or name in _STR_METHODS:
                return Py(owner.kind)
            if name == "split":
                return Seq(Py(owner.kind))
        if name == "decode":
            return Py("str")
        if name == "encode":
            return Py("bytes")
        if isinstance(owner, Seq) and name in ("append", "extend", "insert"):
            return None
        return None

    def input_array(self, name: str, line: int) -> Value:
        facts = self.inputs.get(name)
        if facts is None:
            return None
        return Arr(
            facts.dtype,
            f'input "{name}" is {facts.dtype} (line {line})' if facts.dtype else "",
            facts.rank,
            facts.batched,
            name,
            facts.item_size,
        )

    def array_method(
        self, array: Arr, name: str, node: ast.Call, args: list[Value], kwargs: Mapping[str, Value]
    ) -> Value:
        line = node.lineno
        if name in ("astype", "view"):
            dtype = _dtype(args[0] if args else kwargs.get("dtype"))
            shown = _text(node.args[0]) if node.args else "?"
            why = f".{name}({shown}) makes it {dtype} (line {line})" if dtype else ""
            return replace(array, dtype=dtype, why=why)
        if name == "reshape":
            shape = args[0] if len(args) == 1 and isinstance(args[0], Seq) else None
            first = args[0] if args and shape is None else None
            return self.reshape(array, node, node.args if shape is None else None, shape, first)
        if name == "transpose":
            axes = [_int_literal(a) for a in node.args]
            if len(node.args) == 1 and isinstance(node.args[0], ast.Tuple | ast.List):
                axes = [_int_literal(a) for a in node.args[0].elts]
            keeps = bool(axes) and axes[0] == 0
            return replace(array, batch=array.batch if keeps or array.rank == 1 else None)
        if name in ("copy", "clip", "round", "squeeze_", "__array__"):
            return array
        if name in ("flatten", "ravel"):
            where = f"{_text(node)} (line {line})"
            return self.merge_axes(array, 1, where)
        if name == "squeeze":
            axis = _int_literal(argument(node, 0, "axis"))
            if axis is None:
                return replace(array, rank=None, batch=None, size=None)
            return self.reduce(
                array, array.dtype, array.why, node, axis_node=argument(node, 0, "axis")
            )
        if name in ("sum", "prod", "cumsum"):
            dtype = npt.sum_dtype(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f".{name}() of {array.dtype} is {dtype} (line {line})"
            )
            if name == "cumsum":
                return replace(array, dtype=dtype, why=why)
            return self.reduce(array, dtype, why, node)
        if name in ("mean", "std", "var"):
            dtype = npt.mean_dtype(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f".{name}() of {array.dtype} is {dtype} (line {line})"
            )
            return self.reduce(array, dtype, why, node)
        if name in ("max", "min", "any", "all"):
            dtype = "bool" if name in ("any", "all") else array.dtype
            return self.reduce(array, dtype, array.why if dtype == array.dtype else "", node)
        if name in ("argmax", "argmin"):
            why = f".{name}() returns int64 (line {line})"
            return self.reduce(array, "int64", why, node)
        if name == "argsort":
            return replace(array, dtype="int64", why=f".argsort() returns int64 (line {line})")
        if name == "tolist":
            return Seq(None)
        if name == "item":
            return None
        return None

    def reshape(
        self,
        array: Arr,
        node: ast.Call,
        arg_nodes: Sequence[ast.expr] | None,
        shape: Seq | None,
        first_value: Value = None,
    ) -> Value:
        """`array.reshape(...)`: a literal shape, or one that keeps (or invents) axis 0."""
        if shape is not None:
            literal, rank = shape.ints, shape.items if shape.items >= 0 else None
        elif arg_nodes is not None and not any(isinstance(a, ast.Starred) for a in arg_nodes):
            ints = [_int_literal(a) for a in arg_nodes]
            literal = tuple(i for i in ints if i is not None) if None not in ints else None
            rank = len(arg_nodes)
        else:
            return replace(array, rank=None, batch=None, size=None)
        where = f"{_text(node)} (line {node.lineno})"
        if literal is not None:
            size = math.prod(literal) if all(d > 0 for d in literal) else None
            if array.batch is True and size is not None and size == array.size and array.source:
                self.reshapes.append(Reshape(node.lineno, array.source, literal, size))
            if array.batch is True:
                return replace(array, rank=rank, batch=False, size=size, dropped=where)
            return replace(array, rank=rank, batch=False, size=size)
        first = (
            first_value.ref if isinstance(first_value, Tag) and first_value.kind == "dim0" else None
        )
        if first is not None:
            if first.batch is True:
                return replace(array, rank=rank, batch=True, size=None)
            if first.batch is False and first.source and self.whole(first):
                return replace(array, rank=rank, batch=None, size=None, axis0=first.axis0 or where)
        return replace(array, rank=rank, batch=None, size=None)

    def merge_axes(self, array: Arr, rank: int, where: str) -> Arr:
        if array.batch is True:
            return replace(array, rank=rank, batch=False, size=None, dropped=where)
        return replace(array, rank=rank, batch=None, size=None)

    def reduce(
        self,
        array: Arr,
        dtype: str | None,
        why: str,
        node: ast.Call,
        axis_node: ast.expr | None = None,
        first_arg: int = 0,
    ) -> Arr:
        """A reduction along `axis` (all axes without one)."""
        axis_node = axis_node if axis_node is not None else argument(node, first_arg, "axis")
        keep = argument(node, 99, "keepdims")
        keepdims = isinstance(keep, ast.Constant) and keep.value is True
        where = f"{_text(node)} (line {node.lineno})"
        base = replace(array, dtype=dtype, why=why if dtype is not None else "")
        if axis_node is None or (isinstance(axis_node, ast.Constant) and axis_node.value is None):
            if keepdims:
                return replace(base, batch=None, size=None)
            return self.merge_axes(replace(base), 0, where) if array.batch else replace(
                base, rank=0, batch=None, size=None
            )  # fmt: skip
        axes = (
            [_int_literal(a) for a in axis_node.elts]
            if isinstance(axis_node, ast.Tuple | ast.List)
            else [_int_literal(axis_node)]
        )
        if None in axes or array.rank is None:
            return replace(base, rank=None if not keepdims else array.rank, batch=None, size=None)
        normal = {a if a is not None and a >= 0 else (a or 0) + array.rank for a in axes}
        rank = array.rank if keepdims else array.rank - len(normal)
        if 0 in normal:
            if keepdims:
                return replace(base, batch=None, size=None)
            return self.merge_axes(base, rank, where)
        return replace(base, rank=rank, size=None)

    def numpy_call(
        self, name: str, node: ast.Call, args: list[Value], kwargs: Mapping[str, Value]
    ) -> Value:
        line = node.lineno
        first = args[0] if args else None
        array = first if isinstance(first, Arr) else None
        label = f"np.{name}(...)"
        dtype: str | None
        at = _DTYPE_POSITION.get(name)
        if at is not None and "dtype" not in kwargs and len(args) > at:
            kwargs = {**kwargs, "dtype": args[at]}  # np.array(x, np.float32)
        if name in npt.DTYPE_NAMES:  # np.float32(x)
            dtype = npt.DTYPE_NAMES[name]
            why = f"np.{name}(...) (line {line})"
            if array is not None:
                return replace(array, dtype=dtype, why=why)
            return Arr(dtype, why, 0, False)
        if name in _ARRAY:
            return self.array_of(first, kwargs, node, label)
        if name in _CREATE or name == "full":
            given = "dtype" in kwargs
            dtype = _dtype(kwargs.get("dtype")) if given else None
            why = ""
            if not given:
                fill = args[1] if name == "full" and len(args) > 1 else None
                dtype = "float64" if name != "full" else _literal_dtype(fill)
                why = f"{label} without dtype= is {dtype} (line {line})" if dtype else ""
            shape = first
            rank = shape.items if isinstance(shape, Seq) and shape.items >= 0 else None
            if isinstance(shape, Py | Tag) and not isinstance(shape, Seq):
                rank = 1 if isinstance(shape, Py) and shape.kind == "int" else rank
            return Arr(dtype, why, rank, None)
        if name in _LIKE:
            if array is None:
                return None
            if "dtype" in kwargs:
                return replace(array, dtype=_dtype(kwargs["dtype"]), why="")
            return array
        if name in ("arange", "linspace", "frombuffer", "fromstring", "eye", "identity"):
            if "dtype" in kwargs:
                dtype = _dtype(kwargs["dtype"])
                return Arr(dtype, f"{label} with dtype= (line {line})" if dtype else "", None)
            if name == "arange":
                kinds = [a.kind if isinstance(a, Py) else "" for a in args]
                if args and set(kinds) <= {"int", "float", "bool"}:
                    dtype = "float64" if "float" in kinds else "int64"
                    what = "floats" if dtype == "float64" else "ints"
                    why = f"{label} of Python {what} is {dtype} (line {line})"
                    return Arr(dtype, why, 1, False)
                return None
            return Arr("float64", f"{label} without dtype= is float64 (line {line})", None)
        if array is None and name not in ("stack", "concatenate", "vstack", "hstack", "where",
                                          "einsum", "matmul", "dot"):  # fmt: skip
            return None
        if name in _SAME or name == "transpose":
            if name == "transpose":
                axes = argument(node, 1, "axes")
                keeps = isinstance(axes, ast.Tuple | ast.List) and axes.elts and _int_literal(
                    axes.elts[0]
                ) == 0  # fmt: skip
                return replace(array, batch=array.batch if keeps else None) if array else None
            return array
        if name in _FLOAT_FUNCTIONS and array is not None:
            dtype = npt.float_function(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f"{label} of {array.dtype} is {dtype} (line {line})"
            )
            return replace(array, dtype=dtype, why=why)
        if name in _BINARY and len(args) >= 2:
            return self.binop(ast.Mult(), args[0], args[1], node)
        if name in ("divide", "true_divide") and len(args) >= 2:
            return self.binop(ast.Div(), args[0], args[1], node)
        if name in ("matmul", "dot") and len(args) >= 2:
            return self.binop(ast.MatMult(), args[0], args[1], node)
        if name in _INDEX_FUNCTIONS and array is not None:
            return self.reduce(
                array, "int64", f"{label} returns int64 (line {line})", node, first_arg=1
            )
        if name == "argsort" and array is not None:
            return replace(array, dtype="int64", why=f"{label} returns int64 (line {line})")
        if name in ("argwhere", "nonzero", "flatnonzero"):
            return Arr(
                "int64", f"{label} returns int64 (line {line})", 2 if name == "argwhere" else None
            )
        if name in _REDUCE_SAME and array is not None:
            return self.reduce(array, array.dtype, array.why, node, first_arg=1)
        if name in _REDUCE_MEAN and array is not None:
            dtype = npt.mean_dtype(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f"{label} of {array.dtype} is {dtype} (line {line})"
            )
            return self.reduce(array, dtype, why, node, first_arg=1)
        if name in _REDUCE_SUM and array is not None:
            dtype = npt.sum_dtype(array.dtype)
            why = (
                array.why
                if dtype == array.dtype
                else f"{label} of {array.dtype} is {dtype} (line {line})"
            )
            return self.reduce(array, dtype, why, node, first_arg=1)
        if name in _BOOL_FUNCTIONS and array is not None:
            return replace(array, dtype="bool", why=f"{label} gives bool (line {line})")
        if name == "expand_dims" and array is not None:
            axis = _int_literal(argument(node, 1, "axis"))
            rank = array.rank + 1 if array.rank is not None else None
            if axis == 0:
                return replace(array, rank=rank, batch=None, size=None, dropped="")
            return replace(array, rank=rank, size=None)
        if name == "squeeze" and array is not None:
            squeezed = argument(node, 1, "axis")
            if squeezed is None:
                return replace(array, rank=None, batch=None, size=None)
            return self.reduce(array, array.dtype, array.why, node, axis_node=squeezed)
        if name == "reshape" and array is not None:
            shape = args[1] if len(args) > 1 and isinstance(args[1], Seq) else None
            if shape is None:
                return replace(array, rank=None, batch=None, size=None)
            return self.reshape(array, node, None, shape)
        if name in ("stack", "concatenate", "vstack", "hstack"):
            return self.joined(name, first, node, kwargs)
        if name == "where" and len(args) == 3:
            return self.binop(ast.Add(), args[1], args[2], node)
        return None

    def array_of(
        self, value: Value, kwargs: Mapping[str, Value], node: ast.Call, label: str
    ) -> Value:
        """`np.array(value, dtype=...)`."""
        line = node.lineno
        if isinstance(value, Tag) and value.kind == "dim0":
            value = Py("int")  # np.array(len(x))
        given = "dtype" in kwargs
        dtype = _dtype(kwargs.get("dtype")) if given else None
        why = (
            f"{label} with dtype={_text(argument(node, 1, 'dtype'))} (line {line})" if dtype else ""
        )
        if isinstance(value, Arr):
            return replace(value, dtype=dtype, why=why) if given else value
        if isinstance(value, Py):
            if given:
                return Arr(dtype, why, 0, False)
            inferred = _python_dtype(value.kind)
            return Arr(inferred, _python_why(label, value.kind, inferred, line), 0, False)
        if isinstance(value, Seq):
            item = value.item
            while isinstance(item, Seq):
                item = item.item
            rank: int | None = value.depth
            if isinstance(item, Arr):
                rank = value.depth + item.rank if item.rank is not None else None
            if item is None:
                rank = None  # items unknown (an empty list filled where the flow cannot see)
            if given:
                return Arr(dtype, why, rank, None)
            if isinstance(item, Arr):
                return Arr(item.dtype, item.why, rank, None, item.source, dropped="")
            if isinstance(item, Py):
                inferred = _python_dtype(item.kind)
                return Arr(inferred, _python_why(label, item.kind, inferred, line), rank, None)
            return Arr(None, "", rank, None)
        return Arr(dtype, why, None, None) if given else None

    def joined(self, name: str, first: Value, node: ast.Call, kwargs: Mapping[str, Value]) -> Value:
        """np.stack / np.concatenate of a list of arrays."""
        item = first.item if isinstance(first, Seq) else None
        if not isinstance(item, Arr):
            return None
        axis = _int_literal(argument(node, 1, "axis"))
        if "dtype" in kwargs:
            item = replace(item, dtype=_dtype(kwargs["dtype"]), why="")
        if name == "stack":
            rank = item.rank + 1 if item.rank is not None else None
            return replace(item, rank=rank, batch=None, size=None, dropped="")
        if name == "vstack" and item.rank == 1:
            return replace(item, rank=2, batch=None, size=None, dropped="")
        if axis not in (0, None) or name == "hstack":
            return replace(item, batch=item.batch, size=None)
        return replace(item, size=None)


_SYMBOLS: Mapping[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
    ast.Mod: "%", ast.Pow: "**", ast.MatMult: "@",
}  # fmt: skip


def _empty(value: Seq) -> bool:
    """A list written as `[]` (or `()`), whose items come later."""
    return value.items == 0


def _seq(item: Value) -> Seq:
    """A list of `item`s (nested one level deeper when the items are lists)."""
    return Seq(item, item.depth + 1 if isinstance(item, Seq) else 1)


def _constant(value: object) -> Value:
    if value is None:
        return Py("none")
    if isinstance(value, bool):
        return Py("bool")
    if isinstance(value, int):
        return Py("int")
    if isinstance(value, float):
        return Py("float")
    if isinstance(value, str):
        return Py("str", value if len(value) <= 16 else "")
    if isinstance(value, bytes):
        return Py("bytes")
    return None


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _int_literal(node: ast.expr | None) -> int | None:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    ):
        return node.value
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int)
        and not isinstance(node.operand.value, bool)
    ):
        return -node.operand.value
    return None


def _matmul_rank(left: int | None, right: int | None) -> int | None:
    if left is None or right is None:
        return None
    if left >= 2 and right >= 2:
        return max(left, right)
    if right == 1:
        return left - 1
    if left == 1:
        return right - 1
    return None


def _dtype(value: Value) -> str | None:
    """The dtype a `dtype=` argument names."""
    if isinstance(value, Tag) and value.kind == "dtype":
        return value.name or None
    if isinstance(value, Tag) and value.kind == "pytype":
        return npt.BUILTIN_DTYPES.get(value.name)
    if isinstance(value, Py) and value.kind == "str" and value.text:
        return npt.STRING_DTYPES.get(value.text.lstrip("<|="))
    return None


def _literal_dtype(value: Value) -> str | None:
    if isinstance(value, Py):
        return _python_dtype(value.kind)
    return value.dtype if isinstance(value, Arr) else None


def _python_dtype(kind: str) -> str | None:
    return {"float": "float64", "int": "int64", "bool": "bool", "str": "str", "bytes": "bytes"}.get(
        kind
    )


def _python_why(label: str, kind: str, dtype: str | None, line: int) -> str:
    if dtype is None:
        return ""
    if dtype == "str":
        return f"{label} of Python str is a unicode <U array (line {line})"
    return f"{label} of Python {kind}s is {dtype} (line {line})"


def _text(node: ast.AST | None, limit: int = 48) -> str:
    """Short source text of a small expression (for messages)."""
    if node is None:
        return "?"
    for count, _ in enumerate(ast.walk(node)):
        if count > 40:
            return "..."
    try:
        text = ast.unparse(node)
    except (RecursionError, ValueError):
        return "..."
    if len(text) <= limit:
        return text
    tail = text[3 - limit :]
    dot = tail.find(".")
    return "..." + (tail[dot + 1 :] if dot >= 0 else tail)  # "...as_numpy()[0]"
