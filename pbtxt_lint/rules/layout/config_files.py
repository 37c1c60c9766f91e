"""PL102, PL103, PL111, PL116 and PL117: the config file, where Triton reads it and
the name it gives.

The poll reads `<model>/config.pbtxt` (or `configs/<name>.pbtxt` with
`--model-config-name`) and requires its `name` to equal the folder's
(`ModelRepositoryManager::InitializeModelInfo` in core's
src/model_repository_manager/model_repository_manager.cc). Without a config file
the backend must auto-complete one (`Model::Init` in core's src/model.cc); which
backends can is read from `pbtxt_lint.triton.backends`.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    BACKENDS,
    ERROR,
    INFO,
    WARNING,
    Edit,
    Finding,
    Fix,
    ModelContext,
    Scalar,
    Stage,
    model_label,
    rule,
)

AUTOCOMPLETING_BACKENDS = tuple(
    b.name for b in BACKENDS.values() if b.fills_empty_io or b.completes_in_model_py
)
"""Backends that derive a whole config from the model file when there is none."""


@rule(
    "PL102",
    "missing-config",
    ERROR,
    "A model folder without config.pbtxt while auto-complete is disabled.",
    triton="failed to open text file for read <path>/config.pbtxt: No such file or directory",
    needs_config=False,
)
def missing_config(context: ModelContext) -> Iterator[Finding]:
    """With `--disable-auto-complete-config`, Triton reads `config.pbtxt` unconditionally
    and fails the model when it is missing. (With auto-complete on, see PL117.)

    Bad:
        resnet/1/model.onnx   (no config.pbtxt, server run with --disable-auto-complete-config)
    Good:
        resnet/config.pbtxt
        resnet/1/model.onnx
    """
    if context.config_file is not None or context.folder.entries is None or context.auto_complete:
        return
    yield Finding(
        f"{model_label(context)} has no config.pbtxt, and with "
        "--disable-auto-complete-config Triton requires one",
        file=context.folder.path,
        hint="add config.pbtxt with the model's inputs, outputs and max_batch_size",
    )


@rule(
    "PL117",
    "config-required-by-backend",
    ERROR,
    "A model without config.pbtxt whose backend cannot auto-complete one.",
    triton="model configuration is not provided for model '<model>'",
    stage=Stage.LOAD,
    needs_config=False,
)
def config_required_by_backend(context: ModelContext) -> Iterator[Finding]:
    """Without `config.pbtxt`, Triton relies on the backend to derive the config from
    the model file. ONNX Runtime, TensorRT, OpenVINO, Python, TensorFlow and DALI can;
    PyTorch and custom backends cannot, and the model fails to load.

    Bad:
        resnet/1/model.pt   (no config.pbtxt)
    Good:
        resnet/config.pbtxt
        resnet/1/model.pt
    """
    if (
        context.config_file is not None
        or context.folder.entries is None
        or not context.auto_complete
    ):
        return
    effective = context.effective
    if effective is None or effective.backend in AUTOCOMPLETING_BACKENDS:
        return  # an undetermined backend is PL104's finding
    yield Finding(
        f"{model_label(context)} has no config.pbtxt and its backend "
        f"'{effective.backend}' cannot auto-complete one, so Triton fails with \"model "
        'configuration is not provided"',
        file=context.folder.path,
        hint="add config.pbtxt with the inputs, outputs and max_batch_size",
    )


@rule(
    "PL103",
    "name-mismatch",
    ERROR,
    "The config's name differs from its folder name.",
    triton="unexpected directory name '<dir>' for model '<name>', directory name must equal "
    "model name",
)
def name_mismatch(context: ModelContext) -> Iterator[Finding]:
    """The folder name is the model name; a `name` field must repeat it exactly (or be
    left out, and Triton fills it in).

    Bad:
        models/bert_onnx/config.pbtxt:  name: "bert"
    Good:
        models/bert_onnx/config.pbtxt:  name: "bert_onnx"
    """
    config = context.config
    if config is None or not config.name or config.name == context.folder.name:
        return
    located = context.parsed.source_map.get(("name",)) if context.parsed else None
    fix = None
    if located is not None and isinstance(located.value_node, Scalar):
        value = located.value_node
        fix = Fix(
            f'set name to "{context.folder.name}"',
            (Edit(value.first.start, value.last.end, f'"{context.folder.name}"'),),
        )
    yield Finding(
        f"name \"{config.name}\" does not match the folder name '{context.folder.name}'; "
        "Triton requires them to be equal and does not load the model",
        at=("name",),
        hint=f'write name: "{context.folder.name}", delete the name field, or rename the '
        f"folder to '{config.name}'",
        fix=fix,
    )


@rule(
    "PL111",
    "unused-config-variant",
    INFO,
    "A configs/<name>.pbtxt that is not used unless Triton runs with --model-config-name=<name>.",
    needs_config=False,
)
def unused_config_variant(context: ModelContext) -> Iterator[Finding]:
    """Triton reads `configs/<name>.pbtxt` only with `--model-config-name=<name>`, and
    silently falls back to `config.pbtxt` otherwise. Check variants with the same flag.

    Bad:
        resnet/configs/h100.pbtxt   (server started without --model-config-name)
    Good:
        tritonserver --model-config-name=h100 ...; pbtxt-lint check --model-config-name h100
    """
    for path in context.folder.unused_configs:
        yield Finding(
            f"configs/{path.name} is not checked: Triton uses it only when started with "
            f"--model-config-name={path.stem}",
            file=path,
            hint=f"run pbtxt-lint check --model-config-name {path.stem} to check it",
        )


@rule(
    "PL116",
    "config-in-version-folder",
    WARNING,
    "config.pbtxt sits inside a version folder, where Triton never reads it.",
    needs_config=False,
)
def config_in_version_folder(context: ModelContext) -> Iterator[Finding]:
    """Triton reads `<model>/config.pbtxt`; a copy in `<model>/1/` is ignored, so edits
    to it have no effect (and without a model-level config the model is auto-completed
    or fails).

    Bad:
        resnet/1/config.pbtxt
    Good:
        resnet/config.pbtxt
    """
    for folder in context.version_scan.versions:
        contents = context.folder.contents(folder.folder) or {}
        entry = contents.get("config.pbtxt")
        if entry is not None and not entry.is_dir:
            yield Finding(
                f"{folder.folder}/config.pbtxt is inside a version folder; Triton only reads "
                f"{context.folder.name}/config.pbtxt",
                file=context.folder.path / folder.folder / "config.pbtxt",
                hint=f"move it to {context.folder.name}/config.pbtxt",
            )
