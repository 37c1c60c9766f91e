"""What `pbtxt-lint complete` prints and what `pbtxt-lint init` writes.

`complete` shows the config Triton would serve once the backend's auto-complete has
run (`context.completed`, emulated in `pbtxt_lint.analysis.autocomplete`) and the core
has added its server-side defaults; `init` writes the explicit part of that config as
a starter config.pbtxt.

Both write through pbtxt-lint's one writer (`textproto.write`): `fmt` layout, fields in
the conventional order. `complete` does not mirror a text layout of Triton's: Triton
serves this config as JSON (`convert --to json` writes that), and the only text it
prints, the verbose log's "Server side auto-completed config" (model_config_utils.cc:
protobuf's `DebugString`, in field-number order, `backend` last), is the config before
the backend's auto-complete and the default instance groups, not this one. What
`complete` prints is what a user pastes into config.pbtxt to stop depending on
auto-complete, so it is what `fmt` keeps.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pbtxt_lint.analysis.artifacts import ModelArtifacts
from pbtxt_lint.analysis.autocomplete import COMPLETERS, complete_with
from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.repository.layout import load_repository
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInstanceGroup
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.format import FormatError
from pbtxt_lint.textproto.write import write_config
from pbtxt_lint.triton.autofill import ENSEMBLE_PLATFORM, core_autofill
from pbtxt_lint.triton.backends import BACKENDS


class CommandError(Exception):
    """`complete`/`init` cannot do what was asked; the message is for the user."""


def complete_command(model_dir: Path, settings: Settings) -> str:
    """The config Triton would serve for the model (`GET /v2/models/<m>/config`), as pbtxt.

    Raises `CommandError` when Triton would not load the model far enough to have one.
    """
    context = _model_context(model_dir, settings)
    completed = context.completed
    if completed.config is None:
        raise CommandError(f"cannot complete '{context.folder.name}': {completed.note}")
    if completed.error is not None:
        raise CommandError(
            f"Triton fails to auto-complete '{context.folder.name}': {completed.error.message}"
        )
    config = ModelConfig()
    config.CopyFrom(completed.config)
    notes = [
        f"# The configuration Triton serves for model '{config.name}' "
        f"(GET /v2/models/{config.name}/config), as emulated by pbtxt-lint.",
    ]
    if completed.filled:
        source = context.artifacts.version(completed.version)
        where = f" from {source.opened.relative_to(context.folder.path)}" if source else ""
        notes.append(f"# Auto-complete filled{where}: {', '.join(sorted(completed.filled))}.")
        onnx = completed.signature is not None and completed.signature.format == "onnx"
        if onnx and {"input", "output"} & completed.filled:
            notes.append("# Filled tensors are in graph order; Triton's own order is unspecified.")
    elif completed.note and not completed.io_known:
        notes.append(f"# Not emulated, the backend may fill more: {completed.note}.")
    elif completed.note:
        notes.append(f"# The backend filled nothing: {completed.note}.")
    notes.extend(_server_defaults(config, settings.gpus))
    return _write(config, notes)


def init_command(model_dir: Path, force: bool) -> Path:
    """Write a starter `config.pbtxt` derived from the model file; return its path.

    The starter is what auto-complete would serve, written out explicitly so that it no
    longer depends on auto-complete. An existing config is kept unless `force`; the
    file is replaced atomically either way.
    """
    context = _model_context(model_dir, Settings())
    target = context.folder.path / "config.pbtxt"
    if target.exists() and not force:
        raise CommandError(f"{target} already exists; use --force to overwrite it")
    first = context.folder.first_subfolder_contents()
    base = core_autofill(context.folder.name, ModelConfig(), first, context.settings.target)
    if base.error is not None:
        raise CommandError(base.error)
    artifacts = ModelArtifacts(context, base.config)
    only = (
        "pbtxt-lint can derive a config from only ONNX models and Python models whose "
        "auto_complete_config it can emulate"
    )
    if not artifacts.readable or artifacts.format not in COMPLETERS:
        raise CommandError(f"cannot derive a config for backend '{base.config.backend}': {only}")
    completed = complete_with(context, base.config, artifacts, None)
    if completed.error is None and not completed.filled and artifacts.format != "onnx":
        why = completed.note or "its model.py has no auto_complete_config"
        raise CommandError(f"cannot derive a config for '{context.folder.name}' ({why}): {only}")
    if completed.error is not None or completed.config is None or completed.signature is None:
        reason = completed.error.message if completed.error else completed.note
        raise CommandError(f"cannot derive a config for '{context.folder.name}': {reason}")
    starter = _starter(completed.config)
    invalid = [io.name for io in starter.input if io.data_type == DataType.TYPE_INVALID]
    invalid += [io.name for io in starter.output if io.data_type == DataType.TYPE_INVALID]
    if invalid:
        raise CommandError(
            f"{', '.join(invalid)} in {completed.signature.path.name} have a data type "
            "Triton cannot represent; change the model's I/O types"
        )
    source = completed.signature.path.relative_to(context.folder.path)
    header = [f"# Starter configuration written by pbtxt-lint init from {source}."]
    if "max_batch_size" in completed.filled:
        header.append(
            f"# max_batch_size {starter.max_batch_size} is Triton's auto-complete default: "
            "set it to what the model and GPU can take."
        )
    _write_atomically(target, _write(starter, header), force)
    return target


def _write(config: ModelConfig, header: list[str]) -> str:
    """The config as pbtxt-lint writes every config, after the header comments."""
    try:
        return write_config(config, header)
    except FormatError as error:
        raise CommandError(f"cannot write the configuration of '{config.name}': {error}") from None


def _model_context(model_dir: Path, settings: Settings) -> ModelContext:
    folder_path = model_dir.resolve()
    repository = load_repository(folder_path.parent, settings.model_config_name)
    folder = repository.models.get(folder_path.name)
    if folder is None or folder.entries is None:
        reason = folder.error if folder is not None and folder.error else "not a model folder"
        raise CommandError(f"{model_dir}: {reason}")
    return ModelContext.standalone(folder, repository, settings)


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
            entry = BACKENDS.get(config.backend)
            group.count = entry.default_cpu_count if cpu and entry else 1
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
