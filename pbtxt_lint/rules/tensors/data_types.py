"""PL222: data types a backend cannot take.

Triton's core accepts every data type; each backend refuses the ones it has no
counterpart for when it loads the model ("unsupported datatype"). Which ones is read
from `pbtxt_lint.triton.backends` (`unsupported_types`); PyTorch's string tensors and
the Python backend's BF16 are special cases of their own.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import config_dims, type_name
from pbtxt_lint.rules.tensors.common import Tensor, tensors
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.targets import RELEASES, Release
from pbtxt_lint.triton.autofill import backend_of
from pbtxt_lint.triton.backends import BACKENDS

ERROR, INFO = Severity.ERROR, Severity.INFO


# What to use instead, where the backend lacks the type.
_TYPE_INSTEAD = {
    "TYPE_BF16": "TYPE_FP16 or TYPE_FP32",
    "TYPE_FP64": "TYPE_FP32",
    "TYPE_INT16": "TYPE_INT32",
    "TYPE_UINT16": "TYPE_INT32",
    "TYPE_UINT32": "TYPE_INT64",
    "TYPE_UINT64": "TYPE_INT64",
}


def _data_type_problem(
    config: ModelConfig, tensor: Tensor, target: Release | None
) -> tuple[str, Severity, str] | None:
    """Why this backend cannot take the tensor's data type: (text, severity, hint)."""
    backend = backend_of(config)
    written_type = type_name(tensor.io.data_type)
    entry = BACKENDS.get(backend)
    since = entry.type_since(written_type) if entry is not None else None
    if since is not None and (target is None or target.server < since):
        release = next(r for r in RELEASES if r.server == since)
        return (
            f"backend '{backend}' takes {written_type} only from Triton {release.label} on"
            + (
                f", so on {target.label} the model fails to load ('unsupported datatype "
                f"{written_type}')"
                if target is not None
                else "; older releases fail to load the model ('unsupported datatype "
                f"{written_type}'; --triton-version tells which one you target)"
            ),
            ERROR if target is not None else INFO,
            f"use {_TYPE_INSTEAD[written_type]}, or deploy on {release.container} or newer",
        )
    if entry is not None and written_type in entry.unsupported_types:
        return (
            f"backend '{backend}' does not support {written_type}, so the model fails to "
            f"load ('unsupported datatype {written_type}')",
            ERROR,
            f"use {_TYPE_INSTEAD[written_type]} (and export the model with that type)"
            if written_type in _TYPE_INSTEAD
            else f"backend '{backend}' has no string type: feed it token ids (TYPE_INT32 or "
            "TYPE_INT64) from a Python model or an ensemble step in front of it",
        )
    if backend == "pytorch" and written_type == "TYPE_STRING":
        field = "reshape" if tensor.io.HasField("reshape") else "dims"
        shape = tensor.io.reshape.shape if field == "reshape" else tensor.io.dims
        batched = config.max_batch_size > 0
        rank = len(shape) + batched
        if rank > 1:
            return (
                "PyTorch takes strings only as a 1-dimensional List[str], and "
                f"{'the batch dimension plus ' if batched else ''}{field} {config_dims(shape)} "
                f"make {rank} dimensions, so the model fails to load",
                ERROR,
                "with max_batch_size > 0 write dims: [ 1 ] and reshape: { shape: [ ] }; "
                "with max_batch_size 0 a single dim such as dims: [ -1 ]",
            )
    if backend == "python" and written_type == "TYPE_BF16":
        return (
            "the Python backend cannot convert BF16 to NumPy: as_numpy() fails at inference",
            INFO,
            "read the tensor with to_dlpack() (e.g. into torch)",
        )
    return None


@rule(
    "PL222",
    "data-type-unsupported-by-backend",
    ERROR,
    "An input or output data type the model's backend cannot take.",
    triton="unsupported datatype <TYPE_X> for input '<name>' for model '<model>'",
    stage=Stage.LOAD,
    backend=("onnxruntime", "tensorrt", "openvino", "tensorflow", "pytorch", "python"),
)
def data_type_unsupported_by_backend(context: ModelContext) -> Iterator[Finding]:
    """Triton's core accepts every data type; backends refuse some when the model
    loads. TensorRT has no TYPE_STRING, TYPE_UINT16/32/64, TYPE_INT16 or TYPE_FP64;
    OpenVINO no TYPE_FP64, TYPE_STRING or TYPE_BF16; PyTorch no TYPE_UINT16/32/64 or
    TYPE_BF16, and TYPE_STRING only as a 1-D list (batch dimension included);
    TensorFlow no TYPE_BF16; ONNX Runtime takes TYPE_BF16 only from 26.03 on (info
    without --triton-version). Python loads TYPE_BF16 but cannot turn it into NumPy (info).

    Bad:
        backend: "tensorrt"
        input [ { name: "text" data_type: TYPE_STRING dims: [ 1 ] } ]
    Good:
        backend: "tensorrt"
        input [ { name: "input_ids" data_type: TYPE_INT32 dims: [ -1 ] } ]
    """
    config = context.effective
    if config is None:
        return
    for tensor in tensors(config):
        problem = _data_type_problem(config, tensor, context.settings.target)
        if problem is not None:
            text, severity, hint = problem
            yield Finding(
                f"{tensor.label}: {text}",
                at=(*tensor.path, "data_type"),
                hint=hint,
                severity=severity,
            )
