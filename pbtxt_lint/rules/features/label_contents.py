"""PL730-PL734: what a label file says, against the output it names.

The core reads `label_filename` line by line with `std::getline` (core's
src/label_provider.cc, `LabelProvider::AddLabels`): line i, exactly as written, is the
label of class i, with no comment, header or index syntax and no trimming. The
classification extension (server's src/classification.cc, `TopkClassifications`)
ranks every element of one batch item of the output and attaches line i to element i
(`InferenceResponse::ClassificationLabel`), answering `"score:index:label"`, or
`"score:index"` when the file has no line i. So the file must hold exactly one plain
label per class, in class order, and the output must be one score per class.

These rules read the label file, so `--config-only` skips them.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from math import prod

from pbtxt_lint.rules.api import (
    INFERENCE,
    INFO,
    WARNING,
    Finding,
    ModelContext,
    Scope,
    config_dims,
    integer,
    model_label,
    rule,
    shorten,
)
from pbtxt_lint.rules.features.common import is_file
from pbtxt_lint.schema.model_config_pb2 import ModelOutput

MAX_LABEL_BYTES = 8 << 20
"""Larger label files are not read (ImageNet-21k's is about 0.5 MiB)."""
BOX_FIELDS = (4, 5)
"""What a detection row holds besides its class scores: 4 box coordinates (YOLOv8),
and an objectness score (YOLOv5)."""
_INDEXED = re.compile(r"\s*([0-9]+)\s*[:,;\t ]\s*\S")


@dataclass(frozen=True)
class Labels:
    """One output's label file, split the way Triton splits it."""

    index: int
    output: ModelOutput
    name: str
    """The label_filename as written."""
    lines: tuple[str, ...]
    carriage_returns: int
    """Lines that end with a carriage return (a file saved with Windows line ends)."""

    @property
    def count(self) -> int:
        return len(self.lines)

    def quoted(self, i: int) -> str:
        return repr(shorten(self.lines[i].rstrip("\r"), 60)) if i < self.count else "no label"


def _split(data: bytes) -> list[str]:
    """The lines `std::getline` yields: split at \\n, no empty line after a final \\n."""
    text = data.decode("utf-8", errors="replace")
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _read_labels(context: ModelContext) -> tuple[list[Labels], list[tuple[int, str]]]:
    """The label files read, and those too large to read (output index, file name)."""
    config = context.effective
    if config is None:
        return [], []
    found, too_large = [], []
    for index, output in enumerate(config.output):
        label = output.label_filename
        if not label:
            continue
        relative = posixpath.normpath(label.lstrip("/"))
        if relative == ".." or relative.startswith("../"):
            continue  # PL714
        path = context.folder.path / relative
        if not is_file(context, path):
            continue  # PL715
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_LABEL_BYTES + 1)
        except OSError:
            continue
        if len(data) > MAX_LABEL_BYTES:
            too_large.append((index, label))
            continue
        lines = _split(data)
        crs = sum(1 for line in lines if line.endswith("\r"))
        found.append(Labels(index, output, label, tuple(lines), crs))
    return found, too_large


def label_files(context: ModelContext) -> list[Labels]:
    """Every output's readable label file, read once per model."""
    return context.shared(_read_labels)[0]


def class_count(output: ModelOutput) -> int | None:
    """The classes of a one-score-per-class output: its only dim that is not 1 (None when
    it has several, or a variable size)."""
    wide = [d for d in output.dims if d != 1]
    if len(wide) > 1 or any(d < 0 for d in wide):
        return None
    return wide[0] if wide else 1


def detection_axis(output: ModelOutput, labels: int) -> tuple[int, int] | None:
    """(axis, size) of a multi-dimensional output whose rows hold the label file's class
    scores plus box fields, or exactly one score per label: a detection head."""
    dims = list(output.dims)
    if labels < 2 or sum(1 for d in dims if d != 1) < 2:
        return None
    for axis, size in enumerate(dims):
        if size == labels or size - labels in BOX_FIELDS:
            return axis, size
    return None


def _comment_lines(labels: Labels) -> list[int]:
    return [i for i, line in enumerate(labels.lines) if line.lstrip().startswith("#")]


def _explained_by_comments(labels: Labels, classes: int) -> bool:
    comments = set(_comment_lines(labels))
    if not comments:
        return False
    blank = {i for i, line in enumerate(labels.lines) if not line.strip()}
    return labels.count - len(comments | blank) == classes


