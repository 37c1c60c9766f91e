"""PL882: OpenVINO runs every batch at exactly max_batch_size.

With max_batch_size > 0 the OpenVINO backend reshapes the model to a static batch of
max_batch_size (`ov::set_batch` in `ModelState::ValidateInputs`) and, unless the
ENABLE_BATCH_PADDING parameter is YES, answers a batch of any other size with an error
(`ModelInstanceState::ProcessRequests` in openvino_backend's src/openvino.cc).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import WARNING, Finding, ModelContext, rule
from pbtxt_lint.triton.backends import OPENVINO_BOOL

PADDING = OPENVINO_BOOL[1]
"""ENABLE_BATCH_PADDING."""


@rule(
    "PL882",
    "openvino-batch-not-padded",
    WARNING,
    "An OpenVINO model with max_batch_size above 1 without ENABLE_BATCH_PADDING: every batch "
    "smaller than max_batch_size fails.",
    triton="expected requests with batch size '<max_batch_size>', got '<n>'... this error can be "
    "avoided by setting 'ENABLE_BATCH_PADDING' parameter in model configuration to 'YES' at a "
    "performance cost.",
    backend="openvino",
)
def openvino_batch_not_padded(context: ModelContext) -> Iterator[Finding]:
    """The backend compiles the model for a batch of exactly max_batch_size. A request
    (or a batch the dynamic batcher forms) of fewer samples fails unless the model sets
    ENABLE_BATCH_PADDING to YES, which pads it to max_batch_size. A client sending one
    sample at a time to a model with max_batch_size: 8 gets an error for every request.

    Bad:
        backend: "openvino"
        max_batch_size: 8
    Good:
        backend: "openvino"
        max_batch_size: 8
        parameters { key: "ENABLE_BATCH_PADDING" value: { string_value: "YES" } }
    """
    config = context.effective
    if config is None or config.backend != "openvino" or config.max_batch_size <= 1:
        return
    padding = config.parameters[PADDING].string_value if PADDING in config.parameters else ""
    if padding.lower() == "yes":
        return
    size = config.max_batch_size
    yield Finding(
        f"OpenVINO model '{context.model.name}' runs batches of exactly {size} samples: "
        f'every request (or dynamic batch) of 1 to {size - 1} samples fails ("expected '
        f"requests with batch size '{size}', got '1'\")",
        at=("max_batch_size",),
        hint='add parameters { key: "ENABLE_BATCH_PADDING" value: { string_value: "YES" } }, '
        "or set max_batch_size: 1",
    )
