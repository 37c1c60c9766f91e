"""Inputs of model.py that it hands to DLPack (`to_dlpack()`, `from_dlpack(tensor)`).

The Python backend converts a tensor to DLPack in `PbTensor::ToDLPack`
(python_backend src/pb_tensor.cc), which raises for TYPE_BYTES, the type of every
TYPE_STRING tensor ("DLPack does not have support for string tensors."). This module
finds, with `ast`, the input tensors that reach such a conversion: read by a literal
name with `get_input_tensor_by_name(request, "X")`, directly or through a local name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from pbtxt_lint.artifacts.python_syntax import called_name, string_literal

__all__ = ["DlpackUse", "dlpack_inputs"]


@dataclass(frozen=True)
class DlpackUse:
    """An input tensor converted to DLPack."""

    name: str
    """The input's name, as model.py reads it."""
    line: int


def dlpack_inputs(module: ast.Module | None) -> tuple[DlpackUse, ...]:
    """Each input read by a literal name and converted to DLPack, once per line."""
    if module is None:
        return ()
    found: dict[tuple[str, int], DlpackUse] = {}
    for function in ast.walk(module):
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        names = _tensor_names(function)
        for node in ast.walk(function):
            converted = _converted(node)
            if converted is None or not isinstance(node, ast.Call):
                continue
            name = _input_name(converted) or (
                names.get(converted.id) if isinstance(converted, ast.Name) else None
            )
            if name is not None:
                found.setdefault((name, node.lineno), DlpackUse(name, node.lineno))
    return tuple(sorted(found.values(), key=lambda use: (use.line, use.name)))


def _converted(node: ast.AST) -> ast.expr | None:
    """The tensor `node` converts: `t.to_dlpack()`, `from_dlpack(t)`, `x.from_dlpack(t)`."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "to_dlpack" and not node.args:
        return func.value
    if called_name(node) == "from_dlpack" and len(node.args) == 1:
        return node.args[0]
    return None


def _input_name(node: ast.expr) -> str | None:
    """ "X" of `get_input_tensor_by_name(request, "X")`."""
    if not isinstance(node, ast.Call) or len(node.args) != 2:
        return None
    if called_name(node) != "get_input_tensor_by_name":
        return None
    return string_literal(node.args[1])


def _tensor_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """Local names bound to an input tensor read by a literal name (one binding only:
    a name bound twice may hold something else)."""
    bound: dict[str, str | None] = {}
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign):
            continue
        read = _input_name(node.value)
        for target in node.targets:
            if isinstance(target, ast.Name):
                bound[target.id] = read if target.id not in bound else None
    return {name: read for name, read in bound.items() if read is not None}
