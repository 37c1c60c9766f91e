"""PL605-PL607: ONNX Runtime's auto-complete (`onnxruntime.cc` AutoCompleteConfig).

When a config leaves its inputs or outputs out, the backend fills them from the graph
and decides whether the model can batch. These rules report the graphs it refuses
and the max_batch_size it picks.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.autocomplete import (
    DEFAULT_MAX_BATCH_SIZE,
    graph_inputs,
    not_batchable,
    ort_io_type,
)
from pbtxt_lint.analysis.completed import CompletedConfig
from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import (
    OnnxView,
    inferred_note,
    merge_versions,
    model_dims,
    per_onnx_view,
    readable,
    shown_path,
)
from pbtxt_lint.rules.base import Finding, Stage, rule

ERROR, INFO = Severity.ERROR, Severity.INFO
LOAD = Stage.LOAD


@rule(
    "PL605",
    "non-tensor-io",
    ERROR,
    "A graph input or output that is a sequence, map or optional, not a tensor.",
    triton="Unsupported ONNX Type '<ONNX_TYPE_SEQUENCE>' for I/O '<name>', expected "
    "'ONNX_TYPE_TENSOR'.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def non_tensor_io(context: ModelContext) -> Iterator[Finding]:
    """The ONNX Runtime backend only exchanges tensors with Triton; a graph whose inputs
    or outputs are sequences, maps or optionals fails to load whatever the config says.

    Bad:
        model.onnx input "boxes": seq(tensor(float))
    Good:
        model.onnx input "boxes": tensor(float) [n, 4]  (concatenate the sequence)
    """
    for artifact in readable(context):
        signature = artifact.signature
        if signature is None or signature.format != "onnx":
            continue
        for kind, specs in (("input", graph_inputs(signature)), ("output", signature.outputs)):
            for spec in specs:
                if spec.is_tensor:
                    continue
                yield Finding(
                    f'{kind} "{spec.name}" of {shown_path(artifact, context)} is '
                    f"{spec.source_type} ({ort_io_type(spec)}), not a tensor; the ONNX Runtime "
                    f"backend serves only tensors, so Triton fails to load '{context.model.name}'",
                    file=artifact.opened,
                    hint="change the model to take and return plain tensors (for example "
                    "concatenate a sequence into one tensor)",
                )


def _completion_errors(context: ModelContext, triton_id: str) -> Iterator[CompletedConfig]:
    """The loaded versions whose emulated auto-complete fails with `triton_id`."""
    for artifact in readable(context):
        if artifact.signature is None:
            continue
        completed = context.completed_for(artifact.version)
        if completed.error is not None and completed.error.triton_id == triton_id:
            yield completed


@rule(
    "PL606",
    "autofill-not-batchable",
    ERROR,
    "max_batch_size > 0 on a model that cannot batch, with inputs or outputs left to "
    "auto-complete.",
    triton="autofill failed for model '<model>': model does not support batching while "
    "non-zero max_batch_size is specified",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def autofill_not_batchable(context: ModelContext) -> Iterator[Finding]:
    """When the config leaves inputs or outputs out, ONNX Runtime auto-completes it and
    first decides whether the model can batch: every graph input and output needs at
    least one dim and a dynamic first dim. If not, a max_batch_size above 0 is refused
    before any tensor is compared.

    Bad:
        max_batch_size: 8     (model.onnx input "x" is [1, 3, 224, 224]; no input/output)
    Good:
        max_batch_size: 0     (or re-export with a dynamic batch axis)
    """

    def describe(completed: CompletedConfig) -> Iterator[Finding]:
        signature, config = completed.signature, completed.config
        if signature is None or config is None:
            return
        stuck = not_batchable(signature)
        fixed = ", ".join(f'"{s.name}" {model_dims(s.shape)}' for s in stuck)
        left = " and ".join(
            kind
            for kind, items in (("inputs", config.input), ("outputs", config.output))
            if not items
        )
        yield Finding(
            f"max_batch_size {config.max_batch_size} needs every input and output of "
            f"{signature.path.name} to start with a dynamic batch dim, but {fixed} do not; "
            f"the config leaves its {left} to ONNX Runtime's auto-complete, which then "
            f"refuses the model{''.join(inferred_note(s, 0) for s in stuck)}",
            at=("max_batch_size",),
            hint="set max_batch_size: 0 (no batching), or re-export the model with a dynamic "
            "first dim (torch.onnx.export(..., dynamic_axes={name: {0: 'batch'}}))",
        )

    failed = _completion_errors(context, "not-batchable")
    yield from merge_versions(context, ((c.version or 0, describe(c)) for c in failed))


@rule(
    "PL607",
    "autofilled-max-batch-size",
    INFO,
    "ONNX Runtime's auto-complete sets max_batch_size (and dynamic batching) for you.",
    triton="autofilled max_batch_size to 4 for model '<model>' since batching is "
    "supporrted but no max_batch_size is specified in model configuration. Must specify "
    "max_batch_size to utilize autofill with a larger max batch size",
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def autofilled_max_batch_size(context: ModelContext) -> Iterator[Finding]:
    """A config without max_batch_size (and without inputs or outputs) on a model whose
    tensors all have a dynamic first dim gets `max_batch_size: 4` (the server's
    `default-max-batch-size`) and `dynamic_batching { }`. Requests are then limited to
    4 samples, whatever the GPU could take.

    Bad:
        backend: "onnxruntime"     (nothing else: max_batch_size becomes 4)
    Good:
        backend: "onnxruntime"
        max_batch_size: 32
    """

    def check(view: OnnxView) -> Iterator[Finding]:
        if "max_batch_size" not in view.completed.filled:
            return
        added = (
            " and adds dynamic_batching { }" if "dynamic_batching" in view.completed.filled else ""
        )
        yield Finding(
            f"max_batch_size is not set and every tensor of {view.file} has a dynamic first "
            f"dim, so ONNX Runtime's auto-complete sets max_batch_size: {view.mbs}{added}; "
            f"requests can then carry at most {view.mbs} samples ({DEFAULT_MAX_BATCH_SIZE} is "
            "the server's default-max-batch-size, set with --backend-config)",
            at=("max_batch_size",),
            hint="set max_batch_size to the batch size the model should serve",
        )

    yield from per_onnx_view(context, check)
