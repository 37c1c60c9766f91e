"""PL885-PL886: the config against a SavedModel's serving signature.

After loading the SavedModel, the TensorFlow backend completes the config from the
signature (`AutoCompleteHelper` in tensorflow_backend's src/tensorflow.cc: whether the
model batches, missing data types and dims) and validates it
(`savedmodel::ValidateTRITONTFModel`: ragged inputs, sequence control tensors). Names,
counts, types and shapes of plain tensors are PL640-PL643.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pbtxt_lint.artifacts.signature import Dim, TensorSpec
from pbtxt_lint.rules.api import (
    ERROR,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    Scope,
    Stage,
    rule,
)
from pbtxt_lint.rules.artifacts.common import control_tensors, control_type, loaded, shown_path
from pbtxt_lint.rules.tensors.common import may_complete_batching
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput


def _shape(dims: Sequence[Dim] | None) -> str:
    return "unknown" if dims is None else "[" + ",".join(str(d) for d in dims) + "]"


@rule(
    "PL885",
    "tensorflow-signature-refuses",
    ERROR,
    "A ragged input or sequence control tensor that the SavedModel's signature does not "
    "take as the TensorFlow backend requires.",
    triton="configuration specified sequence control '<name>', but model does not provide that "
    "input / unable to load model '<model>', sequence control '<name>': the model expects "
    "TYPE_<X> but the model configuration specifies data-type <TYPE_Y> / unable to load model "
    "'<model>', configuration expects model provides input with shape [-1]  for ragged input "
    "'<name>', model provides <shape>",
    stage=Stage.LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="tensorflow",
)
def tensorflow_signature_refuses(context: ModelContext) -> Iterator[Finding]:
    """Triton feeds START, END, READY and CORRID as inputs: for a SavedModel each control
    tensor must be a key of the serving signature, of shape [1] after the batch dim and of
    the type its `*_false_true` list (or CORRID's data_type) implies. A ragged input
    (`allow_ragged_batch`) is the concatenation of all requests' elements, so the signature
    must take it as [-1]. Otherwise the model fails to load.

    Bad:
        sequence_batching { control_input [ { name: "START"
          control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] } ] }
        (the signature has no input "START")
    Good:
        the signature takes START: int32 [-1, 1]
    """
    config = context.effective
    if config is None or config.backend != "tensorflow":
        return
    batched: bool | None = config.max_batch_size > 0
    if not batched and may_complete_batching(context, config):
        batched = None  # auto-complete may still make it batch
    for artifact, signature in loaded(context, "savedmodel"):
        inputs = {spec.name: spec for spec in signature.inputs}
        where = f"the signature of {shown_path(artifact, context)}"
        for why, at in _control_problems(config, inputs, batched):
            yield Finding(f"{why} in {where}, so '{context.model.name}' fails to load", at=at,
                          hint="name an input of the signature with the control's type and "
                          "shape [1] (after the batch dim), or re-export the model")  # fmt: skip
        for index, tensor in enumerate(config.input):
            spec = inputs.get(tensor.name)
            if not tensor.allow_ragged_batch or spec is None or not spec.shape:
                continue
            if list(spec.shape) != [-1]:
                yield Finding(
                    f"ragged input '{tensor.name}' is {_shape(spec.shape)} in {where}; the "
                    "backend feeds a ragged input as one [-1] tensor, so "
                    f"'{context.model.name}' fails to load",
                    at=("input", index, "allow_ragged_batch"),
                    hint="export the input as a 1-D tensor of any length (shape [-1]), or "
                    "delete allow_ragged_batch",
                )


def _control_problems(
    config: ModelConfig, inputs: dict[str, TensorSpec], batched: bool | None
) -> Iterator[tuple[str, FieldPath]]:
    """(why, path) for each sequence control tensor the signature does not take."""
    controls = config.sequence_batching.control_input
    for i, j, kind, name in control_tensors(config):
        at: FieldPath = ("sequence_batching", "control_input", i, "name")
        spec = inputs.get(name)
        if spec is None:
            yield f"sequence control '{name}' ({kind}) is not an input", at
            continue
        wanted = [-1, 1] if batched else [1]
        if batched is not None and spec.shape is not None and list(spec.shape) != wanted:
            yield (f"sequence control '{name}' is {_shape(spec.shape)}, not {_shape(wanted)},", at)
        expected = control_type(controls[i].control[j])
        if expected and spec.data_type and spec.data_type != expected:
            yield f"sequence control '{name}' is {spec.data_type}, not {expected},", at


@rule(
    "PL886",
    "tensorflow-autofill-fails",
    ERROR,
    "A config the TensorFlow backend's auto-complete refuses against the SavedModel: batching "
    "a signature that cannot batch, tensors that disagree about the batch dim, a scalar "
    "without dims.",
    triton="unable to autofill for '<model>', model tensor configurations are contradicting "
    "each other in terms of whether batching is supported / Unable to autofill for '<model>': "
    "the rank of model tensor '<name>' is 0 and dimensions are not defined",
    stage=Stage.LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="tensorflow",
)
def tensorflow_autofill_fails(context: ModelContext) -> Iterator[Finding]:
    """Unless auto-complete is disabled, the TensorFlow backend completes every config from
    the signature. It refuses a max_batch_size above 0 on a signature whose tensors do not
    all start with a dynamic dim (PL643 compares the dims when the config lists tensors).
    It reads from the dims whether they leave out the batch dim (one fewer than the
    signature's rank) or not, and refuses a config where tensors disagree. It also fills
    missing dims from the signature, which a scalar (rank 0) cannot give.

    Bad:
        input [ { name: "a" dims: [ 16 ] }, { name: "b" dims: [ -1, 16 ] } ]
        (both [-1, 16] in the signature)
    Good:
        max_batch_size: 8
        input [ { name: "a" dims: [ 16 ] }, { name: "b" dims: [ 16 ] } ]
    """
    config = context.effective
    if config is None or config.backend != "tensorflow" or context.strict:
        return
    for artifact, signature in loaded(context, "savedmodel"):
        where = f"the signature of {shown_path(artifact, context)}"
        batch_written = config.max_batch_size > 0 and not (config.input or config.output)
        if batch_written and _supports_batch([*signature.inputs, *signature.outputs]) is False:
            fixed = next(s for s in [*signature.inputs, *signature.outputs] if s.shape)
            yield Finding(
                f"max_batch_size is {config.max_batch_size}, but '{fixed.name}' is "
                f"{_shape(fixed.shape)} in {where}, without a dynamic first (batch) dim: "
                f"the backend's auto-complete refuses '{context.model.name}' (\"configuration "
                f"specified max-batch {config.max_batch_size} but model signature does not "
                'support batching")',
                at=("max_batch_size",),
                hint="set max_batch_size: 0 (and send the full shape), or re-export the model "
                "with a dynamic batch dim",
            )
        contradiction = _batch_hint_contradiction(config, signature.inputs, signature.outputs)
        if contradiction is not None:
            kind, index, tensor, first = contradiction
            yield Finding(
                f"{kind} '{tensor.name}' {_batch_dim_words(len(_dims(tensor)), first)} "
                f"({where}): the backend cannot tell whether '{context.model.name}' batches "
                "and refuses it",
                at=(kind, index, "dims"),
                hint="with max_batch_size > 0 leave the batch dim out of every tensor's dims; "
                "with 0 write every dim",
            )
        for kind, tensors, specs in _sides(config, signature.inputs, signature.outputs):
            by_name = {t.name: (i, t) for i, t in enumerate(tensors)}
            for spec in specs:
                if spec.shape is None or len(spec.shape) != 0:
                    continue
                listed = by_name.get(spec.name)
                if listed is not None and _dims(listed[1]):
                    continue
                if listed is None and tensors:
                    continue
                yield Finding(
                    f"{kind} '{spec.name}' is a scalar (rank 0) in {where} and the config gives "
                    "it no dims, so the backend's auto-complete cannot fill them and "
                    f"'{context.model.name}' fails to load",
                    at=(kind, listed[0]) if listed is not None else (kind,),
                    hint=f"list the {kind} with dims: [ 1 ] and reshape: {{ shape: [ ] }}",
                )


Tensors = Sequence[ModelInput | ModelOutput]


def _sides(
    config: ModelConfig, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
) -> tuple[tuple[str, Tensors, Sequence[TensorSpec]], ...]:
    """(kind, config tensors, signature tensors) for inputs, then outputs."""
    return (("input", config.input, inputs), ("output", config.output, outputs))


def _dims(tensor: ModelInput | ModelOutput) -> list[int]:
    return list(tensor.reshape.shape if tensor.HasField("reshape") else tensor.dims)


def _supports_batch(specs: Sequence[TensorSpec]) -> bool | None:
    """`ModelSupportsBatch` (tensorflow_utils.cc): every tensor a scalar or with a
    dynamic first dim; None when a tensor's rank is unknown."""
    if any(spec.shape is None for spec in specs):
        return None
    return all(not spec.shape or spec.shape[0] == -1 for spec in specs)


def _batch_dim_words(count: int, first: tuple[str, bool]) -> str:
    name, leaves_out = first
    return (
        f"lists {count} dims, {'its full rank' if leaves_out else 'its rank without the batch dim'}"
        f", while '{name}' {'leaves the batch dim out' if leaves_out else 'lists it'}"
    )


def _batch_hint_contradiction(
    config: ModelConfig, inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]
) -> tuple[str, int, ModelInput | ModelOutput, tuple[str, bool]] | None:
    """The first config tensor whose dims contradict an earlier one's about the batch dim,
    as `AutoCompleteHelper::FixBatchingSupport` walks them (inputs, then outputs): the
    tensor, and the earlier tensor's name and whether it left the batch dim out."""
    if _supports_batch([*inputs, *outputs]) is not True:
        return None  # the signature cannot batch (or may not): no hint is read
    if any(t.allow_ragged_batch for t in config.input):
        return None  # a ragged tensor decides batching by itself
    first: tuple[str, bool] | None = None
    for kind, tensors, side in _sides(config, inputs, outputs):
        by_name = {s.name: s for s in side}
        for index, tensor in enumerate(tensors):
            spec = by_name.get(tensor.name)
            dims = _dims(tensor)
            if spec is None or not spec.shape or not dims:
                continue
            leaves_out = len(dims) == len(spec.shape) - 1
            if first is None:
                first = (tensor.name, leaves_out)
            elif first[1] != leaves_out:
                return kind, index, tensor, first
    return None
