"""PL667, PL697-PL699: the arrays model.py answers with, against the config.

The Python backend sends the array given to `pb_utils.Tensor(name, array)` as it is:
its NumPy dtype decides the datatype of the answer (python_backend
`pb_stub_utils.cc` numpy_to_triton_type) and its shape the answer's shape; neither is
compared with the config's `data_type` and `dims`. Clients that trust the model
metadata then decode the wrong type or shape, and in an ensemble the next step
refuses the tensor (core `infer_request.cc` Normalize), failing every request. The
values come from `pbtxt_lint.artifacts.python_flow`, a light data flow of `execute`
that starts from the config's inputs; whatever it cannot follow is not judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    INFO,
    WARNING,
    Finding,
    ModelContext,
    Scope,
    config_dims,
    rule,
    type_name,
)
from pbtxt_lint.rules.artifacts.python_common import (
    Consumer,
    answers,
    ensemble_effect,
    full_shape,
    line_span,
    python_models,
    tensor_shape,
)
from pbtxt_lint.schema.datatypes import protocol_from_config_type
from pbtxt_lint.schema.model_config_pb2 import ModelOutput


@rule(
    "PL667",
    "python-output-dtype",
    WARNING,
    "model.py answers an output with a NumPy dtype other than the config's data_type.",
    triton="TritonModelException: NumPy dtype is not supported.",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_output_dtype(context: ModelContext) -> Iterator[Finding]:
    """NumPy picks dtypes the config may not: `np.argmax` and `np.argsort` return
    int64, a softmax of float64 values (`np.array` of Python floats, `/ 255.0` on a
    uint8 image, `np.exp` of ints) is float64, and `np.array` of Python strings is a
    unicode `<U` array. The Python backend sends the array's own dtype: an FP32 output
    comes back as FP64 (HTTP 200; clients that read FP32 get wrong values), the next
    step of an ensemble refuses it, and a `<U` array for a TYPE_STRING output fails
    every request ("NumPy dtype is not supported": strings travel as bytes objects,
    `dtype=np.object_`). Observed on tritonserver 2.51: HTTP 200 with
    `"datatype":"FP64"` for an FP32 output, and HTTP 500 for a `<U` array.

    Bad:
        pb_utils.Tensor("CLASS_ID", np.argmax(probs, axis=1))      (TYPE_INT32)
    Good:
        pb_utils.Tensor("CLASS_ID", np.argmax(probs, axis=1).astype(np.int32))
    """
    # deferred: the NumPy tables load with the first model.py
    from pbtxt_lint.rules.api import SENT_AS

    for model in python_models(context):
        for io, line, value in answers(model):
            if value.dtype is None:
                continue
            declared = type_name(io.data_type)
            sent = SENT_AS.get(value.dtype)
            if sent == declared or declared in ("TYPE_INVALID", "TYPE_BF16"):
                continue
            why = f" ({value.why})" if value.why else ""
            where = f'{model.shown} line {line} answers output "{io.name}"'
            if sent is None:
                message = (
                    f"{where} with a NumPy {value.dtype} array{why}, a dtype the Python backend "
                    f'cannot send: every request fails with HTTP 500 "TritonModelException: '
                    f'NumPy dtype is not supported."'
                )
                hint = (
                    "send strings as bytes objects: np.array([s.encode() for s in texts], "
                    "dtype=np.object_)"
                    if declared == "TYPE_STRING"
                    else f"cast it: .astype(np.{_numpy_name(declared)})"
                )
            else:
                wire, expected = (
                    protocol_from_config_type(sent),
                    protocol_from_config_type(declared),
                )
                message = (
                    f"{where} with a NumPy {value.dtype} array{why}, but the config declares "
                    f"{declared}: the Python backend sends the array's own type, so every "
                    f"answer carries {io.name} as {wire}, not {expected} (HTTP 200), and "
                    f"clients that decode it as {expected} read wrong values"
                )

                def refused(consumer: Consumer, wire: str | None = wire) -> str | None:
                    wanted = protocol_from_config_type(type_name(consumer.input.data_type))
                    if wanted == wire:
                        return None
                    return (
                        f"inference input '{consumer.input.name}' data-type is '{wire}', but "
                        f"model '{consumer.model}' expects '{wanted}'"
                    )

                message += ensemble_effect(context, io.name, refused)
                hint = f"cast before sending: .astype(np.{_numpy_name(declared)})"
            yield Finding(message, file=model.artifact.opened, span=line_span(line), hint=hint)


def _numpy_name(config_type: str) -> str:
    # deferred with the rule: the NumPy tables load with the first model.py
    from pbtxt_lint.rules.api import CONFIG_TO_NUMPY

    name = CONFIG_TO_NUMPY.get(config_type, "float32")
    return "object_" if name == "object" else name


@rule(
    "PL697",
    "python-reshape-one-item",
    WARNING,
    "model.py reshapes a batched input to the shape of one item: batches of 2 fail.",
    triton="ValueError: cannot reshape array of size <n> into shape (<dims>)",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_reshape_one_item(context: ModelContext) -> Iterator[Finding]:
    """With `max_batch_size` > 0 every input arrives with the batch axis first
    (`[batch, 224, 224, 3]`), and a request may carry several items. Reshaping it to
    the literal shape of a single item (`reshape(3, 224, 224)`) works for a batch of 1
    only: any larger batch fails with NumPy's ValueError (observed on tritonserver
    2.51: "cannot reshape array of size 6144 into shape (3,32,32)" for a batch of 2).

    Bad:
        chw = image.transpose(0, 3, 1, 2).reshape(3, 224, 224)
    Good:
        chw = image.transpose(0, 3, 1, 2).reshape(-1, 3, 224, 224)
    """
    for model in python_models(context):
        if model.config.max_batch_size < 2 or not model.flow.complete:
            continue
        for reshape in model.flow.reshapes:
            shape = ",".join(str(d) for d in reshape.shape)
            yield Finding(
                f'{model.shown} line {reshape.line} reshapes input "{reshape.source}" to '
                f"({shape}), the size of exactly one item, but the model batches "
                f"(max_batch_size {model.config.max_batch_size}): a request with a batch of 2 "
                f'fails with HTTP 500 "ValueError: cannot reshape array of size '
                f'{2 * reshape.item_size} into shape ({shape})"',
                file=model.artifact.opened,
                span=line_span(reshape.line),
                hint=f"keep the batch axis: reshape(-1, {', '.join(map(str, reshape.shape))}) "
                "(or process the items one by one)",
            )


def _batched_shape(io: ModelOutput, batch: int | None) -> str:
    dims = [str(d) for d in io.dims]
    if batch is not None:
        dims.insert(0, str(batch))
    return "[" + ",".join(dims) + "]"


@rule(
    "PL698",
    "python-output-drops-batch",
    WARNING,
    "model.py answers a batching model's output without its batch axis.",
    triton="unexpected shape for input '<name>' for model '<model>'. Expected [-1,...], got [...]",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_output_drops_batch(context: ModelContext) -> Iterator[Finding]:
    """With `max_batch_size` > 0, each output must keep the batch axis the inputs came
    with: `[batch, ...dims]`. Indexing it away (`logits[0]`, `image = x.as_numpy()[0]`
    and never putting it back) answers one item where a batch was asked: a request
    with a batch of 2 gets the first item's answer shaped `dims`, the second item
    gets nothing, and the next step of an ensemble refuses the tensor. The Python
    backend does not check output shapes (observed on tritonserver 2.51: HTTP 200
    with LOGITS shaped [10] for a batch of 2).

    Bad:
        pb_utils.Tensor("LOGITS", logits[0])
    Good:
        pb_utils.Tensor("LOGITS", logits)
    """
    for model in python_models(context):
        if not model.batches:
            continue
        for io, line, value in answers(model):
            expected = len(tensor_shape(io)) + 1
            if not value.dropped or value.rank != expected - 1:
                continue
            wanted, got = _batched_shape(io, 2), _batched_shape(io, None)
            if model.config.max_batch_size > 1:
                effect = (
                    f"a request with a batch of 2 gets {io.name} shaped {got} instead of "
                    f"{wanted}: the second item gets no answer (HTTP 200, no error)"
                )
            else:
                effect = (
                    f"every answer has {io.name} shaped {got} where the config promises "
                    f"{_batched_shape(io, 1)} (HTTP 200, no error)"
                )

            def misshaped(consumer: Consumer, got: str = got) -> str | None:
                return (
                    f"unexpected shape for input '{consumer.input.name}' for model "
                    f"'{consumer.model}'. Expected {full_shape(consumer.input, consumer.batched)}"
                    f", got {got}"
                )

            effect += ensemble_effect(context, io.name, misshaped)
            yield Finding(
                f'{model.shown} line {line} answers output "{io.name}" without the batch axis '
                f"(removed by {value.dropped}) although the model batches (max_batch_size "
                f"{model.config.max_batch_size}): {effect}",
                file=model.artifact.opened,
                span=line_span(line),
                hint="keep axis 0: answer the whole batch (or put the axis back with "
                "np.expand_dims(x, 0) when the model takes one item at a time)",
            )


@rule(
    "PL699",
    "python-output-rank",
    WARNING,
    "model.py answers an output with a rank other than the config's dims.",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_output_rank(context: ModelContext) -> Iterator[Finding]:
    """The answer has the shape of the array model.py returns, whatever the config
    says: a model with `max_batch_size: 0` whose input `[3, 224, 224]` is one image
    but whose code treats axis 0 as a batch (`x.reshape(x.shape[0], -1)`, `for img in
    x`) answers one row per colour channel, `[3, 1000]` where the config promises
    `[1000]` (observed on tritonserver 2.51: HTTP 200, shape [3,10] for a [10]
    output). Clients that trust the model metadata misread it, and the next step of
    an ensemble refuses it. Only ranks the data flow knows for sure are compared; a
    mismatch is a warning when the cause is known (axis 0 taken as a batch) or a step
    of an ensemble consumes the output, and info otherwise (the answer's shape
    contradicts the model metadata, which clients may or may not read).

    Bad:
        flat = image.reshape(image.shape[0], -1)     (max_batch_size 0, dims [3, 224, 224])
    Good:
        flat = image.reshape(1, -1)
    """
    for model in python_models(context):
        for io, line, value in answers(model):
            expected = len(tensor_shape(io)) + model.batches
            if value.rank is None or value.rank == expected:
                continue
            if model.batches and value.dropped and value.rank == expected - 1:
                continue  # PL698
            shape = _declared(io, model.batches)
            message = (
                f'{model.shown} line {line} answers output "{io.name}" with a rank-{value.rank} '
                f"array, but the config declares {shape} (rank {expected}"
                f"{', batch axis included' if model.batches else ''})"
            )
            certain = False
            if value.axis0 and not model.batches and value.source:
                source = next((i for i in model.config.input if i.name == value.source), None)
                dims = list(source.dims) if source is not None else []
                first = f" ({dims[0]} of {config_dims(dims)}, not a batch)" if dims else ""
                message += (
                    f': {value.axis0} treats axis 0 of input "{value.source}"{first} as a '
                    "batch, but with max_batch_size 0 each request is one item"
                )
                if dims and value.rank == expected + 1:
                    message += (
                        f", so every answer is shaped [{dims[0]},{','.join(map(str, io.dims))}] "
                        f"instead of {shape} (HTTP 200, no error)"
                    )
                certain = True
            else:
                message += (
                    ": answers do not have the shape the model metadata announces, so clients "
                    "that rely on it misread them"
                )
            effect = ensemble_effect(
                context,
                io.name,
                lambda c: f"unexpected shape for input '{c.input.name}' for model '{c.model}'",
            )
            yield Finding(
                message + effect,
                file=model.artifact.opened,
                span=line_span(line),
                hint=f"return an array shaped {shape} (or fix dims in config.pbtxt)",
                severity=None if certain or effect else INFO,
            )


def _declared(io: ModelOutput, batched: bool) -> str:
    """The output's shape as the model must produce it (reshape.shape when given)."""
    if io.HasField("reshape"):
        dims = list(io.reshape.shape)
        return f"reshape {config_dims(([-1] if batched else []) + dims)}"
    return full_shape(io, batched)
