"""What a backend's auto-complete adds to the config before Triton validates it (S9).

With auto-complete on (Triton's default), the ONNX Runtime backend opens the model
when the config lacks inputs or outputs and fills `max_batch_size`, `dynamic_batching`,
`input` and `output` from the graph; the Python backend runs the model's
`auto_complete_config` (emulated when it is literal, see `artifacts.python_model`); the
core then normalises again. Every later check (the backend's own I/O validation, the
core's, the ensemble checks) sees the completed config, so the linter must judge that
config rather than the file as written.

`complete_config` is the entry point for rules and other checks; `complete_command`
and `init_command` back the `pbtxt-lint complete` and `pbtxt-lint init` commands.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from pbtxt_lint.artifacts.model import ArtifactState, ModelArtifacts, artifact_format
from pbtxt_lint.artifacts.signature import Signature, TensorSpec
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelInstanceGroup, ModelOutput
from pbtxt_lint.settings import Settings
from pbtxt_lint.triton.autofill import ENSEMBLE_PLATFORM, core_autofill

if TYPE_CHECKING:
    from pbtxt_lint.rules.base import ModelContext

DEFAULT_MAX_BATCH_SIZE = 4
"""ONNX Runtime's `--backend-config=onnxruntime,default-max-batch-size` default."""

CPU_COUNT_TWO = ("onnxruntime", "tensorflow")
"""Backends whose default KIND_CPU instance count is 2 (1 elsewhere)."""


class CommandError(Exception):
    """`complete`/`init` cannot do what was asked; the message is for the user."""


@dataclass(frozen=True)
class CompletionError:
    """The backend's auto-complete fails: Triton does not load the model."""

    triton_id: str
    """The catalogue id (triton-rules.md): R500, R501, R502, or "artifact" (unreadable)."""
    message: str
    """Triton's message, with the names filled in."""


@dataclass(frozen=True)
class CompletedConfig:
    """The config Triton validates after the backend's auto-complete, and how it got there.

    `config` may be the context's own effective config: copy it before changing it.
    """

    config: ModelConfig | None
    """None when the core cannot even complete the config (it does not parse, ...)."""
    version: int | None = None
    """The version whose artifact the backend read."""
    signature: Signature | None = None
    filled: frozenset[str] = frozenset()
    """Top-level fields the backend set: max_batch_size, dynamic_batching, input, output."""
    error: CompletionError | None = None
    note: str | None = None
    """Why the backend filled nothing, or what could not be emulated."""
    io_known: bool = True
    """False when the backend may fill inputs or outputs but that could not be emulated
    (no emulation for the backend, --config-only, the artifact was not read)."""


@dataclass(frozen=True)
class BackendCompleter:
    """One backend's auto-complete: when it skips, and what it fills from a signature."""

    skip_reason: Callable[[ModelConfig], str | None]
    complete: Callable[[ModelConfig, Signature], tuple[ModelConfig, frozenset[str]]]
    """Returns the completed config and the filled fields; raises `CompletionFailed`."""


class CompletionFailed(Exception):
    def __init__(self, error: CompletionError) -> None:
        super().__init__(error.message)
        self.error = error


class CompletionUnknown(Exception):
    """The backend would fill something pbtxt-lint cannot emulate; the message says why."""


# --- ONNX Runtime (onnxruntime.cc: AutoCompleteConfig, AutoCompleteMaxBatch, AutoCompleteIO)


def ort_shape(spec: TensorSpec) -> list[int]:
    """The dims ONNX Runtime reports: named and unknown dims are -1, unknown rank is []."""
    return [d if isinstance(d, int) else -1 for d in spec.shape or ()]


def ort_io_type(spec: TensorSpec) -> str:
    """ONNX Runtime's name for a graph I/O kind, as Triton prints it."""
    kinds = {"seq": "SEQUENCE", "map": "MAP", "opaque": "OPAQUE", "sparse_tensor": "SPARSETENSOR"}
    if spec.is_tensor:
        return "ONNX_TYPE_TENSOR"
    return f"ONNX_TYPE_{kinds.get(spec.source_type.split('(', 1)[0], 'UNKNOWN')}"


