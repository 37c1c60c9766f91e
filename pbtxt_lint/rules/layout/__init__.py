"""PL1xx: the repository layout, model names, version folders, platform and backend.

These are decided by Triton's repository scan (every sub-folder is a model), its core
auto-fill (backend inferred from the first sub-folder) and version selection.
"""

from types import ModuleType

from pbtxt_lint.rules.layout import (
    backend_library,
    backend_resolution,
    config_files,
    folders,
    versions,
)

MODULES: tuple[ModuleType, ...] = (
    folders,
    config_files,
    backend_resolution,
    versions,
    backend_library,
)
"""The topic modules of the family, in code order."""
