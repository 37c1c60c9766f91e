"""What the PL2xx topic modules share: the inputs and outputs in Triton's order, and
what the backend's auto-complete may still add to them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pbtxt_lint.rules.api import BACKENDS, FieldPath, ModelConfig, ModelContext, backend_of
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelInstanceGroup, ModelOutput


@dataclass(frozen=True)
class Tensor:
    """One `input` or `output` entry and where it is written."""

    kind: str  # "input" or "output"
    index: int
    io: ModelInput | ModelOutput

    @property
    def path(self) -> FieldPath:
        return (self.kind, self.index)

    @property
    def label(self) -> str:
        if self.io.name:
            return f"{self.kind} '{self.io.name}'"
        return f"{self.kind} #{self.index + 1} (unnamed)"


def tensors(config: ModelConfig) -> Iterator[Tensor]:
    """Every input, then every output: the order Triton validates them in."""
    for index, model_input in enumerate(config.input):
        yield Tensor("input", index, model_input)
    for index, model_output in enumerate(config.output):
        yield Tensor("output", index, model_output)


def first_group_may_be_gpu(config: ModelConfig) -> bool:
    """TensorRT auto-completes only when the first instance group is KIND_GPU
    (`ModelState::AutoCompleteConfig` in tensorrt_backend's src/model_state.cc)."""
    if not config.instance_group:
        return True
    return config.instance_group[0].kind not in (
        ModelInstanceGroup.KIND_CPU,
        ModelInstanceGroup.KIND_MODEL,
    )


def fills_empty_lists(context: ModelContext, config: ModelConfig) -> bool:
    """Does the backend's auto-complete add a missing input or output list from the model?"""
    if not context.auto_complete:
        return False
    backend = backend_of(config)
    entry = BACKENDS.get(backend)
    if entry is None or not entry.fills_empty_io:
        return False
    return backend != "tensorrt" or first_group_may_be_gpu(config)


def may_complete_batching(context: ModelContext, config: ModelConfig) -> bool:
    """May the backend's auto-complete set max_batch_size and add dynamic_batching?

    Backends that fill max_batch_size from the model (TensorRT, OpenVINO, TensorFlow,
    DALI) may always; ONNX Runtime only when the config lacks inputs (and batch
    inputs) or outputs (it skips complete configs).
    """
    if not fills_empty_lists(context, config):
        return False
    if BACKENDS[backend_of(config)].fills_max_batch_size:
        return True
    return not (config.input or config.batch_input) or not config.output
