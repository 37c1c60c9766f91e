"""PL224: the batch axis written into dims that max_batch_size already adds.

With `max_batch_size > 0` Triton prepends the batch axis to every input's dims and
checks each request against that full shape (`InferenceRequest::Normalize` in core's
src/infer_request.cc). Backends that compare dims with the model file (ONNX Runtime,
TensorRT, TensorFlow, OpenVINO) refuse a repeated batch axis at load (PL613 and its
siblings, when the file is readable); the PyTorch and Python backends never compare,
so the model loads and the first request in the natural shape fails.

"Every dims starts with -1" is no evidence: on real configs that -1 is a sequence
length, a number of boxes or frames, an image height far more often than a batch. The
rule fires only on the shape that cannot be anything else: a 4-D image tensor whose
first axis is -1 (or 1) next to its 1- or 3-channel axis, `[-1,3,224,224]` or
`[-1,224,224,3]`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import config_dims
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.triton.autofill import backend_of
from pbtxt_lint.triton.backends import BACKENDS

WARNING = Severity.WARNING

CHANNELS = (1, 3)
"""Grey and RGB: the channel counts of image tensors."""
MIN_SIDE = 8
"""A fixed image side at least this large (smaller fixed sizes are feature maps)."""
_SEQUENCE_NAME = re.compile(r"video|frame|clip", re.IGNORECASE)
"""Names of tensors that hold several images per item (a clip of frames is 4-D by right)."""


def _side(value: int) -> bool:
    return value == -1 or value >= MIN_SIDE


def image_layout(dims: Sequence[int]) -> str | None:
    """ "NCHW" or "NHWC" when dims are a 4-D image whose first axis is a batch-like -1/1."""
    if len(dims) != 4 or dims[0] not in (-1, 1):
        return None
    _, a, b, c = dims
    if a in CHANNELS and c not in CHANNELS and _side(b) and _side(c):
        return "NCHW"
    if c in CHANNELS and a not in CHANNELS and _side(a) and _side(b):
        return "NHWC"
    return None


def _natural(dims: Sequence[int], layout: str) -> str:
    """The request one image makes: the batch axis 1, the variable sides as H and W."""
    letters = layout[1:]
    shown = ["1"] + [
        str(v) if v != -1 else letter for v, letter in zip(dims[1:], letters, strict=True)
    ]
    return "[" + ",".join(shown) + "]"


def _triton(values: Sequence[int]) -> str:
    return "[" + ",".join(str(v) for v in values) + "]"


def _blind_backend(config: ModelConfig) -> str | None:
    """The backend's name when it loads any dims without comparing them to the model."""
    name = backend_of(config)
    entry = BACKENDS.get(name)
    return name if entry is not None and entry.checks_dims is False else None


@rule(
    "PL224",
    "batch-axis-in-image-dims",
    WARNING,
    "An image input whose dims repeat the batch axis that max_batch_size > 0 adds "
    "([-1,3,224,224]), on a backend that loads it without comparing shapes.",
    triton="unexpected shape for input '<name>' for model '<model>'. Expected "
    "[-1,-1,3,224,224], got [1,3,224,224]. NOTE: Setting a non-zero max_batch_size in the "
    "model config requires a batch dimension to be prepended to each input shape.",
    stage=Stage.INFERENCE,
)
def batch_axis_in_image_dims(context: ModelContext) -> Iterator[Finding]:
    """With max_batch_size > 0, dims describe one item of the batch: Triton adds the
    batch axis in front. Writing it in dims as well makes the input 5-D for an image
    model: a request with one image in the usual `[1,3,224,224]` shape is refused, and
    a client that sends the extra axis feeds a 5-D tensor to a model that expects 4-D.
    The PyTorch and Python backends load such a config without a word (they never
    compare dims with the model); the request is the first to fail. Dims set by
    model.py's `auto_complete_config` count too.

    Bad:
        max_batch_size: 16
        input [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ -1, 3, 224, 224 ] } ]
    Good:
        max_batch_size: 16
        input [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
    """
    config = context.completed.config or context.effective
    if config is None or config.max_batch_size <= 0:
        return
    backend = _blind_backend(config)
    if backend is None:
        return
    mbs = config.max_batch_size
    for index, io in enumerate(config.input):
        dims = list(io.dims)
        layout = image_layout(dims)
        if layout is None or _SEQUENCE_NAME.search(io.name):
            continue
        expected = _triton([-1, *dims])
        natural = _natural(dims, layout)
        item = config_dims(dims[1:])
        yield Finding(
            f"input '{io.name}' of model '{context.model.name}' has dims {config_dims(dims)} "
            f"with max_batch_size {mbs}: Triton adds the batch axis in front, so it expects "
            f"{expected}; a request with one {layout} image of shape {natural} fails with "
            f"\"unexpected shape for input '{io.name}' for model '{context.model.name}'. "
            f'Expected {expected}, got {natural}" (the {backend} backend does not compare '
            "dims with the model, so nothing fails at load)",
            at=("input", index, "dims"),
            hint=f"write dims: {item} (max_batch_size already adds the batch axis), or set "
            "max_batch_size: 0 to keep the batch axis in dims",
        )
