"""PL684-PL685: a `triton_python_backend_stub` placed in the model folder, read from
its ELF header (never run).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import Finding, ModelContext, Scope, is_inside, rule

if TYPE_CHECKING:
    from pbtxt_lint.rules.api import ElfInfo
from pbtxt_lint.rules.api import ERROR, LOAD, WARNING
from pbtxt_lint.rules.artifacts.python_runtime import (
    ENV_KEY,
    STUB_NAME,
    env_listing,
    env_ref,
    python_label,
    release_label,
    stub_of,
    usable_listing,
)

# --------------------------------------------------------------------------- stub


@rule(
    "PL684",
    "python-stub-unusable",
    ERROR,
    "A triton_python_backend_stub in the model folder that is no x86-64 or AArch64 executable.",
    triton="<stub>: cannot execute binary file (the load then never completes)",
    stage=LOAD,
    scope=Scope.FILES,
    backend="python",
)
def python_stub_unusable(context: ModelContext) -> Iterator[Finding]:
    """The backend runs `<model>/triton_python_backend_stub` instead of its own when the
    file exists (python_backend stub_launcher.cc, `StubLauncher::Launch`). A file that is
    not a 64-bit little-endian ELF executable for x86-64 or AArch64 (a macOS build, a
    Git LFS pointer, a 32-bit or foreign-architecture binary) never starts, and up to
    25.08 the backend then waits for it forever; from 25.09 the load fails after 10 s
    with `Stub process '<name>' is not healthy.` (python_backend commit 8f2df55).

    Without the owner's execute bit, the backend gives it (`chmod(stub, S_IXUSR)`); on a
    read-only repository that fails the load (a warning): tritonserver 2.51, checked,
    on a read-only mount: `Failed to give execute permission to
    triton_python_backend_stub in <path> <model> Error No.: -1`. tritonserver 2.51 on
    x86-64 with a stub whose ELF machine field was set to another architecture, checked:
    the shell reported `Syntax error: Unterminated quoted string` and the model never
    finished loading. An x86-64 or AArch64 stub is not judged: which of the two the
    serving machine is belongs to the host profile.

    Bad:
        a stub built on macOS, or the Git LFS pointer of one, in the model folder
    Good:
        a stub built in the Triton container (cmake ... make triton-python-backend-stub)
    """
    stub = context.shared(stub_of)
    if stub.custom is None or context.settings.config_only:
        return
    shown = f"{context.folder.name}/{STUB_NAME}"
    if stub.problem == "a script":
        return  # a wrapper script runs (and what it starts is not ours to read)
    if stub.problem:
        yield Finding(
            f"{shown} is {stub.problem}, which the kernel cannot run; the Python backend "
            f"runs it instead of its own stub for '{context.folder.name}', which then "
            "never loads",
            file=stub.custom,
            hint="build the stub for the serving machine in the Triton container (see "
            "python_backend's 'Building Custom Python Backend Stub'), or delete it to use "
            "the container's",
        )
        return
    if stub.elf is not None and not stub.elf.executable:
        yield Finding(
            f"{shown} has no execute permission; the Python backend runs `chmod u+x` on it "
            f"first, which fails on a read-only repository, and then '{context.folder.name}' "
            "fails to load",
            file=stub.custom,
            hint=f"chmod +x {shown} (git keeps the mode: commit it as 100755)",
            severity=WARNING,
        )


@rule(
    "PL685",
    "python-stub-libpython-missing",
    ERROR,
    "A custom stub linked to a libpython that neither the container nor the environment provides.",
    triton="triton_python_backend_stub: error while loading shared libraries: "
    "libpython3.X.so.1.0: cannot open shared object file: No such file or directory",
    stage=LOAD,
    scope=Scope.FILES,
    backend="python",
)
def python_stub_libpython_missing(context: ModelContext) -> Iterator[Finding]:
    """The stub's ELF dynamic section names the `libpython3.X.so.1.0` the loader must
    find. The container has only its own Python's (3.8, 3.10 or 3.12 by release); the
    backend puts the environment's `lib/` first on LD_LIBRARY_PATH (stub_launcher.cc),
    which is where a conda-pack archive keeps its libpython; the stub's RPATH may name
    a folder of the model too. When none of them has it, the stub never starts: up to
    25.08 the load then never completes, from 25.09 it fails after 10 s with `Stub
    process '<name>' is not healthy.`. Without an environment this is a warning: an
    image built on the container may add that Python.

    tritonserver 2.51 (24.10), checked with the nvidia-pytriton wheel's Python 3.10 stub
    in the model folder and a 3.11 host: `triton_python_backend_stub: error while
    loading shared libraries: libpython3.10.so.1.0: cannot open shared object file: No
    such file or directory`, and the load hung.

    Bad:
        a stub linking libpython3.10.so.1.0, a venv archive (venvs have no libpython)
    Good:
        a stub linking libpython3.10.so.1.0 with a Python 3.10 conda-pack archive
    """
    from pbtxt_lint.rules.api import default_stub_python

    stub = context.shared(stub_of)
    if stub.custom is None or stub.elf is None or context.settings.config_only:
        return
    linked = stub.elf.libpython
    if linked is None:
        return
    name, version = linked
    default = default_stub_python(context.settings.target)
    if default is not None and default.python == version:
        return
    if _in_rpath(context, stub.elf, name):
        return
    ref = context.shared(env_ref)
    if ref is not None:
        listing = env_listing(context)
        usable = usable_listing(listing)
        if usable is None:
            return  # no environment to judge (other rules say why) or an incomplete listing
        if name in usable.libpython:
            return
        provider = f"the environment {ref.shown} has no lib/{name}"
        severity = None
    else:
        if default is None:
            return
        provider = "no environment is given (EXECUTION_ENV_PATH)"
        severity = WARNING
    container = (
        f"the container of {release_label(context)} has only "
        f"Python {python_label(default.python)}'s"
        if default is not None
        else "the container's Python is not known for this release"
    )
    yield Finding(
        f"{context.folder.name}/{STUB_NAME} links {name}: {container}, and {provider}, so "
        f"the stub cannot start and '{context.folder.name}' never loads",
        file=stub.custom,
        hint=f"use a Python {python_label(version)} conda-pack archive as {ENV_KEY} (it has "
        f"lib/{name}), or build the stub with the container's Python",
        severity=severity,
    )


def _in_rpath(context: ModelContext, elf: ElfInfo, name: str) -> bool:
    """A folder of the model named by the stub's RPATH/RUNPATH (`$ORIGIN/...`) has it."""
    origin = context.folder.path
    for folder in elf.rpath:
        if not folder.startswith(("$ORIGIN", "${ORIGIN}")):
            continue
        rest = folder.replace("${ORIGIN}", "$ORIGIN").removeprefix("$ORIGIN").lstrip("/")
        candidate = Path(posixpath.normpath((origin / rest / name).as_posix()))
        if is_inside(context.repository.root, candidate) and candidate.exists():
            return True
    return False
