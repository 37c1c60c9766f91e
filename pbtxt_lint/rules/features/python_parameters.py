"""PL728, PL729, PL688: Python backend `parameters` (FORCE_CPU_ONLY_INPUT_TENSORS and
the execution environment's path; the environment's content is `rules/artifacts/python_env`).

The Python backend reads both when the model state is created (`ModelState::ModelState`
in python_backend's src/python_be.cc) and unpacks the EXECUTION_ENV_PATH archive
before it starts the stub (`EnvironmentManager::ExtractIfNotExtracted` in
src/pb_env.cc).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from pathlib import Path

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    PYTHON_ENV,
    PYTHON_FORCE_CPU,
    FieldPath,
    Finding,
    Key,
    ModelConfig,
    ModelContext,
    Scope,
    Stage,
    is_inside,
    model_label,
    parameter,
    rule,
)

KEYWORD = "$$TRITON_MODEL_DIRECTORY"


@rule(
    "PL728",
    "python-parameter-invalid",
    ERROR,
    "FORCE_CPU_ONLY_INPUT_TENSORS other than `yes` or `no`.",
    triton="Incorrect value for FORCE_CPU_ONLY_INPUT_TENSORS: <v>'",
    stage=Stage.LOAD,
    backend="python",
    effective=True,
)
def python_parameter_invalid(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The Python backend accepts exactly `yes` or `no` (lower case) for
    FORCE_CPU_ONLY_INPUT_TENSORS; `true` or `YES` fail the model.

    Bad:
        parameters { key: "FORCE_CPU_ONLY_INPUT_TENSORS" value: { string_value: "true" } }
    Good:
        parameters { key: "FORCE_CPU_ONLY_INPUT_TENSORS" value: { string_value: "no" } }
    """
    if config.backend != "python":
        return
    value = parameter(config, PYTHON_FORCE_CPU)
    if value is not None and value not in ("yes", "no"):
        yield Finding(
            f"parameter {PYTHON_FORCE_CPU} of Python {model_label(context)} is '{value}'; "
            "the Python backend accepts only 'yes' or 'no'",
            at=("parameters", Key(PYTHON_FORCE_CPU), "value", "string_value"),
            hint='write string_value: "yes" or "no" (lower case)',
        )


@rule(
    "PL729",
    "python-execution-env-missing",
    ERROR,
    "EXECUTION_ENV_PATH names an environment archive that is not in the repository.",
    triton="Failed to get the canonical path for <path>.",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend="python",
    effective=True,
)
def python_execution_env_missing(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The Python backend unpacks the conda-pack archive (or uses the folder) named by
    EXECUTION_ENV_PATH and fails the model when it does not exist. Write it as
    `$$TRITON_MODEL_DIRECTORY/<file>` so it travels with the model (a relative path is
    PL688's).

    Bad:
        parameters { key: "EXECUTION_ENV_PATH" value: { string_value: "env.tar.gz" } }
    Good:
        parameters { key: "EXECUTION_ENV_PATH"
                     value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }
    """
    if config.backend != "python":
        return
    value = parameter(config, PYTHON_ENV)
    if not value:
        return
    at: FieldPath = ("parameters", Key(PYTHON_ENV), "value", "string_value")
    where = f"{PYTHON_ENV} of Python {model_label(context)}"
    if value.startswith(KEYWORD):
        rest = value.removeprefix(KEYWORD).lstrip("/")
        path = Path(posixpath.normpath((context.folder.path / rest).as_posix()))
    elif value.startswith("/"):
        path = Path(posixpath.normpath(value))
    else:
        return  # relative: PL688 says so
    if not is_inside(context.repository.root, path) or path.exists():
        return  # a host path outside the repository cannot be checked here
    shown = Path(os.path.relpath(path, context.repository.root)).as_posix()
    yield Finding(
        f"{where} points to {shown}, which does not exist; the Python backend fails to load "
        "the model",
        at=at,
        hint="create the archive with conda-pack and put it there, or fix the path",
    )


@rule(
    "PL688",
    "python-env-path-model-directory",
    ERROR,
    "EXECUTION_ENV_PATH relative, or with $$TRITON_MODEL_DIRECTORY after its start or before '..'.",
    triton="Failed to get the canonical path for <mangled path>.",
    stage=Stage.LOAD,
    backend="python",
    effective=True,
)
def python_env_path_model_directory(
    context: ModelContext, config: ModelConfig
) -> Iterator[Finding]:
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
    if config.backend != "python":
        return
    value = parameter(config, PYTHON_ENV)
    if not value:
        return
    at: FieldPath = ("parameters", Key(PYTHON_ENV), "value", "string_value")
    where = f"{PYTHON_ENV} of Python {model_label(context)}"
    keyword_at = value.find(KEYWORD)
    if keyword_at < 0 and not value.startswith("/"):
        yield Finding(
            f"{where} is the relative path '{value}', which tritonserver resolves against its "
            "working directory, not the model folder",
            at=at,
            hint=f'write "{KEYWORD}/{value}" for a file in the model folder',
            severity=INFO,  # whether it is found depends on where the server starts
        )
        return
    if keyword_at < 0:
        return
    if keyword_at > 0:
        eaten = value[keyword_at + len(KEYWORD) : 2 * keyword_at + len(KEYWORD)]
        opened = value[:keyword_at] + "<model folder>" + value[2 * keyword_at + len(KEYWORD) :]
        yield Finding(
            f"{where} has {KEYWORD} after the start of '{value}'; the Python "
            f"backend replaces it together with the {len(eaten)} characters after it "
            f"('{eaten}'), opens '{opened}', and fails to load '{context.folder.name}'",
            at=at,
            hint=f'write "{KEYWORD}/<file in the model folder>", or an absolute path without it',
        )
        return
    rest = value[len(KEYWORD) :].lstrip("/")
    target = posixpath.normpath(rest) if rest else "."
    if target == ".." or target.startswith("../"):
        yield Finding(
            f"{where} is '{value}', which leaves the model folder; it works from a "
            "local repository, but from cloud storage Triton copies only the model folder "
            f"and '{context.folder.name}' fails to load",
            at=at,
            hint="put the environment in the model folder, or use an absolute path of the "
            "serving host",
            severity=INFO,  # it depends on where the repository is served from
        )