def graph_inputs(signature: Signature) -> tuple[TensorSpec, ...]:
    """The inputs ONNX Runtime lists (initializers, even overridable ones, excluded)."""
    return tuple(spec for spec in signature.inputs if not spec.optional)


def not_batchable(signature: Signature) -> list[TensorSpec]:
    """Graph inputs and outputs whose first dim is not dynamic (or that have no dims)."""
    return [
        spec
        for spec in (*graph_inputs(signature), *signature.outputs)
        if not (shape := ort_shape(spec)) or shape[0] != -1
    ]


def onnx_skip_reason(config: ModelConfig) -> str | None:
    if (len(config.input) + len(config.batch_input)) > 0 and len(config.output) > 0:
        return "inputs and outputs already specified"
    return None


def complete_onnx(
    config: ModelConfig, signature: Signature, default_max_batch_size: int = DEFAULT_MAX_BATCH_SIZE
) -> tuple[ModelConfig, frozenset[str]]:
    """ONNX Runtime's auto-complete of a config that lacks inputs or outputs."""
    for spec in (*graph_inputs(signature), *signature.outputs):
        if not spec.is_tensor:
            raise CompletionFailed(
                CompletionError(
                    "R501",
                    f"Unsupported ONNX Type '{ort_io_type(spec)}' for I/O '{spec.name}', "
                    "expected 'ONNX_TYPE_TENSOR'.",
                )
            )
    completed = ModelConfig()
    completed.CopyFrom(config)
    filled: set[str] = set()
    if not not_batchable(signature):
        if completed.max_batch_size == 0:
            completed.max_batch_size = max(default_max_batch_size, 0)
            filled.add("max_batch_size")
        if completed.max_batch_size > 1 and completed.WhichOneof("scheduling_choice") is None:
            completed.dynamic_batching.SetInParent()
            filled.add("dynamic_batching")
    elif completed.max_batch_size != 0:
        raise CompletionFailed(
            CompletionError(
                "R502",
                f"autofill failed for model '{config.name}': model does not support batching "
                "while non-zero max_batch_size is specified",
            )
        )
    batched = completed.max_batch_size > 0
    # Tensors are added in graph order; Triton's order follows a hash map (unspecified).
    if len(config.input) + len(config.batch_input) == 0:
        for spec in graph_inputs(signature):
            _fill(completed.input.add(), spec, batched)
        filled.add("input")
    if len(config.output) == 0:
        for spec in signature.outputs:
            _fill(completed.output.add(), spec, batched)
        filled.add("output")
    return completed, frozenset(filled)


def _fill(io: ModelInput | ModelOutput, spec: TensorSpec, batched: bool) -> None:
    """One tensor as AutoCompleteIO writes it: batch dim dropped, a scalar as [1]."""
    io.name = spec.name
    io.data_type = cast(DataType, DataType.Value(spec.data_type or "TYPE_INVALID"))
    dims = ort_shape(spec)[1 if batched else 0 :]
    io.dims.extend(dims or [1])
    if not dims and batched:
        io.reshape.SetInParent()


# --- Python (pb_stub.cc AutoCompleteModelConfig; triton_python_backend_utils.ModelConfig)


def python_skip_reason(config: ModelConfig) -> str | None:
    """The stub imports model.py and runs auto_complete_config whatever the config holds."""
    return None


