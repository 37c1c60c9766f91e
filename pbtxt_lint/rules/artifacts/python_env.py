"""PL680-PL683, PL687-PL689: the execution environment named by EXECUTION_ENV_PATH, as
the Python backend extracts and activates it (python_backend pb_env.cc,
stub_launcher.cc).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import Finding, ModelContext, Scope, rule

if TYPE_CHECKING:
    pass
from pbtxt_lint.rules.api import ERROR, INFO, LOAD, WARNING
from pbtxt_lint.rules.artifacts.python_runtime import (
    ENV_AT,
    env_listing,
    env_ref,
    env_where,
    import_sources,
    python_label,
    release_label,
    stub_of,
    target_server,
    usable_listing,
)

# --------------------------------------------------------------------------- archive


@rule(
    "PL680",
    "python-env-unreadable",
    ERROR,
    "An EXECUTION_ENV_PATH archive that is not a gzip or plain tar, or is empty or corrupt.",
    triton="archive_read_open_filename() failed.",
    stage=LOAD,
    scope=Scope.FILES,
    backend="python",
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
    listing = env_listing(context)
    if listing is None or not listing.problem:
        return
    ref = context.shared(env_ref)
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
        f"{env_where(context)} points to {ref.shown}, which the Python backend cannot extract: "
        f"{listing.problem}; it reads only gzip-compressed or plain tar archives, so "
        f"'{context.folder.name}' fails to load",
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
    scope=Scope.FILES,
    backend="python",
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
    from pbtxt_lint.rules.api import SECURE_EXTRACTION_SINCE

    listing = env_listing(context)
    if listing is None or listing.problem_kind in ("format", "empty", "unreadable"):
        return
    if not listing.escape_count:
        return
    ref = context.shared(env_ref)
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
    refused = target_server(context) >= SECURE_EXTRACTION_SINCE
    consequence = (
        f"from 26.06 the backend refuses it, so '{context.folder.name}' fails to load"
        if refused
        else f"{release_label(context)} extracts it outside the environment folder (26.06 and "
        "later refuse the archive)"
    )
    yield Finding(
        f"{env_where(context)}: entry '{first.name}' of {ref.shown} {what}{more}; {consequence}",
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
    scope=Scope.FILES,
    backend="python",
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
    listing = env_listing(context)
    if listing is None or listing.problem or not listing.complete or listing.activate:
        return
    ref = context.shared(env_ref)
    assert ref is not None
    if listing.nested_activate:
        folder = listing.nested_activate.split("/", 1)[0]
        found = f"; it has {listing.nested_activate}: the environment sits in a folder '{folder}'"
        hint = f"pack the environment from inside the folder: `tar -C {folder} -czf env.tar.gz .`"
    else:
        found = ""
        hint = "use a conda-pack archive or a conda environment, which has bin/activate"
    yield Finding(
        f"{env_where(context)} points to {ref.shown}, which has no bin/activate at its root"
        f"{found}; the Python backend requires it, so '{context.folder.name}' fails to load",
        at=ENV_AT,
        hint=hint,
    )


@rule(
    "PL683",
    "python-env-version-mismatch",
    WARNING,
    "The environment's Python is not the stub's, so the stub ignores the environment's packages.",
    scope=Scope.FILES,
    backend="python",
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
    listing = usable_listing(env_listing(context))
    stub = context.shared(stub_of)
    if listing is None or stub.python is None or listing.python is None:
        return
    if (3, listing.python) == stub.python:
        return
    ref = context.shared(env_ref)
    assert ref is not None
    yield Finding(
        f"{env_where(context)}: {ref.shown} is a Python 3.{listing.python} environment, but "
        f"{stub.source}; the stub does not read lib/python3.{listing.python}/site-packages, "
        f"so '{context.folder.name}' runs without the environment's packages",
        at=ENV_AT,
        hint=f"build the environment with Python {python_label(stub.python)}, or put a stub "
        f"built for Python 3.{listing.python} in the model folder",
    )


@rule(
    "PL687",
    "python-env-numpy-missing",
    ERROR,
    "An execution environment without numpy, which the stub imports before model.py.",
    triton="failed to load 'm' version 1: Internal: ModuleNotFoundError: No module named 'numpy'",
    stage=LOAD,
    scope=Scope.FILES,
    backend="python",
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
    sources = context.shared(import_sources)
    if sources.env is None or not sources.verdict or "numpy" in sources.env_modules:
        return
    ref = context.shared(env_ref)
    assert ref is not None
    yield Finding(
        f"{env_where(context)}: {ref.shown} has no numpy in "
        f"lib/python{python_label(sources.python)}"
        "/site-packages; the stub imports triton_python_backend_utils, which imports "
        f"numpy, before model.py, so '{context.folder.name}' fails to load",
        at=ENV_AT,
        hint="install numpy in the environment (numpy<2 for Triton releases up to 25.x) "
        "and pack it again",
    )


# --------------------------------------------------------------------------- path


@rule(
    "PL689",
    "python-env-not-inspected",
    INFO,
    "An execution environment pbtxt-lint did not read whole (too large, or linked elsewhere).",
    scope=Scope.FILES,
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
    ref = context.shared(env_ref)
    if ref is not None and ref.link_outside and not context.settings.config_only:
        yield Finding(
            f"{env_where(context)}: {ref.shown} is a link out of the repository, which "
            "pbtxt-lint does not follow; the environment's format, bin/activate, numpy "
            "and the imports it should provide were not checked",
            at=ENV_AT,
            hint="check the environment where it lives, or keep it in the model folder",
        )
        return
    listing = env_listing(context)
    if listing is None or listing.complete or listing.problem or ref is None:
        return
    yield Finding(
        f"{env_where(context)}: pbtxt-lint stopped listing {ref.shown} after "
        f"{listing.entries:,} entries ({listing.stopped}); its bin/activate, numpy, "
        "libpython and the imports it should provide were not checked",
        at=ENV_AT,
        hint="a smaller environment lists faster; the checks of the entries read so far still ran",
    )
