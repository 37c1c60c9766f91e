"""PL726: PyTorch (TorchScript) backend `parameters` values.

The PyTorch backend parses its on/off and thread-count parameters when the model state
is created (`ModelState::ParseParameters` in pytorch_backend's src/pt/model_state.cc).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    PYTORCH_BOOL,
    PYTORCH_INT,
    Finding,
    ModelConfig,
    ModelContext,
    Stage,
    model_label,
    rule,
)
from pbtxt_lint.rules.features.common import bool_problem, int_problem, parser_problems


@rule(
    "PL726",
    "pytorch-parameter-invalid",
    ERROR,
    "A PyTorch (TorchScript) on/off or thread-count parameter the backend cannot parse.",
    triton="failed to convert '<v>' to boolean / failed to convert '<v>' to integral number",
    stage=Stage.LOAD,
    backend="pytorch",
    effective=True,
)
def pytorch_parameter_invalid(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The PyTorch backend parses DISABLE_OPTIMIZED_EXECUTION, INFERENCE_MODE,
    DISABLE_CUDNN, ENABLE_* as booleans (true/false, on/off, 1/0) and
    INTRA_OP_THREAD_COUNT / INTER_OP_THREAD_COUNT as integers; other values fail the
    model.

    Bad:
        parameters { key: "INFERENCE_MODE" value: { string_value: "yes" } }
    Good:
        parameters { key: "INFERENCE_MODE" value: { string_value: "true" } }
    """
    if config.backend != "pytorch" or config.platform == "torch_aoti":
        return
    checks = {
        **dict.fromkeys(PYTORCH_BOOL, bool_problem),
        **dict.fromkeys(PYTORCH_INT, int_problem),
    }
    for key, at, why, hint in parser_problems(config, checks):
        yield Finding(f"parameter {key} of PyTorch {model_label(context)}: {why}", at=at, hint=hint)
