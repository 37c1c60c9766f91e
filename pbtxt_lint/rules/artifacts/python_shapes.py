"""PL657-PL658: the size of each axis model.py answers with, against the config and the
ensemble steps that read it.

The Python backend sends the array given to `pb_utils.Tensor(name, array)` with its own
shape (python_backend `pb_stub_utils.cc`; server#3989: no output validation after
inference), so a tokenizer that pads to 256 where the config says 128 answers [n,256],
and a resize that keeps the aspect ratio answers a different width for every image.
Triton only notices one step later: an ensemble step whose input has a fixed dim
refuses the tensor (core `infer_request.cc` InferenceRequest::Normalize, "unexpected
shape for input"). The sizes come from `pbtxt_lint.artifacts.python_sizes` through the
value flow of `execute`: a constant the code fixes, or a size computed from the
request's data; an axis the flow cannot follow is never judged. Outputs with a
`reshape` are not compared (their model-side and wire shapes differ).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    INFO,
    WARNING,
    Finding,
    ModelContext,
    Scope,
    config_dims,
    rule,
)
from pbtxt_lint.rules.artifacts.python_common import (
    Consumer,
    PythonModel,
    answers,
    consumers,
    full_shape,
    line_span,
    python_models,
)
from pbtxt_lint.schema.model_config_pb2 import ModelOutput

if TYPE_CHECKING:  # the flow loads with the first model.py
    from pbtxt_lint.rules.api import Dims, Size


def _sized_answers(model: PythonModel) -> Iterator[tuple[ModelOutput, int, Dims]]:
    """(output, line, dims) of each answer whose dims the flow knows and whose rank
    is the config's (a rank mismatch is PL698's or PL699's)."""
    for io, line, value in answers(model):
        if value.dims is None or io.HasField("reshape"):
            continue
        if len(value.dims) == len(io.dims) + model.batches:
            yield io, line, value.dims


def _fixed_dims(consumer: Consumer) -> list[int | None] | None:
    """The consumer's dims as it checks them, batch axis first (None: any size)."""
    if consumer.input.HasField("reshape"):
        return None
    dims: list[int | None] = [d if d >= 0 else None for d in consumer.input.dims]
    return [None, *dims] if consumer.batched else dims


def _example(dims: Dims, one: bool = True) -> str:
    """The shape of an answer as Triton prints it: `[1,256]` for a request with a batch
    of 1 (`[n,256]` with `one` False; `n` for a size the request decides, `?` for one
    the flow does not know)."""
    shown = []
    for size in dims:
        if size is None:
            shown.append("?")
        elif size.constant is not None:
            shown.append(str(size.constant))
        else:
            shown.append("1" if size.is_batch and one else "n")
    return "[" + ",".join(shown) + "]"


def _refusal(consumer: Consumer, got: str) -> str:
    return (
        f"in ensemble '{consumer.ensemble}', unexpected shape for input "
        f"'{consumer.input.name}' for model '{consumer.model}'. Expected "
        f"{full_shape(consumer.input, consumer.batched)}, got {got}"
    )


def _axes(axes: Sequence[int]) -> str:
    listed = [str(a) for a in axes]
    if len(listed) == 1:
        return f"axis {listed[0]}"
    return f"axes {', '.join(listed[:-1])} and {listed[-1]}"


