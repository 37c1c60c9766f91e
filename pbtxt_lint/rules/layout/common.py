"""Names the PL1xx topic modules share: the backends Triton's containers know and the
model file names its core recognises, both read from `pbtxt_lint.triton.backends`."""

from __future__ import annotations

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.triton.backends import BACKENDS, PLATFORMS
from pbtxt_lint.triton.versions import scan_version_folders

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


def linked_out_versions(context: ModelContext) -> list[str]:
    """Version folders of the model that are symlinks out of the repository (or broken):
    Triton follows them, pbtxt-lint does not, so their versions go unchecked (PL115)
    rather than missing (PL107)."""
    linked = [e.name for e in context.model.entries or [] if e.is_symlink and e.outside]
    return [v.folder for v in scan_version_folders(linked).versions]
