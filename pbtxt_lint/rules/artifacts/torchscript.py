"""PL670-PL675: a TorchScript model.pt against the config, from the archive's code.

The PyTorch backend loads model.pt with `torch::jit::load`, binds config inputs to
forward()'s arguments and config outputs to the values it returns (pytorch_backend
ModelInstanceState: ValidateInputs, ValidateOutputs, GetNamingConvention). The reader
(`pbtxt_lint.artifacts.torchscript`) reads forward()'s signature from the archive's
code, never unpickling anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbtxt_lint.analysis.artifacts import VersionArtifact
from pbtxt_lint.rules.api import (
    ERROR,
    INFERENCE,
    LOAD,
    WARNING,
    DataType,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    Scope,
    integer,
    rule,
    type_name,
)
from pbtxt_lint.rules.artifacts.common import control_names, loaded, merge_versions, shown_path

if TYPE_CHECKING:  # the TorchScript reader loads with the first model.pt
    from pbtxt_lint.rules.api import ForwardArg, TorchScriptSignature


@rule(
    "PL670",
    "not-torchscript",
    ERROR,
    "A model.pt that is not TorchScript (a torch.save() pickle, a PT2 archive).",
    triton="failed to load model '<model>': PytorchStreamReader failed locating file "
    "constants.pkl: file not found",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def not_torchscript(context: ModelContext) -> Iterator[Finding]:
    """The libtorch backend loads `model.pt` with `torch::jit::load`, which needs a
    TorchScript archive (code/ and constants.pkl). `torch.save(model)` and
    `torch.save(state_dict)` write pickles of Python objects, which only Python with
    the model's class can load; PT2 archives (`torch.export`, AOTInductor) are served
    by `platform: "torch_aoti"` from `model.pt2`.

    Bad:
        torch.save(model, "model.pt")
    Good:
        torch.jit.script(model).save("model.pt")   (or torch.jit.trace(model, example))
    """
    for artifact, signature in loaded(context, "torchscript"):
        if not signature.not_torchscript:
            continue
        pt2 = "PT2" in signature.not_torchscript
        yield Finding(
            f"{shown_path(artifact, context)} is not TorchScript: {signature.not_torchscript}; "
            'libtorch fails with "PytorchStreamReader failed locating file constants.pkl", '
            f"so Triton fails to load '{context.folder.name}'",
            file=artifact.opened,
            hint='serve it with platform: "torch_aoti" and name it model.pt2'
            if pt2
            else 'save with torch.jit.script(model).save("model.pt") or '
            'torch.jit.trace(model, example_inputs).save("model.pt")',
        )


@dataclass(frozen=True)
class Torch:
    """A loaded TorchScript version whose forward() was read."""

    artifact: VersionArtifact
    signature: TorchScriptSignature
    args: tuple[ForwardArg, ...]
    config: ModelConfig

    @property
    def dict_input(self) -> bool:
        return len(self.args) == 1 and self.args[0].kind == "dict"

    @property
    def file(self) -> str:
        return self.artifact.opened.name

    @property
    def forward(self) -> str:
        return f"{self.signature.root_class.rsplit('.', 1)[-1]}.forward"


def torch_models(context: ModelContext) -> list[Torch]:
    """The loaded TorchScript versions whose forward() signature was read."""
    config = context.effective
    if config is None:
        return []
    return [
        Torch(artifact, signature, signature.forward, config)
        for artifact, signature in loaded(context, "torchscript")
        if signature.forward is not None
    ]


def per_torch(
    context: ModelContext, check: Callable[[Torch], Iterable[Finding]]
) -> Iterator[Finding]:
    return merge_versions(context, ((t.artifact.version, check(t)) for t in torch_models(context)))


def _fed(config: ModelConfig) -> int:
    """What libtorch counts against forward(): inputs, batch inputs, controls, states."""
    return (
        len(config.input)
        + len(config.batch_input)
        + len(control_names(config))
        + len(config.sequence_batching.state)
    )


def named_index(name: str) -> int | None:
    """The <index> of <name>__<index> as libtorch parses it (first "__", digits only)."""
    at = name.find("__")
    if at < 0:
        return None
    rest = name[at + 2 :]
    if rest and not (rest.isascii() and rest.isdigit()):
        return None
    return integer(rest) if rest else 0


def _convention(names: Sequence[str], args: Sequence[str]) -> str:
    """How libtorch binds config inputs to forward() arguments (GetNamingConvention)."""
    if all(name in args for name in names):
        return "forward-argument"
    if all(named_index(name) is not None for name in names):
        return "named-index"
    return "config-order"


def argument_of(torch: Torch) -> dict[int, ForwardArg]:
    """Config input index -> the forward() argument libtorch binds it to."""
    names = [io.name for io in torch.config.input]
    args = [a.name for a in torch.args]
    convention = _convention(names, args)
    bound: dict[int, ForwardArg] = {}
    for index, name in enumerate(names):
        if convention == "forward-argument":
            position: int | None = args.index(name)
        elif convention == "named-index":
            position = named_index(name)
        else:
            position = index
        if position is not None and 0 <= position < len(torch.args):
            bound[index] = torch.args[position]
    return bound


@rule(
    "PL671",
    "torchscript-input-count",
    ERROR,
    "forward() takes another number of inputs than the config feeds.",
    triton="unable to load model '<model>', configuration expects <n> inputs, model provides <k>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def torchscript_input_count(context: ModelContext) -> Iterator[Finding]:
    """libtorch compares forward()'s arguments (self excluded) with the config's inputs
    plus batch inputs, sequence control tensors and states; a model whose forward
    takes a single `Dict[str, Tensor]` is exempt (its keys are the input names).

    Bad:
        input [ { name: "input_ids" ... } ]    (forward(self, input_ids, attention_mask))
    Good:
        input [ { name: "input_ids" ... }, { name: "attention_mask" ... } ]
    """

    def check(torch: Torch) -> Iterator[Finding]:
        config = torch.config
        if torch.dict_input or not torch.args:
            return
        expected = _fed(config)
        if expected == len(torch.args):
            return
        args = [a.name for a in torch.args]
        fed = {io.name for io in config.input}
        unfed = [a for a in args if a not in fed]
        detail = (
            f"{torch.forward}() in {torch.file} takes {len(args)} inputs ({', '.join(args)}) "
            f"but the config feeds {expected}"
        )
        if expected > len(args):
            extra = [io.name for io in config.input if io.name not in args]
            if extra:
                detail += (
                    f" ({', '.join(extra)} {'is' if len(extra) == 1 else 'are'} not an argument)"
                )
        yield Finding(
            f"{detail}; Triton fails with \"unable to load model '{config.name}', "
            f'configuration expects {expected} inputs, model provides {len(args)}"',
            at=("input",),
            hint=f"add input entries for {', '.join(unfed)}"
            if expected < len(args) and unfed
            else f"feed exactly the {len(args)} arguments of forward()",
        )

    yield from per_torch(context, check)


@rule(
    "PL672",
    "torchscript-input-binding",
    WARNING,
    "Config input names that bind to forward() arguments by config order (or by a broken "
    "<name>__<index>).",
    triton="input '<name>' or previous input(s) are neither an input argument to the model "
    "'<model>' nor do they follow the <name>__<index> naming convention. Falling back to "
    "enforcing strict ordering from model configuration.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def torchscript_input_binding(context: ModelContext) -> Iterator[Finding]:
    """libtorch binds config inputs to forward() arguments by argument name when every
    config input is named like an argument, by the index of `<name>__<index>` when every
    name has one, and otherwise, silently or with a log warning, by the order of the
    config. A config that uses argument names for some inputs and other names for the
    rest is bound by order: when that order differs from forward()'s, tensors reach the
    wrong arguments and the model computes garbage without any error. A single input
    cannot go anywhere else, so only a broken `<name>__<index>` is reported for it.

    Bad:
        input [ { name: "attention_mask" ... }, { name: "ids" ... } ]
        (forward(self, input_ids, attention_mask): attention_mask is fed to input_ids)
    Good:
        input [ { name: "input_ids" ... }, { name: "attention_mask" ... } ]
    """

    def check(torch: Torch) -> Iterator[Finding]:
        config = torch.config
        if torch.dict_input or not config.input or _fed(config) != len(torch.args):
            return  # a count mismatch fails the load first (PL671)
        names = [io.name for io in config.input]
        args = [a.name for a in torch.args]
        convention = _convention(names, args)
        if convention == "forward-argument":
            return
        if convention == "named-index":
            yield from _index_problems(torch, names)
            return
        if len(names) < 2:
            return  # one input goes to the one argument, whatever its name
        pairs = [
            f"{name} -> {args[i]}" if i < len(args) else f"{name} -> (no argument {i})"
            for i, name in enumerate(names)
        ]
        swapped = [
            (i, name, args.index(name))
            for i, name in enumerate(names)
            if name in args and args.index(name) != i
        ]
        message = (
            f"input names {', '.join(names)} are neither all forward() argument names "
            f"({', '.join(args)}) nor all <name>__<index>, so Triton binds them by config order: "
            f"{'; '.join(pairs)}"
        )
        if swapped:
            i, name, position = swapped[0]
            message += (
                f'; "{name}" is forward()\'s argument {position} but is fed to argument {i} '
                f"({args[i] if i < len(args) else '?'}): the tensors are swapped without any error"
            )
            at: FieldPath = ("input", i, "name")
        else:
            message += "; a reordered config or re-exported model would swap tensors silently"
            at = ("input",)
        yield Finding(
            message,
            at=at,
            hint="name every input exactly like its forward() argument ("
            + ", ".join(args)
            + "), or use INPUT__0, INPUT__1, ... in argument order",
        )

    yield from per_torch(context, check)


def _index_problems(torch: Torch, names: list[str]) -> Iterator[Finding]:
    """<name>__<index> inputs whose index is past forward()'s arguments or taken twice."""
    count = len(torch.args)
    seen: dict[int, str] = {}
    for i, name in enumerate(names):
        index = named_index(name)
        if index is None:
            continue
        if index >= count:
            yield Finding(
                f'input "{name}" binds to forward() argument {index}, but {torch.forward}() takes '
                f"{count} arguments (0..{count - 1}): the tensor has no argument to go to",
                at=("input", i, "name"),
                hint=f"number the inputs 0..{count - 1} in forward()'s order",
            )
        elif index in seen:
            yield Finding(
                f'input "{name}" binds to forward() argument {index} like "{seen[index]}", so '
                "one argument receives two tensors and another none",
                at=("input", i, "name"),
                hint=f"number the inputs 0..{count - 1} in forward()'s order",
            )
        else:
            seen[index] = name