@rule(
    "PL657",
    "python-output-size-constant",
    WARNING,
    "model.py fixes an output axis to a size other than the config's or the next step's.",
    triton="unexpected shape for input '<name>' for model '<model>'. "
    "Expected [-1,128], got [1,256]",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_output_size_constant(context: ModelContext) -> Iterator[Finding]:
    """The Python backend sends the array model.py builds, whatever dims the config
    declares. A constant in the code that disagrees with a fixed dim (a tokenizer that
    pads to `MAX_LENGTH = 256` where the config and the BERT step after it say 128)
    makes every answer contradict the model metadata: a direct request gets HTTP 200
    with the code's shape (observed on tritonserver 2.51: `[2,256]` for an output
    declared `[-1,128]`), and in an ensemble the next step refuses it on every
    request: `in ensemble 'ticket_router', unexpected shape for input 'input_ids' for
    model 'bert_router'. Expected [-1,128], got [1,256]` (HTTP 400). Only sizes the code
    fixes are compared: literals, module constants, `self.` attributes set once, a
    tokenizer's `max_length` with `padding="max_length"` and `truncation=True`, the
    `dsize` of `cv2.resize`, and the fixed dims of the inputs.

    Bad:
        MAX_LENGTH = 256                                   (config: dims [ 128 ])
        ids = np.zeros((len(texts), MAX_LENGTH), dtype=np.int64)
    Good:
        MAX_LENGTH = 128
        ids = np.zeros((len(texts), MAX_LENGTH), dtype=np.int64)
    """
    for model in python_models(context):
        for io, line, dims in _sized_answers(model):
            offset = int(model.batches)
            mismatched = [
                (axis + offset, dims[axis + offset], dim)
                for axis, dim in enumerate(io.dims)
                if dim >= 0 and _constant(dims[axis + offset]) not in (None, dim)
            ]
            refused = _constant_refusals(context, io.name, dims)
            if not mismatched and not refused:
                continue
            shape = full_shape(io, model.batches)
            where = f'{model.shown} line {line} answers output "{io.name}"'
            if mismatched:
                axis, size, dim = mismatched[0]
                assert size is not None
                message = (
                    f"{where} with axis {axis} of size {size.constant} where the config declares "
                    f"{shape}{_origin(size)}. Every answer has {io.name} shaped "
                    f"{_example(dims, one=False)} although the model metadata promises {shape} "
                    "(HTTP 200, no error)"
                )
                hint = (
                    f"make the code produce {dim} on axis {axis}, or declare the size it "
                    f"produces in config.pbtxt (dims {_dims_with(io, axis - offset, size)})"
                )
            else:
                consumer, axis, size, dim = refused[0]
                message = (
                    f"{where} with axis {axis} of size {size.constant} where ensemble "
                    f"'{consumer.ensemble}' feeds it to '{consumer.model}', whose input "
                    f"'{consumer.input.name}' is {full_shape(consumer.input, consumer.batched)}"
                    f"{_origin(size)}"
                )
                hint = (
                    f"make the code produce {dim} on axis {axis}, or change the dims of "
                    f"'{consumer.model}' input '{consumer.input.name}' to what it gets"
                )
            if refused:
                consumer = refused[0][0]
                message += (
                    f". In ensemble '{consumer.ensemble}' the step "
                    f"'{consumer.model}' then fails every request with HTTP 400: "
                    f'"{_refusal(consumer, _example(dims))}"'
                )
            yield Finding(message, file=model.artifact.opened, span=line_span(line), hint=hint)


def _origin(size: Size) -> str:
    """'; the size comes from MAX_LENGTH = 256 (line 5)'."""
    return f"; the size comes from {size.why}" if size.why else ""


def _constant(size: Size | None) -> int | None:
    return size.constant if size is not None else None


def _dims_with(io: ModelOutput, axis: int, size: Size) -> str:
    dims = list(io.dims)
    if 0 <= axis < len(dims) and size.constant is not None:
        dims[axis] = size.constant
    return config_dims(dims)


def _constant_refusals(
    context: ModelContext, output: str, dims: Dims
) -> list[tuple[Consumer, int, Size, int]]:
    """(consumer, axis, size, its dim) for each ensemble step whose fixed dim differs
    from a size the code fixes."""
    found = []
    for consumer in consumers(context, output):
        fixed = _fixed_dims(consumer)
        if fixed is None or len(fixed) != len(dims):
            continue
        for axis, (size, dim) in enumerate(zip(dims, fixed, strict=True)):
            if dim is not None and size is not None and size.constant not in (None, dim):
                found.append((consumer, axis, size, dim))
                break
    return found


@rule(
    "PL658",
    "python-output-size-from-request",
    WARNING,
    "model.py sizes an output axis from the request where the next step wants a fixed size.",
    triton="unexpected shape for input '<name>' for model '<model>'. Expected [-1,3,224,224], "
    "got [1,3,224,299]",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_output_size_from_request(context: ModelContext) -> Iterator[Finding]:
    """A preprocessing step that resizes the short side to 224 and keeps the aspect
    ratio, a tokenizer that pads to the longest text of the request, a filter that
    keeps the boxes above a threshold: each answers an axis whose size the request
    decides. The config may say so honestly (`dims: [ 3, -1, -1 ]`), but an ensemble
    step that reads the tensor with a fixed dim accepts only the requests where the
    size happens to match, and fails the rest with HTTP 400 (observed on tritonserver
    2.51 for a 480x640 image: `in ensemble 'classify_image', unexpected shape for input
    'input' for model 'resnet50'. Expected [-1,3,224,224], got [1,3,224,299]`). Without
    such a step, a fixed dim in the model's own config that the code sizes from the
    request is reported as info: answers then contradict the model metadata on those
    requests. The evidence is the code: a size derived from an input's variable dims,
    its values or the batch size, never a guess.

    Bad:
        nh, nw = round(h * scale), round(w * scale)        (next step: dims [ 3, 224, 224 ])
        image = cv2.resize(image, (nw, nh))
    Good:
        image = cv2.resize(image, (224, 224))
    """
    for model in python_models(context):
        for io, line, dims in _sized_answers(model):
            where = f'{model.shown} line {line} answers output "{io.name}"'
            found = False
            for consumer in consumers(context, io.name):
                fixed = _fixed_dims(consumer)
                if fixed is None or len(fixed) != len(dims):
                    continue
                varying = _varying(dims, fixed)
                if not varying:
                    continue
                found = True
                axes = [axis for axis, _ in varying]
                message = (
                    f"{where} with {_axes(axes)} sized by the request ({_sources(dims, axes)}), "
                    f"but ensemble '{consumer.ensemble}' feeds it to '{consumer.model}', whose "
                    f"input '{consumer.input.name}' is "
                    f"{full_shape(consumer.input, consumer.batched)}: requests fail with HTTP "
                    f"400 unless {_unless(varying)}: "
                    f'"{_refusal(consumer, _example(dims))}"'
                )
                yield Finding(
                    message,
                    file=model.artifact.opened,
                    span=line_span(line),
                    hint=f"give {_axes(axes)} the fixed size the step reads (resize, pad or crop "
                    "to it), or let the step accept any size (-1)",
                )
                break
            if found:
                continue
            own = [None, *io.dims] if model.batches else list(io.dims)
            varying = _varying(dims, [d if d is not None and d >= 0 else None for d in own])
            if varying:
                axes = [axis for axis, _ in varying]
                yield Finding(
                    f"{where} with {_axes(axes)} sized by the request ({_sources(dims, axes)}), "
                    f"but the config declares {full_shape(io, model.batches)}: unless "
                    f"{_unless(varying)}, the answer does not have the shape the model metadata "
                    "announces (HTTP 200, no error)",
                    file=model.artifact.opened,
                    span=line_span(line),
                    hint="give the axis the declared size (resize, pad or crop), or declare it "
                    "variable (-1)",
                    severity=INFO,
                )


def _varying(dims: Dims, fixed: Sequence[int | None]) -> list[tuple[int, int]]:
    """(axis, fixed dim) of the axes whose size the request decides where `fixed` wants
    one size."""
    return [
        (axis, dim)
        for axis, (size, dim) in enumerate(zip(dims, fixed, strict=True))
        if dim is not None and size is not None and size.from_request
    ]


def _sources(dims: Dims, axes: Sequence[int]) -> str:
    """Where each of those axes gets its size: 'round(h * scale) (line 13); ...'."""
    described = []
    for axis in axes:
        size = dims[axis]
        text = "the batch size" if size is not None and size.is_batch else (
            size.why if size is not None and size.why else "computed from the request"
        )  # fmt: skip
        text = re.sub(r" \(line (\d+)\)$", r" at line \1", text)
        if text not in described:
            described.append(text)
    return "; ".join(described)


def _unless(varying: Sequence[tuple[int, int]]) -> str:
    """'axis 2 comes out as 224 and axis 3 as 224'."""
    parts = [f"axis {axis} comes out as {dim}" if index == 0 else f"axis {axis} as {dim}"
             for index, (axis, dim) in enumerate(varying)]  # fmt: skip
    return " and ".join(parts)
