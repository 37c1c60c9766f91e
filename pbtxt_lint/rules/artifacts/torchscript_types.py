"""PL676: a TorchScript output whose element type the code fixes, against the config.

The PyTorch backend checks each output's element type only after forward() ran, on
every request (`ModelInstanceState::ReadOutputTensors` in pytorch_backend's
src/libtorch.cc): "configuration expects datatype TYPE_FP32 for output 'OUTPUT__0',
model provides TYPE_FP16". TorchScript declares no output types, so the model loads;
but its code shows the type when forward() ends in a cast (`torch.to(x, 5, ...)` in
traced code, `x.half()` in scripted code).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.torchscript import Torch, named_index, per_torch
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import type_name
from pbtxt_lint.schema import DataType
from pbtxt_lint.schema.datatypes import protocol_from_config_type

WARNING = Severity.WARNING


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
)
def torchscript_output_type(context: ModelContext) -> Iterator[Finding]:
    """libtorch compares the type of each tensor forward() returned with the output's
    `data_type` after every run, and fails the request when they differ. A model whose
    forward() ends in `.half()` (traced: `torch.to(x, 5, ...)`) returns FP16 while a
    config copied from the FP32 version says TYPE_FP32. Where forward()'s code ends a
    returned value with such a cast, pbtxt-lint compares its type with the config.

    Bad:
        output [ { name: "OUTPUT__0" data_type: TYPE_FP32 ... } ]
        (forward ends: return torch.to(logits, 5, False, False, None), i.e. FP16)
    Good:
        output [ { name: "OUTPUT__0" data_type: TYPE_FP16 ... } ]
    """

    def check(torch: Torch) -> Iterator[Finding]:
        returned = torch.signature.returned
        if not returned:
            return
        config = torch.config
        names = [io.name for io in config.output]
        for position, output in enumerate(config.output):
            index = _output_index(names, position)
            if index is None or index >= len(returned):
                continue
            made = returned[index].data_type
            declared = type_name(output.data_type)
            if made is None or output.data_type == DataType.TYPE_INVALID or made == declared:
                continue
            expected = _triton(declared)
            yield Finding(
                f"output '{output.name}' is {declared}, but value {index} of {torch.forward}() "
                f"in {torch.file} ends in a cast to {made}; every request fails with "
                f"\"configuration expects datatype {expected} for output '{output.name}', "
                f'model provides {_triton(made)}"',
                at=("output", position, "data_type"),
                hint=f"data_type: {made} (or convert in the model before returning)",
            )

    yield from per_torch(context, check)
