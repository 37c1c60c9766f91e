"""How a model.py names the modules the model-py checks look for, read from its imports.

`triton_python_backend_utils` is imported as a module (`import ... as pb_utils`) or
function by function (`from ... import Tensor`); NumPy as `np`, `numpy` or by name.
`Aliases` resolves a call's target to the utility or NumPy function it names, so the
readers recognise `pb_utils.Tensor(...)`, `Tensor(...)` and `utils.Tensor.from_dlpack`
alike, and never a local function that happens to share the name. The small readers
below (a call's argument, a literal, an expression's text for messages) serve the
model.py readers.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

UTILS_MODULE = "triton_python_backend_utils"
NUMPY_MODULE = "numpy"

_NUMPY_DEPTH = 8
"""The most attributes of a numpy name (`np.lib.stride_tricks.sliding_window_view`: 3)."""


@dataclass
class Aliases:
    """The names a module binds to triton_python_backend_utils and numpy."""

    utils_modules: set[str] = field(default_factory=set)
    utils_functions: dict[str, str] = field(default_factory=dict)
    """Local name -> name in triton_python_backend_utils."""
    numpy_modules: set[str] = field(default_factory=set)
    numpy_functions: dict[str, str] = field(default_factory=dict)
    """Local name -> name in numpy."""

    @classmethod
    def of(cls, imports: Iterable[ast.Import | ast.ImportFrom]) -> Aliases:
        aliases = cls()
        for node in imports:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == UTILS_MODULE:
                        aliases.utils_modules.add(alias.asname or alias.name)
                    elif alias.name == NUMPY_MODULE:
                        aliases.numpy_modules.add(alias.asname or alias.name)
            elif node.module == UTILS_MODULE and not node.level:
                for alias in node.names:
                    aliases.utils_functions[alias.asname or alias.name] = alias.name
            elif node.module == NUMPY_MODULE and not node.level:
                for alias in node.names:
                    aliases.numpy_functions[alias.asname or alias.name] = alias.name
        return aliases

    def utility(self, func: ast.expr) -> str | None:
        """The triton_python_backend_utils name an expression refers to: "Tensor",
        "get_input_tensor_by_name", "Tensor.from_dlpack", ... (None: not one)."""
        if isinstance(func, ast.Name):
            return self.utils_functions.get(func.id)
        if isinstance(func, ast.Attribute):
            owner = func.value
            if isinstance(owner, ast.Name):
                if owner.id in self.utils_modules:
                    return func.attr
                if self.utils_functions.get(owner.id) == "Tensor":
                    return f"Tensor.{func.attr}"
            if (
                isinstance(owner, ast.Attribute)
                and isinstance(owner.value, ast.Name)
                and owner.value.id in self.utils_modules
                and owner.attr == "Tensor"
            ):
                return f"Tensor.{func.attr}"
        return None

    def numpy(self, func: ast.expr) -> str | None:
        """The numpy name an expression refers to: "argmax", "float32", "random.rand"."""
        if isinstance(func, ast.Name):
            return self.numpy_functions.get(func.id)
        parts: list[str] = []
        node: ast.expr = func
        while isinstance(node, ast.Attribute):
            if len(parts) == _NUMPY_DEPTH:
                return None  # no numpy name is that long: a chain of thousands costs nothing
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and parts and node.id in self.numpy_modules:
            return ".".join(reversed(parts))
        return None


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function, without those of functions and classes nested in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))


def is_name(node: ast.AST, name: str | None) -> bool:
    return name is not None and isinstance(node, ast.Name) and node.id == name


def local_function(
    func: ast.expr, functions: Mapping[str, ast.FunctionDef | ast.AsyncFunctionDef]
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The module's own function or method a call's `func` names (`helper(...)`,
    `self.helper(...)`), None for anything else."""
    if isinstance(func, ast.Name):
        return functions.get(func.id)
    if isinstance(func, ast.Attribute) and is_name(func.value, "self"):
        return functions.get(func.attr)
    return None


def called_name(call: ast.Call) -> str:
    """The name a call is made by: "Tensor" for `pb_utils.Tensor(...)` and `Tensor(...)`,
    "" for a call of anything else (a subscript, a lambda)."""
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def string_literal(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """The expression passed as positional `position` or as `keyword=`."""
    for kw in call.keywords:
        if kw.arg == keyword:
            return kw.value
    if position < len(call.args) and not any(
        isinstance(a, ast.Starred) for a in call.args[: position + 1]
    ):
        return call.args[position]
    return None


def int_literal(node: ast.expr | None) -> int | None:
    """The value of an integer literal (`3`, `-1`) of at most 64 bits; None for anything
    else (a 0x literal of thousands of digits is valid Python that Python cannot print)."""
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    if negative:
        assert isinstance(node, ast.UnaryOp)
        node = node.operand
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
        and node.value.bit_length() <= 64
    ):
        return -node.value if negative else node.value
    return None


def source_text(node: ast.AST | None, limit: int = 48) -> str:
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