def complete_python(
    config: ModelConfig, signature: Signature
) -> tuple[ModelConfig, frozenset[str]]:
    """What the Python backend's auto-complete makes of `config`.

    Raises `CompletionFailed` when the stub fails (model.py does not import, the
    function raises) and `CompletionUnknown` when auto_complete_config is not literal.
    """
    from pbtxt_lint.artifacts.python_model import Completed, PythonSignature, Refused

    if not isinstance(signature, PythonSignature):
        return config, frozenset()
    if signature.syntax_error:
        raise CompletionFailed(
            CompletionError(
                "R662",
                "Failed to initialize Python stub for auto-complete: SyntaxError: "
                f"{signature.syntax_error}",
            )
        )
    if signature.model_class == "absent":
        raise CompletionFailed(
            CompletionError(
                "R662",
                "Failed to initialize Python stub for auto-complete: AttributeError: module "
                f"'{signature.path.stem}' has no attribute 'TritonPythonModel'",
            )
        )
    if signature.problems:
        raise CompletionUnknown(signature.problems[0].message)
    function = signature.auto_complete
    if function is None:
        if signature.model_class != "class":
            raise CompletionUnknown(
                f"TritonPythonModel is not defined in {signature.path.name} itself, so whether "
                "it has an auto_complete_config is unknown"
            )
        return config, frozenset()
    outcome = function.emulate(config)
    if isinstance(outcome, Refused):
        raise CompletionFailed(CompletionError(outcome.triton_id, outcome.message))
    if isinstance(outcome, Completed):
        return outcome.config, outcome.filled
    raise CompletionUnknown(
        f"auto_complete_config in {signature.path.name} (line {outcome.line}) is not "
        f"emulated: {outcome.reason}"
    )


COMPLETERS: dict[str, BackendCompleter] = {
    "onnx": BackendCompleter(onnx_skip_reason, complete_onnx),
    "python": BackendCompleter(python_skip_reason, complete_python),
}
"""Artifact format -> the backend's auto-complete. Other backends are not emulated yet."""


# --- the entry point ---------------------------------------------------------------------


def complete_config(context: ModelContext, version: int | None = None) -> CompletedConfig:
    """The config Triton validates for `version` (default: the highest loaded one).

    Strict mode, a complete config, or a backend whose auto-complete is not emulated
    return the core-completed config unchanged, with a `note` saying why.
    """
    effective = context.effective
    if effective is None:
        reason = context.autofill.error if context.autofill else None
        return CompletedConfig(None, note=reason or "the config cannot be read or parsed")
    if context.strict:
        return CompletedConfig(effective, note="auto-complete is disabled")
    return _complete(context, effective, context.artifacts, version)


def _complete(
    context: ModelContext,
    effective: ModelConfig,
    artifacts: ModelArtifacts,
    version: int | None,
) -> CompletedConfig:
    fmt = artifact_format(effective)
    completer = COMPLETERS.get(fmt) if fmt else None
    if completer is None:
        what = effective.backend or effective.platform or "this model"
        complete_io = bool(effective.input or effective.batch_input) and bool(effective.output)
        return CompletedConfig(
            effective, note=f"auto-complete of '{what}' is not emulated", io_known=complete_io
        )
    skip = completer.skip_reason(effective)
    if skip is not None:
        return CompletedConfig(effective, note=skip)
    if context.settings.config_only:
        return CompletedConfig(
            effective,
            note="--config-only: the model file was not read, so what the "
            "backend fills in is unknown",
            io_known=False,
        )
    artifact = artifacts.version(version)
    if artifact is None:
        return CompletedConfig(effective, note="no version of the model is loaded", io_known=False)
    if artifact.state is ArtifactState.MISSING:
        message = f"unable to find '{artifact.opened}' for model instance '{effective.name}'"
        return CompletedConfig(
            effective, artifact.version, error=CompletionError("R500", message), io_known=False
        )
    signature = artifact.signature
    if signature is not None and signature.format == "onnx":
        from pbtxt_lint.artifacts.onnx_signature import as_served

        # The backend's session runs the config's graph optimizations (ModelState).
        signature = as_served(signature, effective.optimization.graph.level)
    if signature is None:
        reason = artifact.error.message if artifact.error else "it is outside the repository"
        return CompletedConfig(
            effective,
            artifact.version,
            note=f"{artifact.opened} was not read: {reason}",
            error=CompletionError("artifact", reason) if artifact.error else None,
            io_known=False,
        )
    try:
        completed, filled = completer.complete(effective, signature)
    except CompletionFailed as failed:
        return CompletedConfig(
            effective, artifact.version, signature, error=failed.error, io_known=False
        )
    except CompletionUnknown as unknown:
        return CompletedConfig(
            effective, artifact.version, signature, note=str(unknown), io_known=False
        )
    # The core copies the backend's fields back and normalises again (UpdateModelConfig).
    renormalized = core_autofill(effective.name, completed, None, context.settings.target).config
    return CompletedConfig(renormalized, artifact.version, signature, filled)


