"""PL714-PL717: label files of classification outputs.

The core reads each output's `label_filename` from the model folder when it
initialises the model (`Model::Init` in core's src/model.cc, with
`LabelProvider::AddLabels` in src/label_provider.cc); a file outside the model folder,
a missing file or a second label file for one output name fails the load.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    DataType,
    Finding,
    ModelConfig,
    ModelContext,
    Scope,
    Stage,
    is_inside,
    model_label,
    rule,
    type_name,
)
from pbtxt_lint.rules.features.common import version_holding


def _labels(context: ModelContext) -> Iterator[tuple[int, str, str | None]]:
    """(output index, label_filename, path relative to the model folder or None if outside).

    Triton joins the name to the model folder (a leading `/` does not make it absolute).
    """
    config = context.effective
    if config is None:
        return
    for index, output in enumerate(config.output):
        label = output.label_filename
        if not label:
            continue
        relative = posixpath.normpath(label.lstrip("/"))
        outside = relative == ".." or relative.startswith("../")
        yield index, label, None if outside else relative


@rule(
    "PL714",
    "label-file-outside-model",
    ERROR,
    "A `label_filename` that points outside the model folder.",
    triton="label file path '<path>' for output '<output>' in model '<model>' is outside model "
    "directory",
    stage=Stage.LOAD,
)
def label_file_outside_model(context: ModelContext) -> Iterator[Finding]:
    """Label files are resolved against the model folder and must stay inside it;
    current Triton refuses `../labels.txt` (older releases read it, but the file is then
    not part of the model when it is copied or served from cloud storage).

    Bad:
        label_filename: "../labels.txt"
    Good:
        label_filename: "labels.txt"     (resnet/labels.txt)
    """
    config = context.effective
    for index, label, relative in _labels(context):
        if relative is None and config is not None:
            yield Finding(
                f"label_filename '{label}' of output '{config.output[index].name}' of model "
                f"'{context.folder.name}' points outside the model folder; Triton refuses it",
                at=("output", index, "label_filename"),
                hint=f"copy the file into {context.folder.name}/ and write its name only",
            )


@rule(
    "PL715",
    "label-file-missing",
    ERROR,
    "A `label_filename` that does not exist in the model folder.",
    triton="failed to open text file for read <model>/<label_filename>: No such file or directory",
    stage=Stage.LOAD,
    scope=Scope.FILES,
)
def label_file_missing(context: ModelContext) -> Iterator[Finding]:
    """Triton reads label files from the model folder (`<model>/labels.txt`), not from
    the version folder, and fails the model when the file is missing.

    Bad:
        resnet/1/labels.txt
        label_filename: "labels.txt"
    Good:
        resnet/labels.txt
        label_filename: "labels.txt"
    """
    config = context.effective
    for index, label, relative in _labels(context):
        if relative is None or config is None:
            continue
        path = context.folder.path / relative
        if not is_inside(context.repository.root, path) or path.is_file():
            continue
        version = version_holding(context, relative)
        found = (
            f"; it is in the version folder {version}/, but Triton reads labels from the "
            "model folder"
            if version
            else ""
        )
        yield Finding(
            f"label_filename '{label}' of output '{config.output[index].name}' of model "
            f"'{context.folder.name}' does not exist at {context.folder.name}/{relative}{found}",
            at=("output", index, "label_filename"),
            hint=f"put the labels (one per line) at {context.folder.name}/{relative}",
        )


@rule(
    "PL716",
    "label-file-duplicate-output",
    ERROR,
    "Two outputs with the same name that both set `label_filename`.",
    triton="multiple label files for '<output>'",
    stage=Stage.LOAD,
    effective=True,
)
def label_file_duplicate_output(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Labels are kept per output name; a second output of the same name with labels
    fails the model.

    Bad:
        output [ { name: "prob" label_filename: "a.txt" ... },
                 { name: "prob" label_filename: "b.txt" ... } ]
    Good:
        output [ { name: "prob" label_filename: "a.txt" ... } ]
    """
    seen: set[str] = set()
    for index, output in enumerate(config.output):
        if not output.label_filename:
            continue
        if output.name in seen:
            yield Finding(
                f"output '{output.name}' of {model_label(context)} is declared again with "
                "a label_filename; Triton allows one label file per output name",
                at=("output", index, "label_filename"),
                hint="delete the duplicate output",
            )
        seen.add(output.name)


@rule(
    "PL717",
    "label-file-not-classification",
    INFO,
    "A `label_filename` on an output that does not look like class scores.",
    effective=True,
)
def label_file_not_classification(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Labels are used only by the classification extension (a request asking for the
    top-k classes), which reads the output as one score per class. On a detection or
    multi-dimensional output they are never meaningful. When the label file shows that
    the output is a detection head, PL731 warns instead.

    Bad:
        output [ { name: "boxes" data_type: TYPE_FP32 dims: [ 25200, 85 ]
                   label_filename: "labels.txt" } ]
    Good:
        output [ { name: "probs" data_type: TYPE_FP32 dims: [ 1000 ]
                   label_filename: "labels.txt" } ]
    """
    # Deferred for start-up time: only a run that reads label files needs them.
    from pbtxt_lint.rules.features.label_contents import detection_axis, label_files

    detectors = (
        {f.index for f in label_files(context) if detection_axis(f.output, f.count)}
        if Scope.FILES in context.scopes
        else set()
    )
    for index, output in enumerate(config.output):
        if not output.label_filename or index in detectors:
            continue
        dims = list(output.reshape.shape) if output.HasField("reshape") else list(output.dims)
        wide = [d for d in dims if d != 1]
        if len(wide) <= 1 and output.data_type != DataType.TYPE_STRING:
            continue
        yield Finding(
            f"output '{output.name}' of {model_label(context)} has label_filename but "
            f"{type_name(output.data_type)} dims {dims} are not one score per class; Triton "
            "uses labels only for classification requests",
            at=("output", index, "label_filename"),
            hint="keep labels on the class-score output, or map class ids to names client-side",
        )
