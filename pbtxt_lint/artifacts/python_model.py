"""Python backend reader: `model.py` analysed with `ast`, never imported or executed.

The Python backend imports `model.py` in a stub process: a syntax error, or no
`TritonPythonModel` class, fails the load; a class without `execute` fails every
request. The backend never compares the config's inputs and outputs with the code, so
the tensor names the code reads (`get_input_tensor_by_name(request, "X")`) and
produces (`pb_utils.Tensor("Y", ...)`) are collected as literal strings only, for
warnings: names built at run time are counted, not guessed.

With auto-complete on, the stub calls `TritonPythonModel.auto_complete_config(config)`
before the model loads. When that staticmethod is a straight-line program over
literals (the documented pattern: dict literals, `as_dict()`, loops over the config's
inputs, `if name not in names`, `add_input`, `add_output`, `set_max_batch_size`,
`set_dynamic_batching`, `set_model_transaction_policy`), `AutoComplete.emulate` runs
it on a model of the config, with the exact checks and messages of
`triton_python_backend_utils.ModelConfig`. Anything else (calls into other code,
imports, f-strings, while loops, ...) makes the outcome `Unknown` instead of a guess.
"""

from __future__ import annotations

import ast
import re
import stat
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence, Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from pbtxt_lint import storage
from pbtxt_lint.artifacts.python_execute import ExecuteFacts, execute_facts, position
from pbtxt_lint.artifacts.python_syntax import Aliases
from pbtxt_lint.artifacts.signature import ArtifactError, ArtifactProblem, Signature, reason
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput

__all__ = [
    "AutoComplete",
    "Completed",
    "NameUse",
    "PythonSignature",
    "Refused",
    "Unknown",
    "complete_as_stub",
    "read_python_model",
]

MAX_SOURCE_BYTES = 256 << 10
"""Larger model.py files are reported not-inspected. `ast.parse` keeps every node (about
600 bytes each) and the analysis walks them all: 1 MiB of one-token statements took 5 s
and 430 MiB; at 256 KiB the worst measured is 1.5 s and 230 MiB, while 75 KB of real
code takes 0.05 s and 5 MiB. Hand-written model.py files are a few KB to a few tens of
KB; larger ones hold generated data."""
MAX_STEPS = 20_000
"""Statements and expressions the auto-complete emulation evaluates at most."""
MAX_ITEMS = 200_000
"""List, tuple and dict items the emulation creates, copies or walks at most: `a.extend(a)`
doubles a list in one step, and `x = [x, x]` in a loop builds in n steps a value that
comparing, hashing or formatting walks 2**n items of, so steps alone bound neither memory
nor time. With MAX_STEPS this is the emulation's whole budget."""
MAX_DEPTH = 100
"""Nesting of the lists, tuples and dicts the emulation walks, at most: Python recurses
through them to compare, hash or format."""
CLASS_NAME = "TritonPythonModel"
_LFS_MAGIC = b"version https://git-lfs.github.com/spec/v1"
_NEWER_SYNTAX = re.compile(r"^\s*type\s+\w+.*=|^\s*(?:async\s+)?(?:def|class)\s+\w+\s*\[|f['\"]")
"""Lines whose syntax Python 3.12 accepts and older parsers may not."""
_TRY_STATEMENTS: tuple[type[ast.stmt], ...] = tuple(
    getattr(ast, name) for name in ("Try", "TryStar") if hasattr(ast, name)
)
_TYPE_NAMES = frozenset(DataType.keys())


@dataclass(frozen=True)
class NameUse:
    """A literal tensor name in the code, and where."""

    name: str
    line: int


@dataclass(frozen=True)
class Completed:
    config: ModelConfig
    filled: frozenset[str]
    """Top-level fields changed: max_batch_size, dynamic_batching, input, output,
    model_transaction_policy."""


@dataclass(frozen=True)
class Refused:
    """The stub raises: Triton does not load the model."""

    triton_id: str
    message: str
    line: int


@dataclass(frozen=True)
class Unknown:
    """The function does something pbtxt-lint does not emulate."""

    reason: str
    line: int


Outcome = Completed | Refused | Unknown


