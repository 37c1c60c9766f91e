"""Names the PL1xx topic modules share: the backends Triton's containers know and the
model file names its core recognises, both read from `pbtxt_lint.triton.backends`; and
whether, with --config-only, a model's version folders are elsewhere."""

from __future__ import annotations

import re

from pbtxt_lint.rules.api import BACKENDS, PLATFORMS, ModelContext, scan_version_folders

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
    linked = [e.name for e in context.folder.entries or [] if e.is_symlink and e.outside]
    return [v.folder for v in scan_version_folders(linked).versions]


_DIGITS = re.compile(r"\d+")


def versions_elsewhere(context: ModelContext) -> bool:
    """With --config-only (configs kept apart from their model files), whether this
    model's version folders live elsewhere: its folder has no sub-folder named by
    digits (`1`, `01`) and no model file of its own. What Triton reads from the version
    folders (which versions load, which backend a file names) is then not judged; the
    helper files such a folder holds (a DALI pipeline.py, setup.sh, labels.txt) are no
    sign of where the versions are."""
    if not context.settings.config_only:
        return False
    entries = context.folder.entries or []
    if any(e.is_dir and _DIGITS.fullmatch(e.name) for e in entries):
        return False
    return not any(not e.is_dir and e.name in ARTIFACT_NAMES for e in entries)
