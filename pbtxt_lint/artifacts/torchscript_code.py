"""forward() of a TorchScript archive's code, read with `ast` (never run).

`torch.jit.save` writes the TorchScript source of every class under `code/`, in Python
syntax, every argument and the return annotated:

    def forward(self: __torch__.Net,
        inputs: Dict[str, Tensor]) -> Tuple[Tensor, List[str]]:
        _0 = inputs["input_ids"]
        ...

The libtorch backend judges forward() by these types (pytorch_backend src/libtorch.cc:
`ModelInstanceState::ValidateInputs` at load, `Execute` on every request). This module
turns the code into what those checks read: each argument's type, the return type,
the keys forward() reads from a Dict argument, and the casts that fix the element type
of what it returns.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DictKey", "Forward", "ForwardArg", "Returned", "TorchType", "read_forward"]


@dataclass(frozen=True)
class TorchType:
    """A TorchScript type as the code writes it: `Tensor`, `List[str]`, `Dict[str, Tensor]`."""

    name: str
    """The base name: "Tensor", "List", "Tuple", "Dict", "Optional", "int", "str", "NoneType"...
    (a class type keeps its qualified name, `__torch__.Net`)."""
    args: tuple[TorchType, ...] = ()

    def __str__(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}[{', '.join(str(a) for a in self.args)}]"

    @property
    def c10(self) -> str:
        """The type as libtorch prints it (`c10::Type::str()`): `Tensor[]`, `(Tensor, Tensor)`,
        `Dict(str, Tensor)`, `Tensor?`, which its load-time messages quote."""
        args = [a.c10 for a in self.args]
        if self.name == "List" and len(args) == 1:
            return f"{args[0]}[]"
        if self.name == "Tuple":
            return f"({', '.join(args)})"
        if self.name == "Dict":
            return f"Dict({', '.join(args)})"
        if self.name == "Optional" and len(args) == 1:
            return f"{args[0]}?"
        return str(self)

    @property
    def element(self) -> TorchType | None:
        """The element type of a List, None otherwise."""
        return self.args[0] if self.name == "List" and len(self.args) == 1 else None

    @property
    def is_string_list(self) -> bool:
        return self.element == STR


TENSOR = TorchType("Tensor")
STR = TorchType("str")
_ALIASES = {"list": "List", "tuple": "Tuple", "dict": "Dict", "None": "NoneType"}


@dataclass(frozen=True)
class ForwardArg:
    """One argument of `forward` (self excluded), as the TorchScript source declares it."""

    name: str
    annotation: str
    """As written ("Tensor", "List[str]", "Dict[str, Tensor]"); "Tensor" when absent."""
    type: TorchType = TENSOR

    @property
    def kind(self) -> str:
        """libtorch's view: "tensor", "list", "dict" or "other" (refused by the backend)."""
        return {"Tensor": "tensor", "List": "list", "Dict": "dict"}.get(self.type.name, "other")

    @property
    def is_string_list(self) -> bool:
        return self.type.is_string_list


@dataclass(frozen=True)
class Returned:
    """What the code shows about the element type of one value forward() returns."""

    data_type: str | None = None
    """The config type of a final cast (`torch.to(x, 5, ...)`, `x.half()`); None when the
    code does not show it."""


@dataclass(frozen=True)
class DictKey:
    """A key forward() reads from its Dict argument with `inputs["key"]`, unconditionally."""

    key: str
    line: int
    """The line in the archive's code file."""


@dataclass(frozen=True)
class Forward:
    """What forward()'s code declares and does, as far as the backend's checks go."""

    args: tuple[ForwardArg, ...]
    returns: str
    """The return annotation as written ("" when absent)."""
    return_type: TorchType | None
    output_count: int | None
    """Values forward() returns: the Tuple's arity, 1 for a Tensor or List[str]."""
    returned: tuple[Returned, ...]
    """Per returned value, what the code shows of its element type (empty when forward()
    does not end in one return of a value or tuple)."""
    dict_keys: tuple[DictKey, ...] = ()
    """Keys read from a Dict argument by statements that always run."""


