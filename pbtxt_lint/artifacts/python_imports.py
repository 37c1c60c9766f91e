"""The modules model.py imports, and those of the modules beside it, read with `ast`.

The stub imports `<version>/model.py` as the module `<version>.model`, after appending
to sys.path the version folder, the model folder and the backend folder (python_backend
pb_stub.cc, `ModelContext::StubSetup`). So a module beside model.py (`helper.py`,
`utils/`) or in the model folder is importable by its name, `from . import helper`
resolves in the version folder, and `from .. import x` goes beyond the top-level
package `<version>` (ImportError). An import at module level or in `initialize` (and
`auto_complete_config`) runs when the model loads; one in `execute` at every request.

Nothing is imported or run: each file is parsed (at most `MAX_SOURCE_BYTES`, at most
`MAX_FILES` files, all inside the model folder), and imports are collected with where
they run and whether they are guarded (inside `try/except ImportError`, a
`contextlib.suppress`, or an `if` on `sys.version_info`, `sys.platform`,
`TYPE_CHECKING` or `find_spec`: the code then copes with the module's absence).
`importlib.import_module("x")` and `__import__("x")` with a literal count as imports.
"""

from __future__ import annotations

import ast
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pbtxt_lint import storage
from pbtxt_lint.artifacts.python_model import CLASS_NAME, MAX_SOURCE_BYTES
from pbtxt_lint.repository.fs import is_inside

__all__ = ["MAX_FILES", "ImportScan", "ImportUse", "local_modules", "scan_imports"]

MAX_FILES = 64
"""Local modules followed from model.py at most."""
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXTENSION = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.(?:[^/]*\.)?(?:so|pyd)$")
_LOAD_METHODS = {"initialize": "load", "auto_complete_config": "load"}
_METHOD_WHEN = {**_LOAD_METHODS, "execute": "request", "finalize": "unload"}
_GUARD_WORDS = ("version_info", "platform", "TYPE_CHECKING", "find_spec")
_IMPORT_ERRORS = ("ImportError", "ModuleNotFoundError", "Exception", "BaseException")
_ORDER = {"load": 0, "request": 1, "call": 2, "unload": 3}


@dataclass(frozen=True)
class ImportUse:
    """One import statement (or literal dynamic import) and when it runs."""

    module: str
    """The dotted name as written, without the leading dots of a relative import."""
    level: int
    """0 for an absolute import; the number of leading dots otherwise."""
    names: tuple[str, ...]
    """`from X import a, b`: the names imported from X."""
    file: Path
    line: int
    where: str
    """"module level", "initialize", "execute", "auto_complete_config", "finalize",
    or "function <name>"."""
    when: str
    """"load", "request" (every request), "call" (when that function is called) or
    "unload"."""
    guarded: bool
    via: tuple[str, ...] = ()
    """The local modules whose import led here (empty for model.py itself)."""

    @property
    def top(self) -> str:
        return self.module.split(".", 1)[0]


@dataclass(frozen=True)
class ImportScan:
    """The imports of one model.py and its local modules."""

    model: Path
    imports: tuple[ImportUse, ...]
    version_local: frozenset[str]
    """Top-level names beside model.py (the version folder)."""
    model_local: frozenset[str]
    """Top-level names in the model folder."""
    unread: tuple[tuple[Path, str], ...] = ()
    """Files not analysed, and why (too large, syntax error, outside the repository)."""

    @property
    def local(self) -> frozenset[str]:
        return self.version_local | self.model_local


def local_modules(folder: Path) -> frozenset[str]:
    """Top-level importable names in `folder`: `x.py`, packages `x/`, extensions `x.*.so`."""
    names: set[str] = set()
    try:
        with storage.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count > 10_000:
                    break
                name = entry.name
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                stem, _, suffix = name.rpartition(".")
                if is_dir:
                    if _IDENTIFIER.fullmatch(name):
                        names.add(name)
                elif suffix in ("py", "pyc") and _IDENTIFIER.fullmatch(stem):
                    names.add(stem)
                elif match := _EXTENSION.match(name):
                    names.add(match.group(1))
    except OSError:
        pass
    return frozenset(names)


