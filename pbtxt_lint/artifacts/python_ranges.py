"""Values model.py scales past the range of a small integer type, read with `ast` only.

A box or keypoint computed in model.py is often a fraction scaled by the image's size
(`box * [w, h, w, h]`, `x * 640`). Sent in an 8-bit type (`TYPE_UINT8`, or `.astype(np.
uint8)` to match such a config), every coordinate past 255 wraps around: NumPy's cast
keeps the low byte, and nothing in Triton checks values. This module finds, in each
function of a model.py, the `pb_utils.Tensor(name, value)` calls whose value comes
(through assignments in the same function) from a product with an image dim
(`h, w = image.shape[:2]`, `image.shape[1]`) or a literal of 256 or more, with no clip
on the way (`np.clip`, `.clip`, `np.minimum`, `% 256`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from pbtxt_lint.artifacts.python_syntax import (
    Aliases,
    argument,
    called_name,
    source_text,
    string_literal,
)

MAX_DEPTH = 8
"""Assignments followed back from a Tensor's value."""
MAX_STEPS = 100_000
"""Expressions looked at per function, over all its Tensors: each Tensor's walk may
cover the whole function again (5,000 Tensors of one large list took minutes)."""
_CLIPS = frozenset({"clip", "minimum", "mod", "remainder", "fmod"})


@dataclass(frozen=True)
class Scaled:
    """A Tensor whose value is scaled by an image size or a large literal."""

    name: str
    line: int
    column: int
    by: str
    """The factor, as the code writes it: 'w = image.shape[1] (line 12)', '640 (line 9)'."""


def scaled_tensors(module: ast.Module | None) -> tuple[Scaled, ...]:
    if module is None:
        return ()
    aliases = Aliases.of(
        [n for n in ast.walk(module) if isinstance(n, ast.Import | ast.ImportFrom)]
    )
    found: list[Scaled] = []
    for function in ast.walk(module):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            found.extend(_Function(function, aliases).scaled())
    return tuple(sorted(set(found), key=lambda s: (s.line, s.column)))


class _Function:
    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef, aliases: Aliases):
        self.function = function
        self.aliases = aliases
        self.values: dict[str, list[ast.expr]] = {}
        self.sizes: dict[str, str] = {}
        """Names bound to an array's dims: name -> how the code binds it."""
        self.steps = 0
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self.bind(target, node.value, node.lineno)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self.values.setdefault(node.target.id, []).append(
                    ast.BinOp(node.target, node.op, node.value)
                )

    def bind(self, target: ast.expr, value: ast.expr, line: int) -> None:
        if isinstance(target, ast.Name):
            self.values.setdefault(target.id, []).append(value)
            if _is_shape(value):
                self.sizes[target.id] = f"{target.id} = {source_text(value)} (line {line})"
        elif isinstance(target, ast.Tuple | ast.List) and _is_shape(value):
            for element in target.elts:
                if isinstance(element, ast.Name):
                    self.sizes[element.id] = (
                        f"{source_text(target)} = {source_text(value)} (line {line})"
                    )

    def scaled(self) -> Iterator[Scaled]:
        for node in ast.walk(self.function):
            if not isinstance(node, ast.Call) or self.aliases.utility(node.func) != "Tensor":
                continue
            name = string_literal(argument(node, 0, "name"))
            value = argument(node, 1, "tensor")
            if name is None or value is None:
                continue
            by = self.factor(value, 0, set())
            if by:
                yield Scaled(name, node.lineno, node.col_offset, by)

    def factor(self, node: ast.expr, depth: int, seen: set[str]) -> str:
        """How `node` is scaled ("" when it is not, or is clipped on the way, or the
        function's budget of steps is spent)."""
        self.steps += 1
        if depth > MAX_DEPTH or self.steps > MAX_STEPS:
            return ""
        if isinstance(node, ast.Name):
            if node.id in seen:
                return ""
            seen.add(node.id)
            for value in self.values.get(node.id, ()):
                found = self.factor(value, depth + 1, seen)
                if found:
                    return found
            return ""
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Mod):
                return ""
            if isinstance(node.op, ast.Mult):
                for side in (node.left, node.right):
                    by = self.multiplier(side)
                    if by:
                        return by
            if isinstance(node.op, ast.Mult | ast.Add | ast.Sub):
                return self.factor(node.left, depth + 1, seen) or self.factor(
                    node.right, depth + 1, seen
                )
            return ""
        if isinstance(node, ast.Call):
            if called_name(node) in _CLIPS:
                return ""
            parts: list[ast.expr] = list(node.args)
            if isinstance(node.func, ast.Attribute):
                parts.insert(0, node.func.value)
            for part in parts:
                found = self.factor(part, depth + 1, seen)
                if found:
                    return found
            return ""
        if isinstance(node, ast.Subscript | ast.Starred):
            return self.factor(node.value, depth + 1, seen)
        if isinstance(node, ast.List | ast.Tuple):
            for element in node.elts:
                found = self.factor(element, depth + 1, seen)
                if found:
                    return found
        return ""

    def multiplier(self, node: ast.expr) -> str:
        """A factor of 256 or more: a literal, an image dim, or a list holding one."""
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            value = node.value
            if not isinstance(value, bool) and value >= 256:
                return f"{source_text(node)} (line {node.lineno})"
            return ""
        if isinstance(node, ast.Name):
            return self.sizes.get(node.id, "")
        if _is_shape(node):
            return f"{source_text(node)} (line {node.lineno})"
        if isinstance(node, ast.List | ast.Tuple):
            for element in node.elts:
                found = self.multiplier(element)
                if found:
                    return found
        if isinstance(node, ast.Call) and node.args:
            return self.multiplier(node.args[0])  # np.array([w, h, w, h])
        return ""


def _is_shape(node: ast.expr) -> bool:
    """`x.shape`, `x.shape[1]`, `x.shape[:2]`, `x.shape[-2:]` (not a channel count:
    `x.shape[2]`, `x.shape[-1]`)."""
    if isinstance(node, ast.Subscript):
        index = node.slice
        if isinstance(index, ast.UnaryOp) and isinstance(index.operand, ast.Constant):
            if index.operand.value == 1:
                return False  # x.shape[-1]
        elif isinstance(index, ast.Constant) and index.value not in (0, 1):
            return False
        node = node.value
    return isinstance(node, ast.Attribute) and node.attr == "shape"