@dataclass(frozen=True, eq=False)
class AutoComplete:
    """A `TritonPythonModel.auto_complete_config` definition."""

    function: ast.FunctionDef | ast.AsyncFunctionDef
    static: bool

    @property
    def line(self) -> int:
        return self.function.lineno

    def emulate(self, config: ModelConfig) -> Outcome:
        """What the stub returns for `config` (the core-completed config of the model)."""
        function = self.function
        if isinstance(function, ast.AsyncFunctionDef):
            return Unknown("auto_complete_config is a coroutine", function.lineno)
        args = function.args
        positional = [*args.posonlyargs, *args.args]
        if args.vararg or args.kwarg or args.kwonlyargs or len(positional) != 1:
            return Unknown(
                "auto_complete_config does not take exactly one argument", function.lineno
            )
        if not self.static:
            return Unknown("auto_complete_config is not a @staticmethod", function.lineno)
        state = _config_state(config)
        interpreter = _Interpreter(positional[0].arg, state, config.name)
        try:
            interpreter.block(function.body)
            returned: object = None
        except _Return as done:
            returned = done.value
        except _ConfigError as error:
            return Refused(error.triton_id, error.message, error.line)
        except _Dynamic as dynamic:
            return Unknown(dynamic.reason, dynamic.line)
        except (_Break, _Continue):  # ast.parse accepts them; only the compiler refuses
            return Unknown("it uses break or continue outside a loop", interpreter.line)
        if returned is not _HANDLE:
            return Refused(
                "invalid-config",
                f"auto_complete_config function in model '{config.name}' must return a "
                "valid pb.ModelConfig object.",
                interpreter.line or function.lineno,
            )
        try:
            interpreter.walk(function, state)  # _apply compares, hashes and formats its values
            return _apply(config, state)
        except _ConfigError as error:
            return Refused(error.triton_id, error.message, error.line or function.lineno)
        except _Dynamic as dynamic:
            return Unknown(dynamic.reason, dynamic.line or function.lineno)


@dataclass(frozen=True, eq=False)
class PythonSignature(Signature):
    """What the stub will find in model.py, as far as `ast` can tell."""

    syntax_error: str = ""
    """"line N: message" when model.py does not parse ("" otherwise)."""
    syntax_line: int = 0
    syntax_maybe_newer: bool = False
    """The failing line uses syntax a newer Python (the stub's) may accept."""
    model_class: str = "absent"
    """"class" (defined here), "imported" (bound by import/assignment), "unknown"
    (star import, dynamic globals) or "absent"."""
    class_line: int = 0
    execute: str = "unknown"
    """"present", "absent" or "unknown" (inherited, metaclass, decorators)."""
    auto_complete: AutoComplete | None = None
    inputs_read: tuple[NameUse, ...] = ()
    outputs_made: tuple[NameUse, ...] = ()
    input_configs: tuple[NameUse, ...] = ()
    output_configs: tuple[NameUse, ...] = ()
    dynamic_names: int = 0
    """Name arguments that are not string literals (not checked)."""
    execute_facts: ExecuteFacts = field(default_factory=ExecuteFacts, repr=False)
    """What execute does with requests, responses and senders (`python_execute`)."""
    module: ast.Module | None = field(default=None, repr=False, compare=False)
    """The parsed file, for the checks that follow values through execute
    (`python_flow`); None when the file was not parsed."""

    @property
    def parsed(self) -> bool:
        return not self.syntax_error and not self.problems


def read_python_model(path: Path, model_dir: Path) -> PythonSignature:
    """Analyse model.py without importing it; raises `ArtifactError` if it cannot be read."""
    label = str(path)
    try:
        st = storage.stat(path)
    except (OSError, ValueError) as exc:
        raise ArtifactError("not-a-file", f"cannot access {label}: {reason(exc)}") from None
    if not stat.S_ISREG(st.st_mode):
        what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise ArtifactError("not-a-file", f"{label} is {what}; the stub imports a .py file")
    if st.st_size > MAX_SOURCE_BYTES:
        return _too_large(path, st.st_size)
    try:
        source = storage.read_whole(path, MAX_SOURCE_BYTES)
    except OSError as exc:
        raise ArtifactError("unreadable", f"cannot read {label}: {reason(exc)}") from None
    if len(source) > MAX_SOURCE_BYTES:  # it grew after os.stat
        return _too_large(path, len(source))
    if source.startswith(_LFS_MAGIC):
        raise ArtifactError(
            "lfs-pointer",
            f"{label} is a Git LFS pointer, not the model: run `git lfs pull` "
            "(or clone with Git LFS installed)",
        )
    try:
        # On a syntax error CPython reads the failing line back from the file named
        # `filename`: "model.py" would open ./model.py, another file (a FIFO there hangs).
        # The folder opens but yields no line, so CPython takes it from `source`.
        tree = ast.parse(source, filename=str(path.parent))
    except SyntaxError as exc:
        line = exc.lineno or 0
        text = (exc.text or "").rstrip("\n")
        newer = sys.version_info < (3, 12) and bool(_NEWER_SYNTAX.search(text))
        return PythonSignature(
            "python",
            path,
            (),
            (),
            {},
            syntax_error=f"line {line}: {exc.msg}",
            syntax_line=line,
            syntax_maybe_newer=newer,
        )
    except ValueError as exc:  # NUL bytes (Python < 3.12 raises ValueError)
        return PythonSignature(
            "python", path, (), (), {}, syntax_error=f"line 1: {exc}", syntax_line=1
        )
    except (RecursionError, MemoryError):
        return _uninspected(path, "it is nested too deeply for the Python parser")
    try:
        return _analyse(tree, path)
    except RecursionError:
        return _uninspected(path, "it is nested too deeply to analyse")


