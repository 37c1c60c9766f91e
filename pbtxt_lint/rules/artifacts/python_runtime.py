"""The Python backend's runtime, as the PL680-PL689 rules see it: the environment
archive, the stub, model.py's imports, and the helpers the rules share.

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
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    FieldPath,
    Key,
    ModelContext,
    is_inside,
    model_label,
)

if TYPE_CHECKING:
    from pbtxt_lint.rules.api import ElfInfo, EnvListing, ImportScan

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


def is_python_model(context: ModelContext) -> bool:
    config = context.effective
    return config is not None and config.backend == "python"


def env_ref(context: ModelContext) -> EnvRef | None:
    """The environment of a Python model, resolved the way python_be.cc does: the first
    `$$TRITON_MODEL_DIRECTORY` is replaced with the model folder, but the replaced span
    is `position + length` characters long, so a keyword after the start also eats the
    characters that follow it."""
    config = context.effective
    if config is None or not is_python_model(context) or ENV_KEY not in config.parameters:
        return None
    value = config.parameters[ENV_KEY].string_value
    if not value:
        return None
    keyword_at = value.find(KEYWORD)
    model_dir = context.folder.path
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
def cached_listing(path: Path, key: tuple[str, int, int, int, int] | None) -> EnvListing:
    """One listing per archive version per process (several models may share one
    environment); `key` changes when the file does."""
    from pbtxt_lint.rules.api import list_environment

    return list_environment(path)


def env_listing(context: ModelContext) -> EnvListing | None:
    """The environment's listing, when there is one to read (not with --config-only)."""
    ref = context.shared(env_ref)
    if ref is None or ref.path is None or context.settings.config_only:
        return None
    if not os.path.lexists(ref.path):
        return None  # PL729 reports it
    from pbtxt_lint.rules.api import environment_key

    key = environment_key(ref.path)
    if key is None:  # a folder: cheap to list, and its content has no single mtime
        from pbtxt_lint.rules.api import list_environment

        return list_environment(ref.path)
    return cached_listing(ref.path, key)


def usable_listing(listing: EnvListing | None) -> EnvListing | None:
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


def stub_of(context: ModelContext) -> Stub:
    from pbtxt_lint.rules.api import default_stub_python

    path = context.folder.path / STUB_NAME
    if os.path.lexists(path) and os.path.exists(path):  # the backend's FileExists: stat()
        if not is_inside(context.repository.root, path):
            return Stub(path, None, "", None, "")
        from pbtxt_lint.rules.api import NotElf, read_elf

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
    source = f"the stub of {release_label(context)} runs Python {version}"
    return Stub(None, None, "", default.python, source)


def python_label(minor: tuple[int, int] | int | None) -> str:
    if isinstance(minor, tuple):
        return "{}.{}".format(*minor)
    return f"3.{minor}" if minor is not None else "?"


def env_where(context: ModelContext) -> str:
    return f"{ENV_KEY} of Python {model_label(context)}"


def target_server(context: ModelContext) -> tuple[int, int]:
    from pbtxt_lint.rules.api import NEWEST

    return (context.settings.target or NEWEST).server


def release_label(context: ModelContext) -> str:
    """`24.10 (2.51)`: the target release, or the newest one pbtxt-lint knows."""
    from pbtxt_lint.rules.api import NEWEST

    return (context.settings.target or NEWEST).label


def count_of(number: int, noun: str) -> str:
    return f"{number:,} {noun}" + ("" if number == 1 else "s")


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


def import_sources(context: ModelContext) -> Sources:
    from pbtxt_lint.rules.api import container_modules, stdlib_modules

    stub = context.shared(stub_of)
    minor = stub.python[1] if stub.python is not None and stub.python[0] == 3 else None
    stdlib = stdlib_modules(minor)
    listing = usable_listing(env_listing(context)) if context.shared(env_ref) is not None else None
    env_python = listing.python if listing is not None else None
    if listing is not None and minor is not None and env_python in (None, minor):
        modules = listing.modules(minor)
        if listing.system_site_packages or listing.path_hooks:
            return Sources(stub.python, stdlib, listing, modules, None, "", False)
        return Sources(stub.python, stdlib, listing, modules, frozenset(), "", True)
    container = container_modules(context.settings.target)
    packages = context.settings.python_packages
    if packages is not None:
        from pbtxt_lint.rules.api import ProfileError, read_host_packages

        try:
            declared = read_host_packages(packages)
        except ProfileError:
            declared = None
        if declared is not None:
            label = f"the packages declared in {packages.name}"
            host = container | declared.modules
            return Sources(stub.python, stdlib, None, frozenset(), host, label, True)
    return Sources(stub.python, stdlib, None, frozenset(), container, "", False)


def import_scans(context: ModelContext) -> list[ImportScan]:
    from pbtxt_lint.rules.api import scan_imports

    artifacts = context.artifacts
    if not is_python_model(context) or artifacts.format != "python":
        return []
    scans = []
    for artifact in artifacts.versions:
        if artifact.signature is not None and artifact.opened.suffix == ".py":
            scans.append(scan_imports(artifact.opened, context.repository.root))
    return scans
