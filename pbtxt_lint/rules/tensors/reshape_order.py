"""PL225: a reshape that reorders dims, as if it were a transpose.

`reshape` tells Triton that the model sees the same bytes under another shape
(`ValidateIOShape` in core's src/model_config_utils.cc checks only that the element
counts agree; no value is moved). Writing `dims: [224,224,3]` with
`reshape: { shape: [3,224,224] }` to turn an HWC image into the CHW one a network
wants therefore loads and runs, and the network reads interleaved RGB values as colour
planes: every answer is wrong, and nothing says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from pbtxt_lint.rules.api import (
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    Stage,
    config_dims,
    model_label,
    rule,
)
from pbtxt_lint.rules.tensors.common import tensors
from pbtxt_lint.rules.tensors.dims import reshape_problem

CHANNELS = (3, 4)
"""RGB and RGBA: a channel axis moved between the ends is an HWC/CHW conversion."""


def reordered(dims: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether `shape` lists the same sizes as `dims` in another order (size-1 axes
    aside: moving them does not change where any value is)."""
    wide_dims = [d for d in dims if d != 1]
    wide_shape = [d for d in shape if d != 1]
    return Counter(wide_dims) == Counter(wide_shape) and wide_dims != wide_shape


def _channel_move(dims: Sequence[int], shape: Sequence[int]) -> tuple[str, str] | None:
    """ "HWC -> CHW" or "CHW -> HWC" when a 3/4-channel axis moves between the ends."""
    if len(dims) < 3 or len(dims) != len(shape):
        return None
    if dims[-1] in CHANNELS and shape[-3] == dims[-1] and list(shape[-2:]) == list(dims[-3:-1]):
        return "HWC", "CHW"
    if dims[-3] in CHANNELS and shape[-1] == dims[-3] and list(shape[-3:-1]) == list(dims[-2:]):
        return "CHW", "HWC"
    return None


@rule(
    "PL225",
    "reshape-reorders-dims",
    WARNING,
    "A reshape that lists the same sizes as dims in another order: it does not transpose, "
    "so the model reads scrambled data.",
    stage=Stage.NEVER,
    effective=True,
)
def reshape_reorders_dims(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """`reshape` reinterprets the tensor's bytes in another shape without moving any
    value, which is right for adding or removing axes of size 1 or regrouping axes in
    order (`[4, 6]` -> `[24]`). Reordering the same sizes (`[224,224,3]` ->
    `[3,224,224]`) is a transpose, which reshape cannot do: the model receives pixels
    of other rows and colours in each plane and answers wrongly, with no error.

    Bad:
        input [ { name: "input" data_type: TYPE_FP32 dims: [ 224, 224, 3 ]
                  reshape: { shape: [ 3, 224, 224 ] } } ]
    Good:
        input [ { name: "input" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
        (and transpose the image to CHW in the client or the preprocessing step)
    """
    for tensor in tensors(config):
        io = tensor.io
        if not io.HasField("reshape"):
            continue
        dims, shape = list(io.dims), list(io.reshape.shape)
        if not reordered(dims, shape) or reshape_problem(dims, shape) is not None:
            continue  # Triton refuses a reshape that does not regroup (PL207)
        move = _channel_move(dims, shape)
        if tensor.kind == "input":
            effect = (
                f"requests' {config_dims(dims)} data reaches the model as {config_dims(shape)} "
                "with every value where it was"
            )
        else:
            effect = (
                f"the model's {config_dims(shape)} data reaches clients as {config_dims(dims)} "
                "with every value where it was"
            )
        if move is not None:
            source, target = move
            effect += (
                f": the {source} image is read as {target}, each plane a mix of rows and colours"
            )
        yield Finding(
            f"{tensor.label} of {model_label(context)}: reshape {config_dims(shape)} "
            f"reorders dims {config_dims(dims)}, but reshape never moves data; "
            f"{effect}, so every answer is wrong without any error",
            at=(*tensor.path, "reshape"),
            hint="transpose where the data is made (numpy image.transpose(2, 0, 1) turns HWC "
            "into CHW) and declare the model's own layout in dims, without reshape"
            if move is not None
            else "transpose where the data is made and declare the layout the model uses in "
            "dims, without reshape",
        )