def _too_large(path: Path, size: int) -> PythonSignature:
    return _uninspected(
        path,
        f"it is {size:,} bytes or more, larger than the {MAX_SOURCE_BYTES >> 10} KiB "
        "pbtxt-lint parses (a syntax tree takes hundreds of bytes per byte of source)",
    )


def _uninspected(path: Path, why: str) -> PythonSignature:
    problem = ArtifactProblem("not-inspected", f"model.py was not analysed: {why}")
    return PythonSignature("python", path, (), (), {}, (problem,), model_class="unknown")


# --- static analysis ------------------------------------------------------------------------


def _module_statements(body: Sequence[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run at import time (module level, through if/try/with blocks)."""
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.For | ast.While | ast.With | ast.AsyncWith):
            yield from _module_statements(node.body)
            yield from _module_statements(getattr(node, "orelse", []))
        elif isinstance(node, _TRY_STATEMENTS):
            blocks: list[list[ast.stmt]] = [getattr(node, "body", [])]
            blocks += [handler.body for handler in getattr(node, "handlers", [])]
            blocks += [getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            for block in blocks:
                yield from _module_statements(block)


@dataclass
class _Nodes:
    """What the analysis needs from the whole tree, collected in one `ast.walk`: on a
    large module each walk costs about half as much as parsing it."""

    imports: list[ast.Import | ast.ImportFrom] = field(default_factory=list)
    calls: list[ast.Call] = field(default_factory=list)
    """In `ast.walk` order, the order names are reported in."""
    assigns: list[ast.Assign | ast.AnnAssign] = field(default_factory=list)
    writes_globals: bool = False
    """globals()[...] = / exec / setattr(sys.modules[...]) could define the class."""


def _collect(tree: ast.Module) -> _Nodes:
    nodes = _Nodes()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            nodes.calls.append(node)
            if isinstance(node.func, ast.Name) and node.func.id in (
                "exec",
                "globals",
                "setattr",
                "__import__",
            ):
                nodes.writes_globals = True
        elif isinstance(node, ast.Import | ast.ImportFrom):
            nodes.imports.append(node)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            nodes.assigns.append(node)
        elif isinstance(node, ast.Global) and CLASS_NAME in node.names:
            nodes.writes_globals = True
    return nodes


def _analyse(tree: ast.Module, path: Path) -> PythonSignature:
    nodes = _collect(tree)
    binding, cls = _model_class(tree, nodes.writes_globals)
    execute = "unknown"
    auto_complete = None
    if cls is not None:
        execute, auto_complete = _methods(cls)
    aliases = Aliases.of(nodes.imports)
    facts = execute_facts(tree, cls, aliases)
    names = _Names(nodes, aliases, facts)
    classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
    methods = [
        n.name
        for n in (cls.body if cls is not None else [])
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    ]
    return PythonSignature(
        "python",
        path,
        (),
        (),
        {
            "classes": ",".join(classes),
            "methods": ",".join(methods),
            "statements": str(len(tree.body)),
        },
        model_class=binding,
        class_line=cls.lineno if cls is not None else 0,
        execute=execute,
        auto_complete=auto_complete,
        inputs_read=tuple(names.inputs),
        outputs_made=tuple(names.outputs),
        input_configs=tuple(names.input_configs),
        output_configs=tuple(names.output_configs),
        dynamic_names=names.dynamic,
        module=tree,
        execute_facts=facts,
    )


def _model_class(tree: ast.Module, writes_globals: bool) -> tuple[str, ast.ClassDef | None]:
    """How the module binds TritonPythonModel, and its class statement if defined here."""
    found: tuple[str, ast.ClassDef | None] = ("absent", None)
    for node in _module_statements(tree.body):
        if isinstance(node, ast.ClassDef) and node.name == CLASS_NAME:
            found = ("class", node)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.name == "*":
                    found = ("unknown", None) if found[0] == "absent" else found
                elif (alias.asname or alias.name.split(".")[0]) == CLASS_NAME:
                    found = ("imported", None)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == CLASS_NAME for t in targets):
                found = ("imported", None)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in (
            CLASS_NAME,
            "__getattr__",
        ):
            found = ("unknown", None)
    if found[0] == "absent" and writes_globals:
        return "unknown", None
    return found


def _methods(cls: ast.ClassDef) -> tuple[str, AutoComplete | None]:
    """Whether the class defines execute, and its auto_complete_config."""
    defined: dict[str, ast.stmt] = {}
    for node in cls.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defined[node.name] = node
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    defined[target.id] = node
    plain_bases = all(isinstance(b, ast.Name) and b.id == "object" for b in cls.bases)
    opaque = not plain_bases or cls.keywords or cls.decorator_list or "__getattr__" in defined
    execute = "present" if "execute" in defined else "unknown" if opaque else "absent"
    method = defined.get("auto_complete_config")
    auto_complete = None
    if isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
        static = any(
            isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list
        )
        auto_complete = AutoComplete(method, static)
    return execute, auto_complete


class _Names:
    """Literal tensor names passed to triton_python_backend_utils, wherever it is imported."""

    def __init__(self, nodes: _Nodes, aliases: Aliases, facts: ExecuteFacts) -> None:
        self._utility = aliases.utility
        self.inputs: list[NameUse] = []
        self.outputs: list[NameUse] = []
        self.input_configs: list[NameUse] = []
        self.output_configs: list[NameUse] = []
        self.dynamic = 0
        answers = facts.response_tensors - facts.bls_tensors
        for call in nodes.calls:
            function = self._utility(call.func)
            if function == "get_input_tensor_by_name":
                self._record(call, 1, "name", self.inputs)
            elif function == "get_input_config_by_name":
                self._record(call, 1, "name", self.input_configs)
            elif function == "get_output_config_by_name":
                self._record(call, 1, "name", self.output_configs)
            elif function in ("Tensor", "Tensor.from_dlpack") and position(call) in answers:
                self._record(call, 0, "name", self.outputs)

    def _record(self, call: ast.Call, position: int, keyword: str, into: list[NameUse]) -> None:
        argument: ast.expr | None = call.args[position] if len(call.args) > position else None
        for kw in call.keywords:
            if kw.arg == keyword:
                argument = kw.value
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            into.append(NameUse(argument.value, call.lineno))
        elif argument is not None:
            self.dynamic += 1


# --- auto_complete_config emulation ------------------------------------------------------------


class _HandleType:
    """The `pb_utils.ModelConfig` object passed to auto_complete_config."""

    def __repr__(self) -> str:
        return "<ModelConfig>"


_HANDLE = _HandleType()


class _Dynamic(Exception):
    def __init__(self, reason: str, line: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


class _ConfigError(Exception):
    def __init__(self, triton_id: str, message: str, line: int = 0) -> None:
        super().__init__(message)
        self.triton_id = triton_id
        self.message = message
        self.line = line


class _Return(Exception):
    def __init__(self, value: object) -> None:
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def _config_state(config: ModelConfig) -> dict[str, Any]:
    """The config as the stub's `as_dict()` shows it (Triton prints default values).

    `optional` is shown only when true: whether Triton prints `"optional": false` is
    not verified, and assuming it would make `add_input(..., optional=True)` on a
    listed input a refusal that may not happen (a false error).
    """
    state: dict[str, Any] = {
        "name": config.name,
        "platform": config.platform,
        "backend": config.backend,
        "max_batch_size": config.max_batch_size,
        "input": [
            {
                "name": io.name,
                "data_type": DataType.Name(io.data_type)
                if io.data_type in DataType.values()
                else "TYPE_INVALID",
                "dims": list(io.dims),
                **({"optional": True} if io.optional else {}),
            }
            for io in config.input
        ],
        "output": [
            {
                "name": io.name,
                "data_type": DataType.Name(io.data_type)
                if io.data_type in DataType.values()
                else "TYPE_INVALID",
                "dims": list(io.dims),
            }
            for io in config.output
        ],
    }
    for scheduler in ("dynamic_batching", "sequence_batching", "ensemble_scheduling"):
        if config.HasField(scheduler):
            state[scheduler] = {}
    if config.HasField("model_transaction_policy"):
        state["model_transaction_policy"] = {"decoupled": config.model_transaction_policy.decoupled}
    return state


_COMPARE: Mapping[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: lambda a, b: bool(a == b),
    ast.NotEq: lambda a, b: bool(a != b),
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.Lt: lambda a, b: bool(a < b),
    ast.LtE: lambda a, b: bool(a <= b),
    ast.Gt: lambda a, b: bool(a > b),
    ast.GtE: lambda a, b: bool(a >= b),
}


class _Interpreter:
    """A tiny evaluator for literal-only auto_complete_config bodies.

    Values are plain Python literals and the config handle; every other construct
    raises `_Dynamic`. Python errors in the emulated code (a missing key, ...) are
    `_Dynamic` too: Triton's dict may hold keys this model of it does not.
    """

    def __init__(self, parameter: str, state: dict[str, Any], model: str) -> None:
        self.env: dict[str, Any] = {parameter: _HANDLE}
        self.state = state
        self.model = model
        self.steps = 0
        self.allocated = 0
        self.line = 0

    def tick(self, node: ast.AST) -> None:
        self.steps += 1
        self.line = getattr(node, "lineno", self.line)
        if self.steps > MAX_STEPS:
            raise _Dynamic(f"it runs more than {MAX_STEPS:,} steps", self.line)

    def allocate(self, node: ast.AST, items: int) -> None:
        """Count container items created, copied or walked (see MAX_ITEMS)."""
        self.allocated += items
        if self.allocated > MAX_ITEMS:
            raise self.dynamic(
                node, f"it builds or walks more than {MAX_ITEMS:,} list or dict items"
            )

    def walk(self, node: ast.AST, *values: Any) -> None:
        """Count the items Python walks to compare, hash or format `values`, before it
        does (see MAX_ITEMS, MAX_DEPTH). A value reached twice is counted twice, as
        Python walks it twice; a cycle runs out of the budget."""
        level = list(values)
        for _ in range(MAX_DEPTH + 1):
            below: list[Any] = []
            for value in level:
                if isinstance(value, dict):
                    self.allocate(node, 2 * len(value))
                    below += value
                    below += value.values()
                elif isinstance(value, list | tuple):
                    self.allocate(node, len(value))
                    below += value
            if not below:
                return
            level = below
        raise self.dynamic(node, f"it nests lists or dicts more than {MAX_DEPTH} deep")

    def made(self, node: ast.AST, value: Any) -> Any:
        """`value`, a container just built, counted (see MAX_ITEMS)."""
        self.allocate(node, len(value))
        return value

    def dynamic(self, node: ast.AST, what: str) -> _Dynamic:
        return _Dynamic(what, getattr(node, "lineno", self.line))

    # --- statements -----------------------------------------------------------------------

    def block(self, body: Sequence[ast.stmt]) -> None:
        for statement in body:
            self.statement(statement)

    def statement(self, node: ast.stmt) -> None:
        self.tick(node)
        if isinstance(node, ast.Expr):
            if isinstance(node.value, ast.Constant):
                return  # a docstring
            self.expression(node.value)
        elif isinstance(node, ast.Assign):
            value = self.expression(node.value)
            for target in node.targets:
                self.assign(target, value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self.assign(node.target, self.expression(node.value))
        elif isinstance(node, ast.If):
            self.block(node.body if self.truth(node.test) else node.orelse)
        elif isinstance(node, ast.For) and not node.orelse:
            self.loop(node)
        elif isinstance(node, ast.Return):
            raise _Return(self.expression(node.value) if node.value is not None else None)
        elif isinstance(node, ast.Pass):
            return
        elif isinstance(node, ast.Break):
            raise _Break
        elif isinstance(node, ast.Continue):
            raise _Continue
        else:
            raise self.dynamic(node, f"it uses a {type(node).__name__} statement")

    def loop(self, node: ast.For) -> None:
        items = self.expression(node.iter)
        if isinstance(items, dict):
            items = list(items)
        if not isinstance(items, list | tuple | range):
            raise self.dynamic(node, "it loops over something that is not a literal list")
        self.allocate(node, len(items))  # copied below
        for item in list(items):
            self.assign(node.target, item)
            try:
                self.block(node.body)
            except _Break:
                break
            except _Continue:
                continue

    def assign(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.env[target.id] = value
        elif isinstance(target, ast.Tuple | ast.List):
            if not isinstance(value, list | tuple) or len(value) != len(target.elts):
                raise self.dynamic(target, "it unpacks a value that does not fit")
            for element, item in zip(target.elts, value, strict=True):
                self.assign(element, item)
        elif isinstance(target, ast.Subscript):
            container = self.expression(target.value)
            key = self.expression(target.slice)
            if isinstance(container, dict) and isinstance(key, str | int | bool):
                container[key] = value
            elif isinstance(container, list) and isinstance(key, int):
                try:
                    container[key] = value
                except IndexError:
                    raise self.dynamic(target, "it assigns past the end of a list") from None
            else:
                raise self.dynamic(target, "it assigns into something that is not a literal")
        else:
            raise self.dynamic(target, "it assigns to an attribute")

    def truth(self, node: ast.expr) -> bool:
        return bool(self.expression(node))

    # --- expressions ----------------------------------------------------------------------

    def expression(self, node: ast.expr) -> Any:
        self.tick(node)
        try:
            return self._expression(node)
        except (_Dynamic, _ConfigError, _Return, _Break, _Continue):
            raise
        except RecursionError:
            raise self.dynamic(node, "it nests expressions too deeply") from None
        except Exception as exc:  # a Python error in the emulated code
            raise self.dynamic(node, f"evaluating it raises {type(exc).__name__}") from None

    def _expression(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str | int | float | bool) or node.value is None:
                return node.value
            raise self.dynamic(node, "it uses a non-literal constant")
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            raise self.dynamic(node, f"it reads the name '{node.id}', which is not a local literal")
        if isinstance(node, ast.List | ast.Tuple):
            items = [self.expression(e) for e in node.elts if not isinstance(e, ast.Starred)]
            if len(items) != len(node.elts):
                raise self.dynamic(node, "it unpacks with *")
            self.allocate(node, len(items))
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise self.dynamic(node, "it merges dicts with **")
            self.allocate(node, len(node.keys))
            pairs = [
                (self.expression(cast(ast.expr, k)), self.expression(v))
                for k, v in zip(node.keys, node.values, strict=True)
            ]
            self.walk(node, *(key for key, _ in pairs))  # hashed
            return dict(pairs)
        if isinstance(node, ast.Subscript):
            if isinstance(node.slice, ast.Slice):
                raise self.dynamic(node, "it slices")
            container = self.expression(node.value)
            if container is _HANDLE:
                raise self.dynamic(node, "it indexes the ModelConfig object")
            key = self.expression(node.slice)
            self.walk(node, key)  # hashed
            return container[key]
        if isinstance(node, ast.Compare):
            left = self.expression(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self.expression(right_node)
                if not isinstance(op, ast.Is | ast.IsNot):
                    self.walk(node, left, right)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            result: Any = None
            for value in node.values:
                result = self.expression(value)
                if isinstance(node.op, ast.And) and not result:
                    return result
                if isinstance(node.op, ast.Or) and result:
                    return result
            return result
        if isinstance(node, ast.UnaryOp):
            operand = self.expression(node.operand)
            if isinstance(node.op, ast.Not):
                return not operand
            if isinstance(node.op, ast.USub) and isinstance(operand, int | float):
                return -operand
            raise self.dynamic(node, "it uses an unsupported operator")
        if isinstance(node, ast.IfExp):
            return self.expression(node.body if self.truth(node.test) else node.orelse)
        if isinstance(node, ast.Call):
            return self.call(node)
        raise self.dynamic(node, f"it uses a {type(node).__name__} expression")

    def call(self, node: ast.Call) -> Any:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords
        ):
            raise self.dynamic(node, "it calls with * or ** arguments")
        func = node.func
        if isinstance(func, ast.Attribute):
            owner = self.expression(func.value)
            args = [self.expression(a) for a in node.args]
            kwargs = {cast(str, k.arg): self.expression(k.value) for k in node.keywords}
            if owner is _HANDLE:
                return self.config_method(node, func.attr, args, kwargs)
            return self.literal_method(node, owner, func.attr, args, kwargs)
        if isinstance(func, ast.Name):
            args = [self.expression(a) for a in node.args]
            kwargs = {cast(str, k.arg): self.expression(k.value) for k in node.keywords}
            return self.builtin(node, func.id, args, kwargs)
        raise self.dynamic(node, "it calls something that is not a method or builtin")

    def builtin(self, node: ast.Call, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if name in self.env:
            raise self.dynamic(node, f"it calls the local '{name}'")
        if name == "dict":
            self.walk(node, *args)  # keys hashed
            return self.made(node, dict(*args, **kwargs))
        if name == "list" and not kwargs:
            return self.made(node, list(*args))
        if name == "tuple" and not kwargs:
            return self.made(node, tuple(*args))
        if name == "len" and len(args) == 1 and not kwargs:
            return len(args[0])
        if name == "range" and not kwargs and all(isinstance(a, int) for a in args):
            values = range(*args)
            if len(values) > MAX_STEPS:
                raise self.dynamic(node, "it loops over a huge range")
            return values
        if name == "print":
            return None
        raise self.dynamic(node, f"it calls {name}()")

    def literal_method(
        self, node: ast.Call, owner: Any, name: str, args: list[Any], kwargs: dict[str, Any]
    ) -> Any:
        allowed = {
            list: ("append", "extend", "index", "count"),
            dict: ("get", "keys", "values", "items", "copy", "setdefault", "update"),
            str: ("lower", "upper", "strip", "startswith", "endswith"),
        }
        for kind, methods in allowed.items():
            if isinstance(owner, kind) and name in methods:
                self.walk(node, *args, *kwargs.values())  # compared or hashed
                if name in ("index", "count"):
                    self.walk(node, owner)
                before = len(owner) if isinstance(owner, list | dict) else 0
                result = getattr(owner, name)(*args, **kwargs)
                grown = len(owner) - before if isinstance(owner, list | dict) else 0
                self.allocate(node, grown + (len(result) if isinstance(result, Sized) else 0))
                if name in ("keys", "values", "items"):
                    return [list(r) if isinstance(r, tuple) else r for r in result]
                return result
        raise self.dynamic(node, f"it calls .{name}() on a {type(owner).__name__}")

    # --- pb_utils.ModelConfig, as triton_python_backend_utils implements it ------------------

    def config_method(
        self, node: ast.Call, name: str, args: list[Any], kwargs: dict[str, Any]
    ) -> Any:
        state = self.state
        values = [*args, *kwargs.values()]
        self.walk(node, *values)  # compared and formatted
        line = node.lineno
        if name == "as_dict" and not values:
            return state
        if name == "set_max_batch_size" and len(values) == 1:
            size = values[0]
            if not isinstance(size, int) or isinstance(size, bool):
                raise self.dynamic(node, "set_max_batch_size() gets a non-integer")
            _set_max_batch_size(state, size, self.model, line)
            return None
        if name == "set_dynamic_batching" and not values:
            found = next(
                (s for s in ("sequence_batching", "ensemble_scheduling") if s in state), None
            )
            if found is not None:
                raise _ConfigError(
                    "scheduling-conflict",
                    f"Configuration specified scheduling_choice as '{found}', but "
                    f"auto-complete-config function for model '{self.model}' tries to set "
                    "scheduling_choice as 'dynamic_batching'",
                    line,
                )
            state.setdefault("dynamic_batching", {})
            return None
        if name in ("add_input", "add_output") and len(values) == 1:
            if not isinstance(values[0], dict):
                raise self.dynamic(node, f"{name}() gets something that is not a dict")
            self.add_tensor(name.removeprefix("add_"), values[0], node)
            return None
        if name == "set_model_transaction_policy" and len(values) == 1:
            policy = values[0]
            if not isinstance(policy, dict):
                raise self.dynamic(node, "set_model_transaction_policy() gets a non-dict")
            self.walk(node, state.get("model_transaction_policy", {}))
            _set_transaction_policy(state, policy, self.model, line)
            return None
        raise self.dynamic(node, f"it calls ModelConfig.{name}() in a way not emulated")

    def add_tensor(self, kind: str, tensor: dict[str, Any], node: ast.Call) -> None:
        line = node.lineno
        model = self.model
        valid = ("name", "data_type", "dims", "optional") if kind == "input" else (
            "name", "data_type", "dims",
        )  # fmt: skip
        listed = "'name', 'data_type', 'dims' and 'optional'" if kind == "input" else (
            "'name', 'data_type' and 'dims'"
        )  # fmt: skip
        triton_id = "unknown-tensor-property"
        for key in tensor:
            if key not in valid:
                name = tensor.get("name")
                if name is None:
                    raise _ConfigError(triton_id, "KeyError: 'name'", line)
                raise _ConfigError(
                    triton_id,
                    f"{kind} '{name}' in auto-complete-config function for model '{model}' "
                    f"contains property other than {listed}.",
                    line,
                )
        missing_id = "tensor-property-missing"
        if "name" not in tensor:
            raise _ConfigError(
                missing_id,
                f"{kind} in auto-complete-config function for model '{model}' is missing "
                "'name' property.",
                line,
            )
        for key in ("data_type", "dims"):
            if key not in tensor:
                raise _ConfigError(
                    missing_id,
                    f"{kind} '{tensor['name']}' in auto-complete-config function for model "
                    f"'{model}' is missing '{key}' property.",
                    line,
                )
        conflict_id = "tensor-conflict"
        for current in self.state[kind]:
            self.walk(node, current["name"])  # as_dict() lets the code replace it
            if tensor["name"] != current["name"]:
                continue
            self.walk(node, current)  # compared and formatted below
            if (
                current["data_type"] != "TYPE_INVALID"
                and current["data_type"] != tensor["data_type"]
            ):
                raise _ConfigError(
                    conflict_id,
                    f"unable to load model '{model}', configuration expects datatype "
                    f"{current['data_type']} for {kind} '{tensor['name']}', model provides "
                    f"{tensor['data_type']}",
                    line,
                )
            if current["dims"] and current["dims"] != tensor["dims"]:
                raise _ConfigError(
                    conflict_id,
                    f"model '{model}', tensor '{tensor['name']}': the model expects dims "
                    f"{_py_str(tensor['dims'])} but the model configuration specifies dims "
                    f"{_py_str(current['dims'])}",
                    line,
                )
            if (
                kind == "input"
                and "optional" in current
                and "optional" in tensor
                and current["optional"] != tensor["optional"]
            ):
                raise _ConfigError(
                    conflict_id,
                    f"model '{model}', tensor '{tensor['name']}': the model expects optional "
                    f"{tensor['optional']} but the model configuration specifies optional "
                    f"{current['optional']}",
                    line,
                )
            current["data_type"] = tensor["data_type"]
            current["dims"] = tensor["dims"]
            if "optional" in tensor:
                current["optional"] = tensor["optional"]
            return
        self.state[kind].append(tensor)


def _py_str(value: Any) -> str:
    return str(value)


def _set_max_batch_size(state: dict[str, Any], size: int, model: str, line: int) -> None:
    """`ModelConfig.set_max_batch_size`: it may raise the config's value, never lower it."""
    if state["max_batch_size"] > size:
        raise _ConfigError(
            "max-batch-size-lowered",
            f"configuration specified max_batch_size {state['max_batch_size']}, but in "
            f"auto-complete-config function for model '{model}' specified "
            f"max_batch_size {size}",
            line,
        )
    state["max_batch_size"] = size


def _set_transaction_policy(
    state: dict[str, Any], policy: dict[Any, Any], model: str, line: int
) -> None:
    """`ModelConfig.set_model_transaction_policy`: only `decoupled`, and never changed
    from a value the config sets."""
    if any(key != "decoupled" for key in policy):
        raise _ConfigError(
            "transaction-policy",
            "model transaction property in auto-complete-config function for model "
            f"'{model}' contains property other than 'decoupled'.",
            line,
        )
    current = state.setdefault("model_transaction_policy", {})
    if "decoupled" in policy:
        if "decoupled" in current and current["decoupled"] != policy["decoupled"]:
            raise _ConfigError(
                "transaction-policy",
                "trying to change decoupled property in auto-complete-config for "
                f"model '{model}', which is already set to '{current['decoupled']}'.",
                line,
            )
        current["decoupled"] = policy["decoupled"]


def complete_as_stub(
    config: ModelConfig,
    inputs: Sequence[dict[str, Any]],
    outputs: Sequence[dict[str, Any]],
    decoupled: bool,
    max_batch_size: int,
) -> Completed | Refused:
    """What the documented auto_complete_config pattern returns, written as data: add
    each tensor whose name the config lacks, set the transaction policy, then
    max_batch_size, through the same `ModelConfig` checks and messages as an emulated
    model.py (a Python-based backend's model.py, such as vLLM's, that pbtxt-lint does
    not read but knows)."""
    state = _config_state(config)
    try:
        for kind, tensors in (("input", inputs), ("output", outputs)):
            names = {tensor["name"] for tensor in state[kind]}
            state[kind].extend(dict(t) for t in tensors if t["name"] not in names)
        _set_transaction_policy(state, {"decoupled": decoupled}, config.name, 0)
        _set_max_batch_size(state, max_batch_size, config.name, 0)
        return _apply(config, state)
    except _ConfigError as error:
        return Refused(error.triton_id, error.message, error.line)


def _apply(config: ModelConfig, state: dict[str, Any]) -> Completed:
    """Turn the emulated dict back into the config Triton parses from the stub's JSON."""
    completed = ModelConfig()
    completed.CopyFrom(config)
    filled: set[str] = set()
    size = state.get("max_batch_size")
    if not isinstance(size, int) or isinstance(size, bool):
        raise _Dynamic("max_batch_size is set to a non-integer", 0)
    if size != completed.max_batch_size:
        completed.max_batch_size = size
        filled.add("max_batch_size")
    batching = state.get("dynamic_batching")
    if batching is not None and not completed.HasField("dynamic_batching"):
        if batching != {}:
            raise _Dynamic("it sets dynamic_batching fields directly", 0)
        completed.dynamic_batching.SetInParent()
        filled.add("dynamic_batching")
    for kind in ("input", "output"):
        tensors = state.get(kind)
        if not isinstance(tensors, list):
            raise _Dynamic(f"it replaces the {kind} list", 0)
        target = completed.input if kind == "input" else completed.output
        for index, tensor in enumerate(tensors):
            io: ModelInput | ModelOutput = target[index] if index < len(target) else target.add()
            if _fill_tensor(config.name, kind, io, tensor):
                filled.add(kind)
    policy = state.get("model_transaction_policy")
    if isinstance(policy, dict) and "decoupled" in policy:
        decoupled = policy["decoupled"]
        if not isinstance(decoupled, bool):
            raise _Dynamic("decoupled is set to a non-boolean", 0)
        if decoupled != completed.model_transaction_policy.decoupled:
            completed.model_transaction_policy.decoupled = decoupled
            filled.add("model_transaction_policy")
    return Completed(completed, frozenset(filled))


def _fill_tensor(
    model: str, kind: str, io: ModelInput | ModelOutput, tensor: dict[str, Any]
) -> bool:
    """Write one tensor dict into `io`; True if that changed anything."""
    if not isinstance(tensor, dict):  # as_dict()["input"].append(1)
        raise _Dynamic(f"it puts something that is not a dict in the {kind} list", 0)
    name, data_type, dims = tensor.get("name"), tensor.get("data_type"), tensor.get("dims")
    if not isinstance(name, str):
        raise _Dynamic(f"an {kind} name is not a string", 0)
    if not isinstance(data_type, str) or data_type not in _TYPE_NAMES:
        raise _ConfigError(
            "invalid-config",
            f"auto_complete_config in model '{model}' sets data_type {data_type!r} for "
            f"{kind} '{name}', which is not a Triton data type (TYPE_FP32, TYPE_INT64, ...); "
            "Triton cannot parse the completed configuration",
        )
    if not isinstance(dims, list | tuple) or not all(
        isinstance(d, int) and not isinstance(d, bool) for d in dims
    ):
        raise _ConfigError(
            "invalid-config",
            f"auto_complete_config in model '{model}' sets dims {dims!r} for {kind} '{name}', "
            "which is not a list of integers; Triton cannot parse the completed configuration",
        )
    before = io.SerializeToString(deterministic=True)
    io.name = name
    io.data_type = cast(DataType, DataType.Value(data_type))
    del io.dims[:]
    io.dims.extend(int(d) for d in dims)
    optional = tensor.get("optional")
    if isinstance(io, ModelInput) and isinstance(optional, bool):
        io.optional = optional
    return io.SerializeToString(deterministic=True) != before
