"""PL728-PL729: Python backend `parameters` (FORCE_CPU_ONLY_INPUT_TENSORS and the
execution environment).

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

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.repository.fs import is_inside
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.textproto.sourcemap import FieldPath, Key
from pbtxt_lint.triton.backends import PYTHON_ENV, PYTHON_FORCE_CPU
from pbtxt_lint.triton.parameters import parameter

ERROR, WARNING = Severity.ERROR, Severity.WARNING

MODEL_DIRECTORY_VARIABLE = "$$TRITON_MODEL_DIRECTORY"


@rule(
    "PL728",
    "python-parameter-invalid",
    ERROR,
    "FORCE_CPU_ONLY_INPUT_TENSORS other than `yes` or `no`.",
    triton="Incorrect value for FORCE_CPU_ONLY_INPUT_TENSORS: <v>'",
    stage=Stage.LOAD,
)
def python_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """The Python backend accepts exactly `yes` or `no` (lower case) for
    FORCE_CPU_ONLY_INPUT_TENSORS; `true` or `YES` fail the model.

    Bad:
        parameters { key: "FORCE_CPU_ONLY_INPUT_TENSORS" value: { string_value: "true" } }
    Good:
        parameters { key: "FORCE_CPU_ONLY_INPUT_TENSORS" value: { string_value: "no" } }
    """
    config = context.effective
    if config is None or config.backend != "python":
        return
    value = parameter(config, PYTHON_FORCE_CPU)
    if value is not None and value not in ("yes", "no"):
        yield Finding(
            f"parameter {PYTHON_FORCE_CPU} of Python model '{context.model.name}' is '{value}'; "
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
)
def python_execution_env_missing(context: ModelContext) -> Iterator[Finding]:
    """The Python backend unpacks the conda-pack archive (or uses the folder) named by
    EXECUTION_ENV_PATH and fails the model when it does not exist. Write it as
    `$$TRITON_MODEL_DIRECTORY/<file>` so it travels with the model: a relative path is
    resolved against tritonserver's working directory (a warning).

    Bad:
        parameters { key: "EXECUTION_ENV_PATH" value: { string_value: "env.tar.gz" } }
    Good:
        parameters { key: "EXECUTION_ENV_PATH"
                     value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }
    """
    config = context.effective
    if config is None or config.backend != "python":
        return
    value = parameter(config, PYTHON_ENV)
    if not value:
        return
    at: FieldPath = ("parameters", Key(PYTHON_ENV), "value", "string_value")
    where = f"{PYTHON_ENV} of Python model '{context.model.name}'"
    if value.startswith(MODEL_DIRECTORY_VARIABLE):
        rest = value.removeprefix(MODEL_DIRECTORY_VARIABLE).lstrip("/")
        path = Path(posixpath.normpath((context.model.path / rest).as_posix()))
    elif value.startswith("/"):
        path = Path(posixpath.normpath(value))
    else:
        yield Finding(
            f"{where} is the relative path '{value}', which tritonserver resolves against its "
            "working directory, not the model folder",
            at=at,
            hint=f'write "{MODEL_DIRECTORY_VARIABLE}/{value}" for a file in the model folder',
            severity=WARNING,
        )
        return
    if not is_inside(context.repository.root, path) or path.exists():
        return  # a host path outside the repository cannot be checked here
    shown = Path(os.path.relpath(path, context.repository.root)).as_posix()
    yield Finding(
        f"{where} points to {shown}, which does not exist; the Python backend fails to load "
        "the model",
        at=at,
        hint="create the archive with conda-pack and put it there, or fix the path",
    )
