"""PL301, PL319 and PL320: max_batch_size, and whether requests are batched at all.

Triton refuses a negative `max_batch_size` in `ValidateModelConfig` (core's
src/model_config_utils.cc). A batch size with no scheduler to form batches, or a
dynamic batcher with no batch dimension, loads silently; in auto-complete mode a
backend may still fill the missing half from the model file, so these rules ask the
backend table first.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    BACKENDS,
    ERROR,
    INFO,
    Finding,
    FsError,
    ModelConfig,
    ModelContext,
    is_ensemble,
    model_label,
    read_text_file,
    rule,
    written,
)
from pbtxt_lint.rules.batching.common import DYN


def _model_file_mentions(context: ModelContext, text: str) -> bool:
    """Whether a loaded version's Python model file contains `text` (artifacts only)."""
    effective = context.effective
    if effective is None or context.settings.config_only:
        return False
    filename = effective.default_model_filename or "model.py"
    for version in context.selection.versions:
        try:
            source = read_text_file(
                context.repository.root, context.folder.path / str(version) / filename
            )
        except FsError:
            continue
        if text.encode() in source:
            return True
    return False


def _python_caveat(context: ModelContext, python_call: str) -> str:
    """A message clause for a Python model whose model.py pbtxt-lint did not read."""
    effective = context.effective
    if effective is None or not context.auto_complete:
        return ""
    entry = BACKENDS.get(effective.backend)
    if entry is None or not entry.completes_in_model_py:
        return ""
    if not context.settings.config_only:
        return ""
    return f" (unless model.py's auto_complete_config calls {python_call}())"


def _backend_completes(context: ModelContext, python_call: str) -> bool:
    """Whether the backend's auto-complete (when enabled) may still add batching to this
    config: `dynamic_batching {}` and `max_batch_size` from the model file whenever the
    model can batch; a backend that fills only empty I/O (ONNX Runtime) only when the
    config lacks inputs or outputs; the Python backend only through model.py's
    `auto_complete_config`.

    `python_call` is the `pb_utils.ModelConfig` method a Python model would call.
    """
    effective = context.effective
    if effective is None or not context.auto_complete:
        return False
    entry = BACKENDS.get(effective.backend)
    if entry is None:
        return False
    if entry.fills_max_batch_size:
        return True
    if entry.fills_empty_io:
        has_inputs = bool(effective.input) or bool(effective.batch_input)
        return not (has_inputs and bool(effective.output))
    if entry.completes_in_model_py:
        return _model_file_mentions(context, python_call)
    return False


@rule(
    "PL301",
    "max-batch-size-negative",
    ERROR,
    "max_batch_size is negative.",
    triton="'max_batch_size' must be non-negative value for <model>",
    effective=True,
)
def max_batch_size_negative(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """`max_batch_size` is the largest batch Triton forms; 0 turns batching off and there
    is no "unlimited" value. Any model, ensembles included, with a negative value is
    refused.

    Bad:
        max_batch_size: -1
    Good:
        max_batch_size: 0
    """
    if config.max_batch_size >= 0:
        return
    yield Finding(
        f"max_batch_size {config.max_batch_size} of {model_label(context)} is "
        "negative; Triton refuses the model",
        at=("max_batch_size",),
        hint="use 0 to disable batching, or the largest batch the model accepts",
    )


@rule(
    "PL319",
    "batching-without-scheduler",
    INFO,
    "max_batch_size above 1 but no dynamic_batching or sequence_batching: requests are "
    "never batched together.",
    effective=True,
)
def batching_without_scheduler(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Without a scheduling block Triton uses its default scheduler, which never combines
    requests: only batches a client sends itself reach the model. In auto-complete mode
    TensorRT, OpenVINO, TensorFlow and DALI add `dynamic_batching {}` when the model
    batches, ONNX Runtime only when the config lacks inputs or outputs, and a Python model
    only if its `auto_complete_config` calls `set_dynamic_batching()`.

    Bad:
        max_batch_size: 8
    Good:
        max_batch_size: 8
        dynamic_batching { }
    """
    if config.max_batch_size <= 1 or is_ensemble(config):
        return
    if config.WhichOneof("scheduling_choice") is not None:
        return
    if _backend_completes(context, "set_dynamic_batching"):
        return
    caveat = _python_caveat(context, "set_dynamic_batching")
    yield Finding(
        f"{model_label(context)} has max_batch_size {config.max_batch_size} but no "
        f"dynamic_batching or sequence_batching{caveat}; Triton's default scheduler never "
        "batches requests together",
        at=("max_batch_size",),
        hint="add dynamic_batching { } (and max_queue_delay_microseconds to let batches fill)",
    )


@rule(
    "PL320",
    "batcher-without-max-batch-size",
    INFO,
    "dynamic_batching on a model whose max_batch_size is 0: the batcher has nothing to do.",
    effective=True,
)
def dynamic_batching_without_max_batch_size(
    context: ModelContext, config: ModelConfig
) -> Iterator[Finding]:
    """With `max_batch_size: 0` (also when it is left out) the model takes no batch
    dimension, so the dynamic batcher never combines requests. Triton loads it silently.
    In auto-complete mode a backend that reads the model file (TensorRT, OpenVINO,
    TensorFlow, DALI, ONNX Runtime when inputs or outputs are missing) or a Python
    `auto_complete_config` calling `set_max_batch_size()` may still fill it in.

    Bad:
        dynamic_batching { max_queue_delay_microseconds: 100 }
    Good:
        max_batch_size: 8
        dynamic_batching { max_queue_delay_microseconds: 100 }
    """
    if config.max_batch_size != 0 or is_ensemble(config):
        return
    if not config.HasField("dynamic_batching"):
        return
    if written(context, DYN + ("preferred_batch_size",)):
        return  # preferred sizes above max_batch_size 0 are refused: PL303 says so
    if _backend_completes(context, "set_max_batch_size"):
        return
    caveat = _python_caveat(context, "set_max_batch_size")
    yield Finding(
        f"{model_label(context)} enables dynamic_batching but max_batch_size is 0"
        f"{caveat}; the model takes no batch dimension and requests are never batched",
        at=DYN,
        hint="set max_batch_size to the largest batch the model accepts (dims then exclude "
        "the batch dimension), or remove dynamic_batching",
    )