@rule(
    "PL673",
    "torchscript-argument-type",
    ERROR,
    "A forward() argument libtorch cannot feed (not a Tensor, List or single Dict).",
    triton="An input of type '<type>' was detected in the model. Only a single input of type "
    "Dict(str, Tensor) or input(s) of type Tensor are supported.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def torchscript_argument_type(context: ModelContext) -> Iterator[Finding]:
    """libtorch passes each config input to forward() as a Tensor (or a List[str] for
    TYPE_STRING), or all of them as one `Dict[str, Tensor]`. An argument of another
    type (`int`, `Optional[Tensor]`, `Tuple[...]`) or a Dict next to other arguments
    fails the load.

    Bad:
        def forward(self, x: Tensor, top_k: int)
    Good:
        def forward(self, x: Tensor, top_k: Tensor)
    """

    def check(torch: Torch) -> Iterator[Finding]:
        if torch.dict_input:
            return
        dicts = [a for a in torch.args if a.kind == "dict"]
        if len(dicts) > 1:
            yield Finding(
                f"{torch.forward}() in {torch.file} takes {len(dicts)} Dict arguments "
                f'({", ".join(a.name for a in dicts)}); Triton fails with "Multiple inputs of '
                "kind DictType were detected. Only a single input of type Dict(str, Tensor) is "
                'supported."',
                at=("input",),
                hint="take one Dict[str, Tensor] argument, or separate Tensor arguments",
            )
            return
        bound = argument_of(torch)
        for arg in torch.args:
            if arg.kind in ("tensor", "list"):
                continue
            index = next((i for i, a in bound.items() if a is arg), None)
            yield Finding(
                f"argument `{arg.name}: {arg.annotation}` of {torch.forward}() in {torch.file} "
                'is neither a Tensor nor a List; Triton fails with "An input of type '
                f"'{arg.type.c10}' was detected in the model. Only a single input of type "
                'Dict(str, Tensor) or input(s) of type Tensor are supported."',
                at=("input", index, "name") if index is not None else ("input",),
                hint=f"make {arg.name} a Tensor (wrap scalars: torch.tensor([...]))",
            )

    yield from per_torch(context, check)


@rule(
    "PL674",
    "torchscript-string-argument",
    WARNING,
    "A forward() argument of another type than libtorch passes it: List[str] for a "
    "TYPE_STRING input, a Tensor for every other.",
    triton="PyTorch execute failure: forward() Expected a value of type 'List[Tensor]' for "
    "argument '<name>' but instead found type 'Tensor'.",
    stage=INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def torchscript_string_argument(context: ModelContext) -> Iterator[Finding]:
    """libtorch hands a TYPE_STRING input to forward() as `List[str]` and every other
    type as a Tensor (`ModelInstanceState::SetInputTensors`). The load only checks that
    each argument is a Tensor or some List, so an argument annotated `List[str]` fed a
    numeric input, `List[Tensor]` or `List[int]` fed anything, or a Tensor argument fed
    TYPE_STRING passes the load and fails when TorchScript checks the argument types,
    on every request.

    Bad:
        input [ { name: "text" data_type: TYPE_STRING ... } ]   (forward(self, text: Tensor))
        input [ { name: "x" data_type: TYPE_FP32 ... } ]        (forward(self, x: List[Tensor]))
    Good:
        input [ { name: "text" data_type: TYPE_STRING ... } ]   (forward(self, text: List[str]))
        input [ { name: "x" data_type: TYPE_FP32 ... } ]        (forward(self, x: Tensor))
    """

    def check(torch: Torch) -> Iterator[Finding]:
        if torch.dict_input:
            return
        for index, arg in argument_of(torch).items():
            io = torch.config.input[index]
            if io.data_type == DataType.TYPE_INVALID or arg.kind not in ("tensor", "list"):
                continue  # an argument of another kind fails the load (PL673)
            string = io.data_type == DataType.TYPE_STRING
            if arg.is_string_list if string else arg.kind == "tensor":
                continue
            passed = "List[str]" if string else "Tensor"
            yield Finding(
                f'input "{io.name}" is {type_name(io.data_type)}, so libtorch passes a '
                f"{passed}, but it is bound to argument {arg.name}: {arg.annotation} of "
                f'{torch.forward}() in {torch.file}; every request fails with "PyTorch execute '
                f"failure: forward() Expected a value of type '{arg.type}' for argument "
                f"'{arg.name}' but instead found type '{passed}'.\"",
                at=("input", index, "data_type"),
                hint=_argument_hint(arg, string),
            )

    yield from per_torch(context, check)


def _argument_hint(arg: ForwardArg, string: bool) -> str:
    if string:
        return f"annotate {arg.name}: List[str] in the model"
    if arg.is_string_list:
        return "data_type: TYPE_STRING (the argument is a List[str])"
    return (
        f"take {arg.name} as one Tensor (stack the items on a new axis) and split it in "
        "forward(); libtorch passes no List of Tensors"
    )


@rule(
    "PL675",
    "torchscript-output-index",
    WARNING,
    "A config output whose index is past the values forward() returns: every request fails.",
    triton="The output <name> in the model configuration refers to an output index which "
    "doesn't exist. This model has <n> outputs",
    stage=INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="pytorch",
)
def torchscript_output_index(context: ModelContext) -> Iterator[Finding]:
    """TorchScript outputs have no names: libtorch binds config outputs by the index of
    `<name>__<index>` when every output has one, else by config order. forward()'s
    return annotation says how many values it returns (a Tuple's arity, 1 for a
    Tensor); an output bound past them fails every request after the model ran.

    Bad:
        output [ { name: "logits" ... }, { name: "hidden" ... } ]   (forward -> Tensor)
    Good:
        output [ { name: "logits" ... } ]
    """

    def check(torch: Torch) -> Iterator[Finding]:
        count = torch.signature.output_count
        if count is None:
            return
        names = [io.name for io in torch.config.output]
        indexed = all(named_index(name) is not None for name in names)
        for position, name in enumerate(names):
            index = named_index(name) if indexed else position
            if index is None or index < count:
                continue
            how = "its <name>__<index>" if indexed else "its position in the config"
            returns = torch.signature.returns or "a value"
            yield Finding(
                f'output "{name}" is bound by {how} to output {index}, but {torch.forward}() '
                f"in {torch.file} returns {returns} ({count} output{'s' if count != 1 else ''}); "
                f'every request fails with "The output {name} in the model configuration refers '
                f"to an output index which doesn't exist. This model has {count} outputs\"",
                at=("output", position, "name"),
                hint=f"keep only {count} output{'s' if count != 1 else ''}, or return more values "
                "from forward()",
            )

    yield from per_torch(context, check)
