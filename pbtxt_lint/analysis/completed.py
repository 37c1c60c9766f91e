"""The config Triton validates after the backend's auto-complete: the result type.

Apart from `analysis.autocomplete`, which computes it, so that a run with
auto-complete disabled (or a config that does not parse) gets its answer without
importing the backends' emulations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbtxt_lint.schema import ModelConfig

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.signature import Signature

NO_AUTO_COMPLETE_NOTE = "auto-complete is disabled"


@dataclass(frozen=True)
class CompletionError:
    """The backend's auto-complete fails: Triton does not load the model."""

    triton_id: str
    """Which failure: "model-file-missing", "io-not-a-tensor", "not-batchable",
    "stub-import-fails" (model.py does not import), the Python emulator's ids
    (`artifacts.python_model.Refused`), or "artifact" (the file is unreadable)."""
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
