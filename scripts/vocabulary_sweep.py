#!/usr/bin/env python3
"""Issue 26's sweep, for code written before it (a branch that lands later).

    .venv/bin/python scripts/vocabulary_sweep.py      # then: make lint typecheck docs

It is idempotent: run it after merging such a branch, then review `git diff`.

1. Rule modules import their tools from `pbtxt_lint.rules.api` (the import-linter
   contract "Rules import only the rule API ..."): imports of the layers below and of
   `rules.base` are pointed there, and module-level aliases of the severities and
   stages (`ERROR = Severity.ERROR`) give way to the API's. A name the API lacks is
   printed: add it to `rules/api.py` (light modules: imported there; heavy ones:
   `DEFERRED`) and run again.
2. A rule that opens with `config = context.effective` and `if config is None[ or X]:
   return` declares `effective=True` and takes the config as its second argument.
3. Messages name a model through `model_label`: "model '{context.model.name}'" and
   "model '{name}'" in f-strings.
4. The renames of the glossary (CONTRIBUTING.md, "Words"), old -> new:
   - module `pbtxt_lint.config` -> `pbtxt_lint.settings_files` (and its layer name);
   - `ConfigError` -> `SettingsError`, `find_config_file` -> `find_settings_file`;
   - `Resolved.config_file` -> `Resolved.settings_file`;
   - `ModelContext.model` -> `ModelContext.folder`;
   - `ModelContext.strict` -> `not ModelContext.auto_complete`;
   - `STRICT_NOTE` -> `NO_AUTO_COMPLETE_NOTE`.
   The attribute renames are made where mypy finds the old attribute on those classes,
   so no other `.model` or `.config_file` is touched; tests (not type-checked) get the
   same renames on the variable names they use (`context`, `group`, `g`).
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "pbtxt_lint" / "rules"
NOT_RULE_MODULES = {"api.py", "base.py", "catalog.py", "registry.py", "index.py", "__init__.py"}
ALLOWED = ("pbtxt_lint.analysis", "pbtxt_lint.schema")
SHARED_TRITON = ("autofill", "backends", "census", "parameters", "python_stub", "versions")
"""Triton's facts every family reads, which come through the API; a module of one
backend's facts (`pbtxt_lint.triton.vllm`) is imported directly."""


def _backend_facts(module: str) -> bool:
    parts = module.split(".")
    return (
        parts[:2] == ["pbtxt_lint", "triton"] and len(parts) == 3 and parts[2] not in SHARED_TRITON
    )


API_MODULE = "pbtxt_lint.rules.api"

WORDS = {
    r"\bpbtxt_lint\.config\b": "pbtxt_lint.settings_files",
    r"\bfrom pbtxt_lint import config\b": "from pbtxt_lint import settings_files",
    r"\bConfigError\b": "SettingsError",
    r"\bfind_config_file\b": "find_settings_file",
    r"\bSTRICT_NOTE\b": "NO_AUTO_COMPLETE_NOTE",
}
"""Exact words renamed everywhere (package, tests, scripts, bench, pyproject.toml)."""

ATTRIBUTES = {
    ("ModelContext", "model"): "folder",
    ("ModelContext", "strict"): "auto_complete",
    ("Resolved", "config_file"): "settings_file",
}
"""(class, old attribute) -> new attribute, renamed where mypy finds the old one."""

TEST_ATTRIBUTES = {
    r"\b(context|ctx)\.model\b": r"\1.folder",
    r"\b(group|g|resolved)\.config_file\b": r"\1.settings_file",
}


def rule_modules() -> list[Path]:
    return [p for p in sorted(RULES.rglob("*.py")) if p.name not in NOT_RULE_MODULES]


