"""PL680-PL689: the Python backend's runtime, checked offline.

A Python model runs in a stub process linked to one `libpython3.X`: the container's
stub, or a `triton_python_backend_stub` placed in the model folder. The modules it
imports come from the stub's standard library, the files beside model.py, and either
the container's Python or the execution environment named by EXECUTION_ENV_PATH (a
folder, or a gzip or plain tar archive the backend extracts; python_backend pb_env.cc,
stub_launcher.cc, pb_stub.cc). These rules read the archive's entry names, the stub's
ELF header and model.py's syntax tree; nothing is extracted, run or imported.

What each verdict rests on is in the rule's documentation: the log lines quoted there
were observed with tritonserver 2.51 (24.10, the nvidia-pytriton 0.7.0 wheel, its 3.11
stub), and what changed in later releases comes from python_backend's history.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.diagnostics import Severity, Span
from pbtxt_lint.repository.fs import is_inside
from pbtxt_lint.rules.base import Finding, ModelContext, Scope, Stage, rule
from pbtxt_lint.textproto.sourcemap import FieldPath, Key

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.elf import ElfInfo
    from pbtxt_lint.artifacts.python_env import EnvListing
    from pbtxt_lint.artifacts.python_imports import ImportScan, ImportUse

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
LOAD = Stage.LOAD
ENV_KEY = "EXECUTION_ENV_PATH"
KEYWORD = "$$TRITON_MODEL_DIRECTORY"
STUB_NAME = "triton_python_backend_stub"
BACKEND_MODULES = frozenset({"triton_python_backend_utils", "c_python_backend_utils"})
"""The backend folder (on the stub's sys.path) and the stub's embedded module."""
ENV_AT: FieldPath = ("parameters", Key(ENV_KEY), "value", "string_value")


# --------------------------------------------------------------------------- views


@dataclass(frozen=True)
class EnvRef:
    """EXECUTION_ENV_PATH as the backend resolves it."""

    value: str
    path: Path | None
    """The path the backend opens, when it is inside the repository (else None)."""
    keyword_at: int
    """Where `$$TRITON_MODEL_DIRECTORY` starts in the value (-1 if absent)."""
    shown: str
    """The path relative to the repository, for messages."""
    link_outside: bool = False
    """The path is in the repository but a symbolic link leads out of it."""


def _is_python(context: ModelContext) -> bool:
    config = context.effective
    return config is not None and config.backend == "python"


def _env_ref(context: ModelContext) -> EnvRef | None:
    """The environment of a Python model, resolved the way python_be.cc does: the first
    `$$TRITON_MODEL_DIRECTORY` is replaced with the model folder, but the replaced span
    is `position + length` characters long, so a keyword after the start also eats the
    characters that follow it."""
    config = context.effective
    if config is None or not _is_python(context) or ENV_KEY not in config.parameters:
        return None
    value = config.parameters[ENV_KEY].string_value
    if not value:
        return None
    keyword_at = value.find(KEYWORD)
    model_dir = context.model.path
    if keyword_at >= 0:
        opened = value[:keyword_at] + str(model_dir) + value[2 * keyword_at + len(KEYWORD) :]
    elif value.startswith("/"):
        opened = value
    else:
        return EnvRef(value, None, keyword_at, value)  # tritonserver's working directory
    path = Path(posixpath.normpath(opened))
    root = context.repository.root
    if not is_inside(root, path):
        lexical = path == root or root in path.parents
        shown = Path(os.path.relpath(path, root)).as_posix() if lexical else opened
        return EnvRef(value, None, keyword_at, shown, link_outside=lexical)
    return EnvRef(value, path, keyword_at, Path(os.path.relpath(path, root)).as_posix())


@lru_cache(maxsize=64)
def _cached_listing(path: Path, key: tuple[str, int, int, int, int] | None) -> EnvListing:
    """One listing per archive version per process (several models may share one
    environment); `key` changes when the file does."""
    from pbtxt_lint.artifacts.python_env import list_environment

    return list_environment(path)


def _listing(context: ModelContext) -> EnvListing | None:
    """The environment's listing, when there is one to read (not with --config-only)."""
    ref = context.shared(_env_ref)
    if ref is None or ref.path is None or context.settings.config_only:
        return None
    if not os.path.lexists(ref.path):
        return None  # PL729 reports it
    from pbtxt_lint.artifacts.python_env import environment_key

    key = environment_key(ref.path)
    if key is None:  # a folder: cheap to list, and its content has no single mtime
        from pbtxt_lint.artifacts.python_env import list_environment

        return list_environment(ref.path)
    return _cached_listing(ref.path, key)


def _usable(listing: EnvListing | None) -> EnvListing | None:
    """The listing, when the backend gets as far as running the stub with it and the
    listing is complete enough to conclude absences."""
    if listing is None or listing.problem or not listing.complete or not listing.activate:
        return None
    return listing


@dataclass(frozen=True)
class Stub:
    """The stub that will run model.py."""

    custom: Path | None
    """`<model>/triton_python_backend_stub` when there is one."""
    elf: ElfInfo | None
    problem: str
    """Why the custom stub cannot run ("" if it can, or there is none)."""
    python: tuple[int, int] | None
    """Its Python version, when known."""
    source: str
    """How the version is known, for messages."""


def _stub(context: ModelContext) -> Stub:
    from pbtxt_lint.triton.python_stub import default_stub_python

    path = context.model.path / STUB_NAME
    if os.path.lexists(path) and os.path.exists(path):  # the backend's FileExists: stat()
        if not is_inside(context.repository.root, path):
            return Stub(path, None, "", None, "")
        from pbtxt_lint.artifacts.elf import NotElf, read_elf

        try:
            elf = read_elf(path)
        except NotElf as error:
            return Stub(path, None, error.what, None, "")
        except OSError as error:
            return Stub(path, None, f"unreadable ({error.strerror})", None, "")
        if not elf.runnable_by_triton:
            bits = f"{elf.bits}-bit " if elf.bits != 64 else ""
            order = "" if elf.little_endian else "big-endian "
            return Stub(path, elf, f"a {bits}{order}{elf.machine_name} binary", None, "")
        linked = elf.libpython
        if linked is None:
            return Stub(path, elf, "", None, "")
        return Stub(path, elf, "", linked[1], f"the model folder's stub links {linked[0]}")
    default = default_stub_python(context.settings.target)
    if default is None:
        return Stub(None, None, "", None, "")
    version = "{}.{}".format(*default.python)
    source = f"the stub of {_release(context)} runs Python {version}"
    return Stub(None, None, "", default.python, source)


def _version(minor: tuple[int, int] | int | None) -> str:
    if isinstance(minor, tuple):
        return "{}.{}".format(*minor)
    return f"3.{minor}" if minor is not None else "?"


def _where(context: ModelContext) -> str:
    return f"{ENV_KEY} of Python model '{context.model.name}'"


def _target_server(context: ModelContext) -> tuple[int, int]:
    from pbtxt_lint.targets import NEWEST

    return (context.settings.target or NEWEST).server


def _release(context: ModelContext) -> str:
    """`24.10 (2.51)`: the target release, or the newest one pbtxt-lint knows."""
    from pbtxt_lint.targets import NEWEST

    return (context.settings.target or NEWEST).label


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


# --------------------------------------------------------------------------- archive


@rule(
    "PL680",
    "python-env-unreadable",
    ERROR,
    "An EXECUTION_ENV_PATH archive that is not a gzip or plain tar, or is empty or corrupt.",
    triton="archive_read_open_filename() failed.",
    stage=LOAD,
)
def python_env_unreadable(context: ModelContext) -> Iterator[Finding]:
    """The Python backend extracts the environment with libarchive, enabling only the
    gzip filter and the tar format (python_backend pb_env.cc, `ExtractTarFile`). An
    archive compressed with xz, zstd or bzip2, a zip file, an empty file or one cut
    short fails the load. conda-pack writes `.tar.gz` by default; its `--format
    tar.bz2`, `tar.xz`, `tar.zst` and `zip` outputs do not load. A folder is used as it
    is.

    tritonserver 2.51 (24.10), checked: for `.tar.xz`, `.tar.bz2`, `.tar.zst`, `.zip`,
    an empty file and a truncated small archive, `failed to load 'm' version 1:
    Internal: archive_read_open_filename() failed.`; damage further in is reported as
    `archive_read_next_header() failed with error code = -30 error message is ...` or
    `archive_read_data_block() failed ...` (pb_env.cc). The failed extraction also
    leaves its folder behind, so every environment archive extracted after it in the
    same server fails with `Failed to create environment directory for
    '/tmp/python_env_XXXXXX/0'.` (observed on 2.51: one bad archive failed all others).

    Bad:
        parameters { key: "EXECUTION_ENV_PATH"
                     value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.xz" } }
    Good:
        parameters { key: "EXECUTION_ENV_PATH"
                     value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }
    """
    listing = _listing(context)
    if listing is None or not listing.problem:
        return
    ref = context.shared(_env_ref)
    assert ref is not None
    if listing.problem_kind == "format":
        hint = (
            "repack it as a gzip-compressed tar: `conda-pack -o env.tar.gz`, or "
            "`tar -C <env> -czf env.tar.gz .`"
        )
    elif listing.problem_kind == "empty":
        hint = "the file is empty: pack the environment again (conda-pack -o env.tar.gz)"
    else:
        hint = "the archive is damaged (an interrupted copy or download?): pack it again"
    yield Finding(
        f"{_where(context)} points to {ref.shown}, which the Python backend cannot extract: "
        f"{listing.problem}; it reads only gzip-compressed or plain tar archives, so "
        f"'{context.model.name}' fails to load",
        at=ENV_AT,
        hint=hint,
    )


@rule(
    "PL681",
    "python-env-entry-escapes",
    ERROR,
    "An environment archive entry that would be written outside the extraction folder.",
    triton="archive_write_header() failed with error code = -25 error message is Path "
    "contains '..'",
    stage=LOAD,
)
def python_env_entry_escapes(context: ModelContext) -> Iterator[Finding]:
    """An entry with an absolute path, a `..` component, a path through a symbolic link
    stored earlier in the archive, or a hard link to such a path. From 26.06 (2.70) the
    backend extracts with libarchive's ARCHIVE_EXTRACT_SECURE_NODOTDOT,
    _SECURE_NOABSOLUTEPATHS and _SECURE_SYMLINKS (python_backend commit 3033a6b), which
    refuse such an entry and fail the load with `archive_write_header() failed with
    error code = -25 error message is Path contains '..'` (or `Path is absolute`,
    `Cannot extract through symlink <path>`; libarchive archive_write_disk_posix.c).
    Earlier releases write the file wherever it points: tritonserver 2.51 (24.10),
    checked, loaded the model and wrote `/tmp/...` and `/tmp/python_env_XXXXXX/x` from
    entries `/tmp/...` and `../x`. On those releases this is a warning.

    Bad:
        tarfile entries "../escaped.txt" or "/etc/profile.d/x.sh" in env.tar.gz
    Good:
        every entry relative to the environment's root: "bin/activate", "lib/..."
    """
    from pbtxt_lint.triton.python_stub import SECURE_EXTRACTION_SINCE

    listing = _listing(context)
    if listing is None or listing.problem_kind in ("format", "empty", "unreadable"):
        return
    if not listing.escape_count:
        return
    ref = context.shared(_env_ref)
    assert ref is not None
    reasons = {
        "absolute": "is an absolute path",
        "dotdot": "goes up with '..'",
        "symlink": "is written through the archive's symbolic link '{}'",
        "hardlink": "is a hard link to '{}'",
    }
    first = listing.escapes[0]
    what = reasons[first.reason].format(first.detail)
    more = f" (and {listing.escape_count - 1} more)" if listing.escape_count > 1 else ""
    refused = _target_server(context) >= SECURE_EXTRACTION_SINCE
    consequence = (
        f"from 26.06 the backend refuses it, so '{context.model.name}' fails to load"
        if refused
        else f"{_release(context)} extracts it outside the environment folder (26.06 and "
        "later refuse the archive)"
    )
    yield Finding(
        f"{_where(context)}: entry '{first.name}' of {ref.shown} {what}{more}; {consequence}",
        at=ENV_AT,
        hint="pack the environment from inside its folder with relative paths: "
        "`conda-pack -o env.tar.gz` or `tar -C <env> -czf env.tar.gz .`",
        severity=None if refused else WARNING,
    )


@rule(
    "PL682",
    "python-env-activate-missing",
    ERROR,
    "An execution environment without bin/activate at its root.",
    triton="Path <env>/bin/activate does not exist. The Python environment should contain "
    "an 'activate' script.",
    stage=LOAD,
)
def python_env_activate_missing(context: ModelContext) -> Iterator[Finding]:
    """After extracting (or for a folder, directly) the backend requires
    `<env>/bin/activate` and fails the model without it (python_backend stub_launcher.cc,
    `GetPythonEnvironment`). conda-pack archives have it at their root; an archive made
    with `tar czf env.tar.gz myenv/` has it under `myenv/`, and a bare `pip install
    --target` folder has none.

    tritonserver 2.51 (24.10), checked: `failed to load 'm' version 1: Internal: Path
    /tmp/python_env_wh8EKl/0/bin/activate does not exist. The Python environment should
    contain an 'activate' script.`

    Bad:
        tar -czf env.tar.gz myenv/          (entries "myenv/bin/activate", ...)
    Good:
        tar -C myenv -czf env.tar.gz .      (entries "./bin/activate", ...)
    """
    listing = _listing(context)
    if listing is None or listing.problem or not listing.complete or listing.activate:
        return
    ref = context.shared(_env_ref)
    assert ref is not None
    if listing.nested_activate:
        folder = listing.nested_activate.split("/", 1)[0]
        found = f"; it has {listing.nested_activate}: the environment sits in a folder '{folder}'"
        hint = f"pack the environment from inside the folder: `tar -C {folder} -czf env.tar.gz .`"
    else:
        found = ""
        hint = "use a conda-pack archive or a conda environment, which has bin/activate"
    yield Finding(
        f"{_where(context)} points to {ref.shown}, which has no bin/activate at its root"
        f"{found}; the Python backend requires it, so '{context.model.name}' fails to load",
        at=ENV_AT,
        hint=hint,
    )


@rule(
    "PL683",
    "python-env-version-mismatch",
    WARNING,
    "The environment's Python is not the stub's, so the stub ignores the environment's packages.",
)
def python_env_version_mismatch(context: ModelContext) -> Iterator[Finding]:
    """The stub's Python takes the environment's `lib/python3.X/site-packages` only when
    X is its own version (python_backend README, "The version of the Python interpreter
    in the execution environment must match the version of triton_python_backend_stub").
    Otherwise the model loads with the container's packages, and every import only the
    environment provides fails (PL686 says which). The stub is the container's (Python
    3.8 for 21.06-23.04, 3.10 for 23.05-24.10, 3.12 from 24.11) or a
    `triton_python_backend_stub` in the model folder.

    tritonserver 2.51 with its Python 3.11 stub, checked: with an environment of
    `lib/python3.10/site-packages` the model failed with `ModuleNotFoundError: No module
    named 'numpy'` although the environment had numpy.

    Bad:
        a Python 3.10 conda-pack archive on Triton 24.11 (Python 3.12)
    Good:
        conda create -n env python=3.12 ...; conda-pack -n env -o env.tar.gz
    """
    listing = _usable(_listing(context))
    stub = context.shared(_stub)
    if listing is None or stub.python is None or listing.python is None:
        return
    if (3, listing.python) == stub.python:
        return
    ref = context.shared(_env_ref)
    assert ref is not None
    yield Finding(
        f"{_where(context)}: {ref.shown} is a Python 3.{listing.python} environment, but "
        f"{stub.source}; the stub does not read lib/python3.{listing.python}/site-packages, "
        f"so '{context.model.name}' runs without the environment's packages",
        at=ENV_AT,
        hint=f"build the environment with Python {_version(stub.python)}, or put a stub "
        f"built for Python 3.{listing.python} in the model folder",
    )


# --------------------------------------------------------------------------- stub


@rule(
    "PL684",
    "python-stub-unusable",
    ERROR,
    "A triton_python_backend_stub in the model folder that is no x86-64 or AArch64 executable.",
    triton="<stub>: cannot execute binary file (the load then never completes)",
    stage=LOAD,
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
    stub = context.shared(_stub)
    if stub.custom is None or context.settings.config_only:
        return
    shown = f"{context.model.name}/{STUB_NAME}"
    if stub.problem == "a script":
        return  # a wrapper script runs (and what it starts is not ours to read)
    if stub.problem:
        yield Finding(
            f"{shown} is {stub.problem}, which the kernel cannot run; the Python backend "
            f"runs it instead of its own stub for '{context.model.name}', which then "
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
            f"first, which fails on a read-only repository, and then '{context.model.name}' "
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
    from pbtxt_lint.triton.python_stub import default_stub_python

    stub = context.shared(_stub)
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
    ref = context.shared(_env_ref)
    if ref is not None:
        listing = _listing(context)
        usable = _usable(listing)
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
        f"the container of {_release(context)} has only Python {_version(default.python)}'s"
        if default is not None
        else "the container's Python is not known for this release"
    )
    yield Finding(
        f"{context.model.name}/{STUB_NAME} links {name}: {container}, and {provider}, so "
        f"the stub cannot start and '{context.model.name}' never loads",
        file=stub.custom,
        hint=f"use a Python {_version(version)} conda-pack archive as {ENV_KEY} (it has "
        f"lib/{name}), or build the stub with the container's Python",
        severity=severity,
    )


def _in_rpath(context: ModelContext, elf: ElfInfo, name: str) -> bool:
    """A folder of the model named by the stub's RPATH/RUNPATH (`$ORIGIN/...`) has it."""
    origin = context.model.path
    for folder in elf.rpath:
        if not folder.startswith(("$ORIGIN", "${ORIGIN}")):
            continue
        rest = folder.replace("${ORIGIN}", "$ORIGIN").removeprefix("$ORIGIN").lstrip("/")
        candidate = Path(posixpath.normpath((origin / rest / name).as_posix()))
        if is_inside(context.repository.root, candidate) and candidate.exists():
            return True
    return False


# --------------------------------------------------------------------------- imports


@dataclass(frozen=True)
class Sources:
    """What the stub can import from, for one model."""

    python: tuple[int, int] | None
    stdlib: frozenset[str]
    env: EnvListing | None
    """The environment, when the stub reads its site-packages (usable, same Python)."""
    env_modules: frozenset[str]
    host: frozenset[str] | None
    """What the container / declared image provides; None when the host decides."""
    host_label: str
    verdict: bool
    """A missing module is certain (an environment or a declared image), not a host fact."""


def _sources(context: ModelContext) -> Sources:
    from pbtxt_lint.artifacts.python_stdlib import stdlib_modules
    from pbtxt_lint.triton.python_stub import container_modules

    stub = context.shared(_stub)
    minor = stub.python[1] if stub.python is not None and stub.python[0] == 3 else None
    stdlib = stdlib_modules(minor)
    listing = _usable(_listing(context)) if context.shared(_env_ref) is not None else None
    env_python = listing.python if listing is not None else None
    if listing is not None and minor is not None and env_python in (None, minor):
        modules = listing.modules(minor)
        if listing.system_site_packages or listing.path_hooks:
            return Sources(stub.python, stdlib, listing, modules, None, "", False)
        return Sources(stub.python, stdlib, listing, modules, frozenset(), "", True)
    container = container_modules(context.settings.target)
    packages = context.settings.python_packages
    if packages is not None:
        from pbtxt_lint.artifacts.python_packages import ProfileError, read_host_packages

        try:
            declared = read_host_packages(packages)
        except ProfileError:
            declared = None
        if declared is not None:
            label = f"the packages declared in {packages.name}"
            host = container | declared.modules
            return Sources(stub.python, stdlib, None, frozenset(), host, label, True)
    return Sources(stub.python, stdlib, None, frozenset(), container, "", False)


def _scans(context: ModelContext) -> list[ImportScan]:
    from pbtxt_lint.artifacts.python_imports import scan_imports

    artifacts = context.artifacts
    if not _is_python(context) or artifacts.format != "python":
        return []
    scans = []
    for artifact in artifacts.versions:
        if artifact.signature is not None and artifact.opened.suffix == ".py":
            scans.append(scan_imports(artifact.opened, context.repository.root))
    return scans


_WHEN = {
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
    judged.

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
    scans = _scans(context)
    if not scans:
        return
    sources = context.shared(_sources)
    for scan in scans:
        for use in scan.imports:
            if use.guarded:
                continue
            finding = _judge(context, scan, use, sources)
            if finding is not None:
                yield finding


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
    model = context.model.name
    moment, later, stage = _WHEN[use.when]
    python = f"Python {_version(sources.python)}" if sources.python else "the stub's Python"
    other = _stdlib_versions(top) if sources.python is not None else ""
    if other:
        why = (
            f"'{top}' is in the standard library of Python {other}, not in that of "
            f"{python} ({context.shared(_stub).source})"
        )
        hint = f"use a replacement that {python} has, or a stub and environment of Python {other}"
    elif sources.env is not None:
        ref = context.shared(_env_ref)
        assert ref is not None
        why = (
            f"neither {python}'s standard library, nor a file beside model.py, nor "
            f"{ref.shown} (its site-packages has "
            f"{_count(len(sources.env_modules), 'top-level module')}) provides it"
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
    return Path(os.path.relpath(use.file, context.model.path.parent)).as_posix()


def _in(use: ImportUse) -> str:
    return "at module level" if use.where == "module level" else f"in {use.where}"


def _via(use: ImportUse) -> str:
    return f" (reached from model.py through {' -> '.join(use.via)})" if use.via else ""


def _judge_relative(context: ModelContext, scan: ImportScan, use: ImportUse) -> Finding | None:
    """`from . import x` / `from .x import y` in model.py: the package is the version
    folder; a second dot leaves it."""
    if use.via or use.file != scan.model:
        return None  # a local module's package depends on how it was imported
    model = context.model.name
    moment, later, stage = _WHEN[use.when]
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
    from pbtxt_lint.artifacts.python_stdlib import known_versions, stdlib_modules

    having = [v for v in known_versions() if name in stdlib_modules(v)]
    if not having:
        return ""
    first, last = having[0], having[-1]
    if last == known_versions()[-1]:
        return f"3.{first} and later"
    return f"3.{first} to 3.{last}" if first != last else f"3.{first}"


@rule(
    "PL687",
    "python-env-numpy-missing",
    ERROR,
    "An execution environment without numpy, which the stub imports before model.py.",
    triton="failed to load 'm' version 1: Internal: ModuleNotFoundError: No module named 'numpy'",
    stage=LOAD,
)
def python_env_numpy_missing(context: ModelContext) -> Iterator[Finding]:
    """The stub imports `triton_python_backend_utils` before model.py, and that module
    imports numpy at its top (python_backend src/resources/triton_python_backend_utils.py).
    With an execution environment the stub's packages are the environment's, so one
    without numpy fails every model that uses it, whatever model.py imports.

    tritonserver 2.51 (24.10), checked: `Failed to initialize Python stub for
    auto-complete: ModuleNotFoundError: No module named 'numpy'` at
    `triton_python_backend_utils.py(30): <module>`, then `failed to load 'm' version 1`.

    Bad:
        conda create -n env python=3.12 transformers; conda-pack -n env
    Good:
        conda create -n env python=3.12 "numpy<2" transformers; conda-pack -n env
    """
    sources = context.shared(_sources)
    if sources.env is None or not sources.verdict or "numpy" in sources.env_modules:
        return
    ref = context.shared(_env_ref)
    assert ref is not None
    yield Finding(
        f"{_where(context)}: {ref.shown} has no numpy in lib/python{_version(sources.python)}"
        "/site-packages; the stub imports triton_python_backend_utils, which imports "
        f"numpy, before model.py, so '{context.model.name}' fails to load",
        at=ENV_AT,
        hint="install numpy in the environment (numpy<2 for Triton releases up to 25.x) "
        "and pack it again",
    )


# --------------------------------------------------------------------------- path


@rule(
    "PL688",
    "python-env-path-model-directory",
    ERROR,
    "$$TRITON_MODEL_DIRECTORY placed after the start of EXECUTION_ENV_PATH, or followed by '..'.",
    triton="Failed to get the canonical path for <mangled path>.",
    stage=LOAD,
)
def python_env_path_model_directory(context: ModelContext) -> Iterator[Finding]:
    """The backend replaces `$$TRITON_MODEL_DIRECTORY` with the model folder, but it
    replaces as many characters as the keyword's position plus its length
    (python_be.cc: `replace(loc, loc + keyword.size(), path)`), so a keyword anywhere but
    at the start also swallows the characters after it, and the path never exists.
    tritonserver 2.51 (24.10), checked: `/x$$TRITON_MODEL_DIRECTORY/env.tar.gz` became
    `Failed to get the canonical path for /x/models/kw_middlenv.tar.gz.`

    A path that leaves the model folder (`$$TRITON_MODEL_DIRECTORY/../shared/env.tar.gz`)
    works from a local repository, but python_backend's README calls it undefined: from
    cloud storage (s3://, gs://, as://) Triton copies only the model folder, and the
    load fails with `Failed to get the canonical path for ...` (a warning).

    Bad:
        string_value: "$$TRITON_MODEL_DIRECTORY/../shared/env.tar.gz"
    Good:
        string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz"
    """
    ref = context.shared(_env_ref)
    if ref is None or ref.keyword_at < 0:
        return
    value = ref.value
    if ref.keyword_at > 0:
        eaten = value[ref.keyword_at + len(KEYWORD) : 2 * ref.keyword_at + len(KEYWORD)]
        opened = (
            value[: ref.keyword_at] + "<model folder>" + value[2 * ref.keyword_at + len(KEYWORD) :]
        )
        yield Finding(
            f"{_where(context)} has {KEYWORD} after the start of '{value}'; the Python "
            f"backend replaces it together with the {len(eaten)} characters after it "
            f"('{eaten}'), opens '{opened}', and fails to load '{context.model.name}'",
            at=ENV_AT,
            hint=f'write "{KEYWORD}/<file in the model folder>", or an absolute path without it',
        )
        return
    rest = value[len(KEYWORD) :].lstrip("/")
    target = posixpath.normpath(rest) if rest else "."
    if target == ".." or target.startswith("../"):
        yield Finding(
            f"{_where(context)} is '{value}', which leaves the model folder; it works from a "
            "local repository, but from cloud storage Triton copies only the model folder "
            f"and '{context.model.name}' fails to load",
            at=ENV_AT,
            hint="put the environment in the model folder, or use an absolute path of the "
            "serving host",
            severity=WARNING,
        )


@rule(
    "PL689",
    "python-env-not-inspected",
    INFO,
    "An execution environment pbtxt-lint did not read whole (too large, or linked elsewhere).",
)
def python_env_not_inspected(context: ModelContext) -> Iterator[Finding]:
    """Listing an archive inflates it whole (a gzip stream has no index), so listing
    stops after a budget of CPU time and entries; the checks that need the whole
    listing (bin/activate, numpy, imports, libpython) are then skipped for this model,
    and pbtxt-lint says so rather than guessing. pbtxt-lint never reads outside the
    repository, so an environment reached through a symbolic link leading out of it is
    not checked at all.

    Bad:
        m/env.tar.gz -> /shared/envs/env.tar.gz   (a link out of the repository)
    Good:
        m/env.tar.gz, a conda-pack archive of the model's own dependencies
    """
    ref = context.shared(_env_ref)
    if ref is not None and ref.link_outside and not context.settings.config_only:
        yield Finding(
            f"{_where(context)}: {ref.shown} is a link out of the repository, which "
            "pbtxt-lint does not follow; the environment's format, bin/activate, numpy "
            "and the imports it should provide were not checked",
            at=ENV_AT,
            hint="check the environment where it lives, or keep it in the model folder",
        )
        return
    listing = _listing(context)
    if listing is None or listing.complete or listing.problem or ref is None:
        return
    yield Finding(
        f"{_where(context)}: pbtxt-lint stopped listing {ref.shown} after "
        f"{listing.entries:,} entries ({listing.stopped}); its bin/activate, numpy, "
        "libpython and the imports it should provide were not checked",
        at=ENV_AT,
        hint="a smaller environment lists faster; the checks of the entries read so far still ran",
    )
