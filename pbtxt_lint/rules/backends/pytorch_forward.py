"""PL863-PL865: what forward() takes and returns, against what the PyTorch backend passes.

At load the libtorch backend only checks the kinds of forward()'s arguments (Tensor,
List, one Dict: PL671-PL673). What it passes and reads back on each request is fixed
(pytorch_backend src/libtorch.cc, `ModelInstanceState::Execute` and `ReadOutputTensors`):
a Dict of Tensors keyed by the config's names, and a Tensor or a List[str] for each
returned value. The archive's code (`pbtxt_lint.artifacts.torchscript_code`) shows
forward()'s declared types, so a mismatch is known before the first request fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    WARNING,
    DataType,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    Scope,
    Stage,
    rule,
    shorten,
    suggest,
)
from pbtxt_lint.rules.artifacts.common import control_names
from pbtxt_lint.rules.artifacts.torchscript import Torch, named_index, per_torch
from pbtxt_lint.rules.backends.pytorch_naming import is_torchscript

if TYPE_CHECKING:  # the TorchScript reader loads with the first model.pt
    from pbtxt_lint.rules.api import TorchType

_TAGS = {
    "Tuple": "Tuple",
    "Dict": "GenericDict",
    "List": "GenericList",
    "int": "Int",
    "float": "Double",
    "bool": "Bool",
    "str": "String",
    "NoneType": "None",
    "complex": "ComplexDouble",
}
"""c10::IValue tag names (`IValue::tagKind`), as `toTensor()` prints them: "Expected Tensor
but got Tuple"."""
_NOT_RETURNABLE = (
    "output must be of type Tensor, List[str] or Tuple containing one of these two types. "
    "It should not be a List / Dictionary of Tensors or a Scalar"
)


def dict_keys(config: ModelConfig) -> list[str]:
    """The keys of the Dict the backend passes a one-Dict forward(): every name it maps to
    a tensor (inputs, sequence controls, state inputs, batch inputs), verbatim."""
    names = [io.name for io in config.input]
    names += control_names(config)
    names += [state.input_name for state in config.sequence_batching.state]
    names += [target for batch in config.batch_input for target in batch.target_name]
    return names


