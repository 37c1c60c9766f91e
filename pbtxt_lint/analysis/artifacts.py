"""The model file Triton opens for each version it loads, found and read once.

Triton's backend opens `<model>/<version>/<default_model_filename>` (the backend's
default name when the field is empty; the ONNX Runtime backend takes `<dir>/model.onnx`
when that path is a folder). Rules ask `context.artifacts` for these files instead of
walking folders themselves, so every rule sees the same path, the same signature and
the same `--config-only` switch. Formats and readers: `pbtxt_lint.artifacts.formats`.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.artifacts.formats import (
    DIRECTORY_ENTRY,
    READERS,
    Reader,
    artifact_format,
    reader_for,
)
from pbtxt_lint.artifacts.signature import ArtifactError, Signature, reason
from pbtxt_lint.repository.fs import is_inside
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.triton.autofill import on_python_runtime
from pbtxt_lint.triton.backends import default_filename
from pbtxt_lint.triton.versions import select_versions

if TYPE_CHECKING:
    from pbtxt_lint.analysis.context import ModelContext


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
        except OSError as error:  # a read that failed halfway (a bucket's ranged GET)
            what = f"{self.folder.name}/{self.opened.name}"
            return ArtifactError("unreadable", f"cannot read {what}: {reason(error)}")

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
        return config.default_model_filename or default_filename(config.platform, config.backend)

    @cached_property
    def enabled(self) -> bool:
        context = self.context
        if context.settings.config_only or self.format is None or not self.filename:
            return False
        return context.auto_complete or context.config_file is not None

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
        model_dir = self.context.folder.path
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