def scan_imports(model_py: Path, root: Path) -> ImportScan:
    """The imports of `model_py` and of the local modules it reaches (never raises)."""
    version_dir = model_py.parent
    model_dir = version_dir.parent
    scan = _Scan(root, version_dir, model_dir)
    scan.file(model_py, "load", (), package=version_dir.name, is_model=True)
    while scan.queue and len(scan.seen) < MAX_FILES:
        path, when, via, package = scan.queue.pop(0)
        scan.file(path, when, via, package=package, is_model=False)
    return ImportScan(
        model_py,
        tuple(scan.found),
        local_modules(version_dir),
        local_modules(model_dir),
        tuple(scan.unread),
    )


class _Scan:
    def __init__(self, root: Path, version_dir: Path, model_dir: Path) -> None:
        self.root = root
        self.version_dir = version_dir
        self.model_dir = model_dir
        self.found: list[ImportUse] = []
        self.unread: list[tuple[Path, str]] = []
        self.seen: dict[Path, str] = {}
        self.queue: list[tuple[Path, str, tuple[str, ...], str]] = []

    def file(
        self, path: Path, when: str, via: tuple[str, ...], *, package: str, is_model: bool
    ) -> None:
        previous = self.seen.get(path)
        if previous is not None and _ORDER[previous] <= _ORDER[when]:
            return
        self.seen[path] = when
        tree = self._parse(path)
        if tree is None:
            return
        if previous is not None:  # seen before, later: keep only the earlier moment
            self.found = [use for use in self.found if use.file != path]
        visitor = _Visitor(path, when, via, is_model)
        try:
            visitor.block(tree.body, "module level", when, False, None)
        except RecursionError:
            self.unread.append((path, "it is nested too deeply to analyse"))
            return
        self.found.extend(visitor.found)
        for use in visitor.found:
            self._follow(use, package)

    def _parse(self, path: Path) -> ast.Module | None:
        if not is_inside(self.root, path):
            self.unread.append((path, "it is a link to a file outside the repository"))
            return None
        try:
            info = storage.stat(path)
            if not stat.S_ISREG(info.st_mode):
                return None
            if info.st_size > MAX_SOURCE_BYTES:
                self.unread.append((path, f"it is larger than {MAX_SOURCE_BYTES >> 10} KiB"))
                return None
            source = storage.read_whole(path, MAX_SOURCE_BYTES)
            return ast.parse(source, filename=str(path.parent))
        except (SyntaxError, ValueError):
            self.unread.append((path, "it does not parse"))
        except (RecursionError, MemoryError):
            self.unread.append((path, "it is nested too deeply to parse"))
        except OSError as error:
            self.unread.append((path, error.strerror or "it cannot be read"))
        return None

    def _follow(self, use: ImportUse, package: str) -> None:
        """Queue the local module files an import reaches."""
        via = (*use.via, use.module or ".")
        if use.level:
            if use.level > 1 or not package:
                return
            base = self.version_dir if package == self.version_dir.name else None
            if base is None:
                return
            parts = use.module.split(".") if use.module else []
            targets = [parts] if parts else [[name] for name in use.names]
            for target in targets:
                for found in _module_files(base, target):
                    self.queue.append((found, use.when, via, package))
            return
        for folder in (self.version_dir, self.model_dir):
            files = _module_files(folder, use.module.split("."))
            if files:
                for found in files:
                    self.queue.append((found, use.when, via, ""))
                return


def _module_files(folder: Path, parts: list[str]) -> list[Path]:
    """The files `import a.b` runs under `folder`, in Python's order of preference: a
    package's `__init__.py`, else `a.py`, else a namespace folder (no file to run)."""
    files: list[Path] = []
    current = folder
    for part in parts:
        if not _IDENTIFIER.fullmatch(part):
            break
        package = current / part
        if (package / "__init__.py").is_file():
            files.append(package / "__init__.py")
        elif (current / f"{part}.py").is_file():
            files.append(current / f"{part}.py")
            break
        elif not package.is_dir():
            break
        current = package
    return files


