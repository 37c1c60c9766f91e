"""Which reader reads which model file format, and which format a config's model has.

Adding a format: write a reader `(path, model_dir) -> Signature` that raises
`ArtifactError` (kinds in `signature.py`), register it in `READERS`, and give the
backend or platform its format in `pbtxt_lint.triton.backends`. Readers are imported
when a file of their format is first read: most runs read one format or none, and
together they cost a tenth of a one-file run's start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from pathlib import Path

from pbtxt_lint.artifacts.signature import Signature
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.triton.autofill import on_python_runtime
from pbtxt_lint.triton.backends import BACKENDS, PLATFORMS

Reader = Callable[[Path, Path], Signature]
"""`reader(artifact_path, model_dir)`: the signature, or raises `ArtifactError`."""

READERS: Mapping[str, tuple[str, str]] = {
    "onnx": ("onnx", "read_onnx"),
    "plan": ("tensorrt", "read_plan"),
    "torchscript": ("torchscript", "read_torchscript"),
    "openvino": ("openvino", "read_openvino"),
    "savedmodel": ("savedmodel", "read_savedmodel"),
    "python": ("python_model", "read_python_model"),
}
"""Artifact format -> (module in pbtxt_lint.artifacts, reader function). Formats without
a reader are located but never read."""

DIRECTORY_ENTRY: Mapping[str, str] = {"onnx": "model.onnx", "savedmodel": "saved_model.pb"}
"""Formats whose artifact may be a folder, and the file the backend then opens in it."""


def reader_for(fmt: str) -> Reader | None:
    """The reader of `fmt` (its module imported on first use), None if there is none."""
    if fmt not in READERS:
        return None
    module, function = READERS[fmt]
    reader: Reader = getattr(importlib.import_module(f"pbtxt_lint.artifacts.{module}"), function)
    return reader


def artifact_format(config: ModelConfig) -> str | None:
    """The artifact format of a completed config; None for ensembles and custom backends."""
    if on_python_runtime(config):
        # It opens default_model_filename first: a .pt file with torch.jit.load.
        return "torchscript" if config.default_model_filename.endswith(".pt") else None
    platform = PLATFORMS.get(config.platform)
    if platform is not None and platform.decides_format:
        return platform.artifact_format
    backend = BACKENDS.get(config.backend)
    return backend.artifact_format if backend else None
