"""An ensemble's data flow: steps, tensors, and what each composing model expects.

Triton checks an ensemble twice. At poll, from its own config alone
(`ValidateEnsembleSchedulingConfig`): every step is complete, each tensor is written
once, every output is reachable from the inputs and every tensor is used. When the
ensemble loads, against the completed configs of its composing models
(`ValidateEnsembleConfig`): map keys are real inputs and outputs, data types and shapes
agree along every edge, batch sizes fit, decoupled steps do not fan in. Triton stops at
the first problem. `build_graph` builds the graph those checks walk, and derives the
facts several of them share (which tensors become available, step cycles, the
dependency cycles between ensembles, the decoupled flow); each check lives in its rule
(`pbtxt_lint.rules.ensembles`), which also marks the steps and edges it finds broken
so that `pbtxt-lint graph` shows the same view as the diagnostics.

Steps are numbered from 1 in the order they are written (Triton's messages count from
0). Shapes are printed as Triton prints them: the full shape, with the batch dimension
`-1` in front when the model batches.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

from pbtxt_lint.analysis.autocomplete import COMPLETERS, SELF_COMPLETING
from pbtxt_lint.analysis.context import ModelContext, Workspace
from pbtxt_lint.artifacts.formats import artifact_format
from pbtxt_lint.repository.fs import FsError, read_text_file
from pbtxt_lint.repository.layout import ModelFolder, Repository
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput
from pbtxt_lint.textproto.sourcemap import FieldPath, Key, SourceMap
from pbtxt_lint.triton.autofill import is_ensemble
from pbtxt_lint.triton.backends import BACKENDS

T = TypeVar("T", bound=Hashable)
WILDCARD = -1
LATEST = -1  # model_version: -1 means "whichever version is loaded"
_AUTO_COMPLETE_METHOD = re.compile(rb"def\s+auto_complete_config\s*\(")


# --------------------------------------------------------------------------- models


@dataclass(frozen=True)
class ComposingConfig:
    """A model's config as an ensemble sees it once the model has loaded.

    `io_known` is False where a backend would still add inputs or outputs (or change
    `max_batch_size`) from the model file: the ensemble checks of that step are then
    skipped rather than guessed. `batching_known` is False where only `max_batch_size`
    may still change.
    """

    config: ModelConfig
    io_known: bool = True
    batching_known: bool = True
    reason: str = ""


def composing_config(context: ModelContext, effective: ModelConfig) -> ComposingConfig:
    """The config an ensemble step sees once the backend has auto-completed it.

    `effective` is the config after Triton's core auto-fill. Backends whose
    auto-complete pbtxt-lint emulates (ONNX Runtime from the graph, Python from a
    literal `auto_complete_config`, vLLM from its release's data) are completed from the model file
    (`context.completed`); for the others, inputs and outputs a backend would still
    fill are declared unknown (`io_known=False`) rather than guessed. With
    `--config-only`, model files are not read, except model.py, which decides whether
    a Python model completes itself.
    """
    settings = context.settings
    if not settings.auto_complete:
        return ComposingConfig(effective)
    backend = effective.backend
    entry = BACKENDS.get(backend)
    if entry is not None and entry.completes_itself and backend not in SELF_COMPLETING:
        return ComposingConfig(
            effective, io_known=False, batching_known=False,
            reason=f"the {backend} backend fills in its own inputs and outputs when the "
            "model loads",
        )  # fmt: skip
    fmt = artifact_format(effective)
    emulated = backend in SELF_COMPLETING or fmt in COMPLETERS
    if emulated and not (settings.config_only and backend == "python"):
        if not context.selection.versions:
            return ComposingConfig(effective)  # it does not load at all (reported on its own)
        completed = context.completed
        if completed.error is not None:
            return ComposingConfig(
                effective, io_known=False, batching_known=False,
                reason=f"its backend fails to auto-complete it ({completed.error.message})",
            )  # fmt: skip
        if completed.config is None or not completed.io_known:
            return ComposingConfig(
                completed.config or effective, io_known=False, batching_known=False,
                reason=completed.note or "what its backend fills in is unknown",
            )  # fmt: skip
        return ComposingConfig(completed.config)
    if backend == "python" and _python_completes_itself(context, effective):
        return ComposingConfig(
            effective, io_known=False, batching_known=False,
            reason=f"its {effective.default_model_filename} defines auto_complete_config, which "
            "can add inputs and outputs and change max_batch_size when the model loads",
        )  # fmt: skip
    if entry is not None and entry.fills_empty_io and (not effective.input or not effective.output):
        missing = "inputs" if not effective.input else "outputs"
        return ComposingConfig(
            effective, io_known=False, batching_known=False,
            reason=f"the config lists no {missing}, so the {backend} backend reads them from "
            "the model file when the model loads",
        )  # fmt: skip
    if entry is not None and entry.fills_max_batch_size and effective.max_batch_size == 0:
        return ComposingConfig(effective, batching_known=False)
    return ComposingConfig(effective)


def _python_completes_itself(context: ModelContext, config: ModelConfig) -> bool:
    """Does a version's model file define `auto_complete_config` (run at load)?"""
    folder = context.model
    for version in context.selection.versions:
        path = folder.path / str(version) / (config.default_model_filename or "model.py")
        try:
            source = read_text_file(folder.repository, path)
        except FsError:
            continue
        if _AUTO_COMPLETE_METHOD.search(source):
            return True
    return False


@dataclass(frozen=True)
class ComposingModel:
    """A model named by a step, as far as the ensemble checks need it."""

    name: str
    context: ModelContext | None  # None: no such folder in the repository
    completed: ComposingConfig | None = None  # None: its config cannot be read
    versions: tuple[int, ...] = ()  # the versions Triton would load
    decoupled: bool = False  # for an ensemble, the value Triton computes from its steps

    @property
    def folder(self) -> ModelFolder | None:
        return self.context.model if self.context is not None else None

    @property
    def exists(self) -> bool:
        return self.context is not None

    @property
    def config(self) -> ModelConfig | None:
        return self.completed.config if self.completed else None

    @property
    def io_known(self) -> bool:
        return self.completed is not None and self.completed.io_known


def written_config(folder: ModelFolder, auto_complete: bool) -> ModelConfig | None:
    """The config as written; empty when the file is missing and Triton may fill it."""
    config_file = folder.config()
    if config_file is None:
        return ModelConfig() if auto_complete and folder.entries is not None else None
    return config_file.parsed.config if config_file.parsed else None


def describe_model(
    workspace: Workspace, name: str, visiting: frozenset[str] = frozenset()
) -> ComposingModel:
    """What Triton would know about model `name` when an ensemble refers to it."""
    context = workspace.model(name)
    if context is None:
        return ComposingModel(name, None)
    auto_complete = workspace.settings.auto_complete
    config = context.effective
    if written_config(context.model, auto_complete) is None or config is None:
        return ComposingModel(name, context)
    versions = context.selection.versions
    if is_ensemble(config):
        # Triton overwrites an ensemble's decoupled flag: true if any step is decoupled.
        inner = visiting | {name}
        decoupled = any(
            describe_model(workspace, step.model_name, inner).decoupled
            for step in config.ensemble_scheduling.step
            if step.model_name and step.model_name not in inner
        )
        completed = composing_config(context, config)
    else:
        # A Python model's auto_complete_config may make it decoupled.
        completed = composing_config(context, config)
        decoupled = completed.config.model_transaction_policy.decoupled
    return ComposingModel(name, context, completed, versions, decoupled)


# --------------------------------------------------------------------------- graph


class Role(enum.Enum):
    """How an endpoint touches an ensemble tensor."""

    INPUT = "ensemble input"
    OUTPUT = "ensemble output"
    READ = "read"  # a step's input_map entry: composing input <- tensor
    WRITE = "write"  # a step's output_map entry: composing output -> tensor


@dataclass(frozen=True)
class TensorType:
    """Data type and shape of one endpoint, as Triton compares them."""

    data_type: int
    dims: tuple[int, ...]
    batching: bool | None  # the model batches (full shape = [-1] + dims); None: unknown

    @property
    def type_name(self) -> str:
        return (
            DataType.Name(self.data_type)
            if self.data_type in DataType.values()
            else (str(self.data_type))
        )

    @property
    def complete(self) -> bool:
        """A type Triton would compare (a backend fills in a missing one first)."""
        return self.data_type != DataType.TYPE_INVALID and bool(self.dims)

    def full_shapes(self) -> list[tuple[int, ...]]:
        """The full shape, or both candidates when batching is not known yet."""
        options = [self.batching] if self.batching is not None else [False, True]
        return [((WILDCARD,) if batching else ()) + self.dims for batching in options]

    @property
    def shape(self) -> str:
        shapes = [format_dims(s) for s in self.full_shapes()]
        return shapes[0] if len(shapes) == 1 else f"{shapes[0]} or {shapes[1]}"

    def __str__(self) -> str:
        return f"{self.type_name} {self.shape}"

    def compatible(self, other: TensorType) -> bool:
        """`shapes_compatible(self, other)`."""
        return shapes_compatible(self, other)


def format_dims(dims: Sequence[int]) -> str:
    """Triton's DimsListToString: `[-1,3,224,224]`."""
    return "[" + ",".join(str(d) for d in dims) + "]"


def _dims_match(left: Sequence[int], right: Sequence[int]) -> bool:
    """CompareDimsWithWildcard: same rank, -1 matches anything."""
    return len(left) == len(right) and all(
        a == b or WILDCARD in (a, b) for a, b in zip(left, right, strict=True)
    )


def shapes_compatible(left: TensorType, right: TensorType) -> bool:
    """ValidateTensorConsistency's shape rule: dims alike, or full shapes alike.

    Comparing full shapes lets a non-batching model's `[-1,16]` meet a batching
    model's `[16]`. An unknown batching flag passes if either value would.
    """
    if _dims_match(left.dims, right.dims):
        return True
    return any(_dims_match(a, b) for a in left.full_shapes() for b in right.full_shapes())


@dataclass(eq=False)
class Endpoint:
    """One place where an ensemble tensor is declared, read or written."""

    role: Role
    tensor: str
    port: str  # the composing model's input/output name (the tensor for ensemble I/O)
    path: FieldPath  # where it is written in the ensemble config
    step: Step | None = None
    type: TensorType | None = None  # None: unknown (or not an input/output of the model)

    @property
    def consumes(self) -> bool:
        """A step reads the tensor here, or it leaves the ensemble as an output."""
        return self.role in (Role.READ, Role.OUTPUT)

    @property
    def value_path(self) -> FieldPath:
        """The tensor name in the config (a map entry's value, an I/O's name)."""
        return self.path + ("value",) if self.step is not None else self.path + ("name",)

    def phrase(self, first: bool, what: str) -> str:
        """`step 2 (`tok`) writes `ids` as <what>`; `it` instead of the name if not first."""
        name = f"`{self.tensor}`" if first else "it"
        if self.role is Role.INPUT:
            return (
                f"ensemble input `{self.tensor}` is {what}"
                if first
                else (f"the ensemble input declares it as {what}")
            )
        if self.role is Role.OUTPUT:
            return (
                f"ensemble output `{self.tensor}` is {what}"
                if first
                else (f"the ensemble output declares it as {what}")
            )
        assert self.step is not None
        if self.role is Role.READ:
            return f"{self.step.label} reads {name} as `{self.port}` {what}"
        via = f" (its output `{self.port}`)" if self.port != self.tensor else ""
        return f"{self.step.label} writes {name} as {what}{via}"


@dataclass(eq=False)
class Step:
    index: int  # position in the config, from 0
    model_name: str
    model_version: int
    version_written: bool
    model: ComposingModel | None  # None when model_name is empty
    reads: list[Endpoint] = field(default_factory=list)
    writes: list[Endpoint] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def label(self) -> str:
        name = f" (`{self.model_name}`)" if self.model_name else ""
        return f"step {self.number}{name}"

    @property
    def path(self) -> FieldPath:
        return ("ensemble_scheduling", "step", self.index)

    @property
    def decoupled(self) -> bool:
        return self.model is not None and self.model.decoupled

    @property
    def checked(self) -> bool:
        """Its composing model's inputs and outputs are known, so edges can be checked."""
        return self.model is not None and self.model.io_known


@dataclass(eq=False)
class Tensor:
    name: str
    input: Endpoint | None = None
    output: Endpoint | None = None
    writers: list[Endpoint] = field(default_factory=list)
    readers: list[Endpoint] = field(default_factory=list)

    @property
    def mentioned(self) -> bool:
        """Named in some step's input_map or output_map (Triton's ensemble graph)."""
        return bool(self.writers or self.readers)

    def endpoints(self) -> list[Endpoint]:
        """In Triton's order of registration: the ensemble input (else output), then steps."""
        found = [self.input] if self.input else [self.output] if self.output else []
        steps = sorted({e.step.index for e in self.readers + self.writers if e.step})
        for index in steps:
            found += [e for e in self.readers if e.step and e.step.index == index]
            found += [e for e in self.writers if e.step and e.step.index == index]
        return found


Mark = tuple["Step | Endpoint", str]
"""A part of the graph a check finds broken, and a few words on why (for the drawing)."""


@dataclass(frozen=True)
class DecoupledFlow:
    """How responses flow through decoupled steps (`ValidateEnsembleConfig`'s labels).

    A tensor's label is 0 when it comes from the ensemble inputs through no decoupled
    step, else the number of the decoupled step it last came through (`origin`).
    """

    labels: Mapping[str, int]
    origin: Mapping[int, Step]
    fan_ins: tuple[Step, ...]
    """Steps that combine tensors with different labels."""
    fan_in_labels: Mapping[int, Mapping[str, int]]
    """For each fan-in step (by index), the labels of its inputs when it was reached."""
    decoupled: bool | None
    """What Triton sets as the ensemble's decoupled flag (None: some step is unknown)."""


@dataclass(eq=False)
class EnsembleGraph:
    name: str
    config: ModelConfig
    inputs: list[Endpoint]
    outputs: list[Endpoint]
    steps: list[Step]
    tensors: dict[str, Tensor]
    repository: Repository
    auto_complete: bool = True

    @property
    def max_batch_size(self) -> int:
        return self.config.max_batch_size

    # ---- reachability (ValidateEnsembleSchedulingConfig)

    @cached_property
    def flow_steps(self) -> list[Step]:
        """Steps that write something (a step without output_map is reported on its own)."""
        return [s for s in self.steps if s.writes]

    @cached_property
    def ready(self) -> frozenset[str]:
        """Tensors that become available when the ensemble runs (Triton's reachability)."""
        return frozenset(self.reachable(exclude=None))

    def reachable(self, exclude: Step | None) -> set[str]:
        """Tensors that become available, without running `exclude`.

        A step runs when every tensor it reads is available. A step without an
        input_map (reported on its own) is treated as runnable, so its outputs do not
        cascade into more reports.
        """
        ready = {e.tensor for e in self.inputs}
        pending = [s for s in self.flow_steps if s is not exclude]
        progress = True
        while progress:
            progress = False
            for step in list(pending):
                if all(r.tensor in ready for r in step.reads):
                    ready.update(w.tensor for w in step.writes)
                    pending.remove(step)
                    progress = True
        return ready

    def available_before(self, step: Step) -> list[str]:
        """Tensors a step could read: those that do not depend on the step itself."""
        ready = self.reachable(exclude=step)
        return [name for name in self.tensors if name in ready]

    def writer_of(self, name: str) -> Step | None:
        t = self.tensors.get(name)
        return t.writers[0].step if t and t.writers else None

    @cached_property
    def step_cycles(self) -> list[list[Step]]:
        """Steps that never run because they wait on each other (cycles among them)."""
        blocked = [s for s in self.flow_steps if not all(r.tensor in self.ready for r in s.reads)]
        edges = {
            s: [w for r in s.reads if (w := self.writer_of(r.tensor)) in blocked] for s in blocked
        }
        cycles: list[list[Step]] = []
        in_cycle: set[Step] = set()
        for start in blocked:
            if start in in_cycle:
                continue
            path = cycle_from(start, edges)
            if path is not None and not in_cycle.intersection(path):
                cycles.append(path)
                in_cycle.update(path)
        return cycles

    # ---- composing models (dependency graph and ValidateEnsembleConfig)

    def model_steps(self) -> list[Step]:
        """Steps whose model is a folder of the repository."""
        return [s for s in self.steps if s.model is not None and s.model.exists]

    @cached_property
    def dependencies(self) -> dict[str, list[str]]:
        """Triton's dependency graph of the repository, with this ensemble's own steps."""
        deps = ensemble_dependencies(self.repository, self.auto_complete)
        deps[self.name] = [s.model_name for s in self.model_steps()]
        return deps

    @cached_property
    def cycle_paths(self) -> dict[Step, list[str]]:
        """Steps that close a cycle of ensembles back to this one: the path back."""
        paths = {s: path_to(s.model_name, self.name, self.dependencies) for s in self.model_steps()}
        return {step: path for step, path in paths.items() if path is not None}

    @cached_property
    def cycles_reached(self) -> dict[Step, tuple[list[str], list[str]]]:
        """Steps that lead into a cycle of ensembles this one is not part of (only when
        it is in none itself): the cycle, and the path from the step's model to it."""
        if self.cycle_paths:
            return {}
        found = {}
        for step in self.model_steps():
            cycle = cycle_from(step.model_name, self.dependencies)
            if cycle is None:
                continue
            entry = path_to(step.model_name, cycle[0], self.dependencies) or [step.model_name]
            found[step] = (cycle, entry)
        return found

    def in_dependency_cycle(self, step: Step) -> bool:
        """The step's model closes or leads into a cycle of ensembles."""
        return step in self.cycle_paths or step in self.cycles_reached

    # ---- decoupled models

    @cached_property
    def decoupled_flow(self) -> DecoupledFlow:
        labels: dict[str, int] = {e.tensor: 0 for e in self.inputs}
        origin: dict[int, Step] = {}
        fan_ins: list[Step] = []
        fan_in_labels: dict[int, dict[str, int]] = {}
        pending = list(self.flow_steps)
        progress = True
        while progress:
            progress = False
            for step in list(pending):
                if not all(r.tensor in labels for r in step.reads):
                    continue
                pending.remove(step)
                progress = True
                incoming = [labels[r.tensor] for r in step.reads]
                if len(set(incoming)) > 1:
                    fan_ins.append(step)
                    fan_in_labels[step.index] = {r.tensor: labels[r.tensor] for r in step.reads}
                label = incoming[0] if incoming else 0
                if step.decoupled:
                    label = len(origin) + 1
                    origin[label] = step
                for write in step.writes:
                    labels.setdefault(write.tensor, label)
        known = all(
            s.model is None or s.model.completed is None or s.model.io_known for s in self.steps
        )
        return DecoupledFlow(
            labels, origin, tuple(fan_ins), fan_in_labels, bool(origin) if known else None
        )

    @property
    def decoupled(self) -> bool | None:
        """What Triton sets as the ensemble's decoupled flag (None: some step is unknown)."""
        return self.decoupled_flow.decoupled


def build_graph(context: ModelContext) -> EnsembleGraph | None:
    """The graph of the context's model, if it declares ensemble scheduling."""
    config = context.effective
    if config is None or not config.HasField("ensemble_scheduling"):
        return None
    workspace = context.workspace
    models: dict[str, ComposingModel] = {}

    def resolve(model_name: str) -> ComposingModel:
        if model_name not in models:
            models[model_name] = describe_model(workspace, model_name)
        return models[model_name]

    parsed = context.parsed
    source_map = parsed.source_map if parsed else None
    return _assemble(
        context.model.name,
        config,
        resolve,
        source_map,
        context.repository,
        workspace.settings.auto_complete,
    )


def _ordered(keys: Iterable[str], base: FieldPath, source_map: SourceMap | None) -> list[str]:
    """Map keys in the order they are written (protobuf maps do not keep it)."""
    keys = list(keys)
    if source_map is None:
        return sorted(keys)

    def position(key: str) -> tuple[int, int]:
        span = source_map.span(base + (Key(key),))
        return (span.line, span.column) if span else (0, 0)

    return sorted(keys, key=position)


def _io_type(io: ModelInput | ModelOutput, batching: bool | None, use_reshape: bool) -> TensorType:
    """An input's or output's type; the ensemble's own I/O uses `reshape` if present."""
    dims = io.reshape.shape if use_reshape and io.HasField("reshape") else io.dims
    return TensorType(io.data_type, tuple(dims), batching)


def _assemble(
    name: str,
    config: ModelConfig,
    resolve: Callable[[str], ComposingModel],
    source_map: SourceMap | None,
    repository: Repository,
    auto_complete: bool,
) -> EnsembleGraph:
    tensors: dict[str, Tensor] = {}

    def tensor(tensor_name: str) -> Tensor:
        return tensors.setdefault(tensor_name, Tensor(tensor_name))

    batching = config.max_batch_size > 0
    inputs, outputs = [], []
    for index, io in enumerate(config.input):
        endpoint = Endpoint(
            Role.INPUT, io.name, io.name, ("input", index), type=_io_type(io, batching, True)
        )
        inputs.append(endpoint)
        tensor(io.name).input = tensor(io.name).input or endpoint
    for index, out in enumerate(config.output):
        endpoint = Endpoint(
            Role.OUTPUT, out.name, out.name, ("output", index), type=_io_type(out, batching, True)
        )
        outputs.append(endpoint)
        tensor(out.name).output = tensor(out.name).output or endpoint
    steps = []
    for index, spec in enumerate(config.ensemble_scheduling.step):
        step = Step(
            index, spec.model_name, spec.model_version,
            source_map is None or ("ensemble_scheduling", "step", index, "model_version")
            in source_map,
            resolve(spec.model_name) if spec.model_name else None,
        )  # fmt: skip
        composing = step.model.config if step.model and step.model.io_known else None
        step_batching = None
        if composing is not None and step.model and step.model.completed:
            known = step.model.completed.batching_known
            step_batching = composing.max_batch_size > 0 if known else None
        for key in _ordered(spec.input_map, step.path + ("input_map",), source_map):
            read = Endpoint(
                Role.READ, spec.input_map[key], key, step.path + ("input_map", Key(key)), step
            )
            found = [i for i in composing.input if i.name == key] if composing else []
            if found:
                read.type = _io_type(found[0], step_batching, False)
            step.reads.append(read)
            tensor(read.tensor).readers.append(read)
        for key in _ordered(spec.output_map, step.path + ("output_map",), source_map):
            write = Endpoint(
                Role.WRITE, spec.output_map[key], key, step.path + ("output_map", Key(key)), step
            )
            found_out = [o for o in composing.output if o.name == key] if composing else []
            if found_out:
                write.type = _io_type(found_out[0], step_batching, False)
            step.writes.append(write)
            tensor(write.tensor).writers.append(write)
        steps.append(step)
    return EnsembleGraph(name, config, inputs, outputs, steps, tensors, repository, auto_complete)


# --------------------------------------------------------------------------- repository


def ensemble_dependencies(repository: Repository, auto_complete: bool) -> dict[str, list[str]]:
    """Ensemble -> the models its steps name (those present in the repository).

    This is Triton's dependency graph; only ensembles have edges. A model whose config
    does not parse is left out (Triton does not poll it, so it is in no cycle).
    """
    deps: dict[str, list[str]] = {}
    for name, folder in repository.models.items():
        config = written_config(folder, auto_complete)
        if config is None or not config.HasField("ensemble_scheduling"):
            continue
        deps[name] = [
            s.model_name
            for s in config.ensemble_scheduling.step
            if s.model_name in repository.models
        ]
    return deps


def cycle_from(start: T, edges: Mapping[T, Sequence[T]]) -> list[T] | None:
    """A cycle reachable from `start` (depth first), as its nodes in order, or None."""
    path: list[T] = []
    on_path: set[T] = set()
    done: set[T] = set()

    def visit(node: T) -> list[T] | None:
        if node in on_path:
            return path[path.index(node) :]
        if node in done:
            return None
        path.append(node)
        on_path.add(node)
        for nxt in edges.get(node, ()):
            found = visit(nxt)
            if found is not None:
                return found
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    return visit(start)


def path_to(start: str, goal: str, deps: Mapping[str, Sequence[str]]) -> list[str] | None:
    """The shortest dependency path from `start` to `goal` (both included), or None."""
    previous: dict[str, str] = {start: start}
    queue = [start]
    while queue:
        node = queue.pop(0)
        if node == goal:
            path = [node]
            while path[-1] != start:
                path.append(previous[path[-1]])
            return path[::-1]
        for nxt in deps.get(node, ()):
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    return None
