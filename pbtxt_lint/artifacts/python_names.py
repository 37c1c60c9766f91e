"""Names a model.py spells out with literals: the names a loop variable takes, the key
of the config parameter a value is read from. Read with `ast` only."""

from __future__ import annotations

import ast

from pbtxt_lint.artifacts.python_syntax import string_literal


def _is(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _key(node: ast.expr) -> tuple[ast.expr, str] | None:
    """`X["k"]` or `X.get("k"...)`: (X, "k")."""
    if isinstance(node, ast.Subscript):
        key = string_literal(node.slice)
        return (node.value, key) if key is not None else None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
    ):
        key = string_literal(node.args[0])
        return (node.func.value, key) if key is not None else None
    return None


def parameter_key(node: ast.expr | None) -> str | None:
    """KEY of `...["parameters"]["KEY"]["string_value"]` (subscripts or .get())."""
    outer = _key(node) if node is not None else None
    if outer is None or outer[1] != "string_value":
        return None
    middle = _key(outer[0])
    if middle is None:
        return None
    inner = _key(middle[0])
    if inner is None or inner[1] != "parameters":
        return None
    return middle[1]


def loop_position(target: ast.expr, name: str) -> int | None:
    """Where a loop target binds `name`: -1 for the whole item, i for element i of a
    tuple target (None: it does not bind it)."""
    if _is(target, name):
        return -1
    if isinstance(target, ast.Tuple):
        for index, element in enumerate(target.elts):
            if _is(element, name):
                return index
    return None


def literal_names(node: ast.expr) -> tuple[str, ...] | None:
    """The strings of a list, tuple or set written with literal strings only."""
    if isinstance(node, ast.List | ast.Tuple | ast.Set) and node.elts:
        names = [string_literal(e) for e in node.elts]
        if all(n is not None for n in names):
            return tuple(n for n in names if n is not None)
    return None