def read_forward(source: bytes, cls: str, folder: Path) -> Forward | None:
    """`cls.forward` of a code file, None when the file does not parse or has none."""
    try:
        # On a syntax error CPython reads the failing line back from the file named
        # `filename` (by default "<unknown>" in the working directory). The code comes
        # from the archive, so name the archive's folder: it opens and yields no line.
        tree = ast.parse(source, filename=str(folder))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
    if not classes:
        return None
    methods = [
        n
        for n in classes[-1].body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "forward"
    ]
    if not methods:
        return None
    function = methods[-1]
    positional = [*function.args.posonlyargs, *function.args.args]
    if positional and (
        positional[0].arg == "self" or _text(positional[0].annotation).startswith("__torch__")
    ):
        positional = positional[1:]
    args = tuple(
        ForwardArg(a.arg, _text(a.annotation) or "Tensor", torch_type(a.annotation))
        for a in positional
    )
    dicts = {a.name for a in args if a.kind == "dict"}
    return Forward(
        args,
        _text(function.returns),
        torch_type(function.returns) if function.returns is not None else None,
        _output_count(function.returns),
        _returned(function),
        _dict_keys(function, dicts) if dicts else (),
    )


def torch_type(node: ast.expr | None) -> TorchType:
    """The type an annotation writes; Tensor when there is none (TorchScript's default)."""
    if node is None:
        return TENSOR
    try:
        return _type(node, 0)
    except RecursionError:
        return TorchType(_text(node))


