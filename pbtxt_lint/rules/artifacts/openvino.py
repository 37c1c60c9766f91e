"""PL644-PL645: what only the OpenVINO backend does with an IR.

It converts a config data_type that differs from the model's instead of refusing it
(openvino_backend `openvino.cc` ValidateInputs, with a PrePostProcessor), and reads
the weights from the `.bin` next to the `.xml` when the model loads. Names, counts and
shapes of IRs are compared with the other formats' (PL640-PL643).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import ModelView, loaded, per_model_view, shown_path
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import type_name
from pbtxt_lint.schema import DataType

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
LOAD = Stage.LOAD


@rule(
    "PL644",
    "openvino-data-type-converted",
    INFO,
    "A config data_type that differs from the OpenVINO model's, which the backend converts.",
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="openvino",
)
def openvino_data_type_converted(context: ModelContext) -> Iterator[Finding]:
    """The OpenVINO backend does not refuse a data_type that differs from the model's:
    it inserts a conversion (`PrePostProcessor`) to the config's type. The model loads,
    but every request pays for the conversion, and narrowing ones lose precision
    (FP32 -> FP16) or range (INT64 -> INT32).

    Bad:
        input [ { name: "ids" data_type: TYPE_INT32 ... } ]   (model.xml: ids is i64)
    Good:
        input [ { name: "ids" data_type: TYPE_INT64 ... } ]
    """

    def check(view: ModelView) -> Iterator[Finding]:
        if view.backend != "openvino":
            return
        for kind in ("input", "output"):
            specs = {spec.name: spec for spec in view.specs(kind)}
            for index, io in view.config_tensors(kind):
                spec = specs.get(io.name)
                written = type_name(io.data_type)
                if spec is None or io.data_type == DataType.TYPE_INVALID:
                    continue
                if spec.data_type == written:
                    continue
                model_type = spec.data_type or f"{spec.source_type}, which Triton cannot name"
                yield Finding(
                    f'{kind} "{io.name}": the config says {written} but {view.file} declares '
                    f"{spec.source_type} ({model_type}); the OpenVINO backend converts between "
                    "them on every request instead of failing, which costs time and may lose "
                    "precision or range",
                    at=(kind, index, "data_type"),
                    hint=f"data_type: {spec.data_type}"
                    if spec.data_type
                    else "export the model with a type Triton supports",
                )

    yield from per_model_view(context, check)


@rule(
    "PL645",
    "openvino-weights-missing",
    ERROR,
    "The OpenVINO IR's model.bin is missing or shorter than the XML says.",
    triton="ModelState::Create ... reading network ... (OpenVINO cannot read the weights: "
    "model.bin missing or too short)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="openvino",
)
def openvino_weights_missing(context: ModelContext) -> Iterator[Finding]:
    """An IR is two files: `model.xml` (the graph) and `model.bin` (the constants,
    addressed by offset and size). OpenVINO reads the `.bin` of the same name next to
    the XML when the model loads; copying only the XML, or the XML of one export with
    the `.bin` of another, fails the load.

    Bad:
        m/1/model.xml          (model.bin left behind)
    Good:
        m/1/model.xml
        m/1/model.bin
    """
    for artifact, signature in loaded(context, "openvino"):
        for problem in signature.problems:
            if problem.kind in ("weights-missing", "weights-short"):
                yield Finding(
                    f"{shown_path(artifact, context)}: {problem.message}; OpenVINO fails to read "
                    f"the model, so Triton fails to load version {artifact.version} of "
                    f"'{context.model.name}'",
                    file=artifact.opened,
                    hint="copy the .bin that was exported with this .xml next to it",
                )
