"""PL686: the modules model.py (and the files beside it) imports, against what the
stub's standard library, the model folder and the environment provide.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import Finding, ModelContext, Scope, Span, Stage, rule

if TYPE_CHECKING:
    from pbtxt_lint.rules.api import ImportScan, ImportUse
from pbtxt_lint.rules.api import ERROR, INFO, LOAD, WARNING
from pbtxt_lint.rules.artifacts.python_runtime import (
    BACKEND_MODULES,
    Sources,
    count_of,
    env_ref,
    import_scans,
    import_sources,
    python_label,
    stub_of,
)

WHEN = {
    "load": ("when the model loads", None, LOAD),
    "request": ("at every request", WARNING, Stage.INFERENCE),
    "call": ("when that function runs", WARNING, Stage.INFERENCE),
    "unload": ("when the model unloads", INFO, Stage.NEVER),
}


@rule(
    "PL686",
    "python-import-unresolved",
    ERROR,
    "An import in model.py (or a module beside it) that no source the stub reads provides.",
    triton="failed to load 'm' version 1: Internal: ModuleNotFoundError: No module named 'x'",
    stage=LOAD,
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_import_unresolved(context: ModelContext) -> Iterator[Finding]:
    """The stub imports model.py (and, through it, the modules beside it) with its own
    Python. A module must come from that Python's standard library (3.8, 3.10 or 3.12 by
    release, or the version of a stub in the model folder), from the version folder or
    the model folder (both on sys.path; pb_stub.cc), from the backend
    (`triton_python_backend_utils`), or from the environment's site-packages when
    EXECUTION_ENV_PATH is set (the container's packages are then not used). Relative
    imports resolve in the version folder, which is the top-level package: `from ..`
    fails.

    An import at module level or in `initialize` fails the load (an error), one in
    `execute` fails every request, one in another function fails when it runs (warnings).
    Without an environment, a third-party module is a fact about the host (info) unless
    the image's packages are declared (`--python-packages requirements.txt`, or
    `python-packages` in the configuration file), which makes it a verdict. Imports under
    `try/except ImportError`, `contextlib.suppress` or a version/platform `if` are not
    judged. A package is reported once per model, at the first of its most severe
    imports, with how many more imports of it the model has.

    tritonserver 2.51 (24.10), checked: `Failed to initialize Python stub for
    auto-complete: ModuleNotFoundError: No module named 'notinenv'` then `failed to load
    'm' version 1: Internal: ModuleNotFoundError: No module named 'notinenv'`; in
    `initialize`: `Failed to initialize Python stub: ModuleNotFoundError: No module named
    'x'` with `At: .../1/model.py(4): initialize`; `from .. import x`: `ImportError:
    attempted relative import beyond top-level package`. With the import in `execute`
    the model loaded (READY) and an HTTP request got 500: `Failed to process the
    request(s) for model 'm_0', message: ModuleNotFoundError: No module named 'x'`.

    Bad:
        import transformers        # env.tar.gz has no transformers
    Good:
        import helper              # 1/helper.py beside model.py
    """
    scans = import_scans(context)
    if not scans:
        return
    sources = context.shared(import_sources)
    # One finding per top-level package (per statement for a relative import): the
    # first of the most severe imports of it, with how many more the model has.
    kept: dict[str, Finding] = {}
    more: Counter[str] = Counter()
    for scan in scans:
        for use in scan.imports:
            if use.guarded:
                continue
            finding = _judge(context, scan, use, sources)
            if finding is None:
                continue
            key = use.top if not use.level else f"{use.file}:{use.line}"
            first = kept.get(key)
            if first is None or _rank(finding) > _rank(first):
                if first is not None:
                    more[key] += 1
                kept[key] = finding
            else:
                more[key] += 1
    for key, finding in kept.items():
        if more[key]:
            also = f"{more[key]} other import{'s' if more[key] > 1 else ''} of '{key}'"
            finding = replace(finding, message=f"{finding.message} ({also} in this model)")
        yield finding


def _rank(finding: Finding) -> int:
    return (finding.severity or ERROR).rank


def _judge(
    context: ModelContext, scan: ImportScan, use: ImportUse, sources: Sources
) -> Finding | None:
    if use.level:
        return _judge_relative(context, scan, use)
    top = use.top
    if top in sources.stdlib or top in scan.local or top in BACKEND_MODULES:
        return None
    if sources.env is not None and (top in sources.env_modules or top == "numpy"):
        return None  # a missing numpy fails the stub before model.py (PL687 says so)
    if sources.host is not None and top in sources.host:
        return None
    model = context.folder.name
    moment, later, stage = WHEN[use.when]
    python = f"Python {python_label(sources.python)}" if sources.python else "the stub's Python"
    other = _stdlib_versions(top) if sources.python is not None else ""
    if other:
        why = (
            f"'{top}' is in the standard library of Python {other}, not in that of "
            f"{python} ({context.shared(stub_of).source})"
        )
        hint = f"use a replacement that {python} has, or a stub and environment of Python {other}"
    elif sources.env is not None:
        ref = context.shared(env_ref)
        assert ref is not None
        why = (
            f"neither {python}'s standard library, nor a file beside model.py, nor "
            f"{ref.shown} (its site-packages has "
            f"{count_of(len(sources.env_modules), 'top-level module')}) provides it"
        )
        hint = f"add the package providing '{top}' to the environment and pack it again"
    elif sources.verdict:
        why = (
            f"neither {python}'s standard library, nor a file beside model.py, nor "
            f"{sources.host_label} provides it"
        )
        hint = (
            f"install the package providing '{top}' in the image and list it there (a line "
            f"'{top}' declares a module whose distribution has another name)"
        )
    else:
        why = (
            f"it is not in {python}'s standard library nor beside model.py, so the serving "
            "image must have it installed"
        )
        hint = (
            "declare the image's packages (--python-packages requirements.txt) to have this "
            "checked, or ship them in an EXECUTION_ENV_PATH archive"
        )
    certain = sources.verdict or bool(other)
    if certain:
        consequence = f"the import fails {moment}"
        if use.when == "load":
            consequence += f", so Triton fails to load '{model}'"
    else:
        consequence = f"without it the import fails {moment}"
    return Finding(
        f"{_shown_file(context, use)} imports '{use.module}' {_in(use)}{_via(use)}; {why}; "
        f"{consequence}",
        file=use.file,
        span=Span.point(use.line, 1),
        hint=hint,
        severity=later if certain else INFO,
        stage=stage if certain else Stage.NEVER,
    )


def _shown_file(context: ModelContext, use: ImportUse) -> str:
    return Path(os.path.relpath(use.file, context.folder.path.parent)).as_posix()


def _in(use: ImportUse) -> str:
    return "at module level" if use.where == "module level" else f"in {use.where}"


def _via(use: ImportUse) -> str:
    return f" (reached from model.py through {' -> '.join(use.via)})" if use.via else ""


def _judge_relative(context: ModelContext, scan: ImportScan, use: ImportUse) -> Finding | None:
    """`from . import x` / `from .x import y` in model.py: the package is the version
    folder; a second dot leaves it."""
    if use.via or use.file != scan.model:
        return None  # a local module's package depends on how it was imported
    model = context.folder.name
    moment, later, stage = WHEN[use.when]
    statement = f"from {'.' * use.level}{use.module} import {', '.join(use.names)}"
    fails = f", so Triton fails to load '{model}'" if use.when == "load" else ""
    package = scan.model.parent.name
    if use.level > 1:
        return Finding(
            f"{_shown_file(context, use)} has `{statement}` {_in(use)}; the stub imports "
            f"model.py as '{package}.model', so the import goes beyond the top-level package "
            f"'{package}' and fails {moment}{fails}",
            file=use.file,
            span=Span.point(use.line, 1),
            hint="move the module beside model.py (`from . import x`) or into the model folder "
            "(`import x`: the model folder is on sys.path)",
            severity=later,
            stage=stage,
        )
    targets = [use.module.split(".")[0]] if use.module else list(use.names)
    missing = [t for t in targets if t != "*" and t not in scan.version_local]
    if not missing:
        return None
    return Finding(
        f"{_shown_file(context, use)} has `{statement}` {_in(use)}, but the version folder "
        f"{package}/ has no module '{missing[0]}'; the import fails {moment}{fails}",
        file=use.file,
        span=Span.point(use.line, 1),
        hint=f"add {missing[0]}.py beside model.py, or fix the name",
        severity=later,
        stage=stage,
    )


def _stdlib_versions(name: str) -> str:
    """ "3.11 and later", "3.6 to 3.11" or "" for a name of another Python's standard
    library."""
    from pbtxt_lint.rules.api import known_versions, stdlib_modules

    having = [v for v in known_versions() if name in stdlib_modules(v)]
    if not having:
        return ""
    first, last = having[0], having[-1]
    if last == known_versions()[-1]:
        return f"3.{first} and later"
    return f"3.{first} to 3.{last}" if first != last else f"3.{first}"
