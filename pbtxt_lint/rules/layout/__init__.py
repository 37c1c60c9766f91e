"""PL1xx: the repository layout, model names, version folders, platform and backend.

These are decided by Triton's repository scan (every sub-folder is a model), its core
auto-fill (backend inferred from the first sub-folder) and version selection.
"""

MODULES: tuple[str, ...] = (
    "folders",
    "config_files",
    "backend_resolution",
    "versions",
    "backend_library",
)
"""The topic modules of the family, in code order (names: importing the family imports
none of them, so a run loads only the modules whose rules it calls)."""
