"""PL676: a TorchScript output whose element type the code fixes, against the config.

The PyTorch backend checks each output's element type only after forward() ran, on
every request (`ModelInstanceState::ReadOutputTensors` in pytorch_backend's
src/libtorch.cc): "configuration expects datatype TYPE_FP32 for output 'OUTPUT__0',
model provides TYPE_FP16". TorchScript declares no output types, so the model loads;
but its code shows the type when forward() ends in a cast (`torch.to(x, 5, ...)` in
traced code, `x.half()` in scripted code), and its data.pkl names the storage type of
its weights (`HalfStorage` for a model exported after `model.half()`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    WARNING,
    DataType,
    Finding,
    ModelContext,
    Scope,
    Stage,
    rule,
    type_name,
)
from pbtxt_lint.rules.artifacts.torchscript import Torch, named_index, per_torch
from pbtxt_lint.schema.datatypes import protocol_from_config_type

_STORAGE_OF = {"TYPE_FP16": "HalfStorage", "TYPE_BF16": "BFloat16Storage"}
_METHOD_OF = {"TYPE_FP16": "half", "TYPE_BF16": "bfloat16"}
_FLOAT_STORAGES = frozenset({"HalfStorage", "BFloat16Storage", "FloatStorage", "DoubleStorage"})


def _weight_type(storages: frozenset[str]) -> str | None:
    """TYPE_FP16 (or TYPE_BF16) when every floating-point storage data.pkl names is of
    that one reduced type; None otherwise (FP32 weights, a mix, or none named)."""
    floating = storages & _FLOAT_STORAGES
    for config_type, storage in _STORAGE_OF.items():
        if floating == {storage}:
            return config_type
    return None


def _triton(config_type: str) -> str:
    """TYPE_FP16 as the backend prints it (TRITONSERVER_DataTypeString: TYPE_BYTES)."""
    return f"TYPE_{protocol_from_config_type(config_type) or config_type.removeprefix('TYPE_')}"


def _output_index(names: list[str], position: int) -> int | None:
    """The value of forward()'s return an output is bound to (as PL675 binds it)."""
    if all(named_index(name) is not None for name in names):
        return named_index(names[position])
    return position


@rule(
    "PL676",
    "torchscript-output-type",
    WARNING,
    "A config output data_type that differs from the type forward()'s code casts its "
    "result to: every request fails.",
    triton="configuration expects datatype TYPE_FP32 for output 'OUTPUT__0', model provides "
    "TYPE_FP16",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def torchscript_output_type(context: ModelContext) -> Iterator[Finding]:
    """libtorch compares the type of each tensor forward() returned with the output's
    `data_type` after every run, and fails the request when they differ. A model whose
    forward() ends in `.half()` (traced: `torch.to(x, 5, ...)`) returns FP16 while a
    config copied from the FP32 version says TYPE_FP32. Where forward()'s code ends a
    returned value with such a cast, pbtxt-lint compares its type with the config. A
    model exported after `model.half()` (every weight stored as `HalfStorage`) computes
    in FP16 and returns FP16 unless its code converts back, so a TYPE_FP32 output fails
    the same way.

    Bad:
        output [ { name: "OUTPUT__0" data_type: TYPE_FP32 ... } ]
        (forward ends: return torch.to(logits, 5, False, False, None), i.e. FP16)
    Good:
        output [ { name: "OUTPUT__0" data_type: TYPE_FP16 ... } ]
    """

    def check(torch: Torch) -> Iterator[Finding]:
        returned = torch.signature.returned
        weights = _weight_type(torch.signature.storages)
        config = torch.config
        names = [io.name for io in config.output]
        for position, output in enumerate(config.output):
            index = _output_index(names, position)
            cast = (
                returned[index].data_type if index is not None and index < len(returned) else None
            )
            declared = type_name(output.data_type)
            if output.data_type == DataType.TYPE_INVALID:
                continue
            expected = _triton(declared)
            fails = f'every request fails with "configuration expects datatype {expected} for '
            if cast is not None and cast != declared:
                yield Finding(
                    f"output '{output.name}' is {declared}, but value {index} of "
                    f"{torch.forward}() in {torch.file} ends in a cast to {cast}; {fails}"
                    f"output '{output.name}', model provides {_triton(cast)}\"",
                    at=("output", position, "data_type"),
                    hint=f"data_type: {cast} (or convert in the model before returning)",
                )
            elif cast is None and weights is not None and declared == "TYPE_FP32":
                yield Finding(
                    f"output '{output.name}' is TYPE_FP32, but every floating-point weight of "
                    f"{torch.file} is {weights} (data.pkl stores them as "
                    f"{_STORAGE_OF[weights]}: the model was exported after "
                    f"model.{_METHOD_OF[weights]}()), so forward() computes and returns "
                    f"{weights} where its code shows no conversion; {fails}output "
                    f"'{output.name}', model provides {_triton(weights)}\"",
                    at=("output", position, "data_type"),
                    hint=f"data_type: {weights} (and the inputs too), or export the model in "
                    "FP32 / convert the outputs with .float() in forward()",
                )

    yield from per_torch(context, check)
