"""What a backend's auto-complete adds to the config before Triton validates it.

With auto-complete on (Triton's default), the ONNX Runtime backend opens the model
when the config lacks inputs or outputs and fills `max_batch_size`, `dynamic_batching`,
`input` and `output` from the graph; the Python backend runs the model's
`auto_complete_config` (emulated when it is literal, see `artifacts.python_model`), and
the vLLM backend's, known as data (`triton.vllm`), adds its own tensors; the core then
normalises again. Every later check (the backend's own I/O validation, the
core's, the ensemble checks) sees the completed config, so the linter must judge that
config rather than the file as written.

`complete_with` computes it; checks read it as `context.completed` (or
`context.completed_for(version)`), so it is computed once per model.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from pbtxt_lint.analysis.artifacts import ArtifactState, ModelArtifacts
from pbtxt_lint.analysis.completed import CompletedConfig, CompletionError
from pbtxt_lint.artifacts.formats import artifact_format
from pbtxt_lint.artifacts.signature import Signature, TensorSpec
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelOutput
from pbtxt_lint.triton.autofill import core_autofill

if TYPE_CHECKING:
    from pbtxt_lint.analysis.context import ModelContext

DEFAULT_MAX_BATCH_SIZE = 4
"""ONNX Runtime's `--backend-config=onnxruntime,default-max-batch-size` default."""


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
                    "io-not-a-tensor",
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
                "not-batchable",
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
    # Deferred for start-up time: the Python reader loads with the first Python model.
    from pbtxt_lint.artifacts.python_model import Completed, PythonSignature, Refused

    if not isinstance(signature, PythonSignature):
        return config, frozenset()
    if signature.syntax_error:
        raise CompletionFailed(
            CompletionError(
                "stub-import-fails",
                "Failed to initialize Python stub for auto-complete: SyntaxError: "
                f"{signature.syntax_error}",
            )
        )
    if signature.model_class == "absent":
        raise CompletionFailed(
            CompletionError(
                "stub-import-fails",
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


# --- vLLM (vllm_backend src/model.py: TritonPythonModel.auto_complete_config) ------------


def complete_vllm(context: ModelContext, effective: ModelConfig) -> CompletedConfig:
    """What the vLLM backend's auto_complete_config makes of `effective`: the inputs and
    outputs of its release that the config lacks (by name), the decoupled policy, then
    max_batch_size 0, through `pb_utils.ModelConfig`'s checks. It reads no model file,
    so this holds with `--config-only` too."""
    # Deferred for start-up time: loaded with the first vLLM model.
    from pbtxt_lint.artifacts.python_model import Refused, complete_as_stub
    from pbtxt_lint.triton.vllm import backend_release

    target = context.settings.target
    behaviour = backend_release(target)
    if behaviour is None or not behaviour.auto_complete:
        return CompletedConfig(effective, note="this vLLM backend release does not auto-complete")
    outcome = complete_as_stub(
        effective,
        [tensor.as_dict() for tensor in behaviour.inputs],
        [tensor.as_dict() for tensor in behaviour.outputs],
        decoupled=True,
        max_batch_size=0,
    )
    if isinstance(outcome, Refused):
        error = CompletionError(outcome.triton_id, outcome.message)
        return CompletedConfig(effective, error=error, io_known=False)
    renormalized = core_autofill(effective.name, outcome.config, None, target).config
    return CompletedConfig(renormalized, filled=outcome.filled)


SELF_COMPLETING: dict[str, Callable[[ModelContext, ModelConfig], CompletedConfig]] = {
    "vllm": complete_vllm,
}
"""Python-based backends whose auto_complete_config is known as data, by backend name."""

COMPLETERS: dict[str, BackendCompleter] = {
    "onnx": BackendCompleter(onnx_skip_reason, complete_onnx),
    "python": BackendCompleter(python_skip_reason, complete_python),
}
"""Artifact format -> the backend's auto-complete. Other backends are not emulated yet."""


# --- the entry point ---------------------------------------------------------------------


def complete_with(
    context: ModelContext,
    effective: ModelConfig,
    artifacts: ModelArtifacts,
    version: int | None,
) -> CompletedConfig:
    self_completing = SELF_COMPLETING.get(effective.backend)
    if self_completing is not None:
        return self_completing(context, effective)
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
            effective,
            artifact.version,
            error=CompletionError("model-file-missing", message),
            io_known=False,
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
