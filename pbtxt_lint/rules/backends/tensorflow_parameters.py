"""PL884: TensorFlow backend `parameters` values.

The TensorFlow backend parses its parameters when the model state is created
(`ModelState::ParseParameters` in tensorflow_backend's src/tensorflow.cc, through
`ParseParameter` in src/tensorflow_utils.cc) and reads TF_INIT_OPS_FILE when it creates
the session (`ModelState::CreateModel`): from the version folder, else the model folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from pbtxt_lint.rules.api import ERROR, Finding, Key, ModelContext, Stage, parameter, rule
from pbtxt_lint.rules.features.common import (
    INT_HINT,
    bool_problem,
    int_problem,
    is_file,
    parser_problems,
)
from pbtxt_lint.triton.backends import TF_BOOL, TF_INIT_OPS, TF_INT
from pbtxt_lint.triton.parameters import leading_int

_INIT_OPS_LIMIT = 1 << 20
"""Larger init-ops files are not parsed (a list of op names is a few hundred bytes)."""

_MINIMUM = {"MAX_SESSION_SHARE_COUNT": (1, "a positive number"),
            "TF_NUM_INTRA_THREADS": (0, "a non-negative number")}  # fmt: skip


@rule(
    "PL884",
    "tensorflow-parameter-invalid",
    ERROR,
    "A TensorFlow backend parameter it refuses: a thread or session count that is not a valid "
    "number, a bad boolean, or a TF_INIT_OPS_FILE that is missing or not JSON.",
    triton="parameter 'MAX_SESSION_SHARE_COUNT' must be positive number for TensorFlow model "
    "'<model>' / parameter 'TF_NUM_INTRA_THREADS' must be non-negative number for TensorFlow "
    "model '<model>' / failed to convert '<v>' to integral number / failed to open/read file "
    "'<path>': No such file or directory",
    stage=Stage.LOAD,
    backend="tensorflow",
)
def tensorflow_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """MAX_SESSION_SHARE_COUNT is a positive integer, TF_NUM_INTRA_THREADS a
    non-negative one, TF_NUM_INTER_THREADS an integer, TF_USE_PER_SESSION_THREADS a
    boolean. TF_INIT_OPS_FILE names a JSON file `{"init_ops": ["op", ...]}` in the version
    folder or the model folder. Anything else fails the model when it loads.

    Bad:
        parameters { key: "MAX_SESSION_SHARE_COUNT" value: { string_value: "0" } }
    Good:
        parameters { key: "MAX_SESSION_SHARE_COUNT" value: { string_value: "2" } }
    """
    config = context.effective
    if config is None or config.backend != "tensorflow":
        return
    where = f"of TensorFlow model '{context.model.name}'"
    checks = {**dict.fromkeys(TF_INT, int_problem), **dict.fromkeys(TF_BOOL, bool_problem)}
    refused = set()
    for key, at, why, hint in parser_problems(config, checks):
        refused.add(key)
        yield Finding(f"parameter {key} {where}: {why}", at=at, hint=hint)
    for key, (minimum, meaning) in _MINIMUM.items():
        value = parameter(config, key)
        number = leading_int(value) if value is not None and key not in refused else None
        if number is not None and number < minimum:
            yield Finding(
                f"parameter {key} {where} is {number}; the backend wants {meaning} and "
                "refuses the model",
                at=("parameters", Key(key), "value", "string_value"),
                hint=INT_HINT,
            )
    name = parameter(config, TF_INIT_OPS)
    if name and not context.settings.config_only:
        yield from _init_ops_problems(context, name, where)


def _init_ops_problems(context: ModelContext, name: str, where: str) -> Iterator[Finding]:
    """TF_INIT_OPS_FILE: found in a loaded version folder or the model folder, and JSON
    with an `init_ops` list of strings."""
    at = ("parameters", Key(TF_INIT_OPS), "value", "string_value")
    model = context.model.path
    for version in context.selection.versions:
        candidates = (model / str(version) / name, model / name)
        path = next((p for p in candidates if is_file(context, p)), None)
        if path is None:
            yield Finding(
                f"TF_INIT_OPS_FILE '{name}' {where} is neither in '{version}/' nor in the model "
                f"folder, so version {version} fails to load",
                at=at,
                hint=f"put {name} in {context.model.name}/ or {context.model.name}/{version}/",
            )
            return
        problem = _init_ops_content(path)
        if problem:
            yield Finding(f"TF_INIT_OPS_FILE '{name}' {where}: {problem}", at=at,
                          hint='write {"init_ops": ["op_name", ...]}')  # fmt: skip
            return


def _init_ops_content(path: Path) -> str | None:
    """Why the backend cannot read the init ops from this file, or None."""
    from pbtxt_lint import storage  # deferred: only a model with TF_INIT_OPS_FILE reads it

    try:
        data = storage.read_whole(path, _INIT_OPS_LIMIT)
        if len(data) > _INIT_OPS_LIMIT:
            return None  # too large to be a list of op names: not judged
        document = json.loads(data.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        return f"the file is not JSON ({error})"
    ops = document.get("init_ops") if isinstance(document, dict) else None
    if not isinstance(ops, list) or not all(isinstance(op, str) for op in ops):
        return 'the file has no "init_ops" list of op names'
    return None