def api_names() -> set[str]:
    tree = ast.parse((RULES / "api.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
            return {
                ast.literal_eval(item)
                for item in ast.walk(node.value)
                if isinstance(item, ast.Constant)
            }
    raise SystemExit("rules/api.py has no __all__")


def _replace_lines(lines: list[str], edits: list[tuple[int, int, str]]) -> None:
    """Apply (first line, last line, new text) edits, 1-based and inclusive."""
    for start, end, text in sorted(edits, reverse=True):
        lines[start - 1 : end] = [text] if text else []


def point_imports_at_the_api(path: Path, api: set[str]) -> bool:
    """Step 1 for one rule module."""
    source = path.read_text()
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("pbtxt_lint"):
            continue
        module = node.module or ""
        if module == API_MODULE:
            continue
        movable = module in ("pbtxt_lint.analysis.context", "pbtxt_lint.schema")
        if (module.startswith(ALLOWED) and not movable) or _backend_facts(module):
            continue
        helper = (
            module.startswith(("pbtxt_lint.rules", *ALLOWED)) and module != "pbtxt_lint.rules.base"
        )
        names = [a for a in node.names if a.name in api and (a.asname is None or not helper)]
        rest = [a for a in node.names if a not in names]
        if not helper and rest:
            print(f"{path.relative_to(ROOT)}: add {[a.name for a in rest]} ({module}) to the API")
            continue
        if not names:
            continue
        indent = lines[node.lineno - 1][: node.col_offset]

        def line(target: str, aliases: list[ast.alias], indent: str = indent) -> str:
            parts = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in aliases)
            return f"{indent}from {target} import {parts}\n"

        text = (line(module, rest) if rest else "") + line(API_MODULE, names)
        edits.append((node.lineno, node.end_lineno or node.lineno, text))
    aliases: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
            names_ = target.elts if isinstance(target, ast.Tuple) else [target]
            values = value.elts if isinstance(value, ast.Tuple) else [value]
            if len(names_) == len(values) and all(
                isinstance(n, ast.Name)
                and isinstance(v, ast.Attribute)
                and ast.unparse(v.value) in ("Severity", "Stage")
                and v.attr == n.id
                and n.id in api
                for n, v in zip(names_, values, strict=True)
            ):
                edits.append((node.lineno, node.end_lineno or node.lineno, ""))
                aliases += [n.id for n in names_ if isinstance(n, ast.Name)]
    if not edits:
        return False
    _replace_lines(lines, edits)
    text = "".join(lines)
    if aliases:
        first = re.search(r"^from pbtxt_lint", text, re.M)
        at = first.start() if first else 0
        text = (
            text[:at] + f"from {API_MODULE} import {', '.join(sorted(set(aliases)))}\n" + text[at:]
        )
    path.write_text(text)
    return True


def _importing(name: str, text: str) -> str:
    """`text` with `name` in its (first) import from the API."""
    imported = rf"^from {re.escape(API_MODULE)} import[^)]*\b{name}\b"
    if re.search(imported, text, re.M | re.S):
        return text
    first = rf"^from {re.escape(API_MODULE)} import \(?"
    return re.sub(first, lambda m: m.group(0) + f"{name}, ", text, count=1, flags=re.M)


def _docstring_free(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return body[1:]
    return body


def declare_effective(path: Path) -> int:
    """Step 2 for one rule module; the number of rules changed."""
    source = path.read_text()
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []
    for fn in ast.parse(source).body:
        if not isinstance(fn, ast.FunctionDef) or len(fn.args.args) != 1:
            continue
        decorators = [
            d
            for d in fn.decorator_list
            if isinstance(d, ast.Call) and ast.unparse(d.func) == "rule"
        ]
        if not decorators or any(k.arg == "effective" for k in decorators[0].keywords):
            continue
        body = _docstring_free(fn.body)
        if len(body) < 2 or not isinstance(body[0], ast.Assign) or not isinstance(body[1], ast.If):
            continue
        assign, guard = body[0], body[1]
        target = assign.targets[0]
        if not isinstance(target, ast.Name) or ast.unparse(assign.value) != "context.effective":
            continue
        returns = (
            len(guard.body) == 1
            and isinstance(guard.body[0], ast.Return)
            and guard.body[0].value is None
        )
        if guard.orelse or not returns:
            continue
        none = f"{target.id} is None"
        test = guard.test
        if ast.unparse(test) == none:
            edits.append((guard.lineno, guard.end_lineno or guard.lineno, ""))
        elif (
            isinstance(test, ast.BoolOp)
            and isinstance(test.op, ast.Or)
            and ast.unparse(test.values[0]) == none
        ):
            rest = " or ".join(ast.unparse(v) for v in test.values[1:])
            edits.append(
                (guard.lineno, guard.body[0].lineno - 1, f"{' ' * guard.col_offset}if {rest}:\n")
            )
        else:
            continue
        edits.append((assign.lineno, assign.end_lineno or assign.lineno, ""))
        argument = fn.args.args[0]
        row = lines[argument.lineno - 1]
        column = argument.end_col_offset or 0
        edits.append(
            (
                argument.lineno,
                argument.lineno,
                f"{row[:column]}, {target.id}: ModelConfig{row[column:]}",
            )
        )
        call = decorators[0]
        last = call.keywords[-1] if call.keywords else call.args[-1]
        row = lines[(last.end_lineno or last.lineno) - 1]
        column = last.end_col_offset or 0
        edits.append(
            (
                last.end_lineno or last.lineno,
                last.end_lineno or last.lineno,
                f"{row[:column]},\n    effective=True{row[column:]}",
            )
        )
    if not edits:
        return 0
    _replace_lines(lines, edits)
    path.write_text(_importing("ModelConfig", "".join(lines)))
    return len(edits) // 4


MODEL_NAME = re.compile(r"model '\{(context\.model\.name|context\.folder\.name|name)\}'")


def _wrapped(line: str, width: int = 100) -> str:
    """A line that holds one f-string, split into two where it grew past `width`."""
    body = line.rstrip("\n")
    indent = len(body) - len(body.lstrip())
    if len(body) <= width or not body.lstrip().startswith('f"'):
        return line
    depth, cut = 0, None
    for at, char in enumerate(body):
        depth += (char == "{") - (char == "}")
        if char == " " and depth == 0 and indent + 3 < at < width - 6:
            cut = at
    if cut is None:
        return line
    rest = body[cut + 1 :]
    prefix = 'f"' if "{" in rest else '"'
    return f'{body[: cut + 1]}"\n{" " * indent}{prefix}{rest}\n'


def label_models(path: Path) -> int:
    """Step 3 for one rule module; the number of strings changed."""
    source = path.read_text()
    lines = source.splitlines(keepends=True)
    count = 0
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for token in reversed(tokens):
        if token.type != tokenize.STRING or token.start[0] != token.end[0]:
            continue
        if not re.match(r"[rRbB]*[fF]", token.string) or not MODEL_NAME.search(token.string):
            continue
        new = MODEL_NAME.sub(
            lambda m: "{model_label(" + ("name" if m.group(1) == "name" else "context") + ")}",
            token.string,
        )
        row, (start, end) = token.start[0] - 1, (token.start[1], token.end[1])
        lines[row] = _wrapped(lines[row][:start] + new + lines[row][end:])
        count += 1
    if count:
        path.write_text(_importing("model_label", "".join(lines)))
    return count


def rename_words() -> None:
    """Step 4, the exact words, and the module's file."""
    old, new = ROOT / "pbtxt_lint" / "config.py", ROOT / "pbtxt_lint" / "settings_files.py"
    if old.exists():
        subprocess.run(["git", "mv", str(old), str(new)], cwd=ROOT, check=True)
    files = [
        *ROOT.glob("pbtxt_lint/**/*.py"),
        *ROOT.glob("tests/**/*.py"),
        *ROOT.glob("scripts/*.py"),
        *ROOT.glob("bench/*.py"),
    ]
    for path in [*files, ROOT / "pyproject.toml"]:
        if path.name == Path(__file__).name:
            continue
        text = path.read_text()
        changed = text
        for pattern, replacement in WORDS.items():
            changed = re.sub(pattern, replacement, changed)
        if path.name == "pyproject.toml":
            changed = re.sub(r'^(\s*)"config",$', r'\1"settings_files",', changed, flags=re.M)
        if path.parts[-2:-1] == ("tests",) or "tests" in path.relative_to(ROOT).parts[:1]:
            for pattern, replacement in TEST_ATTRIBUTES.items():
                changed = re.sub(pattern, replacement, changed)
        if changed != text:
            path.write_text(changed)


MYPY_ERROR = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): error: "
    r'"(?P<cls>\w+)" has no attribute "(?P<attr>\w+)"'
)


