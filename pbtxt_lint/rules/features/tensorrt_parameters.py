"""PL725: TensorRT backend `parameters` values.

The TensorRT backend parses its parameters when the model state is created
(`ModelState::ParseParameters` and `ParseMultiDeviceParameters` in tensorrt_backend's
src/model_state.cc).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.features.common import bool_problem, parser_problems
from pbtxt_lint.textproto.sourcemap import Key
from pbtxt_lint.triton.backends import TRT_ALLOCATION
from pbtxt_lint.triton.parameters import parameter, parse_bool

ERROR = Severity.ERROR

TRT_ALLOCATION_VALUES = ("STATIC", "ON_PROFILE_CHANGE")


@rule(
    "PL725",
    "tensorrt-parameter-invalid",
    ERROR,
    "A TensorRT backend parameter value it refuses (allocation strategy, multi-device settings).",
    triton="Invalid value for 'execution_context_allocation_strategy': '<v>' for model instance "
    "'<m>'. Supported values are 'STATIC' and 'ON_PROFILE_CHANGE'. / Invalid "
    "'multi_device_gpus' entry '<item>' for model '<m>'; expected comma-separated GPU ids.",
    stage=Stage.LOAD,
    backend="tensorrt",
)
def tensorrt_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """`execution_context_allocation_strategy` is STATIC or ON_PROFILE_CHANGE.
    `enable_multi_device: true` needs `multi_device_gpus`, a comma-separated list of at
    least two GPU ids the host has.

    Bad:
        parameters { key: "execution_context_allocation_strategy"
                     value: { string_value: "DYNAMIC" } }
    Good:
        parameters { key: "execution_context_allocation_strategy"
                     value: { string_value: "ON_PROFILE_CHANGE" } }
    """
    config = context.effective
    if config is None or config.backend != "tensorrt":
        return
    where = f"of TensorRT model '{context.model.name}'"
    checks = dict.fromkeys(("enable_multi_device", "multi_device_per_rank_engines"), bool_problem)
    for key, at, why, hint in parser_problems(config, checks):
        yield Finding(f"parameter {key} {where}: {why}", at=at, hint=hint)
    strategy = parameter(config, TRT_ALLOCATION)
    if strategy is not None and strategy.upper() not in TRT_ALLOCATION_VALUES:
        yield Finding(
            f"parameter {TRT_ALLOCATION} {where} is '{strategy}'; the TensorRT backend accepts "
            "STATIC or ON_PROFILE_CHANGE",
            at=("parameters", Key(TRT_ALLOCATION), "value", "string_value"),
            hint='write string_value: "STATIC" (default) or "ON_PROFILE_CHANGE"',
        )
    multi = parameter(config, "enable_multi_device")
    if multi is None or parse_bool(multi) is not True:
        return
    gpus = parameter(config, "multi_device_gpus")
    if gpus is None:
        yield Finding(
            f"TensorRT model '{context.model.name}' enables multi-device but has no "
            'multi_device_gpus parameter ("model configuration is missing the parameter '
            'multi_device_gpus")',
            at=("parameters", Key("enable_multi_device")),
            hint='add parameters { key: "multi_device_gpus" value: { string_value: "0,1" } }',
        )
        return
    at = ("parameters", Key("multi_device_gpus"), "value", "string_value")
    items = gpus.split(",")
    bad = [item for item in items if not re.fullmatch(r"\s*\d+\s*", item)]
    host = context.settings.gpus
    if bad:
        why = f"entry '{bad[0]}' is not a GPU id"
    elif len(items) < 2:
        why = "lists fewer than 2 GPUs; multi-device needs at least 2"
    elif host is not None and max(int(i) for i in items) >= host:
        why = f"references GPU {max(int(i) for i in items)} but the target host has {host}"
    else:
        return
    yield Finding(
        f"parameter multi_device_gpus {where}: {why}",
        at=at,
        hint='list comma-separated GPU ids, e.g. "0,1"',
    )
