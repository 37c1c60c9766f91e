"""PL217 and PL220: the per-input flags `optional` and `allow_ragged_batch`.

The core accepts both on any input. A backend built on the backend library's
`BackendModel` refuses `optional: true` at load unless it opts in
(`BackendModel::ParseModelConfig` in the backend repository's src/backend_model.cc);
which backends do is read from `pbtxt_lint.triton.backends` (`optional_inputs`).
`allow_ragged_batch` only matters when the dynamic batcher combines requests.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.tensors.common import Tensor, may_complete_batching
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelInput
from pbtxt_lint.triton.autofill import backend_of
from pbtxt_lint.triton.backends import BACKENDS

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def _optional_problem(config: ModelConfig, model_input: ModelInput) -> tuple[str, Severity] | None:
    backend = backend_of(config)
    if not backend:
        return None  # ensembles accept optional inputs
    entry = BACKENDS.get(backend)
    supported = entry.optional_inputs if entry is not None else None
    if supported is False:
        return (
            f"backend '{backend}' does not support optional inputs, so the model fails to load",
            ERROR,
        )
    if backend == "onnxruntime":
        # ModelInstanceState::ValidateInputs in onnxruntime_backend's src/onnxruntime.cc
        if config.max_batch_size > 0:
            return (
                "ONNX Runtime refuses optional inputs on a model with max_batch_size > 0 "
                f"(here {config.max_batch_size}), so the model fails to load",
                ERROR,
            )
        if model_input.allow_ragged_batch:
            return (
                "ONNX Runtime refuses an optional input with allow_ragged_batch, so the "
                "model fails to load",
                ERROR,
            )
        return None
    if supported or config.runtime.endswith(".py"):
        return None  # runtime "model.py": a Python-based backend (PYTHON_ACCEPTS_OPTIONAL)
    return (
        f"backend '{backend}' is not one pbtxt-lint knows: a C++ backend built on Triton's "
        "BackendModel refuses optional inputs at load unless it opts in, while a "
        f"Python-based one (backends/{backend}/model.py) accepts them",
        INFO,
    )


@rule(
    "PL217",
    "optional-input-unsupported",
    ERROR,
    "optional: true on an input of a backend that refuses optional inputs.",
    triton="'optional' is set to true for input '<name>' while the backend model doesn't "
    "support optional input",
    stage=Stage.LOAD,
    backend=("onnxruntime", "tensorrt", "openvino", "tensorflow", "dali", "pytorch"),
)
def optional_input_unsupported(context: ModelContext) -> Iterator[Finding]:
    """Only backends that opt in accept `optional: true`: ONNX Runtime (and only with
    max_batch_size 0 and without allow_ragged_batch: "optional input '<name>' is not
    supported for models that support batching"), Python and every Python-based
    backend (vLLM, a custom `backends/<name>/model.py`, a config with `runtime:
    "model.py"`: they all run on the python backend, which allows them), TensorRT-LLM
    and the identity backend. TensorRT, PyTorch, OpenVINO, TensorFlow and DALI refuse
    the model when it loads. Ensembles accept optional inputs. A backend pbtxt-lint
    does not know: info, since a C++ one may refuse them.

    Bad:
        backend: "tensorrt"
        input [ { name: "mask" data_type: TYPE_INT32 dims: [ -1 ] optional: true } ]
    Good:
        backend: "tensorrt"
        input [ { name: "mask" data_type: TYPE_INT32 dims: [ -1 ] } ]
    """
    config = context.effective
    if config is None:
        return
    for index, model_input in enumerate(config.input):
        if not model_input.optional:
            continue
        problem = _optional_problem(config, model_input)
        if problem is not None:
            text, severity = problem
            yield Finding(
                f"{Tensor('input', index, model_input).label} is optional: true, but {text}",
                at=("input", index, "optional"),
                hint="remove optional: true and send the input with every request",
                severity=severity,
            )


@rule(
    "PL220",
    "ragged-batch-without-batching",
    INFO,
    "allow_ragged_batch on a model that never batches requests.",
)
def ragged_batch_without_batching(context: ModelContext) -> Iterator[Finding]:
    """`allow_ragged_batch` lets the dynamic batcher combine requests whose shapes
    differ. With max_batch_size 0, or without dynamic_batching or sequence_batching,
    Triton never combines requests, and on an ensemble's inputs the flag is ignored
    (set it on the composing model). Triton accepts all of these silently. Not reported
    in auto-complete mode when the backend may fill max_batch_size and dynamic_batching
    from the model (TensorRT, ...).

    Bad:
        max_batch_size: 0
        input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
    Good:
        max_batch_size: 8
        input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] allow_ragged_batch: true } ]
        dynamic_batching { }
    """
    config = context.effective
    if config is None or may_complete_batching(context, config):
        return
    if not backend_of(config):
        why = "Triton ignores it on an ensemble's inputs; set it on the composing model's input"
    elif config.max_batch_size == 0:
        why = "max_batch_size is 0, so Triton never batches requests and it has no effect"
    elif not (config.HasField("dynamic_batching") or config.HasField("sequence_batching")):
        why = "without dynamic_batching Triton does not combine requests, so it has no effect"
    else:
        return
    for index, model_input in enumerate(config.input):
        if model_input.allow_ragged_batch:
            yield Finding(
                f"{Tensor('input', index, model_input).label} sets allow_ragged_batch, but {why}",
                at=("input", index, "allow_ragged_batch"),
                hint="set max_batch_size > 0 and add dynamic_batching { }, or remove "
                "allow_ragged_batch",
            )
