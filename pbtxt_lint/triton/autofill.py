"""What Triton's core fills in before it validates a config (`GetNormalizedModelConfig`).

Triton infers `backend`, `platform` and `default_model_filename` from the config and
from the files in the lexicographically first sub-folder of the model, then normalises
a few defaults. Rules must judge the config Triton actually validates, so they read
the result of `core_autofill`, not only what the user wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pbtxt_lint.repository.fs import FolderEntry
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.targets import Release, fills_python_runtime_filename, newer_name
from pbtxt_lint.triton.backends import PLATFORMS

ENSEMBLE_PLATFORM = "ensemble"


def on_python_runtime(config: ModelConfig) -> bool:
    """A pytorch model on the Python-based runtime (`runtime: "model.py"`), which finds
    its own file (model.py, else model.pt) when default_model_filename is empty."""
    return config.backend == "pytorch" and config.runtime == "model.py"


def is_ensemble(config: ModelConfig) -> bool:
    """Triton treats a model as an ensemble by its platform or its ensemble_scheduling
    (and skips instance groups, warmup and batching checks for it)."""
    return config.platform == ENSEMBLE_PLATFORM or config.HasField("ensemble_scheduling")


@dataclass(frozen=True)
class AutofillResult:
    """The completed config, or the error Triton raises while completing it."""

    config: ModelConfig
    error: str | None = None


def core_autofill(
    model_name: str,
    config: ModelConfig,
    first_subfolder: Mapping[str, FolderEntry] | None,
    release: Release | None = None,
) -> AutofillResult:
    """Emulate `GetNormalizedModelConfig` (AutoCompleteBackendFields + Normalize).

    `first_subfolder` is the content of the lexicographically first sub-folder of the
    model folder (any sub-folder, not only versions), or None if there is none.
    `release` is the Triton release emulated (None: the newest): an older core does not
    know every platform and file name (`targets.CORE_NAMES_ADDED`).
    """
    completed = ModelConfig()
    completed.CopyFrom(config)
    error = _complete_backend_fields(model_name, completed, first_subfolder, release)
    if error is None:
        _normalize(completed)
    return AutofillResult(completed, error)


def _has_file(folder: Mapping[str, FolderEntry] | None, name: str) -> bool:
    return folder is not None and name in folder and not folder[name].is_dir


def _has_dir(folder: Mapping[str, FolderEntry] | None, name: str) -> bool:
    return folder is not None and name in folder and folder[name].is_dir


def _complete_backend_fields(
    model_name: str,
    config: ModelConfig,
    folder: Mapping[str, FolderEntry] | None,
    release: Release | None,
) -> str | None:
    has_version = folder is not None
    aoti_platform = newer_name("torch_aoti", release) is None
    aoti_file = newer_name("model.pt2", release) is None
    libtorch_alias = newer_name("libtorch", release) is None
    if not config.name:  # a folder name that is not UTF-8 keeps U+FFFD for its bytes
        config.name = model_name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")

    if not config.platform and config.backend in ("", "tensorflow"):
        if config.default_model_filename == "model.savedmodel":
            config.platform = "tensorflow_savedmodel"
        elif config.default_model_filename == "model.graphdef":
            config.platform = "tensorflow_graphdef"
        elif not config.default_model_filename and has_version:
            if _has_dir(folder, "model.savedmodel"):
                config.platform = "tensorflow_savedmodel"
            if _has_file(folder, "model.graphdef"):
                config.platform = "tensorflow_graphdef"
    if config.platform in ("tensorflow_savedmodel", "tensorflow_graphdef"):
        config.backend = config.backend or "tensorflow"
        config.default_model_filename = (
            config.default_model_filename or PLATFORMS[config.platform].default_filename
        )
        return None

    nothing_given = not config.platform and not config.default_model_filename and has_version
    if not config.backend:
        if config.platform == "tensorrt_plan" or config.default_model_filename == "model.plan":
            config.backend = "tensorrt"
        elif nothing_given and _has_file(folder, "model.plan"):
            config.backend = "tensorrt"
    if config.backend == "tensorrt":
        config.platform = config.platform or "tensorrt_plan"
        config.default_model_filename = config.default_model_filename or "model.plan"
        return None

    if not config.backend:
        if config.platform == "onnxruntime_onnx" or config.default_model_filename == "model.onnx":
            config.backend = "onnxruntime"
        elif nothing_given and folder is not None and "model.onnx" in folder:
            config.backend = "onnxruntime"
    if config.backend == "onnxruntime":
        config.platform = config.platform or "onnxruntime_onnx"
        config.default_model_filename = config.default_model_filename or "model.onnx"
        return None

    if not config.backend:
        if config.default_model_filename == "model.xml" or (
            nothing_given and folder is not None and "model.xml" in folder
        ):
            config.backend = "openvino"
    if config.backend == "openvino":
        config.default_model_filename = config.default_model_filename or "model.xml"
        return None

    if not config.backend:
        if (
            config.platform == "pytorch_libtorch"
            or (libtorch_alias and config.platform == "libtorch")
            or config.default_model_filename == "model.pt"
        ):
            config.backend = "pytorch"
        elif (aoti_platform and config.platform == "torch_aoti") or (
            aoti_file and config.default_model_filename == "model.pt2"
        ):
            # Only the backend: a lone model.pt2 file name gets pytorch_libtorch below.
            config.backend = "pytorch"
        elif nothing_given:
            if folder is not None and "model.pt" in folder:
                if _has_file(folder, "model.pt"):
                    config.backend = "pytorch"
                    config.platform = "pytorch_libtorch"
            elif aoti_file and _has_file(folder, "model.pt2"):
                config.backend = "pytorch"
                config.platform = "torch_aoti"
    if config.backend == "pytorch":
        # The Python-based runtime finds model.py (else model.pt) itself when the file
        # name is left empty (targets.PYTHON_RUNTIME_FILLS_MODEL_PT).
        fill = not on_python_runtime(config) or fills_python_runtime_filename(release)
        if not config.platform:
            config.platform = "pytorch_libtorch"
            if fill:
                config.default_model_filename = config.default_model_filename or "model.pt"
        elif aoti_platform and config.platform == "torch_aoti" and fill:
            config.default_model_filename = config.default_model_filename or "model.pt2"
        return None

    if not config.backend:
        if config.default_model_filename == "model.py" or (
            nothing_given and folder is not None and "model.py" in folder
        ):
            config.backend = "python"
    if config.backend == "python":
        config.default_model_filename = config.default_model_filename or "model.py"
        return None

    if not config.backend and not config.platform and not config.default_model_filename:
        if "." not in model_name:
            return (
                f"Invalid model name: Could not determine backend for model '{model_name}' "
                "with no backend in model configuration. Expected model name of the form "
                "'model.<backend_name>'."
            )
        backend = model_name.split(".", 1)[1]
        config.backend = backend
        config.default_model_filename = f"model.{backend}"
    return None


def _normalize(config: ModelConfig) -> None:
    """NormalizeModelConfig: defaults Triton adds before validating."""
    if not config.HasField("version_policy"):
        config.version_policy.latest.num_versions = 1
    if config.HasField("dynamic_batching") and not config.dynamic_batching.preferred_batch_size:
        if config.max_batch_size > 0:
            config.dynamic_batching.preferred_batch_size.append(config.max_batch_size)
    if config.HasField("sequence_batching"):
        sequence = config.sequence_batching
        if sequence.max_sequence_idle_microseconds == 0:
            sequence.max_sequence_idle_microseconds = 1_000_000
        if sequence.HasField("oldest") and not sequence.oldest.preferred_batch_size:
            if config.max_batch_size > 0:
                sequence.oldest.preferred_batch_size.append(config.max_batch_size)


def backend_of(config: ModelConfig) -> str:
    """The backend a completed config runs on ("" for ensembles)."""
    return "" if config.platform == ENSEMBLE_PLATFORM else config.backend