# --- pbtxt-lint complete / init ----------------------------------------------------------


def complete_command(model_dir: Path, settings: Settings) -> str:
    """The config Triton would serve for the model (`GET /v2/models/<m>/config`), as pbtxt.

    Raises `CommandError` when Triton would not load the model far enough to have one.
    """
    context = _model_context(model_dir, settings)
    completed = complete_config(context)
    if completed.config is None:
        raise CommandError(f"cannot complete '{context.model.name}': {completed.note}")
    if completed.error is not None:
        raise CommandError(
            f"Triton fails to auto-complete '{context.model.name}': {completed.error.message}"
        )
    config = ModelConfig()
    config.CopyFrom(completed.config)
    notes = [
        f"# The configuration Triton serves for model '{config.name}' "
        f"(GET /v2/models/{config.name}/config), as emulated by pbtxt-lint.",
    ]
    if completed.filled:
        source = context.artifacts.version(completed.version)
        where = f" from {source.opened.relative_to(context.model.path)}" if source else ""
        notes.append(f"# Auto-complete filled{where}: {', '.join(sorted(completed.filled))}.")
        onnx = completed.signature is not None and completed.signature.format == "onnx"
        if onnx and {"input", "output"} & completed.filled:
            notes.append("# Filled tensors are in graph order; Triton's own order is unspecified.")
    elif completed.note and not completed.io_known:
        notes.append(f"# Not emulated, the backend may fill more: {completed.note}.")
    elif completed.note:
        notes.append(f"# The backend filled nothing: {completed.note}.")
    notes.extend(_server_defaults(config, settings.gpus))
    from google.protobuf import text_format

    body = text_format.MessageToString(config, use_short_repeated_primitives=True)
    return "\n".join(notes) + "\n" + body


def init_command(model_dir: Path, force: bool) -> Path:
    """Write a starter `config.pbtxt` derived from the model file; return its path.

    The starter is what auto-complete would serve, written out explicitly so that it no
    longer depends on auto-complete. An existing config is kept unless `force`; the
    file is replaced atomically either way.
    """
    context = _model_context(model_dir, Settings())
    target = context.model.path / "config.pbtxt"
    if target.exists() and not force:
        raise CommandError(f"{target} already exists; use --force to overwrite it")
    first = context.model.first_subfolder_contents()
    base = core_autofill(context.model.name, ModelConfig(), first, context.settings.target)
    if base.error is not None:
        raise CommandError(base.error)
    artifacts = ModelArtifacts(context, base.config)
    only = (
        "pbtxt-lint can derive a config from only ONNX models and Python models whose "
        "auto_complete_config it can emulate"
    )
    if not artifacts.readable or artifacts.format not in COMPLETERS:
        raise CommandError(f"cannot derive a config for backend '{base.config.backend}': {only}")
    completed = _complete(context, base.config, artifacts, None)
    if completed.error is None and not completed.filled and artifacts.format != "onnx":
        why = completed.note or "its model.py has no auto_complete_config"
        raise CommandError(f"cannot derive a config for '{context.model.name}' ({why}): {only}")
    if completed.error is not None or completed.config is None or completed.signature is None:
        reason = completed.error.message if completed.error else completed.note
        raise CommandError(f"cannot derive a config for '{context.model.name}': {reason}")
    starter = _starter(completed.config)
    invalid = [io.name for io in starter.input if io.data_type == DataType.TYPE_INVALID]
    invalid += [io.name for io in starter.output if io.data_type == DataType.TYPE_INVALID]
    if invalid:
        raise CommandError(
            f"{', '.join(invalid)} in {completed.signature.path.name} have a data type "
            "Triton cannot represent; change the model's I/O types"
        )
    source = completed.signature.path.relative_to(context.model.path)
    header = [f"# Starter configuration written by pbtxt-lint init from {source}."]
    if "max_batch_size" in completed.filled:
        header.append(
            f"# max_batch_size {starter.max_batch_size} is Triton's auto-complete default: "
            "set it to what the model and GPU can take."
        )
    from google.protobuf import text_format

    body = text_format.MessageToString(starter, use_short_repeated_primitives=True)
    _write_atomically(target, "\n".join(header) + "\n" + body, force)
    return target


