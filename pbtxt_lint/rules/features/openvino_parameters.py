"""PL722 and PL727: OpenVINO backend `parameters` values.

The OpenVINO backend parses its parameters when the model state is created
(`ModelState::ParseParameters` and `ParseParameterHelper` in openvino_backend's
src/openvino.cc): its on/off keys take only `yes`, its device keys are checked
against fixed choices.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.features.common import params
from pbtxt_lint.triton.backends import OPENVINO_BOOL, OPENVINO_DEVICE
from pbtxt_lint.triton.parameters import parse_bool

ERROR, WARNING = Severity.ERROR, Severity.WARNING


@rule(
    "PL722",
    "openvino-boolean-parameter",
    WARNING,
    "An OpenVINO on/off parameter given `true` or `1`, which the backend reads as off.",
    backend="openvino",
)
def openvino_boolean_parameter(context: ModelContext) -> Iterator[Finding]:
    """The OpenVINO backend turns SKIP_OV_DYNAMIC_BATCHSIZE, ENABLE_BATCH_PADDING and
    RESHAPE_IO_LAYERS on only for the string `yes` (any case); `true`, `1` or `on` mean
    off.

    Bad:
        parameters { key: "RESHAPE_IO_LAYERS" value: { string_value: "true" } }
    Good:
        parameters { key: "RESHAPE_IO_LAYERS" value: { string_value: "yes" } }
    """
    config = context.effective
    if config is None or config.backend != "openvino":
        return
    for key, value, at in params(config):
        if key in OPENVINO_BOOL and value.lower() != "yes" and parse_bool(value) is True:
            yield Finding(
                f"parameter {key} of OpenVINO model '{context.model.name}' is '{value}', which "
                "the OpenVINO backend reads as off (only 'yes' turns it on)",
                at=at,
                hint='write string_value: "yes"',
            )


def _openvino_problem(key: str, value: str) -> tuple[str, str] | None:
    """(what is expected, an accepted value) when the OpenVINO backend refuses `value`."""
    lowered = value.lower()  # the backend lower-cases the value first
    if not lowered:
        return None  # empty values are skipped
    if key in ("INFERENCE_NUM_THREADS", "COMPILATION_NUM_THREADS"):
        accepted, expected, example = lowered.isdigit(), "a non-negative number", "4"
    elif key == "HINT_BF16":
        accepted, expected, example = lowered == "yes", "YES (leave the key out for no)", "YES"
    elif key == "NUM_STREAMS":
        accepted = lowered in ("auto", "numa") or lowered.isdigit()
        expected, example = "AUTO, NUMA or a non-negative number", "AUTO"
    else:
        accepted = lowered in ("latency", "throughput", "cumulative_throughput")
        expected, example = "LATENCY, THROUGHPUT or CUMULATIVE_THROUGHPUT", "THROUGHPUT"
    return None if accepted else (expected, example)


@rule(
    "PL727",
    "openvino-parameter-invalid",
    ERROR,
    "An OpenVINO device parameter value the backend refuses.",
    triton="expected the parameter '<KEY>' to be a non-negative number, got <v> / ... to be "
    "YES, got <v> / ... to be either AUTO/NUMA/<int_value>, got <v> / ... to be "
    "LATENCY/THROUGHPUT/CUMULATIVE_THROUGHPUT, got <v>",
    stage=Stage.LOAD,
    backend="openvino",
)
def openvino_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """INFERENCE_NUM_THREADS and COMPILATION_NUM_THREADS are non-negative numbers,
    HINT_BF16 is YES, NUM_STREAMS is AUTO, NUMA or a number, PERFORMANCE_HINT is
    LATENCY, THROUGHPUT or CUMULATIVE_THROUGHPUT (any case); anything else fails the
    model.

    Bad:
        parameters { key: "NUM_STREAMS" value: { string_value: "-1" } }
    Good:
        parameters { key: "NUM_STREAMS" value: { string_value: "AUTO" } }
    """
    config = context.effective
    if config is None or config.backend != "openvino":
        return
    for key, value, at in params(config):
        problem = _openvino_problem(key, value) if key in OPENVINO_DEVICE else None
        if problem:
            expected, example = problem
            yield Finding(
                f"parameter {key} of OpenVINO model '{context.model.name}' is '{value}'; the "
                f"OpenVINO backend expects {expected}",
                at=at,
                hint=f'write string_value: "{example}"',
            )