class _Visitor:
    """Collects the imports of one file with where and when they run."""

    def __init__(self, path: Path, when: str, via: tuple[str, ...], is_model: bool) -> None:
        self.path = path
        self.when = when
        self.via = via
        self.is_model = is_model
        self.found: list[ImportUse] = []
        self.importlib_names: set[str] = {"importlib.import_module", "__import__"}

    def block(
        self, body: list[ast.stmt], where: str, when: str, guarded: bool, cls: str | None
    ) -> None:
        for node in body:
            self.statement(node, where, when, guarded, cls)

    def statement(
        self, node: ast.stmt, where: str, when: str, guarded: bool, cls: str | None
    ) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.add(alias.name, 0, (), node.lineno, where, when, guarded)
            return
        if isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names)
            module = node.module or ""
            if module == "importlib" and "import_module" in names:
                self.importlib_names.add("import_module")
            if module != "__future__":
                self.add(module, node.level or 0, names, node.lineno, where, when, guarded)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                self.expressions(decorator, where, when, guarded)
            inner_where, inner_when = self._function(node.name, cls)
            self.block(node.body, inner_where, inner_when, guarded, None)
            return
        if isinstance(node, ast.ClassDef):
            self.block(node.body, where, when, guarded, node.name)
            return
        if isinstance(node, ast.If):
            conditional = guarded or _is_guard_test(node.test)
            self.expressions(node.test, where, when, guarded)
            self.block(node.body, where, when, conditional, cls)
            self.block(node.orelse, where, when, conditional, cls)
            return
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            handlers = getattr(node, "handlers", [])
            catches = guarded or any(_catches_import_error(h.type) for h in handlers)
            self.block(getattr(node, "body", []), where, when, catches, cls)
            for handler in handlers:
                self.block(handler.body, where, when, guarded, cls)
            self.block(getattr(node, "orelse", []), where, when, guarded, cls)
            self.block(getattr(node, "finalbody", []), where, when, guarded, cls)
            return
        if isinstance(node, ast.With | ast.AsyncWith):
            suppresses = guarded or any(_suppresses(item.context_expr) for item in node.items)
            self.block(node.body, where, when, suppresses, cls)
            return
        for child in _child_statements(node):
            self.block(child, where, when, guarded, cls)
        self.expressions(node, where, when, guarded)

    def _function(self, name: str, cls: str | None) -> tuple[str, str]:
        if self.is_model and cls == CLASS_NAME and name in _METHOD_WHEN:
            return name, _METHOD_WHEN[name]
        return f"function {name}", "call"

    def expressions(self, node: ast.AST, where: str, when: str, guarded: bool) -> None:
        """Literal `importlib.import_module("x")` / `__import__("x")` calls in `node`
        (not descending into nested statements, which `statement` handles)."""
        for child in _expression_nodes(node):
            if not isinstance(child, ast.Call) or not child.args:
                continue
            if _dotted(child.func) not in self.importlib_names:
                continue
            first = child.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                text = first.value
                level = len(text) - len(text.lstrip("."))
                self.add(text[level:], level, (), child.lineno, where, when, guarded)

    def add(
        self,
        module: str,
        level: int,
        names: tuple[str, ...],
        line: int,
        where: str,
        when: str,
        guarded: bool,
    ) -> None:
        if not module and not level:
            return
        if not self.is_model and where == "module level":
            when = self.when  # a local module's body runs when it is imported
        self.found.append(
            ImportUse(module, level, names, self.path, line, where, when, guarded, self.via)
        )


def _child_statements(node: ast.stmt) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            yield value
    for case in getattr(node, "cases", []):  # match statements
        yield case.body


def _expression_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and its descendants down to (not into) nested statements."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, ast.stmt):
                stack.append(child)


def _dotted(node: ast.expr) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _catches_import_error(kind: ast.expr | None) -> bool:
    if kind is None:
        return True  # a bare except
    if isinstance(kind, ast.Tuple):
        return any(_catches_import_error(item) for item in kind.elts)
    return _dotted(kind).rsplit(".", 1)[-1] in _IMPORT_ERRORS


def _suppresses(expression: ast.expr) -> bool:
    """`contextlib.suppress(ImportError)` and friends."""
    if not isinstance(expression, ast.Call):
        return False
    if _dotted(expression.func).rsplit(".", 1)[-1] != "suppress":
        return False
    return any(_catches_import_error(arg) for arg in expression.args)


def _is_guard_test(test: ast.expr) -> bool:
    """An `if` that chooses by Python version, platform, TYPE_CHECKING or an
    availability check: the imports under it are alternatives."""
    for node in ast.walk(test):
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in _GUARD_WORDS:
                return True
    return False
