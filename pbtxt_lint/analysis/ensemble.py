"""An ensemble's data flow: steps, tensors, and what each composing model expects.

Triton checks an ensemble twice. At poll, from its own config alone
(`ValidateEnsembleSchedulingConfig`): every step is complete, each tensor is written
once, every output is reachable from the inputs and every tensor is used. When the
ensemble loads, against the completed configs of its composing models
(`ValidateEnsembleConfig`): map keys are real inputs and outputs, data types and shapes
agree along every edge, batch sizes fit, decoupled steps do not fan in. Triton stops at
the first problem; `build_graph` finds all of them, as `Issue`s named after the rule
that reports each one, and marks the broken steps and edges so that
`pbtxt-lint graph` shows the same view as the diagnostics.

Steps are numbered from 1 in the order they are written (Triton's messages count from
0). Shapes are printed as Triton prints them: the full shape, with the batch dimension
`-1` in front when the model batches.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pbtxt_lint.analysis.autocomplete import COMPLETERS
from pbtxt_lint.analysis.context import ModelContext, Workspace
from pbtxt_lint.artifacts.formats import artifact_format
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.repository.fs import FsError, read_text_file
from pbtxt_lint.repository.layout import ModelFolder, Repository
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath, Key, SourceMap
from pbtxt_lint.triton.autofill import is_ensemble
from pbtxt_lint.triton.backends import BACKENDS
from pbtxt_lint.triton.versions import scan_version_folders

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
    literal `auto_complete_config`) are completed from the model file
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
    if entry is not None and entry.completes_itself:
        return ComposingConfig(
            effective, io_known=False, batching_known=False,
            reason=f"the {backend} backend fills in its own inputs and outputs when the "
            "model loads",
        )  # fmt: skip
    fmt = artifact_format(effective)
    if fmt in COMPLETERS and not (settings.config_only and backend == "python"):
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
    problems: list[str] = field(default_factory=list)  # short reasons, for the graph

    @property
    def broken(self) -> bool:
        return bool(self.problems)

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
    problems: list[str] = field(default_factory=list)

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
    ready: bool = False  # becomes available when the ensemble runs (Triton's reachability)

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


@dataclass(frozen=True)
class Issue:
    """A problem found in the graph, reported by the rule named `kind`."""

    kind: str
    message: str
    at: FieldPath | None
    hint: str
    severity: Severity | None = None  # a downgrade of the rule's severity


@dataclass(eq=False)
class EnsembleGraph:
    name: str
    config: ModelConfig
    inputs: list[Endpoint]
    outputs: list[Endpoint]
    steps: list[Step]
    tensors: dict[str, Tensor]
    issues: list[Issue] = field(default_factory=list)
    decoupled: bool | None = None  # what Triton sets (None: some step is not known)

    @property
    def max_batch_size(self) -> int:
        return self.config.max_batch_size

    def issues_of(self, kind: str) -> list[Issue]:
        return [issue for issue in self.issues if issue.kind == kind]


def build_graph(context: ModelContext) -> EnsembleGraph | None:
    """The graph of the context's model, if it declares ensemble scheduling, with every
    issue found."""
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
    graph = _assemble(context.model.name, config, resolve, source_map)
    _Analysis(graph, context.repository, workspace.settings.auto_complete).run()
    return graph


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
    return EnsembleGraph(name, config, inputs, outputs, steps, tensors)


# --------------------------------------------------------------------------- analysis


def _names(names: Iterable[str], limit: int = 12) -> str:
    listed = [f"`{n}`" for n in names]
    if not listed:
        return "none"
    more = f" and {len(listed) - limit} more" if len(listed) > limit else ""
    return ", ".join(listed[:limit]) + more


def _did_you_mean(word: str, candidates: Iterable[str]) -> str:
    guess = suggest(word, [c for c in candidates if c != word])
    return f" (did you mean `{guess}`?)" if guess else ""


def _versions(versions: Sequence[int]) -> str:
    if not versions:
        return "no version"
    return ("version " if len(versions) == 1 else "versions ") + ", ".join(map(str, versions))


class _Analysis:
    """Runs every check over an assembled graph, adding issues and marks."""

    def __init__(self, graph: EnsembleGraph, repository: Repository, auto_complete: bool):
        self.graph = graph
        self.repository = repository
        self.auto_complete = auto_complete
        self.pointer = f"see `pbtxt-lint graph {graph.name}`"

    def add(
        self,
        kind: str,
        message: str,
        at: FieldPath | None,
        hint: str,
        severity: Severity | None = None,
    ) -> None:
        self.graph.issues.append(Issue(kind, message, at, f"{hint}; {self.pointer}", severity))

    def run(self) -> None:
        self.flow_steps = [s for s in self.graph.steps if s.writes]
        self.ready = self.reachable(exclude=None)
        for name, t in self.graph.tensors.items():
            t.ready = name in self.ready
        self.written_twice()
        self.unused_inputs()
        self.unmapped_outputs()
        self.unwritten_outputs()
        self.unwritten_tensors()
        self.unused_tensors()
        self.missing_models()
        self.dependency_cycles()
        self.versions()
        self.batch_sizes()
        self.unknown_io()
        self.map_keys()
        self.consistency()
        self.decoupling()

    # ---- reachability (ValidateEnsembleSchedulingConfig)

    def reachable(self, exclude: Step | None) -> set[str]:
        """Tensors that become available, without running `exclude`.

        A step runs when every tensor it reads is available. A step without an
        input_map (reported on its own) is treated as runnable, so its outputs do not
        cascade into more reports.
        """
        ready = {e.tensor for e in self.graph.inputs}
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
        return [name for name in self.graph.tensors if name in ready]

    def written_twice(self) -> None:
        for t in self.graph.tensors.values():
            first = t.writers[0] if t.writers else None
            for again in t.writers[1:]:
                assert first is not None and first.step and again.step
                again.problems.append("written twice")
                who = "it" if first.step is again.step else first.step.label
                self.add(
                    "tensor-written-twice",
                    f"{again.step.label} writes `{t.name}` (from its output `{again.port}`), "
                    f"but {who} already writes it (from `{first.port}`); an ensemble tensor "
                    "can have only one producer",
                    again.value_path,
                    f"give one of them another name, e.g. `{t.name}_{again.step.number}`",
                )

    def unused_inputs(self) -> None:
        if not self.graph.steps:
            return  # ensemble-no-steps says it all
        unwritten = [
            n
            for n, t in self.graph.tensors.items()
            if t.readers and not t.writers and t.input is None
        ]
        for endpoint in self.graph.inputs:
            if self.graph.tensors[endpoint.tensor].mentioned:
                continue
            endpoint.problems.append("not read by any step")
            guess = suggest(endpoint.tensor, unwritten)
            hint = (
                f"a step reads `{guess}`, which nothing provides: did you mean "
                f"`{endpoint.tensor}` there?"
                if guess
                else f'map it to a step input (input_map {{ key: "<input>" value: '
                f'"{endpoint.tensor}" }}) or remove the input'
            )
            self.add(
                "ensemble-input-unused",
                f"ensemble input `{endpoint.tensor}` is not read by any step; Triton "
                "refuses ensembles with unused inputs",
                endpoint.path + ("name",),
                hint,
            )

    def unmapped_outputs(self) -> None:
        if not self.graph.steps:
            return
        written = [n for n, t in self.graph.tensors.items() if t.writers]
        for endpoint in self.graph.outputs:
            if self.graph.tensors[endpoint.tensor].mentioned:
                continue
            endpoint.problems.append("no step writes it")
            self.add(
                "ensemble-output-unmapped",
                f"ensemble output `{endpoint.tensor}` is not written by any step: no "
                f"output_map maps to it{_did_you_mean(endpoint.tensor, written)}; the steps "
                f"write {_names(written)}",
                endpoint.path + ("name",),
                f'map a step output to it: output_map {{ key: "<output>" value: '
                f'"{endpoint.tensor}" }}',
            )

    def blocker(self, name: str, seen: frozenset[str]) -> str:
        """Why tensor `name` never becomes available, as the rest of a sentence."""
        t = self.graph.tensors[name]
        if not t.writers:
            candidates = [n for n in self.graph.tensors if n in self.ready and n != name]
            return (
                f"`{name}`, which is neither an ensemble input nor written by any "
                f"step{_did_you_mean(name, candidates)}"
            )
        step = t.writers[0].step
        assert step is not None
        missing = [r.tensor for r in step.reads if r.tensor not in self.ready]
        for other in missing:
            if other not in seen:
                return f"`{name}`, which {step.label} writes from " + self.blocker(
                    other, seen | {name}
                )
        return f"`{name}`, which {step.label} writes from `{missing[0]}`, in a cycle"

    def unwritten_outputs(self) -> None:
        for endpoint in self.graph.outputs:
            t = self.graph.tensors[endpoint.tensor]
            if not t.mentioned or t.ready:
                continue
            endpoint.problems.append("never written")
            if t.writers:
                step = t.writers[0].step
                assert step is not None
                missing = [r.tensor for r in step.reads if r.tensor not in self.ready]
                why = f"{step.label} writes it but never runs: it needs " + self.blocker(
                    missing[0], frozenset({t.name})
                )
            else:
                unused = [
                    n
                    for n, u in self.graph.tensors.items()
                    if u.writers and not u.readers and u.output is None
                ]
                why = f"steps read it, but no step writes it{_did_you_mean(t.name, unused)}"
            self.add(
                "ensemble-output-not-written",
                f"ensemble output `{t.name}` is never written: {why}",
                endpoint.path + ("name",),
                "every tensor a step reads must be an ensemble input or the output of another step",
            )

    def unwritten_tensors(self) -> None:
        for t in self.graph.tensors.values():
            if t.ready or not t.readers or t.writers or t.input is not None:
                continue
            if t.output is not None:
                continue  # an output nobody writes: ensemble-output-not-written
            for reader in t.readers:
                reader.problems.append("nothing writes it")
            first = t.readers[0]
            assert first.step is not None
            available = self.available_before(first.step)
            readers = ", ".join(r.step.label for r in t.readers if r.step)
            self.add(
                "tensor-not-written",
                f"{readers} read{'s' if len(t.readers) == 1 else ''} `{t.name}`, which is "
                f"neither an ensemble input nor written by any step"
                f"{_did_you_mean(t.name, available)}; tensors available there: "
                f"{_names(available)}",
                first.value_path,
                "read a tensor that exists, or add the step that produces it",
            )
        for cycle in self.step_cycles():
            links = []
            for step, after in zip(cycle, cycle[1:] + cycle[:1], strict=True):
                step.problems.append("waits for itself (cycle)")
                tensor = next(r.tensor for r in step.reads if self.writer_of(r.tensor) is after)
                who = f"{after.label}" if after is not cycle[0] else f"{after.label} itself"
                links.append(f"`{tensor}`, written by {who}")
            head = cycle[0]
            read = next(r for r in head.reads if self.writer_of(r.tensor) is cycle[1 % len(cycle)])
            self.add(
                "tensor-not-written",
                f"{head.label} reads "
                + ", which reads ".join(links)
                + "; these steps wait for each other and never run",
                read.value_path,
                "break the cycle: a step cannot consume what it (indirectly) produces",
            )

    def writer_of(self, name: str) -> Step | None:
        t = self.graph.tensors.get(name)
        return t.writers[0].step if t and t.writers else None

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
            path = _cycle_from(start, edges)
            if path is not None and not in_cycle.intersection(path):
                cycles.append(path)
                in_cycle.update(path)
        return cycles

    def unused_tensors(self) -> None:
        outputs_missing = [
            e.tensor for e in self.graph.outputs if not self.graph.tensors[e.tensor].writers
        ]
        for t in self.graph.tensors.values():
            if t.output is not None or t.readers or not t.writers:
                continue
            writer = t.writers[0]
            assert writer.step is not None
            writer.problems.append("nothing reads it")
            guess = suggest(t.name, outputs_missing)
            hint = (
                f"did you mean the ensemble output `{guess}`?"
                if guess
                else "remove this output_map entry (a step output may stay unmapped), or "
                "read the tensor in a step or declare it as an ensemble output"
            )
            self.add(
                "tensor-unused",
                f"{writer.step.label} writes `{t.name}` (its output `{writer.port}`), but no "
                "step reads it and it is not an ensemble output; Triton refuses ensembles "
                "with unused tensors",
                writer.value_path,
                hint,
            )

    # ---- composing models (dependency graph and ValidateEnsembleConfig)

    def model_steps(self) -> list[Step]:
        return [s for s in self.graph.steps if s.model is not None and s.model.exists]

    def missing_models(self) -> None:
        names = sorted(self.repository.models)
        for step in self.graph.steps:
            if step.model is None or step.model.exists:
                continue
            step.problems.append("no such model")
            listed = f"; models in the repository: {_names(names)}" if names else ""
            self.add(
                "composing-model-missing",
                f"{step.label} names model `{step.model_name}`, which is not in the "
                f"repository{_did_you_mean(step.model_name, names)}{listed}",
                step.path + ("model_name",),
                "fix the model name or add the model folder to the repository",
            )

    def dependency_cycles(self) -> None:
        """Triton's CircularDependencyCheck, which walks from an ensemble to its models."""
        deps = ensemble_dependencies(self.repository, self.auto_complete)
        deps[self.graph.name] = [s.model_name for s in self.model_steps()]
        back = {s: _path_to(s.model_name, self.graph.name, deps) for s in self.model_steps()}
        for step, path in back.items():
            if path is None:
                continue
            step.problems.append("cycle of ensembles")
            what = (
                "names the ensemble itself"
                if step.model_name == self.graph.name
                else f"closes a cycle of ensembles: {' -> '.join([self.graph.name] + path)}"
            )
            self.add(
                "ensemble-cycle",
                f"{step.label} {what}; Triton refuses every ensemble in a cycle "
                "(circular dependency between ensembles)",
                step.path + ("model_name",),
                "an ensemble cannot contain itself, directly or through other ensembles",
            )
        if any(path is not None for path in back.values()):
            return
        for step in self.model_steps():
            cycle = _cycle_from(step.model_name, deps)
            if cycle is None:
                continue
            entry = _path_to(step.model_name, cycle[0], deps) or [step.model_name]
            step.problems.append("leads to a cycle of ensembles")
            self.add(
                "depends-on-ensemble-cycle",
                f"{step.label} leads to the cycle of ensembles "
                f"{' -> '.join(cycle + cycle[:1])} (through "
                f"{' -> '.join([self.graph.name] + entry)}); tritonserver 2.51 crashes with "
                "a segmentation fault while checking an ensemble that depends on a cycle "
                "it is not part of, taking every model down",
                step.path + ("model_name",),
                "break the cycle between the ensembles it depends on",
            )

    def versions(self) -> None:
        for step in self.model_steps():
            model = step.model
            assert model is not None
            if model.completed is None or not model.versions:
                continue  # the model itself fails: composing-model-fails says why
            if step.model_version == LATEST or step.model_version in model.versions:
                continue
            step.problems.append(f"version {step.model_version} is not loaded")
            loaded = f"`{model.name}` loads only {_versions(model.versions)}"
            if not step.version_written:
                self.add(
                    "composing-version-not-loaded",
                    f"{step.label} does not set model_version, so it requires version 0 "
                    f"(the default of the field), and {loaded}; Triton refuses the ensemble "
                    "(whose required version 0 is not loaded)",
                    step.path + ("model_name",),
                    f"add model_version: -1 (the loaded version) or model_version: "
                    f"{model.versions[-1]}",
                )
                continue
            folder = model.folder
            present = (
                {v.version for v in scan_version_folders(folder.subfolders).versions}
                if folder
                else set()
            )
            why = (
                "its version_policy does not select it"
                if step.model_version in present
                else f"`{model.name}/{step.model_version}/` does not exist"
            )
            self.add(
                "composing-version-not-loaded",
                f"{step.label} requires version {step.model_version}, but {loaded}: {why}",
                step.path + ("model_version",),
                f"use model_version: -1 (the loaded version) or one of "
                f"{', '.join(map(str, model.versions))}",
            )

    def batch_sizes(self) -> None:
        limit = self.graph.max_batch_size
        for step in self.model_steps():
            model = step.model
            assert model is not None
            config = model.config
            if config is None or model.completed is None or not model.completed.batching_known:
                continue
            if 0 < config.max_batch_size < limit:
                step.problems.append(f"max_batch_size {config.max_batch_size} < {limit}")
                self.add(
                    "batch-size-exceeds-composing",
                    f"the ensemble allows batches of {limit}, but {step.label} allows only "
                    f"{config.max_batch_size} (max_batch_size of `{model.name}`)",
                    step.path + ("model_name",),
                    f"lower the ensemble's max_batch_size to {config.max_batch_size} or "
                    f"raise `{model.name}`'s",
                )

    def unknown_io(self) -> None:
        for step in self.model_steps():
            model = step.model
            assert model is not None and model.folder is not None
            if model.completed is None:
                step.problems.append(f"`{model.name}` has no usable config")
                continue
            if model.completed.io_known:
                continue
            self.add(
                "composing-io-unknown",
                f"{step.label} is not checked against `{model.name}`'s inputs and outputs: "
                f"{model.completed.reason}",
                step.path + ("model_name",),
                f"list `{model.name}`'s inputs and outputs in its config.pbtxt to have this "
                "step checked",
            )

    def map_keys(self) -> None:
        for step in self.model_steps():
            config = step.model.config if step.model else None
            if config is None or not step.checked:
                continue
            inputs = [i.name for i in config.input]
            outputs = [o.name for o in config.output]
            for read in step.reads:
                if read.port not in inputs:
                    read.problems.append(f"no input `{read.port}`")
                    self.add(
                        "unknown-composing-input",
                        f"{step.label} maps `{read.tensor}` to input `{read.port}`, but "
                        f"`{step.model_name}` has no such input"
                        f"{_did_you_mean(read.port, inputs)}; its inputs are {_names(inputs)}",
                        read.path,
                        "input_map keys are the composing model's input names, values are "
                        "ensemble tensors",
                    )
            for write in step.writes:
                if write.port not in outputs:
                    write.problems.append(f"no output `{write.port}`")
                    self.add(
                        "unknown-composing-output",
                        f"{step.label} maps output `{write.port}` to `{write.tensor}`, but "
                        f"`{step.model_name}` has no such output"
                        f"{_did_you_mean(write.port, outputs)}; its outputs are "
                        f"{_names(outputs)}",
                        write.path,
                        "output_map keys are the composing model's output names, values are "
                        "ensemble tensors",
                    )
            if not step.reads:
                continue  # step-incomplete: it has no input_map at all
            mapped = {r.port for r in step.reads}
            unknown_keys = [r.port for r in step.reads if r.port not in inputs]
            for spec in config.input:
                if spec.name in mapped or spec.optional:
                    continue
                step.problems.append(f"input `{spec.name}` not mapped")
                typo = suggest(spec.name, unknown_keys)
                available = self.available_before(step)
                hint = (
                    f"the input_map key `{typo}` looks like a typo for it"
                    if typo
                    else f'map it: input_map {{ key: "{spec.name}" value: "<tensor>" }} '
                    f"(tensors available there: {_names(available)})"
                )
                self.add(
                    "composing-input-unmapped",
                    f"{step.label} does not map `{step.model_name}`'s input `{spec.name}` "
                    f"({_io_type(spec, None, False).type_name}); Triton requires every "
                    "input that is not optional to be mapped",
                    step.path + ("input_map",),
                    hint,
                )

    def consistency(self) -> None:
        """ValidateTensorConsistency, for every endpoint instead of the first failure.

        Triton compares each place a tensor appears with the first place it saw it (the
        ensemble's I/O, then the steps in order). Shapes with -1 are not transitive:
        a writer and a reader that both match a wildcard reference can still disagree,
        which Triton only finds when a request fails; that is a warning.
        """
        for t in self.graph.tensors.values():
            endpoints = t.endpoints()
            typed = [
                (e, e.type)
                for e in endpoints
                if e.type is not None and e.type.complete and (e.step is None or e.step.checked)
            ]
            # Unknown types could be Triton's reference: then a shape verdict is a guess.
            uncertain = any(
                (e.step is not None and not e.step.checked and e.step.model)
                or (e.type is not None and not e.type.complete)
                for e in endpoints
            )
            if len(typed) < 2:
                continue
            (reference, ref_type), *others = typed
            for other, other_type in others:
                if other_type.data_type != ref_type.data_type:
                    other.problems.append(f"{other_type.type_name} vs {ref_type.type_name}")
                    self.add(
                        "tensor-dtype-mismatch",
                        f"{reference.phrase(True, ref_type.type_name)}; "
                        f"{other.phrase(False, other_type.type_name)}",
                        self.type_path(other, "data_type"),
                        "make both data types the same (convert in the producing model if needed)",
                    )
                elif not shapes_compatible(ref_type, other_type):
                    other.problems.append(f"shape {other_type.shape} vs {ref_type.shape}")
                    self.add(
                        "tensor-shape-mismatch",
                        f"{reference.phrase(True, ref_type.shape)}; "
                        f"{other.phrase(False, other_type.shape)}",
                        self.type_path(other, "dims"),
                        "make the shapes agree (-1 matches any size; the batch dimension is "
                        "implied by max_batch_size > 0)",
                        Severity.WARNING if uncertain else None,
                    )
            self.hidden_shape_mismatches(t, typed)

    def hidden_shape_mismatches(self, t: Tensor, typed: list[tuple[Endpoint, TensorType]]) -> None:
        """Producer/consumer pairs that both match a wildcard reference but not each other."""
        (reference, ref_type), *_ = typed
        producer = t.input or (t.writers[0] if t.writers else None)
        fits = {
            e: ty
            for e, ty in typed
            if ty.data_type == ref_type.data_type and shapes_compatible(ref_type, ty)
        }
        if producer is None or producer is reference or producer not in fits:
            return
        made = fits[producer]
        for consumer, ty in fits.items():
            if consumer.role not in (Role.READ, Role.OUTPUT) or consumer is reference:
                continue
            if shapes_compatible(made, ty):
                continue
            consumer.problems.append(f"shape {ty.shape} vs {made.shape}")
            self.add(
                "tensor-shape-mismatch",
                f"{producer.phrase(True, made.shape)}; {consumer.phrase(False, ty.shape)}. "
                f"Triton accepts this at load (both match {ref_type.shape}) but requests "
                "fail when the shapes meet",
                self.type_path(consumer, "dims"),
                "make the shapes agree",
                Severity.WARNING,
            )

    @staticmethod
    def type_path(endpoint: Endpoint, attribute: str) -> FieldPath:
        """Where to point for a type problem: the map entry, or the I/O's attribute."""
        return endpoint.path if endpoint.step is not None else endpoint.path + (attribute,)

    def decoupling(self) -> None:
        """The decoupled labels of ValidateEnsembleConfig, and the value Triton sets."""
        labels: dict[str, int] = {e.tensor: 0 for e in self.graph.inputs}
        origin: dict[int, Step] = {}
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
                    self.fan_in(step, labels, origin)
                label = incoming[0] if incoming else 0
                if step.decoupled:
                    label = len(origin) + 1
                    origin[label] = step
                for write in step.writes:
                    labels.setdefault(write.tensor, label)
        finals = {labels[e.tensor] for e in self.graph.outputs if e.tensor in labels}
        if len(finals) > 1:
            sources = "; ".join(
                f"`{e.tensor}` from {self.origin_of(labels[e.tensor], origin)}"
                for e in self.graph.outputs
                if e.tensor in labels
            )
            self.add(
                "decoupled-fan-in",
                f"the ensemble's outputs originate from different decoupled steps ({sources}); "
                "Triton refuses to collect them into one response",
                ("output",),
                "produce all ensemble outputs downstream of the same decoupled step",
            )
        known = all(
            s.model is None or s.model.completed is None or s.model.io_known
            for s in self.graph.steps
        )
        self.graph.decoupled = bool(origin) if known else None

    def origin_of(self, label: int, origin: Mapping[int, Step]) -> str:
        return (
            f"decoupled {origin[label].label}"
            if label
            else "the ensemble inputs, through no decoupled step"
        )

    def fan_in(self, step: Step, labels: Mapping[str, int], origin: Mapping[int, Step]) -> None:
        sources = "; ".join(
            f"`{r.tensor}` from {self.origin_of(labels[r.tensor], origin)}" for r in step.reads
        )
        step.problems.append("inputs from different decoupled steps")
        self.add(
            "decoupled-fan-in",
            f"{step.label} receives inputs that originate from different decoupled steps "
            f"({sources}); Triton refuses such an ensemble",
            step.path + ("model_name",),
            "a step may only combine tensors that come through the same decoupled step",
        )


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


def _cycle_from(start: T, edges: Mapping[T, Sequence[T]]) -> list[T] | None:
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


def _path_to(start: str, goal: str, deps: Mapping[str, Sequence[str]]) -> list[str] | None:
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
