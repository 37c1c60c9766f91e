"""PL107-PL110: version folders.

`VersionsToLoad` (core's src/model_repository_manager/model_lifecycle.cc) reads the
sub-folders of a model as versions with `std::stoll`, skips those with a leading
zero, and keeps the ones the version policy selects; a model left with none fails
(`ModelLifeCycle::AsyncLoad`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ENSEMBLE_PLATFORM,
    ERROR,
    INFO,
    PYTHON_ENV,
    SPECIAL_FOLDERS,
    WARNING,
    Finding,
    ModelContext,
    model_label,
    rule,
)
from pbtxt_lint.rules.layout.common import ARTIFACT_NAMES, linked_out_versions, versions_elsewhere


def _loose(context: ModelContext) -> list[str]:
    """Model files lying in the model folder itself instead of a version folder."""
    entries = context.folder.entries or []
    return [e.name for e in entries if not e.is_dir and e.name in ARTIFACT_NAMES]


def _version_detail(context: ModelContext) -> str:
    scan = context.version_scan
    if scan.versions:
        present = ", ".join(sorted({str(v.version) for v in scan.versions}, key=int))
        return f"the version policy selects none of the versions present ({present})"
    if scan.leading_zeros:
        return (
            f"'{scan.leading_zeros[0]}' is ignored because of its leading zero, and no "
            "other version folder exists"
        )
    if not context.folder.subfolders:
        return "the model folder has no version folder"
    return "no sub-folder is named by a version number"


@rule(
    "PL107",
    "no-loadable-version",
    ERROR,
    "No version folder that Triton would load under the model's version policy.",
    triton="at least one version must be available under the version policy of model '<model>'",
    needs_config=False,
)
def no_loadable_version(context: ModelContext) -> Iterator[Finding]:
    """Models (ensembles too) need a numeric version folder: `1/`, not `01/`, `v1/` or
    the model file directly in the model folder.

    With `--config-only` (configs kept apart from their model files), a model folder
    with no sub-folder named by digits and no model file is not judged: its version
    folders live wherever the model files do, whatever helper files (a DALI
    `pipeline.py`, `setup.sh`, `labels.txt`) sit beside the config.

    Bad:
        resnet/config.pbtxt
        resnet/model.onnx
    Good:
        resnet/config.pbtxt
        resnet/1/model.onnx
    """
    if context.folder.entries is None or context.effective is None:
        return
    if context.selection.versions or linked_out_versions(context):
        return  # a version behind a link pbtxt-lint does not follow is PL115's
    if versions_elsewhere(context):
        return
    loose = _loose(context)
    zeros = context.version_scan.leading_zeros
    if loose:
        hint = f"move {loose[0]} into a version folder: {context.folder.name}/1/{loose[0]}"
    elif zeros:
        hint = f"rename '{zeros[0]}' to '{zeros[0].lstrip('0') or '0'}'"
    elif context.effective.platform == ENSEMBLE_PLATFORM:
        hint = "an ensemble needs a version folder too: create an empty 1/"
    elif not context.folder.subfolders and not context.settings.config_only:
        hint = (
            "put the model file in a version folder such as 1/ (a repository whose model "
            "files are added at deploy time is checked with --config-only)"
        )
    else:
        hint = "put the model file in a version folder such as 1/"
    policy = context.config is not None and context.config.HasField("version_policy")
    yield Finding(
        f"{model_label(context)} has no version Triton would load: {_version_detail(context)}",
        at=("version_policy",) if policy else None,
        file=None if policy else context.folder.path,
        hint=hint,
    )


@rule(
    "PL108",
    "version-folder-ignored",
    WARNING,
    "A sub-folder that looks like a version but that Triton ignores (leading zero, not a number).",
    needs_config=False,
)
def version_folder_ignored(context: ModelContext) -> Iterator[Finding]:
    """Triton skips `01/` (leading zero) and `v2/` (not a number) with only a log warning:
    `ignore version directory '01' which contains leading zeros in its directory name`.

    Bad:
        resnet/01/model.onnx
    Good:
        resnet/1/model.onnx
    """
    if context.folder.entries is None:
        return
    scan = context.version_scan
    for name in scan.leading_zeros:
        fixed = name.lstrip("0") or "0"
        yield Finding(
            f"version folder '{name}' is ignored by Triton because of its leading zero",
            file=context.folder.path / name,
            hint=f"rename it to '{fixed}'",
        )
    environment = _environment_folder(context)
    for name in scan.not_numeric:
        if name in SPECIAL_FOLDERS or name.startswith(".") or name == environment:
            continue
        yield Finding(
            f"sub-folder '{name}' is not a version number; Triton ignores it",
            file=context.folder.path / name,
            hint="version folders are named 1, 2, ...; move other files out of the model folder",
            severity=INFO if name == "__pycache__" else None,
        )


def _environment_folder(context: ModelContext) -> str | None:
    """The model-folder sub-folder a Python model's EXECUTION_ENV_PATH names, if any: an
    unpacked environment lives there by design (python_backend README)."""
    config = context.effective
    if config is None or config.backend != "python" or PYTHON_ENV not in config.parameters:
        return None
    value = config.parameters[PYTHON_ENV].string_value
    rest = value.removeprefix("$$TRITON_MODEL_DIRECTORY/") if value.startswith("$$") else ""
    return rest.split("/", 1)[0] or None


@rule(
    "PL109",
    "version-folder-numeric-prefix",
    WARNING,
    "A folder like 1_old or 2-backup, which Triton reads as a version number.",
    needs_config=False,
)
def version_folder_numeric_prefix(context: ModelContext) -> Iterator[Finding]:
    """Triton parses version folders with `std::stoll`, so `1_old` is version 1 and
    `3.bak` is version 3, and the backend then looks for the model in `1/` or `3/`.
    A backup folder can shadow the real version or make a missing one look present.

    Bad:
        resnet/1/model.onnx
        resnet/2_backup/model.onnx
    Good:
        resnet/1/model.onnx
    """
    if context.folder.entries is None:
        return
    for folder in context.version_scan.versions:
        if folder.exact:
            continue
        yield Finding(
            f"'{folder.folder}' is read by Triton as version {folder.version}, and the "
            f"backend then loads from '{folder.version}/'",
            file=context.folder.path / folder.folder,
            hint="move backups out of the model repository",
        )


@rule(
    "PL110",
    "specific-version-missing",
    WARNING,
    "version_policy.specific lists a version that has no folder.",
)
def specific_version_missing(context: ModelContext) -> Iterator[Finding]:
    """Triton logs `version <v> is specified for model '<model>', but the version
    directory is not present` and loads the other versions (the model fails only if
    none is left, see PL107).

    Bad:
        version_policy { specific { versions: [ 1, 3 ] } }   (no 3/)
    Good:
        version_policy { specific { versions: [ 1 ] } }
    """
    if context.folder.entries is None or not context.selection.versions:
        return
    config = context.config
    if config is None:
        return
    wanted = list(config.version_policy.specific.versions)
    for version in context.selection.missing_specific:
        index = wanted.index(version)
        yield Finding(
            f"version {version} is listed in version_policy.specific but "
            f"'{context.folder.name}/{version}/' does not exist; Triton skips it",
            at=("version_policy", "specific", "versions", index),
            hint=f"create {version}/ or remove {version} from the list",
        )
