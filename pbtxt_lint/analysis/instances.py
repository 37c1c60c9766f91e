"""The instance groups Triton makes of a config on the target host.

Triton normalises the instance groups after it has found the backend library
(`NormalizeInstanceGroup` in core's model_config_utils.cc): it adds a default group
when there is none, resolves KIND_AUTO against the GPUs present and fills default
counts. Every check about devices reads the result of that emulation here.
"""

from __future__ import annotations

from dataclasses import dataclass

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.schema.model_config_pb2 import ModelInstanceGroup
from pbtxt_lint.textproto.sourcemap import FieldPath
from pbtxt_lint.triton.autofill import is_ensemble

AUTO, GPU, CPU, MODEL = (
    ModelInstanceGroup.KIND_AUTO,
    ModelInstanceGroup.KIND_GPU,
    ModelInstanceGroup.KIND_CPU,
    ModelInstanceGroup.KIND_MODEL,
)


def kind_name(kind: int) -> str:
    """KIND_GPU ... for a declared kind; the number for an undeclared one (open enum)."""
    if kind in ModelInstanceGroup.Kind.values():
        return str(ModelInstanceGroup.Kind.Name(kind))
    return str(kind)


@dataclass(frozen=True)
class Group:
    """One instance group as Triton normalises it."""

    index: int | None
    """Position in `instance_group`; None for the default group Triton adds."""
    name: str
    written: int
    """The kind as written (KIND_AUTO when left out)."""
    kind: int | None
    """The kind after `NormalizeInstanceGroup`; None when it depends on an unknown host."""
    gpus: tuple[int, ...]

    def at(self, *rest: str | int) -> FieldPath | None:
        return ("instance_group", self.index, *rest) if self.index is not None else None

    @property
    def label(self) -> str:
        return f"instance group '{self.name}'"


def _auto_kind(gpus: tuple[int, ...], host_gpus: int | None) -> int | None:
    """KIND_AUTO: CPU without GPUs or when a listed GPU is absent, else GPU."""
    if any(gpu < 0 for gpu in gpus) or host_gpus == 0:
        return CPU
    if host_gpus is None:
        return None
    return CPU if any(gpu >= host_gpus for gpu in gpus) else GPU


def resolve_groups(context: ModelContext) -> list[Group]:
    """Emulate `NormalizeInstanceGroup`; empty for ensembles and unreadable configs.

    Without groups Triton adds one named like the model, from the backend's preferred
    group: KIND_GPU for python when GPUs are present, KIND_CPU for openvino, otherwise
    KIND_AUTO. Computed once per model; callers must not change the list.
    """
    return context.shared(_resolve_groups)


def _resolve_groups(context: ModelContext) -> list[Group]:
    config = context.effective
    if config is None or is_ensemble(config):
        return []
    host = context.settings.gpus
    if not config.instance_group:
        kind: int | None
        if config.backend == "openvino":
            kind = CPU
        elif config.backend == "python":
            kind = None if host is None else (GPU if host else CPU)
        else:
            kind = _auto_kind((), host)
        return [Group(None, config.name, AUTO, kind, ())]
    groups = []
    for index, group in enumerate(config.instance_group):
        gpus = tuple(group.gpus)
        resolved = _auto_kind(gpus, host) if group.kind == AUTO else group.kind
        name = group.name or f"{config.name}_{index}"
        groups.append(Group(index, name, group.kind, resolved, gpus))
    return groups
