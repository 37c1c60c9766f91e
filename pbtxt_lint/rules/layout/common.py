"""Names the PL1xx topic modules share: the backends Triton's containers know and the
model file names its core recognises, both read from `pbtxt_lint.triton.backends`."""

from __future__ import annotations

from pbtxt_lint.rules.api import BACKENDS, PLATFORMS

KNOWN_BACKENDS = tuple(BACKENDS)
"""Backends Triton's core and the NGC containers know; any other is custom (or a typo)."""
ARTIFACT_NAMES = tuple(
    sorted(
        {p.default_filename for p in PLATFORMS.values()}
        | {b.default_filename for b in BACKENDS.values() if b.default_filename}
    )
)
"""The file names the core's auto-fill recognises in a version folder
(`AutoCompleteBackendFields` in core's src/model_config_utils.cc)."""