def _model_context(model_dir: Path, settings: Settings) -> ModelContext:
    from pbtxt_lint.repository.layout import load_repository
    from pbtxt_lint.rules.base import ModelContext

    folder_path = model_dir.resolve()
    repository = load_repository(folder_path.parent, settings.model_config_name)
    folder = repository.models.get(folder_path.name)
    if folder is None or folder.entries is None:
        reason = folder.error if folder is not None and folder.error else "not a model folder"
        raise CommandError(f"{model_dir}: {reason}")
    return ModelContext(folder, repository, settings)


def _starter(config: ModelConfig) -> ModelConfig:
    """The explicit part of a completed config; Triton's defaults are left to Triton."""
    starter = ModelConfig(name=config.name, backend=config.backend)
    starter.max_batch_size = config.max_batch_size
    starter.input.extend(config.input)
    starter.output.extend(config.output)
    if config.HasField("dynamic_batching"):
        starter.dynamic_batching.SetInParent()
    return starter


def _server_defaults(config: ModelConfig, gpus: int | None) -> list[str]:
    """Add what the core fills after the backend (pinned memory, instance groups).

    Returns comment lines for what depends on the host.
    """
    if config.platform == ENSEMBLE_PLATFORM:
        return []
    optimization = config.optimization
    if not optimization.HasField("input_pinned_memory"):
        optimization.input_pinned_memory.enable = True
    if not optimization.HasField("output_pinned_memory"):
        optimization.output_pinned_memory.enable = True
    groups = config.instance_group
    if not groups:
        default = groups.add(name=config.name)
        if config.backend == "openvino" or (config.backend == "python" and gpus == 0):
            default.kind = ModelInstanceGroup.KIND_CPU
        elif config.backend == "python" and gpus:
            default.kind = ModelInstanceGroup.KIND_GPU
    for index, group in enumerate(groups):
        group.name = group.name or f"{config.name}_{index}"
        if group.kind == ModelInstanceGroup.KIND_AUTO and gpus is not None:
            absent = gpus == 0 or any(gpu >= gpus for gpu in group.gpus)
            group.kind = ModelInstanceGroup.KIND_CPU if absent else ModelInstanceGroup.KIND_GPU
        if group.kind == ModelInstanceGroup.KIND_GPU and not group.gpus and gpus:
            group.gpus.extend(range(gpus))
        if group.count < 1 and group.kind != ModelInstanceGroup.KIND_AUTO:
            cpu = group.kind == ModelInstanceGroup.KIND_CPU
            group.count = 2 if cpu and config.backend in CPU_COUNT_TWO else 1
    if gpus is None and any(g.kind == ModelInstanceGroup.KIND_AUTO for g in groups):
        return [
            "# instance_group: KIND_AUTO becomes KIND_GPU (count 1 per GPU) on a host with "
            "GPUs, else KIND_CPU; pass --gpus N to resolve it."
        ]
    return []


def _write_atomically(target: Path, text: str, replace: bool) -> None:
    """Write via a temporary file; without `replace`, never clobber an existing file."""
    import secrets

    temporary = target.with_name(f".{target.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if replace:
            os.replace(temporary, target)
        else:
            os.link(temporary, target)  # fails if the target appeared meanwhile
    except FileExistsError:
        raise CommandError(f"{target} already exists; use --force to overwrite it") from None
    except OSError as error:
        raise CommandError(f"cannot write {target}: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
