"""The `exec()` / `async_exec()` calls that run BLS requests, and their `decoupled` flag.

A BLS request (`pb_utils.InferenceRequest(...)`) runs when model.py calls `exec()` or
`async_exec()` on it. Without `decoupled=True` the python backend wants exactly one
response and refuses to call a decoupled model (python_backend src/request_executor.cc,
`RequestExecutor::Infer`). This module pairs each exec call with the request it runs,
by the name the request is bound to (or the call chained on the constructor), with
`ast` only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

__all__ = ["BlsExec", "bls_execs"]


@dataclass(frozen=True)
class BlsExec:
    """One exec call on a BLS request built at `request_line`."""

    line: int
    request_line: int
    decoupled: bool | None
    """The `decoupled=` argument: False when absent, None when not a literal."""


def bls_execs(module: ast.Module | None, request_lines: frozenset[int]) -> tuple[BlsExec, ...]:
    """The exec calls on the requests constructed at `request_lines` (BlsCall lines)."""
    if module is None or not request_lines:
        return ()
    bound: dict[str, int] = {}
    calls: list[ast.Call] = []
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if node.value.lineno in request_lines:
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        bound[target.id] = node.value.lineno
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("exec", "async_exec"):
                calls.append(node)
    found = []
    for call in calls:
        assert isinstance(call.func, ast.Attribute)
        receiver = call.func.value
        if isinstance(receiver, ast.Name) and receiver.id in bound:
            request_line = bound[receiver.id]
        elif isinstance(receiver, ast.Call) and receiver.lineno in request_lines:
            request_line = receiver.lineno
        else:
            continue
        found.append(BlsExec(call.lineno, request_line, _decoupled(call)))
    return tuple(sorted(found, key=lambda e: e.line))


def _decoupled(call: ast.Call) -> bool | None:
    for keyword in call.keywords:
        if keyword.arg == "decoupled":
            value = keyword.value
            if isinstance(value, ast.Constant) and isinstance(value.value, bool):
                return value.value
            return None
        if keyword.arg is None:
            return None  # **kwargs
    if call.args:
        return None  # exec(True): positional
    return False
