"""What a model.py's `initialize` takes from the config at load, read with `ast` only.

The Python models published with TensorRT-LLM's backend read their settings straight
from the config JSON: `model_config['parameters']['tokenizer_dir']['string_value']`
raises KeyError when the key is absent, and a loop such as
`for name in output_names: get_output_config_by_name(model_config, name)['data_type']`
raises TypeError when one of the names is not declared. Both happen in `initialize`,
so the model fails to load. Only reads that run unconditionally are collected: a
statement directly in `initialize`'s body, or in a `for` loop over literal names
there (not under `if`, `try` or a nested function). The BLS model's helper library
names the tensors it requests in list literals (`self._llm_outputs = [...]`), read by
`string_lists`. Nothing is imported or run.
"""

from __future__ import annotations

import ast
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pbtxt_lint import storage
from pbtxt_lint.artifacts.python_model import MAX_SOURCE_BYTES
from pbtxt_lint.artifacts.python_syntax import string_literal

_LOOKUPS = frozenset({"get_input_config_by_name", "get_output_config_by_name"})


@dataclass(frozen=True)
class ParameterRead:
    """`...['parameters'][key]`: a KeyError at load when the config lacks `key`."""

    key: str
    line: int


@dataclass(frozen=True)
class ConfigLookup:
    """`get_<kind>_config_by_name(config, name)[...]` in a loop over literal names."""

    kind: str
    """"input" or "output"."""
    name: str
    line: int


@dataclass(frozen=True)
class InitializeReads:
    parameters: tuple[ParameterRead, ...] = ()
    lookups: tuple[ConfigLookup, ...] = ()


def initialize_reads(module: ast.Module | None) -> InitializeReads:
    """The unconditional config reads of `TritonPythonModel.initialize` in `module`."""
    function = _initialize(module) if module is not None else None
    if function is None:
        return InitializeReads()
    lists: dict[str, list[str]] = {}
    parameters: list[ParameterRead] = []
    lookups: list[ConfigLookup] = []
    for statement in function.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, names = statement.targets[0], _names(statement.value)
            if isinstance(target, ast.Name) and names is not None:
                lists[target.id] = names
        if isinstance(statement, ast.For):
            lookups.extend(_loop_lookups(statement, lists))
        elif not isinstance(statement, (ast.If, ast.Try, ast.While, ast.With, ast.FunctionDef)):
            parameters.extend(_parameter_reads(statement))
    return InitializeReads(tuple(parameters), tuple(lookups))


def string_lists(path: Path) -> dict[str, tuple[str, ...]] | None:
    """`self.<attribute> = ["a", "b"]` assignments of a helper module, by attribute;
    None when the file cannot be read or parsed (then nothing is judged)."""
    try:
        info = storage.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            return None
        module = ast.parse(storage.read_whole(path, MAX_SOURCE_BYTES), filename=str(path.parent))
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: dict[str, tuple[str, ...]] = {}
    for node in ast.walk(module):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1:
            continue
        target, names = node.targets[0], _names(node.value)
        if isinstance(target, ast.Attribute) and names is not None:
            found.setdefault(target.attr, tuple(names))
    return found


def _initialize(module: ast.Module) -> ast.FunctionDef | None:
    for node in module.body:
        if isinstance(node, ast.ClassDef) and node.name == "TritonPythonModel":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "initialize":
                    return item
    return None


def _names(node: ast.expr) -> list[str] | None:
    """The strings of a list or tuple literal of string constants, else None."""
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    names = [string_literal(element) for element in node.elts]
    return [n for n in names if n is not None] if all(n is not None for n in names) else None


def _parameter_reads(statement: ast.stmt) -> Iterator[ParameterRead]:
    for node in ast.walk(statement):
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            continue
        inner = node.value
        key = string_literal(node.slice)
        if key is None or not isinstance(inner, ast.Subscript):
            continue
        if string_literal(inner.slice) == "parameters":
            yield ParameterRead(key, node.lineno)


def _loop_lookups(loop: ast.For, lists: dict[str, list[str]]) -> Iterator[ConfigLookup]:
    if not isinstance(loop.target, ast.Name):
        return
    variable = loop.target.id
    names = lists.get(loop.iter.id) if isinstance(loop.iter, ast.Name) else _names(loop.iter)
    if not names:
        return
    for node in ast.walk(loop):
        if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        function = call.func
        called = function.attr if isinstance(function, ast.Attribute) else None
        if isinstance(function, ast.Name):
            called = function.id
        if called not in _LOOKUPS or len(call.args) < 2:
            continue
        argument = call.args[1]
        if isinstance(argument, ast.Name) and argument.id == variable:
            kind = "input" if called == "get_input_config_by_name" else "output"
            yield from (ConfigLookup(kind, name, call.lineno) for name in names)
