"""The model file Triton opens for each version it loads, found and read once.

Triton's backend opens `<model>/<version>/<default_model_filename>` (the backend's
default name when the field is empty; the ONNX Runtime backend takes `<dir>/model.onnx`
when that path is a folder). Rules ask `context.artifacts` for these files instead of
walking folders themselves, so every rule sees the same path, the same signature and
the same `--config-only` switch.

Adding a format: write a reader `(path, model_dir) -> Signature` that raises
`ArtifactError` (kinds in `signature.py`), register it in `READERS`, and map the
backend or platform to the format in `FORMAT_OF_BACKEND`/`FORMAT_OF_PLATFORM`. Readers
are imported when a file of their format is first read: most runs read one format or
none, and together they cost a tenth of a one-file run's start-up.
"""

from __future__ import annotations

import enum
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.artifacts.signature import ArtifactError, Signature
from pbtxt_lint.repository.fs import is_inside
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.triton.autofill import DEFAULT_FILENAMES, on_python_runtime
from pbtxt_lint.triton.versions import select_versions

if TYPE_CHECKING:
    from pbtxt_lint.rules.base import ModelContext

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


def reader_for(fmt: str) -> Reader | None:
    """The reader of `fmt` (its module imported on first use), None if there is none."""
    if fmt not in READERS:
        return None
    module, function = READERS[fmt]
    reader: Reader = getattr(importlib.import_module(f"pbtxt_lint.artifacts.{module}"), function)
    return reader


FORMAT_OF_PLATFORM: Mapping[str, str] = {
    "pytorch_libtorch": "torchscript",
    "torch_aoti": "pt2",
    "tensorflow_savedmodel": "savedmodel",
    "tensorflow_graphdef": "graphdef",
}
"""Platforms that decide the format on their own (a backend with several formats)."""

FORMAT_OF_BACKEND: Mapping[str, str] = {
    "onnxruntime": "onnx",
    "tensorrt": "plan",
    "openvino": "openvino",
    "python": "python",
}

DIRECTORY_ENTRY: Mapping[str, str] = {"onnx": "model.onnx", "savedmodel": "saved_model.pb"}
"""Formats whose artifact may be a folder, and the file the backend then opens in it."""


def artifact_format(config: ModelConfig) -> str | None:
    """The artifact format of a completed config; None for ensembles and custom backends."""
    if on_python_runtime(config):
        # It opens default_model_filename first: a .pt file with torch.jit.load.
        return "torchscript" if config.default_model_filename.endswith(".pt") else None
    return FORMAT_OF_PLATFORM.get(config.platform) or FORMAT_OF_BACKEND.get(config.backend)


class ArtifactState(enum.Enum):
    PRESENT = "present"
    MISSING = "missing"
    OUTSIDE = "outside"
    """The path resolves outside the repository: pbtxt-lint does not read it."""


@dataclass
class VersionArtifact:
    """The artifact of one version Triton would load."""

    version: int
    folder: Path
    """`<model>/<version>`: Triton loads from the folder named by the number itself."""
    path: Path
    """`<folder>/<default_model_filename>`, as configured."""
    opened: Path
    """The file the backend opens: `path`, or `path/model.onnx` for an ONNX folder."""
    state: ArtifactState
    format: str | None
    model_dir: Path
    reader: Reader | None = field(default=None, repr=False)

    @cached_property
    def read(self) -> Signature | ArtifactError | None:
        """The signature or why it could not be read; None when there is nothing to read."""
        if self.state is not ArtifactState.PRESENT or self.reader is None:
            return None
        try:
            return self.reader(self.opened, self.model_dir)
        except ArtifactError as error:
            return error

    @property
    def signature(self) -> Signature | None:
        return self.read if isinstance(self.read, Signature) else None

    @property
    def error(self) -> ArtifactError | None:
        return self.read if isinstance(self.read, ArtifactError) else None


class ModelArtifacts:
    """The artifacts of the versions Triton would load for one model.

    `versions` is empty, so every artifact rule is silent, when artifacts must not or
    cannot be checked: `--config-only`, a config that does not parse, an ensemble or a
    custom backend, or a model Triton rejects before its backend sees it (no config
    file in strict mode). `config` overrides the config used to locate the files
    (`pbtxt-lint init` starts from an empty one).
    """

    def __init__(self, context: ModelContext, config: ModelConfig | None = None) -> None:
        self.context = context
        self.config = config if config is not None else context.effective

    @cached_property
    def format(self) -> str | None:
        return artifact_format(self.config) if self.config is not None else None

    @cached_property
    def filename(self) -> str | None:
        """The file name Triton opens in each version folder."""
        config = self.config
        if config is None:
            return None
        if on_python_runtime(config):  # no single file to expect without a name
            return config.default_model_filename or None
        return (
            config.default_model_filename
            or DEFAULT_FILENAMES.get(config.platform)
            or DEFAULT_FILENAMES.get(config.backend)
        )

    @cached_property
    def enabled(self) -> bool:
        context = self.context
        if context.settings.config_only or self.format is None or not self.filename:
            return False
        return not (context.strict and context.config_file is None)

    @cached_property
    def readable(self) -> bool:
        """pbtxt-lint can read this format, so the files can be cross-checked."""
        return self.enabled and self.format in READERS

    @cached_property
    def cc_model_filenames(self) -> Mapping[str, str]:
        """Per compute capability file names: only GPU instances consult them."""
        return dict(self.config.cc_model_filenames) if self.config is not None else {}

    @cached_property
    def versions(self) -> tuple[VersionArtifact, ...]:
        if not self.enabled or self.config is None:
            return ()
        context = self.context
        if self.config is context.effective:
            selected = context.selection.versions
        else:
            available = [v.version for v in context.version_scan.versions]
            selected = select_versions(self.config, available).versions
        return tuple(self._locate(version) for version in selected)

    def version(self, number: int | None = None) -> VersionArtifact | None:
        """One version's artifact; the highest loaded version when `number` is None."""
        if not self.versions:
            return None
        if number is None:
            return self.versions[-1]
        return next((a for a in self.versions if a.version == number), None)

    def _locate(self, version: int) -> VersionArtifact:
        root = self.context.repository.root
        model_dir = self.context.model.path
        folder = model_dir / str(version)
        path = folder / (self.filename or "")
        fmt = self.format
        located = VersionArtifact(
            version,
            folder,
            path,
            path,
            ArtifactState.MISSING,
            fmt,
            model_dir,
            reader_for(fmt) if fmt else None,
        )
        if not is_inside(root, path):
            located.state = ArtifactState.OUTSIDE
            return located
        entry = DIRECTORY_ENTRY.get(fmt) if fmt else None
        try:
            if entry and path.is_dir():
                located.opened = path / entry
                if not is_inside(root, located.opened):
                    located.state = ArtifactState.OUTSIDE
                    return located
            present = located.opened.exists()
        except OSError:
            present = True  # the folder cannot even be searched: the reader says why
        if present:
            located.state = ArtifactState.PRESENT
        return located
