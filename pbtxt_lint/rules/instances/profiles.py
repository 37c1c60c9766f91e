"""PL406-PL408: TensorRT optimization profiles of an instance group.

`ValidateInstanceGroup` (core's src/model_config_utils.cc) accepts `profile` only on
TensorRT plans and reads each entry with `std::stoi` (`GetProfileIndex`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.analysis.instances import Group, resolve_groups
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import TENSORRT_PLATFORM
from pbtxt_lint.triton.parameters import INT32_MAX, INT32_MIN, leading_int

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@rule(
    "PL406",
    "profile-not-tensorrt",
    ERROR,
    "An instance group sets `profile` on a model that is not a TensorRT plan.",
    triton="instance group <g> of model <model> and platform <p>specifies profile field which "
    "is only supported for TensorRT models",
    stage=Stage.LOAD,
)
def profile_not_tensorrt(context: ModelContext) -> Iterator[Finding]:
    """Optimization profiles belong to TensorRT engines; Triton refuses `profile` for any
    other platform (including ONNX Runtime with the TensorRT execution accelerator).

    Bad:
        backend: "onnxruntime"
        instance_group [ { kind: KIND_GPU profile: [ "0" ] } ]
    Good:
        backend: "onnxruntime"
        instance_group [ { kind: KIND_GPU } ]
    """
    config = context.effective
    if config is None or config.platform == TENSORRT_PLATFORM:
        return
    for group in resolve_groups(context):
        if group.index is None or not config.instance_group[group.index].profile:
            continue
        platform = f"platform '{config.platform}'" if config.platform else "no platform"
        yield Finding(
            f"{group.label} of model '{context.model.name}' sets profile, but the model has "
            f"{platform} (backend '{config.backend}'); Triton accepts profile only for "
            f"platform '{TENSORRT_PLATFORM}'",
            at=group.at("profile", 0),
            hint="delete profile",
        )


def _profiles(context: ModelContext) -> Iterator[tuple[Group, int, str, int | None]]:
    """(group, position, profile string, value std::stoi reads) of TensorRT models."""
    config = context.effective
    if config is None or config.platform != TENSORRT_PLATFORM:
        return
    for group in resolve_groups(context):
        if group.index is None:
            continue
        for position, text in enumerate(config.instance_group[group.index].profile):
            yield group, position, text, leading_int(text)


@rule(
    "PL407",
    "profile-invalid",
    ERROR,
    "A TensorRT `profile` entry that is empty, not a number, negative or out of range.",
    triton="profile name must not be empty / unable to parse '<profile>': stoi / instance "
    "group <g> of model <model> and platform tensorrt_plan specifies invalid profile "
    "<profile>. The field should contain the string representation of a non-negative integer.",
    stage=Stage.LOAD,
    backend="tensorrt",
)
def profile_invalid(context: ModelContext) -> Iterator[Finding]:
    """`profile` lists optimization profile indexes of the engine as strings ("0", "1").
    Triton reads each with `std::stoi`: an empty string, a non-number and a negative
    number fail the model, and a number beyond 32 bits aborts the whole server.

    Bad:
        instance_group [ { kind: KIND_GPU profile: [ "max" ] } ]
    Good:
        instance_group [ { kind: KIND_GPU profile: [ "0" ] } ]
    """
    for group, position, text, value in _profiles(context):
        where = f"{group.label} of model '{context.model.name}'"
        if not text:
            why = 'is empty; Triton refuses it ("profile name must not be empty")'
        elif value is None:
            why = 'is not a number; Triton refuses it ("unable to parse ... stoi")'
        elif not INT32_MIN <= value <= INT32_MAX:
            why = "does not fit a 32-bit integer; std::stoi throws and tritonserver aborts"
        elif value < 0:
            why = "is negative; profile indexes start at 0"
        else:
            continue
        yield Finding(
            f'profile "{text}" of {where} {why}',
            at=group.at("profile", position),
            hint='write the engine\'s optimization profile index as a string: "0", "1" ...',
        )


@rule(
    "PL408",
    "profile-not-canonical",
    INFO,
    'A TensorRT `profile` string like "1abc" or " 2" that Triton silently reads as a number.',
)
def profile_not_canonical(context: ModelContext) -> Iterator[Finding]:
    """`std::stoi` stops at the first character that is not a digit, so "1abc" and
    "2_fp16" mean profiles 1 and 2; the rest is ignored. A profile name that is not
    its index is usually a mistake (TensorRT profiles have no names in Triton).

    Bad:
        instance_group [ { kind: KIND_GPU profile: [ "1abc" ] } ]
    Good:
        instance_group [ { kind: KIND_GPU profile: [ "1" ] } ]
    """
    for group, position, text, value in _profiles(context):
        if value is None or value < 0 or value > INT32_MAX or str(value) == text:
            continue
        yield Finding(
            f"profile \"{text}\" of {group.label} of model '{context.model.name}' is read by "
            f"Triton as profile {value}",
            at=group.at("profile", position),
            hint=f'write profile: "{value}"',
        )
