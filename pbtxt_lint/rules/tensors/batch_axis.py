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

from pbtxt_lint.rules.api import (
    BACKENDS,
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    Stage,
    backend_of,
    config_dims,
    model_label,
    rule,
)
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput

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


def _any_images(dims: Sequence[int], layout: str) -> bool:
    """[-1, 3, -1, -1] on a Python model: any number of images of any size per request
    (TensorRT-LLM's multimodal `image_input`), a rank model.py chooses. Dims copied
    from an export that batches show it by their fixed sides ([-1, 3, 224, 224])."""
    sides = dims[2:] if layout == "NCHW" else dims[1:3]
    return dims[0] == -1 and all(side == -1 for side in sides)


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
    model.py's `auto_complete_config` count too. A Python model's `[-1, 3, -1, -1]`
    (any number of images of any size in one request, as TensorRT-LLM's multimodal
    `image_input`) is a rank its model.py chooses and is left alone.

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
        if backend == "python" and _any_images(dims, layout):
            continue
        expected = _triton([-1, *dims])
        natural = _natural(dims, layout)
        item = config_dims(dims[1:])
        yield Finding(
            f"input '{io.name}' of {model_label(context)} has dims {config_dims(dims)} "
            f"with max_batch_size {mbs}: Triton adds the batch axis in front, so it expects "
            f"{expected}; a request with one {layout} image of shape {natural} fails with "
            f"\"unexpected shape for input '{io.name}' for {model_label(context)}. "
            f'Expected {expected}, got {natural}" (the {backend} backend does not compare '
            "dims with the model, so nothing fails at load)",
            at=("input", index, "dims"),
            hint=f"write dims: {item} (max_batch_size already adds the batch axis), or set "
            "max_batch_size: 0 to keep the batch axis in dims",
        )


@rule(
    "PL226",
    "batch-axis-in-auto-complete-dims",
    WARNING,
    "A Python model's auto_complete_config that sets max_batch_size > 0 and also starts "
    "every input and output it adds with -1: the batch axis counted twice.",
    triton="unexpected shape for input '<name>' for model '<model>'. Expected [-1,-1,13], "
    "got [1,13]. NOTE: Setting a non-zero max_batch_size in the model config requires a "
    "batch dimension to be prepended to each input shape.",
    stage=Stage.INFERENCE,
)
def batch_axis_in_auto_complete_dims(context: ModelContext) -> Iterator[Finding]:
    """model.py's `auto_complete_config` writes the model's own config: when the same
    function turns batching on (`set_max_batch_size(8)`) and gives every tensor a
    leading `-1` (`dims: [-1, 13]`), that -1 is the batch axis written a second time
    (the author copied the array shapes, batch included). Triton serves
    `[-1, -1, 13]`: a client that sends the natural `[1, 13]` is refused, and one that
    sends the extra axis hands model.py 3-D arrays. A -1 on only some tensors is a real
    variable size and is left alone.

    Bad:
        auto_complete_config: set_max_batch_size(8)
                              add_input({"name": "FEATURES", ..., "dims": [-1, 13]})
                              add_output({"name": "PREDICTION", ..., "dims": [-1, 1]})
    Good:
        auto_complete_config: set_max_batch_size(8)
                              add_input({"name": "FEATURES", ..., "dims": [13]})
                              add_output({"name": "PREDICTION", ..., "dims": [1]})
    """
    completed = context.completed
    config = completed.config
    if not context.auto_complete or config is None or completed.error is not None:
        return
    if not {"max_batch_size", "input", "output"} <= completed.filled:
        return  # the config itself decides batching or the tensors: not one author's view
    if config.max_batch_size <= 0 or not config.input or not config.output:
        return
    tensors: list[ModelInput | ModelOutput] = [*config.input, *config.output]
    if not all(len(io.dims) >= 2 and io.dims[0] == -1 for io in tensors):
        return
    first = config.input[0]
    dims = list(first.dims)
    expected = _triton([-1, *dims])
    natural = _triton([1, *dims[1:]])
    shown = completed.signature.path.name if completed.signature else "model.py"
    yield Finding(
        f"auto_complete_config in {shown} sets max_batch_size {config.max_batch_size} and "
        f"gives every input and output a leading -1 (input '{first.name}' dims "
        f"{config_dims(dims)}): Triton adds the batch axis in front, so it expects "
        f'{expected}; a request with one item of shape {natural} fails with "unexpected '
        f"shape for input '{first.name}' for {model_label(context)}. Expected "
        f'{expected}, got {natural}"',
        at=("max_batch_size",),
        hint="drop the leading -1 from the dims auto_complete_config adds (max_batch_size "
        "already adds the batch axis)",
    )