@rule(
    "PL863",
    "torchscript-dict-input",
    WARNING,
    "A forward() taking a Dict that reads keys the config does not name, is not "
    "Dict[str, Tensor], or is fed TYPE_STRING: every request fails.",
    triton="PyTorch execute failure: The following operation failed in the TorchScript "
    "interpreter. ... RuntimeError: KeyError: <key>",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def torchscript_dict_input(context: ModelContext) -> Iterator[Finding]:
    """When forward() takes a single Dict, the PyTorch backend builds a
    `Dict[str, Tensor]` whose keys are the config's input names exactly as written
    (plus sequence controls, states and batch inputs), and passes it on every request.
    A key forward() reads that the config does not name fails every request with
    `KeyError`; a Dict of another type (`Dict[str, List[str]]`) fails TorchScript's
    argument check; a TYPE_STRING input cannot go into a Dict of Tensors ("Expected
    Tensor but got GenericList").

    Bad:
        input [ { name: "INPUT__0" ... } ]   (forward reads inputs["input_ids"])
    Good:
        input [ { name: "input_ids" ... } ]
    """

    def check(torch: Torch) -> Iterator[Finding]:
        if not torch.dict_input:
            return
        arg = torch.args[0]
        config = torch.config
        if str(arg.type) != "Dict[str, Tensor]":
            yield Finding(
                f"forward() in {torch.file} takes {arg.name}: {arg.annotation}, but the PyTorch "
                'backend passes a Dict[str, Tensor]; every request fails with "PyTorch execute '
                f"failure: forward() Expected a value of type '{arg.type}' for argument "
                f"'{arg.name}' but instead found type 'Dict(str, Tensor)'.\"",
                at=("input",),
                hint=f"annotate {arg.name}: Dict[str, Tensor] in the model",
            )
            return
        for index, io in enumerate(config.input):
            if io.data_type == DataType.TYPE_STRING:
                yield Finding(
                    f'input "{io.name}" is TYPE_STRING, but forward() in {torch.file} takes one '
                    "Dict[str, Tensor], which cannot hold strings; every request fails with "
                    '"PyTorch execute failure: Expected Tensor but got GenericList"',
                    at=("input", index, "data_type"),
                    hint="feed the model numbers (token ids) from a tokenizer step in front of "
                    "it, or take separate arguments with the strings as a List[str]",
                )
        names = dict_keys(config)
        reported: set[str] = set()
        for key in torch.signature.dict_keys:
            if key.key in names or key.key in reported:
                continue
            reported.add(key.key)
            near = suggest(key.key, names)
            yield Finding(
                f'forward() in {torch.file} reads {arg.name}["{shorten(key.key)}"] (line '
                f"{key.line} of {torch.signature.code_file.split('/', 1)[-1]}), but the PyTorch "
                "backend keys the Dict by the config's input names verbatim "
                f"({', '.join(names) or 'none'}); every request fails with "
                f'"KeyError: {shorten(key.key)}"',
                at=("input", names.index(near), "name")
                if near is not None and near in [io.name for io in config.input]
                else ("input",),
                hint=f'rename input "{near}" to "{key.key}"'
                if near is not None
                else f'add an input named "{key.key}"',
            )

    if is_torchscript(context.effective):
        yield from per_torch(context, check)


def _return_problems(returns: TorchType) -> list[tuple[int | None, str]]:
    """(value index or None for the whole return, what the backend prints) for each
    returned value `Execute` refuses; Optional values and classes (a NamedTuple is a
    tuple) are left out, since whether they fail depends on what forward() returns."""
    if returns.name in ("Tensor", "Optional", "Any") or returns.name.startswith("__torch__"):
        return []
    if returns.name == "List":
        element = returns.element
        if element is None or element.name == "str":
            return []
        return [(None, f"output must be of type Tensor or List[str], received List[{element.c10}]")]
    if returns.name != "Tuple":
        return [(None, _NOT_RETURNABLE)]
    problems: list[tuple[int | None, str]] = []
    for index, value in enumerate(returns.args):
        if value.name == "List" and value.element is not None and value.element.name != "str":
            problems.append(
                (
                    index,
                    f"output at index {index} must be of type Tensor or List[str], received "
                    f"List[{value.element.c10}]",
                )
            )
        elif value.name in _TAGS and value.name != "List":
            problems.append((index, f"Expected Tensor but got {_TAGS[value.name]}"))
    return problems


@rule(
    "PL864",
    "torchscript-return-type",
    WARNING,
    "A forward() that returns something other than Tensors and List[str]: every request fails.",
    triton="PyTorch execute failure: output must be of type Tensor or List[str], received "
    "List[Tensor]",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def torchscript_return_type(context: ModelContext) -> Iterator[Finding]:
    """The PyTorch backend reads forward()'s result as one Tensor, one List[str], or a
    Tuple of those; anything else fails every request after the model ran: a
    `List[Tensor]` ("output must be of type Tensor or List[str], received
    List[Tensor]"), a Dict or a scalar ("output must be of type Tensor, List[str] or
    Tuple containing one of these two types"), or a Tuple holding a List[Tensor], a
    Dict, a nested Tuple or a number ("Expected Tensor but got GenericDict"). The
    model loads, since TorchScript declares no output types to check.

    Bad:
        def forward(self, x: Tensor) -> Dict[str, Tensor]
    Good:
        def forward(self, x: Tensor) -> Tuple[Tensor, Tensor]
    """

    def check(torch: Torch) -> Iterator[Finding]:
        returns = torch.signature.return_type
        if returns is None:
            return
        for index, printed in _return_problems(returns):
            what = f"value {index} of its {returns}" if index is not None else str(returns)
            yield Finding(
                f"forward() in {torch.file} returns {what}, which the PyTorch backend cannot "
                f'send; every request fails with "PyTorch execute failure: {printed}"',
                at=_output_at(torch.config, index),
                hint="return Tensors (or List[str]) from forward(), one per output, in a Tuple "
                "when there are several: return (logits, boxes) rather than a Dict or List",
            )

    if is_torchscript(context.effective):
        yield from per_torch(context, check)


def _output_at(config: ModelConfig, index: int | None) -> FieldPath:
    """The config output bound to value `index` (as PL675 binds them), else the list."""
    if index is None:
        return ("output",)
    names = [io.name for io in config.output]
    indexed = all(named_index(name) is not None for name in names)
    for position, name in enumerate(names):
        if (named_index(name) if indexed else position) == index:
            return ("output", position, "name")
    return ("output",)


@rule(
    "PL865",
    "pytorch-string-output-batched",
    WARNING,
    "A PyTorch model that returns a List[str] and batches requests: each response of a "
    "batch gets the first request's strings.",
    triton="(no message: every response of a batch is filled from the start of the list)",
    stage=Stage.INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def pytorch_string_output_batched(context: ModelContext) -> Iterator[Finding]:
    """For a List[str] output the PyTorch backend fills each response of a batch with the
    list's elements from the first one on (`ReadOutputTensors` in pytorch_backend's
    src/libtorch.cc takes as many elements as that request's batch size, always from
    element 0). With one request per execution that is right; when the dynamic or
    sequence batcher combines requests, every request after the first of a batch gets
    the first request's strings instead of its own, silently.

    Bad:
        max_batch_size: 8  dynamic_batching { }   (forward returns List[str])
    Good:
        max_batch_size: 0                         (or return a Tensor of token ids)
    """

    def check(torch: Torch) -> Iterator[Finding]:
        returns = torch.signature.return_type
        config = torch.config
        if returns is None or config.max_batch_size <= 0:
            return
        batcher = next(
            (f for f in ("dynamic_batching", "sequence_batching") if config.HasField(f)), None
        )
        if batcher is None:
            return
        values = list(returns.args) if returns.name == "Tuple" else [returns]
        for index, value in enumerate(values):
            if not value.is_string_list:
                continue
            at = _output_at(config, index if returns.name == "Tuple" else 0)
            yield Finding(
                f"forward() in {torch.file} returns a List[str] (value {index}) and model "
                f"'{config.name}' batches requests ({batcher}, max_batch_size "
                f"{config.max_batch_size}): the PyTorch backend fills every response of a "
                "batch from the start of the list, so each request after the first in a "
                "batch gets the first request's strings instead of its own",
                at=at,
                hint="serve it without batching (max_batch_size: 0, no dynamic_batching), or "
                "return token ids as a Tensor and decode them in a Python model",
            )

    if is_torchscript(context.effective):
        yield from per_torch(context, check)