def _type(node: ast.expr, depth: int) -> TorchType:
    if depth > 32:
        return TorchType("?")
    if isinstance(node, ast.Constant) and node.value is None:
        return TorchType("NoneType")
    if isinstance(node, ast.Subscript):
        base = _base_name(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return TorchType(base, tuple(_type(item, depth + 1) for item in items))
    return TorchType(_base_name(node))


def _base_name(node: ast.expr) -> str:
    text = _text(node)
    if text.startswith("__torch__"):
        return text
    name = text.rsplit(".", 1)[-1]  # torch.Tensor, typing.List
    return _ALIASES.get(name, name)


def _dict_keys(
    function: ast.FunctionDef | ast.AsyncFunctionDef, dicts: set[str]
) -> tuple[DictKey, ...]:
    """`inputs["key"]` reads in statements of forward()'s body that always run.

    Statements inside if/for/while/try blocks and the branches of conditional
    expressions may not run (a guarded optional key), so their reads are left out.
    """
    keys: list[DictKey] = []
    for statement in function.body:
        if isinstance(
            statement, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr | ast.Return
        ):
            keys.extend(_reads(statement, dicts))
    return tuple(keys)


def _reads(node: ast.AST, dicts: set[str]) -> list[DictKey]:
    found: list[tuple[int, int, str]] = []
    pending: list[ast.AST] = [node]
    while pending:
        current = pending.pop()
        if isinstance(current, ast.IfExp | ast.BoolOp | ast.Lambda):
            continue
        if (
            isinstance(current, ast.Subscript)
            and isinstance(current.value, ast.Name)
            and current.value.id in dicts
            and isinstance(current.slice, ast.Constant)
            and isinstance(current.slice.value, str)
            and isinstance(current.ctx, ast.Load)
        ):
            found.append((current.lineno, current.col_offset, current.slice.value))
        pending.extend(ast.iter_child_nodes(current))
    return [DictKey(key, line) for line, _, key in sorted(found)]


SCALAR_TYPES = {
    0: "TYPE_UINT8",
    1: "TYPE_INT8",
    2: "TYPE_INT16",
    3: "TYPE_INT32",
    4: "TYPE_INT64",
    5: "TYPE_FP16",
    6: "TYPE_FP32",
    7: "TYPE_FP64",
    11: "TYPE_BOOL",
    15: "TYPE_BF16",
}
"""c10::ScalarType numbers, as TorchScript code writes dtypes (`torch.to(x, 5, ...)`), and
the config type of each."""
_CAST_METHODS = {
    "half": "TYPE_FP16",
    "float": "TYPE_FP32",
    "double": "TYPE_FP64",
    "bfloat16": "TYPE_BF16",
    "long": "TYPE_INT64",
    "int": "TYPE_INT32",
    "short": "TYPE_INT16",
    "char": "TYPE_INT8",
    "byte": "TYPE_UINT8",
    "bool": "TYPE_BOOL",
}
"""Tensor methods that convert to one element type (`x.half()`)."""
MAX_TRACE = 64
"""Assignments followed back from a returned value, at most."""


def _returned(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[Returned, ...]:
    """The element type evidence of each value of forward()'s single, final return.

    TorchScript code is straight-line Python in which most values are assigned once. A
    returned name is followed back through single assignments in the function body to
    the call that made it; a cast to a fixed type is evidence, anything else unknown.
    """
    try:
        returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    except RecursionError:
        return ()
    last = function.body[-1] if function.body else None
    if len(returns) != 1 or not isinstance(last, ast.Return) or last.value is None:
        return ()
    assigned: dict[str, ast.expr | None] = {}
    for statement in function.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        once = name.id not in assigned and isinstance(target, ast.Name)
                        value = statement.value if once else None
                        assigned[name.id] = value if isinstance(statement, ast.Assign) else None
        elif not isinstance(statement, ast.Expr | ast.Return | ast.Pass):
            for node in ast.walk(statement):  # names bound inside if/for/with: unknown
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    assigned[node.id] = None
    value = last.value
    values = value.elts if isinstance(value, ast.Tuple) else [value]
    return tuple(_origin(v, assigned) for v in values)


def _origin(node: ast.expr, assigned: dict[str, ast.expr | None]) -> Returned:
    for _ in range(MAX_TRACE):
        if isinstance(node, ast.Name):
            value = assigned.get(node.id)
            if value is None:
                return Returned()  # an argument, a name bound twice or in a block
            node = value
            continue
        if isinstance(node, ast.Call):
            return Returned(_cast_type(node))
        return Returned()
    return Returned()


def _cast_type(call: ast.Call) -> str | None:
    """The config type a call converts its tensor to, if it is a cast to a fixed type."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    on_torch = isinstance(func.value, ast.Name) and func.value.id == "torch"
    if func.attr == "to":
        candidates = list(call.args[1:3]) if on_torch else list(call.args[:2])
        candidates += [k.value for k in call.keywords if k.arg == "dtype"]
        for candidate in candidates:
            if isinstance(candidate, ast.Constant) and type(candidate.value) is int:
                return SCALAR_TYPES.get(candidate.value)
            dtype = _dtype_attribute(candidate)
            if dtype is not None:
                return dtype
        return None
    if func.attr in _CAST_METHODS and not call.keywords:
        if (on_torch and len(call.args) == 1) or (not on_torch and not call.args):
            return _CAST_METHODS[func.attr]
    return None


_DTYPE_NAMES = {
    "float16": "TYPE_FP16",
    "half": "TYPE_FP16",
    "float32": "TYPE_FP32",
    "float": "TYPE_FP32",
    "float64": "TYPE_FP64",
    "double": "TYPE_FP64",
    "bfloat16": "TYPE_BF16",
    "int64": "TYPE_INT64",
    "long": "TYPE_INT64",
    "int32": "TYPE_INT32",
    "int": "TYPE_INT32",
    "int16": "TYPE_INT16",
    "int8": "TYPE_INT8",
    "uint8": "TYPE_UINT8",
    "bool": "TYPE_BOOL",
}


def _dtype_attribute(node: ast.expr) -> str | None:
    """`torch.float16` and its aliases, as a config type."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "torch"
    ):
        return _DTYPE_NAMES.get(node.attr)
    return None


def _text(node: ast.expr | None) -> str:
    if node is None:
        return ""
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return ""


def _output_count(node: ast.expr | None) -> int | None:
    if node is None:
        return None
    if isinstance(node, ast.Subscript):
        base = _text(node.value).rsplit(".", 1)[-1]
        if base in ("Tuple", "tuple"):
            return len(node.slice.elts) if isinstance(node.slice, ast.Tuple) else 1
        if base in ("List", "list") and _text(node.slice) == "str":
            return 1
        return None
    return 1 if _text(node).rsplit(".", 1)[-1] == "Tensor" else None
