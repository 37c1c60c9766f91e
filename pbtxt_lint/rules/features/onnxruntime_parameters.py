"""PL723: ONNX Runtime `parameters` values.

ONNX Runtime parses its session parameters when the model state is created
(`ModelState::ModelState` in onnxruntime_backend's src/onnxruntime.cc) and the
GPU-only ones when it creates a session on a GPU instance (`ModelState::LoadModel`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.features.common import (
    bool_problem,
    gpu_instances,
    int_problem,
    parser_problems,
)
from pbtxt_lint.textproto.sourcemap import Key
from pbtxt_lint.triton.backends import ORT_BOOL, ORT_GPU_CHOICES, ORT_INT
from pbtxt_lint.triton.parameters import leading_int, parameter

ERROR, WARNING = Severity.ERROR, Severity.WARNING


@rule(
    "PL723",
    "onnxruntime-parameter-invalid",
    ERROR,
    "An ONNX Runtime parameter value the backend cannot parse or does not accept.",
    triton="Invalid configuration value provided. Expected values for  execution_mode are 0 or "
    "1 but got <n> . / failed to convert '<v>' to integral number / failed to convert '<v>' to "
    "boolean / unsupported cudnn_conv_algo_search value '<n>' is requested / unsupported "
    "arena_extend_strategy value '<n>' is requested",
    stage=Stage.LOAD,
    backend="onnxruntime",
)
def onnxruntime_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """ONNX Runtime parses its parameters when the model loads: `execution_mode` is 0
    (sequential) or 1 (parallel), thread counts are integers, `enable_mem_arena`,
    `enable_mem_pattern` and `share_session_between_instances` are booleans, and on GPU
    instances `cudnn_conv_algo_search` is 0-2, `arena_extend_strategy` 0-1 and
    `gpu_mem_limit` a number of bytes.

    Bad:
        parameters { key: "execution_mode" value: { string_value: "parallel" } }
    Good:
        parameters { key: "execution_mode" value: { string_value: "1" } }
    """
    config = context.effective
    if config is None or config.backend != "onnxruntime":
        return
    where = f"of ONNX Runtime model '{context.model.name}'"
    checks = {**dict.fromkeys(ORT_INT, int_problem), **dict.fromkeys(ORT_BOOL, bool_problem)}
    for key, at, why, hint in parser_problems(config, checks):
        yield Finding(f"parameter {key} {where}: {why}", at=at, hint=hint)
    mode = parameter(config, "execution_mode")
    if mode is not None and not int_problem(mode) and leading_int(mode) not in (0, 1):
        yield Finding(
            f"parameter execution_mode {where} is {mode}; ONNX Runtime accepts 0 (sequential) "
            "or 1 (parallel)",
            at=("parameters", Key("execution_mode"), "value", "string_value"),
            hint='write string_value: "0" or "1"',
        )
    gpu = gpu_instances(context)
    if gpu is None:
        return
    for key, choices in ORT_GPU_CHOICES.items():
        value = parameter(config, key)
        if value is None:
            continue
        problem = int_problem(value)
        if problem is None and leading_int(value) not in choices:
            problem = f"{value} is not one of {', '.join(map(str, choices))}"
        if problem:
            yield Finding(
                f"parameter {key} {where}: {problem} (read on GPU instances"
                + (", so the model fails on a host with a GPU)" if gpu is WARNING else ")"),
                at=("parameters", Key(key), "value", "string_value"),
                hint=f"use one of {', '.join(map(str, choices))}",
                # whether instances without a kind land on a GPU is a fact about the host
                severity=Severity.INFO if gpu is WARNING else None,
            )
    limit = parameter(config, "gpu_mem_limit")
    if limit is not None and not limit.strip().isdigit():
        yield Finding(
            f"parameter gpu_mem_limit {where} is '{limit}', not a number of bytes; ONNX "
            "Runtime's CUDA provider refuses it when it creates a GPU instance"
            + (", so the model fails on a host with a GPU" if gpu is WARNING else ""),
            at=("parameters", Key("gpu_mem_limit"), "value", "string_value"),
            hint='write the limit in bytes, e.g. "4294967296" for 4 GiB',
            severity=Severity.INFO if gpu is WARNING else None,
        )
