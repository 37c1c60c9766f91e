"""PL915: values model.py sends in a type too small to hold them.

Triton checks an output's data type and shape (or not even that, for the Python
backend: PL667, PL699), never its values. A coordinate scaled to pixels and sent as
`TYPE_UINT8` wraps around at 256 (NumPy's cast keeps the low byte): HTTP 200 with
boxes in the wrong place. Which values are scaled comes from
`artifacts.python_ranges` (a product with an image dim or a literal of 256 or more,
followed through the function's assignments, with no clip on the way).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import WARNING, Finding, ModelContext, Scope, rule, type_name
from pbtxt_lint.rules.artifacts.python_common import line_span, python_models

_LIMITS = {"TYPE_UINT8": 255, "TYPE_INT8": 127}


@rule(
    "PL915",
    "python-output-overflows-type",
    WARNING,
    "model.py sends pixel-scaled values (boxes, keypoints) in an 8-bit output type: "
    "every value past 255 wraps around.",
    triton="(no message: the values wrap around, HTTP 200)",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_output_overflows_type(context: ModelContext) -> Iterator[Finding]:
    """Boxes come out of a detector as fractions of the image; multiplied by its width
    and height they are pixels, up to 640 or 1920. An output declared `TYPE_UINT8` (and
    the `.astype(np.uint8)` that matches it) keeps each value modulo 256: a box at
    x = 300 comes back at 44, with no error anywhere. Observed on tritonserver 2.51: a
    Python model sending `(np.array([0.5, 0.9]) * 640).astype(np.uint8)` answers
    `[64, 64]` for 320 and 576.

    Bad:
        output [ { name: "BOXES" data_type: TYPE_UINT8 dims: [ -1, 4 ] } ]
        pb_utils.Tensor("BOXES", (boxes * [w, h, w, h]).astype(np.uint8))
    Good:
        output [ { name: "BOXES" data_type: TYPE_INT32 dims: [ -1, 4 ] } ]
        pb_utils.Tensor("BOXES", (boxes * [w, h, w, h]).astype(np.int32))
    """
    # deferred: the reader loads with the first model.py that is checked
    from pbtxt_lint.rules.api import scaled_tensors

    for model in python_models(context):
        declared = {io.name: type_name(io.data_type) for io in model.config.output}
        for scaled in scaled_tensors(model.signature.module):
            kind = declared.get(scaled.name)
            if kind not in _LIMITS:
                continue
            yield Finding(
                f"{model.shown} line {scaled.line} answers output '{scaled.name}' ({kind}, at "
                f"most {_LIMITS[kind]}) with values scaled by {scaled.by}: every value past "
                f"{_LIMITS[kind]} wraps around (NumPy keeps the low byte), so for any image "
                "larger than that the answer is wrong, with HTTP 200",
                file=model.artifact.opened,
                span=line_span(scaled.line),
                hint=f"declare '{scaled.name}' TYPE_INT32 (or TYPE_FP32) and cast to that "
                "type, or send the fractions before scaling",
            )
