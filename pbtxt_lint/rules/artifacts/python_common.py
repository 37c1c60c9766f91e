"""What the model.py rules (PL663-PL669, PL691-PL699) share: the loaded model.py files
with the config the Python backend serves them with, the value flow of each, and how
shapes and ensemble consumers are described.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

from pbtxt_lint.analysis.artifacts import VersionArtifact
from pbtxt_lint.analysis.tensors import ModelTensors, model_tensors
from pbtxt_lint.rules.api import ModelConfig, ModelContext, Span, type_name
from pbtxt_lint.rules.artifacts.common import loaded
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput

if TYPE_CHECKING:  # the Python model reader loads with the first model.py
    from pbtxt_lint.rules.api import Arr, Flow, PythonSignature


@dataclass(frozen=True)
class PythonModel:
    """A loaded version's model.py and the config Triton serves it with."""

    artifact: VersionArtifact
    signature: PythonSignature
    config: ModelConfig
    """After auto-complete (model.py's auto_complete_config, when emulated)."""
    tensors: ModelTensors
    shown: str
    """`<model>/<version>/model.py`, as diagnostics show it."""

    @cached_property
    def flow(self) -> Flow:
        """The value flow of model.py's execute under this config."""
        # deferred: the flow analysis loads with the first model.py rule that needs it
        from pbtxt_lint.rules.api import CONFIG_TO_NUMPY, InputFacts, analyse_flow

        config = self.config
        batched = config.max_batch_size > 0
        inputs = {}
        for io in config.input:
            shape = tensor_shape(io)
            fixed = all(d >= 0 for d in shape)
            inputs[io.name] = InputFacts(
                CONFIG_TO_NUMPY.get(type_name(io.data_type)),
                len(shape) + batched,
                math.prod(shape) if fixed else None,
                batched,
                tuple(shape),
            )
        outputs = {io.name: CONFIG_TO_NUMPY.get(type_name(io.data_type)) for io in config.output}
        return analyse_flow(self.signature.module, inputs, outputs)

    @property
    def decoupled(self) -> bool:
        return self.config.model_transaction_policy.decoupled

    @property
    def batches(self) -> bool:
        return self.config.max_batch_size > 0

    @property
    def several_requests(self) -> bool:
        """Whether one execute call can get several requests: a batcher that groups
        them (dynamic or sequence batching) on a model that batches. The default
        scheduler hands a model one request at a time."""
        config = self.config
        grouped = config.HasField("dynamic_batching") or config.HasField("sequence_batching")
        return grouped and config.max_batch_size > 0


def python_models(context: ModelContext) -> list[PythonModel]:
    """The loaded versions' parsed model.py files whose completed config is known
    (inputs and outputs included), computed once per model."""
    return context.shared(_python_models)


def _python_models(context: ModelContext) -> list[PythonModel]:
    found = []
    for artifact, signature in loaded(context, "python"):
        if not signature.parsed:
            continue
        completed = context.completed_for(artifact.version)
        config = completed.config
        if config is None or completed.error is not None or not completed.io_known:
            continue
        shown = artifact.opened.relative_to(context.folder.path.parent).as_posix()
        found.append(PythonModel(artifact, signature, config, model_tensors(config), shown))
    return found


def tensor_shape(io: ModelInput | ModelOutput) -> list[int]:
    """The shape the model itself sees: reshape.shape if given, else dims (no batch)."""
    return list(io.reshape.shape) if io.HasField("reshape") else list(io.dims)


def full_shape(io: ModelInput | ModelOutput, batched: bool) -> str:
    """The shape as Triton prints it, batch dim first: `[-1,3,224,224]`."""
    dims = [-1, *io.dims] if batched else list(io.dims)
    return "[" + ",".join(str(d) for d in dims) + "]"


def line_span(line: int) -> Span | None:
    return Span.point(line, 1) if line > 0 else None


@dataclass(frozen=True)
class Consumer:
    """An ensemble step that reads one of this model's outputs."""

    ensemble: str
    model: str
    input: ModelInput
    batched: bool
    """The consumer's max_batch_size is > 0 (Triton then expects the batch dim first)."""


def consumers(context: ModelContext, output: str) -> Iterator[Consumer]:
    """The ensemble steps of this repository that take `output` of this model as input
    (through the ensemble tensor its step maps it to)."""
    yield from context.shared(_consumers).get(output, ())


def _consumers(context: ModelContext) -> dict[str, list[Consumer]]:
    """Every output of this model that ensemble steps read, with those steps: one walk
    of the ensembles running it per model, however many rules and outputs ask."""
    from pbtxt_lint.analysis.ensemble import graphs_running  # deferred: with an ensemble

    found: dict[str, list[Consumer]] = {}
    for graph in graphs_running(context):
        ensemble = graph.config.name or graph.name
        for step in graph.steps_running(context.folder.name):
            for write in step.writes:
                for read in graph.readers_of(write):
                    assert read.step is not None
                    target = context.workspace.model(read.step.model_name)
                    config = target.completed.config if target is not None else None
                    if config is None:
                        continue
                    batched = config.max_batch_size > 0
                    for io in config.input:
                        if io.name == read.port:
                            consumer = Consumer(ensemble, read.step.model_name, io, batched)
                            found.setdefault(write.port, []).append(consumer)
    return found


class Answer(NamedTuple):
    """A `pb_utils.Tensor` of model.py that reaches a response, as the flow knows it."""

    output: ModelOutput
    """The config's output of that name."""
    line: int
    array: Arr
    """The abstract NumPy array it sends (dtype, rank, axis sizes, batch axis)."""


def answers(model: PythonModel) -> Iterator[Answer]:
    """Each Tensor that reaches a response and whose value the flow follows."""
    flow = model.flow
    if not flow.complete:
        return
    facts = model.signature.execute_facts
    reaching = facts.response_tensors - facts.bls_tensors
    outputs = {io.name: io for io in model.config.output}
    for out in flow.outputs:
        io = outputs.get(out.name)
        if io is None or out.value is None or (out.line, out.column) not in reaching:
            continue
        yield Answer(io, out.line, out.value)


def ensemble_effect(
    context: ModelContext, output: str, describe: Callable[[Consumer], str | None]
) -> str:
    """'; in ensemble E the next step M then fails every request: "<its message>"' for
    the first ensemble step that reads `output` and refuses it (`describe` gives the
    consumer's message, None when that consumer accepts the tensor)."""
    for consumer in consumers(context, output):
        said = describe(consumer)
        if said is not None:
            return (
                f"; in ensemble '{consumer.ensemble}' the next step '{consumer.model}' then "
                f"fails every request: \"in ensemble '{consumer.ensemble}', {said}\""
            )
    return ""