@rule(
    "PL730",
    "label-count-mismatch",
    WARNING,
    "A label file with more or fewer lines than the output has classes.",
    stage=INFERENCE,
    scope=Scope.FILES,
)
def label_count_mismatch(context: ModelContext) -> Iterator[Finding]:
    """Line i of the label file is the label of class i. One line too many (a CSV
    header, a background class the model does not have) shifts every label by one; too
    few leaves the last classes without a name. Either way a classification request
    returns the wrong label, or none, without any error.

    A label file over 8 MiB is not read: an info says so.

    Bad:
        dims: [ 43 ]    (signnames.txt: a "ClassName" header, then 43 names)
    Good:
        dims: [ 43 ]    (signnames.txt: the 43 names, one per line)
    """
    for index, name in context.shared(_read_labels)[1]:
        yield Finding(
            f"label file {name} of {model_label(context)} is larger than the "
            f"{MAX_LABEL_BYTES >> 20} MiB pbtxt-lint reads; its lines are not compared with "
            "the output's classes",
            at=("output", index, "label_filename"),
            hint="check that it holds one label per class, in class order",
            severity=INFO,
        )
    for labels in label_files(context):
        classes = class_count(labels.output)
        if classes is None or classes == labels.count or classes < 2:
            continue
        if _explained_by_comments(labels, classes):
            continue  # PL733 says which lines
        output, count = labels.output, labels.count
        where = f"output '{output.name}' ({config_dims(output.dims)}, {classes} classes)"
        if count > classes:
            extra = count - classes
            header = "line is not a class" if extra == 1 else f"{extra} lines are not classes"
            detail = (
                f"{labels.name} has {count} lines for {classes} classes; if its first {header} "
                f"(a header), every label is shifted: class 0 is answered as "
                f"{labels.quoted(0)} and class {classes - 1} as {labels.quoted(classes - 1)}, "
                f"while {labels.quoted(count - 1)} is never used"
            )
        else:
            detail = (
                f"{labels.name} has {count} lines for {classes} classes: classes {count} to "
                f'{classes - 1} are answered with no label ("score:index"), and if a line is '
                "missing in the middle every later label is shifted"
            )
        yield Finding(
            f"{where} of {model_label(context)}: {detail}; classification requests get "
            "wrong labels without any error",
            at=("output", labels.index, "label_filename"),
            hint=f"keep exactly one label per class, in class order ({classes} lines, no header)",
        )


@rule(
    "PL731",
    "labels-on-detection-output",
    WARNING,
    "A label file on a detection head ([25200,85]): classification ranks every number of "
    "the tensor as a class.",
    stage=INFERENCE,
    scope=Scope.FILES,
)
def labels_on_detection_output(context: ModelContext) -> Iterator[Finding]:
    """Classification ranks all the elements of one batch item of the output as if each
    were a class score. On a detection head such as YOLO's `[25200, 85]` (per anchor: 4
    box values, objectness, 80 class scores) the answers are positions in the flattened
    tensor, box coordinates included, and only the first 80 positions get a label. The
    label file's size matching the row's class scores is what shows it is a detector.

    Bad:
        output [ { name: "output0" dims: [ 25200, 85 ] label_filename: "coco.txt" } ]
    Good:
        output [ { name: "output0" dims: [ 25200, 85 ] } ]    (decode boxes client-side)
    """
    for labels in label_files(context):
        output = labels.output
        found = detection_axis(output, labels.count)
        if found is None:
            continue
        axis, size = found
        fixed = [d for d in output.dims if d > 0]
        total = prod(fixed) if len(fixed) == len(output.dims) else None
        extent = f"{total} values" if total else "every value"
        row = (
            f"axis {axis} ({size}) holds {labels.count} class scores"
            if size == labels.count
            else f"axis {axis} ({size}) is {size - labels.count} box values plus "
            f"{labels.count} class scores"
        )
        yield Finding(
            f"output '{output.name}' of {model_label(context)} has dims "
            f"{config_dims(output.dims)} and {labels.name} has {labels.count} labels: {row}, so "
            f"it is a detection output, yet classification ranks all its {extent} as classes: "
            f"answers are positions in the flattened tensor, box values included, and only "
            f"positions 0 to {labels.count - 1} get a label",
            at=("output", labels.index, "label_filename"),
            hint="remove label_filename and decode detections client-side (or in a "
            "post-processing step whose output is one score per class)",
        )


