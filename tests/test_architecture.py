"""The layering of the package: no import cycles (imports inside functions included),
rule modules that fit in a reader's head, and the context below the rules.

The import-linter contracts in pyproject.toml (run by `make lint`) check the layers;
this test adds what they do not: cycles among modules of one layer, and sizes (every
module under ~500 lines, but a shrinking list).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "pbtxt_lint"
GENERATED = {"schema/model_config_pb2.py", "lsp/schema_docs.py"}
MAX_MODULE_LINES = 500
OVER_THE_LIMIT: dict[str, str] = {
    # grown by the branches that landed; not split yet only for want of time (branch
    # splits did contract, onnx_axes, cli/check and storage/remote first): settings_files
    # is an import-linter layer of its own (its split makes it a package or adds a
    # layer), the others split along their sections
    "pbtxt_lint.analysis.ensemble": "iterative walks (branch bounds)",
    "pbtxt_lint.request": "request bodies bounded (branch bounds)",
    "pbtxt_lint.textproto.binder": "the parser's work bounded (branch bounds)",
    "pbtxt_lint.textproto.tokenizer": "the parser's work bounded (branch bounds)",
    "pbtxt_lint.textproto.tree": "the parser's work bounded (branch bounds)",
    "pbtxt_lint.triton.backends": "the backends' census rows (branches vllm, trtllm, pytorch)",
    "pbtxt_lint.settings_files": "rule selection moves out with the job flow (branch cache)",
    "pbtxt_lint.triton.vllm": "vLLM's facts, over the limit as branch vllm landed them",
    # one class each: split by moving groups of methods behind a Protocol, as
    # python_array_calls.py does for the interpreter's NumPy calls
    "pbtxt_lint.artifacts.python_flow": "the model.py interpreter",
    "pbtxt_lint.artifacts.python_model": "the auto_complete_config interpreter",
    "pbtxt_lint.artifacts.onnx_infer": "shape inference, one function per operator",
    "pbtxt_lint.artifacts.onnx": "the wire walker (savedmodel.py has a second one)",
    # sections of module functions that share private helpers both ways
    "pbtxt_lint.artifacts.python_execute": "execute's facts: returns, senders, reads, BLS",
    "pbtxt_lint.artifacts.python_env": "listing archives and folders",
    "pbtxt_lint.artifacts.python_array_calls": "NumPy's functions and array methods",
}
"""Modules over the limit, with why they are not split yet. Only ever remove entries."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).as_posix() not in GENERATED
    }


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(inner) for inner in ast.walk(node))
    return skipped


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Modules of the package `name` imports at run time (anywhere in the file), with
    the packages that importing them runs (`a.b.c` runs `a.b`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_nodes(tree)
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, base] if base else package)
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if not target:
                continue
            parts = target.split(".")
            for end in range(1, len(parts) + 1):
                prefix = ".".join(parts[:end])
                if prefix in known and prefix != name and not name.startswith(prefix + "."):
                    found.add(prefix)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle_even_through_imports_inside_functions() -> None:
    modules = _modules()
    known = set(modules)
    graph = {name: _imports(name, path, known) for name, path in modules.items()}
    assert _cycles(graph) == []


def _too_long() -> dict[str, int]:
    return {
        name: lines
        for name, path in _modules().items()
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }


def test_modules_fit_in_a_readers_head() -> None:
    """No module over MAX_MODULE_LINES but those of OVER_THE_LIMIT, which only shrinks:
    a module that grows past the limit is split, and one that got under it leaves the
    list (so it cannot grow back unnoticed)."""
    too_long = _too_long()
    grown = {name: lines for name, lines in too_long.items() if name not in OVER_THE_LIMIT}
    assert grown == {}, f"over {MAX_MODULE_LINES} lines: split them"
    shrunk = sorted(set(OVER_THE_LIMIT) - set(too_long))
    assert shrunk == [], "under the limit now: remove them from OVER_THE_LIMIT"


def test_rule_modules_are_never_over_the_limit() -> None:
    assert not [name for name in OVER_THE_LIMIT if name.startswith("pbtxt_lint.rules.")]


def test_the_model_context_lives_below_the_rules() -> None:
    from pbtxt_lint.analysis.context import ModelContext

    assert ModelContext.__module__ == "pbtxt_lint.analysis.context"
    assert not any("class ModelContext" in p.read_text() for p in (PACKAGE / "rules").rglob("*.py"))


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