def rename_attributes() -> None:
    """Step 4, the attributes: where mypy finds the old one, until it finds none."""
    for _ in range(20):
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "mypy",
                "--show-column-numbers",
                "--no-error-summary",
                "pbtxt_lint",
                "scripts",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        found = [
            m
            for m in map(MYPY_ERROR.match, run.stdout.splitlines())
            if m and (m["cls"], m["attr"]) in ATTRIBUTES
        ]
        if not found:
            return
        for match in sorted(found, key=lambda m: (m["file"], -int(m["line"]), -int(m["col"]))):
            path = ROOT / match["file"]
            lines = path.read_text().splitlines(keepends=True)
            row, column = int(match["line"]) - 1, int(match["col"]) - 1
            text = lines[row]
            at = text.find(f".{match['attr']}", column)
            if at < 0:
                continue
            new = ATTRIBUTES[(match["cls"], match["attr"])]
            before, after = text[:at], text[at + 1 + len(match["attr"]) :]
            if match["attr"] == "strict":  # `x.strict` -> `not x.auto_complete`
                subject = re.search(r"[\w.]+$", before)
                start = subject.start() if subject else column
                negated = before[:start].endswith("not ")
                head = before[: start - 4] if negated else before[:start] + "not "
                lines[row] = f"{head}{before[start:]}.{new}{after}"
            else:
                lines[row] = f"{before}.{new}{after}"
            path.write_text("".join(lines))
    raise SystemExit("mypy still finds old attributes after 20 rounds: see its output")


def main() -> None:
    api = api_names()
    changed = [p for p in rule_modules() if point_imports_at_the_api(p, api)]
    effective = sum(declare_effective(p) for p in rule_modules())
    labelled = sum(label_models(p) for p in rule_modules())
    rename_words()
    rename_attributes()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--fix",
            "--select",
            "F401,I001,RUF022",
            "-q",
            "pbtxt_lint",
            "tests",
            "scripts",
        ],
        cwd=ROOT,
    )
    subprocess.run(
        [sys.executable, "-m", "ruff", "format", "-q", "pbtxt_lint", "tests", "scripts"], cwd=ROOT
    )
    print(f"imports: {len(changed)} modules; effective=True: {effective} rules; ", end="")
    print(f"model_label: {labelled} strings")


if __name__ == "__main__":
    main()