def _index_offset(lines: Sequence[str]) -> int | None:
    """0 or 1 when every line starts with its own index (0- or 1-based), else None."""
    numbers = []
    for line in lines:
        match = _INDEXED.match(line)
        if match is None:
            return None
        numbers.append(integer(match.group(1)))  # of any length
    for offset in (0, 1):
        if numbers == list(range(offset, offset + len(numbers))):
            return offset
    return None


@rule(
    "PL732",
    "label-lines-numbered",
    WARNING,
    'Label lines that start with their class index ("0 airplane"), which Triton returns '
    "as part of the label.",
    stage=INFERENCE,
    scope=Scope.FILES,
)
def label_lines_numbered(context: ModelContext) -> Iterator[Finding]:
    """Triton takes each line as the label, verbatim: a file printed as `0 airplane`,
    `1 automobile`, ... answers `"0.93:0:0 airplane"`, and a client that matches on
    `airplane` never finds it.

    Bad:
        0 airplane
        1 automobile
    Good:
        airplane
        automobile
    """
    for labels in label_files(context):
        if labels.count < 2:
            continue
        offset = _index_offset([line for line in labels.lines if line.strip()])
        if offset is None:
            continue
        first = labels.lines[0].rstrip("\r")
        match = _INDEXED.match(first)
        bare = first[match.end() - 1 :] if match else first
        yield Finding(
            f"every line of {labels.name} (labels of output '{labels.output.name}' of model "
            f"'{context.folder.name}') starts with its {offset}-based index, and Triton returns "
            f'the whole line: class 0 is answered as "<score>:0:{shorten(first, 40)}", not '
            f'"<score>:0:{shorten(bare, 40)}"',
            at=("output", labels.index, "label_filename"),
            hint="write the labels alone, one per line in class order (the line number is the "
            "class index)",
        )


@rule(
    "PL733",
    "label-comment-lines",
    WARNING,
    "Comment lines (# ...) in a label file, which Triton reads as labels.",
    stage=INFERENCE,
    scope=Scope.FILES,
)
def label_comment_lines(context: ModelContext) -> Iterator[Finding]:
    """Triton has no comment syntax for label files: a licence header of `#` lines
    becomes the labels of the first classes, and every real label moves down by as many
    lines.

    Bad:
        # Copyright ...
        label0
    Good:
        label0
    """
    for labels in label_files(context):
        comments = _comment_lines(labels)
        if not comments:
            continue
        classes = class_count(labels.output)
        first = comments[0]
        effect = f"class {first} is answered as {labels.quoted(first)}"
        if classes is not None and _explained_by_comments(labels, classes):
            effect += (
                f"; without its comment and blank lines the file has exactly the {classes} "
                "labels the output needs, so every label is shifted"
            )
        yield Finding(
            f"{labels.name} (labels of output '{labels.output.name}' of model "
            f"'{context.folder.name}') has {len(comments)} comment line"
            f"{'s' if len(comments) > 1 else ''}, which Triton reads as labels: {effect}",
            at=("output", labels.index, "label_filename"),
            hint="delete the comment lines (keep licences in another file)",
        )


@rule(
    "PL734",
    "label-file-crlf",
    WARNING,
    "A label file with Windows line ends: every label Triton returns ends with a carriage return.",
    stage=INFERENCE,
    scope=Scope.FILES,
)
def label_file_crlf(context: ModelContext) -> Iterator[Finding]:
    """Triton splits the file at line feeds only, so a file saved with Windows line ends
    (`\\r\\n`) gives labels that end in `\\r`: answers read `"0.93:0:airplane\\r"`, which
    matches no label a client compares with.

    Bad:
        airplane\\r\\n
    Good:
        airplane\\n
    """
    for labels in label_files(context):
        if not labels.carriage_returns:
            continue
        yield Finding(
            f"{labels.name} (labels of output '{labels.output.name}' of model "
            f"'{context.folder.name}') has Windows line ends on {labels.carriage_returns} of its "
            f"{labels.count} lines; Triton keeps the carriage return, so class 0 is answered "
            f'as "<score>:0:{shorten(labels.lines[0].rstrip(chr(13)), 40)}\\r"',
            at=("output", labels.index, "label_filename"),
            hint="save the file with Unix line ends (dos2unix)",
        )
