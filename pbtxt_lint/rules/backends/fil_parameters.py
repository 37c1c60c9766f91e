"""PL887: the FIL backend's `parameters`.

fil_backend reads its parameters when the model loads (`RapidsSharedState::load` in
src/shared_state.h, through rapids-triton's `get_config_param`); which keys exist
depends on the release (`pbtxt_lint.triton.fil`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    WARNING,
    Finding,
    Key,
    ModelContext,
    Severity,
    Stage,
    parameter,
    rule,
)
from pbtxt_lint.rules.features.common import gpu_instances
from pbtxt_lint.triton.fil import (
    BOOLEANS,
    LAYOUTS,
    MODEL_FILES,
    NEW_FOREST,
    NUMBERS,
    RENAMED,
)

_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
"""What `std::istringstream >> number` reads at the start of a string."""


def _value_at(key: str) -> tuple[str, Key, str, str]:
    return ("parameters", Key(key), "value", "string_value")


@rule(
    "PL887",
    "fil-parameter-invalid",
    ERROR,
    "A FIL parameter the backend refuses or ignores: model_type, true/false flags, the "
    "classifier flag and its threshold, GPU forest settings.",
    triton="<model_type> not recognized as a valid serialization format. / Required parameter "
    "output_class not found in config / Expected 'true' or 'false' for parameter '<name>', got: "
    "'<value>' / Required parameter threshold not found in config / Unknown FIL algorithm "
    "name: <algo>",
    stage=Stage.LOAD,
    backend="fil",
)
def fil_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """FIL needs `output_class` (`is_classifier` from 25.09) and, for a classifier, a
    numeric `threshold`; its flags are exactly `true` or `false` (not True, 1 or yes);
    `model_type` is xgboost, xgboost_json, xgboost_ubj, lightgbm or
    treelite_checkpoint; up to 25.08 GPU instances take `algo` ALGO_AUTO, NAIVE,
    TREE_REORG or BATCH_TREE_REORG and `storage_type` AUTO, DENSE, SPARSE or SPARSE8.
    Anything else fails the load. A number that does not parse is silently replaced by
    its default, and from 25.09 `algo`, `threads_per_tree`, `storage_type` and
    `blocks_per_sm` are ignored (info).

    Bad:
        parameters { key: "output_class" value: { string_value: "True" } }
    Good:
        parameters { key: "output_class" value: { string_value: "true" } }
        parameters { key: "threshold" value: { string_value: "0.5" } }
    """
    config = context.effective
    if config is None or config.backend != "fil":
        return
    target = context.settings.target
    new = None if target is None else target.server >= NEW_FOREST
    name = f"FIL model '{context.model.name}'"
    model_type = parameter(config, "model_type")
    if model_type is not None and model_type not in MODEL_FILES:
        yield Finding(
            f"model_type '{model_type}' of {name} is not one FIL reads, so the model fails to "
            f'load ("{model_type} not recognized as a valid serialization format.")',
            at=_value_at("model_type"),
            hint=f"use one of {', '.join(MODEL_FILES)}",
        )
    for key in BOOLEANS:
        value = parameter(config, key)
        if value is not None and value not in ("true", "false"):
            yield Finding(
                f"parameter {key} of {name} is '{value}'; FIL accepts exactly true or false "
                f"and fails the load (\"Expected 'true' or 'false' for parameter '{key}'\")",
                at=_value_at(key),
                hint=f'write string_value: "{_meant(value)}"',
            )
    yield from _classifier_problems(context, name, new)
    for key in NUMBERS[1:]:
        value = parameter(config, key)
        if value is not None and not _NUMBER.match(value):
            yield Finding(
                f"parameter {key} of {name} is '{value}', not a number: FIL silently uses its "
                "default instead",
                at=_value_at(key),
                hint='write a number, e.g. "4"',
                severity=INFO,
            )
    yield from _forest_problems(context, name, new)


def _meant(value: str) -> str:
    """The boolean a value probably means."""
    return "true" if value.lower() in ("1", "yes", "true", "on", "y") else "false"


def _classifier_problems(context: ModelContext, name: str, new: bool | None) -> Iterator[Finding]:
    """The classifier flag the release requires, and the threshold a classifier needs."""
    config = context.effective
    assert config is not None
    old_flag, new_flag = parameter(config, "output_class"), parameter(config, "is_classifier")
    if new is False:
        flag, wanted = old_flag, "output_class"
    elif new:
        flag = old_flag if old_flag in ("true", "false") else new_flag
        wanted = "is_classifier"
    else:
        flag = old_flag if old_flag is not None else new_flag
        wanted = "output_class"
    if flag is None:
        which = (
            f"{wanted} parameter"
            if new is not None
            else ("output_class parameter (is_classifier from 25.09)")
        )
        yield Finding(
            f'{name} has no {which}, which FIL requires: the model fails to load ("Required '
            f'parameter {wanted} not found in config")',
            at=("parameters",) if config.parameters else ("backend",),
            hint=f'add parameters {{ key: "{wanted}" value: {{ string_value: "false" }} }} '
            "(true for a classifier)",
        )
        return
    if flag != "true":
        return
    threshold = parameter(config, "threshold")
    if threshold is None or not _NUMBER.match(threshold):
        problem = "no threshold parameter" if threshold is None else f"threshold '{threshold}'"
        yield Finding(
            f"{name} is a classifier with {problem}; FIL requires a numeric threshold for "
            'classifiers and fails the load ("Required parameter threshold not found in '
            'config")',
            at=_value_at("threshold") if threshold is not None else ("parameters",),
            hint='add parameters { key: "threshold" value: { string_value: "0.5" } }',
        )


def _forest_problems(context: ModelContext, name: str, new: bool | None) -> Iterator[Finding]:
    """algo and storage_type values (up to 25.08, read by GPU instances), and the
    parameters 25.09 removed."""
    config = context.effective
    assert config is not None
    gpu = gpu_instances(context)
    for renamed in RENAMED:
        value = parameter(config, renamed.old)
        if value is None:
            continue
        if new and renamed.old != "output_class":
            successor = f"use {renamed.new} instead" if renamed.new else "delete it"
            yield Finding(
                f"parameter {renamed.old} of {name} was removed in FIL 25.09: the release "
                "targeted logs it and ignores it",
                at=_value_at(renamed.old),
                hint=successor,
                severity=INFO,
            )
        elif not new and renamed.choices and value not in renamed.choices and gpu:
            severity: Severity | None = INFO if gpu is WARNING or new is None else None
            yield Finding(
                f"parameter {renamed.old} of {name} is '{value}', not one of "
                f"{', '.join(renamed.choices)}: GPU instances fail to load",
                at=_value_at(renamed.old),
                hint=f'write string_value: "{renamed.choices[0]}"',
                severity=severity,
            )
    layout = parameter(config, "layout")
    if new and layout is not None and layout not in LAYOUTS:
        yield Finding(
            f"parameter layout of {name} is '{layout}', not one of {', '.join(LAYOUTS)}: the "
            f'model fails to load ("Unknown FIL layout name: {layout}")',
            at=_value_at("layout"),
            hint='write string_value: "depth_first"',
            severity=ERROR,
        )
