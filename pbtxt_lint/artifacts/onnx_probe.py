"""`--deep`: run an ONNX model on small synthetic batches to see what its axis 0 is.

The header tells which dims an exporter named alike; whether a dim is the batch is
behaviour: the size of an output when the batch grows, whether the model takes an
input count that differs from the batch. This module asks ONNX Runtime (the
`onnxruntime` extra, imported only here and only when `--deep` is given) on CPU, with
seeded random floats in [0, 1) and zeros for integers (a valid index or token id),
shaped by the graph's declarations: a dim the graph fixes keeps its size, a named dim
gets one size for every input that shares the name, an open dim 8 (64 for the spatial
axes of an image). The model runs in this process: only ever a model file the user
asked to check with `--deep`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from pbtxt_lint.artifacts.signature import TensorSpec

SIZES = {"default": 8, "spatial": 64}
_NUMPY = {
    "FLOAT": "float32", "DOUBLE": "float64", "FLOAT16": "float16", "INT64": "int64",
    "INT32": "int32", "INT16": "int16", "INT8": "int8", "UINT8": "uint8", "UINT16": "uint16",
    "UINT32": "uint32", "UINT64": "uint64", "BOOL": "bool",
}  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    refuted: bool
    """The run shows Triton's assumption holds after all: drop the finding."""
    words: str
    """What the run showed, for the finding's message."""


class _CannotRun(Exception):
    pass


class _Refused(_CannotRun):
    """ONNX Runtime refused to run the model on these inputs."""


def output_count(path: Path, inputs: Sequence[TensorSpec], output: str) -> Verdict:
    """Whether dim 0 of `output` follows the batch: run batches of 1 and 2."""
    try:
        sizes = [_run(path, _feeds(inputs, {}, batch)).get(output) for batch in (1, 2)]
    except _CannotRun as why:
        return Verdict(False, f"--deep could not run the model: {why}")
    counts = [shape[0] if shape else None for shape in sizes]
    if counts == [1, 2]:
        return Verdict(True, f"--deep: dim 0 of '{output}' followed the batch (1, then 2)")
    return Verdict(
        False,
        f"confirmed by --deep: dim 0 of '{output}' was {counts[0]} for a batch of 1 and "
        f"{counts[1]} for a batch of 2",
    )


def input_count(path: Path, inputs: Sequence[TensorSpec], counted: Sequence[str]) -> Verdict:
    """Whether the model takes the `counted` inputs with another dim 0 than the rest: 3
    rows of them with a batch of 2 (not 1, which broadcasting would accept)."""
    names = ", ".join(f"'{name}'" for name in counted)
    try:
        _run(path, _feeds(inputs, {}, 2))  # the control: every dim 0 alike runs
    except _CannotRun as why:
        return Verdict(False, f"--deep could not run the model: {why}")
    try:
        _run(path, _feeds(inputs, dict.fromkeys(counted, 3), 2))
    except _Refused:
        return Verdict(True, f"--deep: the model refused 3 rows of {names} with a batch of 2")
    except _CannotRun as why:
        return Verdict(False, f"--deep could not run the model: {why}")
    return Verdict(False, f"confirmed by --deep: the model ran a batch of 2 with 3 rows of {names}")


def _feeds(
    inputs: Sequence[TensorSpec], dim0: Mapping[str, int], batch: int
) -> dict[str, tuple[tuple[int, ...], str]]:
    """Shapes and NumPy dtypes of the synthetic inputs (required graph inputs only)."""
    named: dict[str, int] = {}
    feeds: dict[str, tuple[tuple[int, ...], str]] = {}
    for spec in inputs:
        if spec.optional:
            continue
        dtype = _NUMPY.get(spec.source_type)
        if dtype is None or spec.shape is None:
            raise _CannotRun(f"input '{spec.name}' is {spec.source_type} of unknown rank")
        shape: list[int] = []
        for axis, dim in enumerate(spec.shape):
            if axis == 0 and spec.name in dim0:
                shape.append(dim0[spec.name])
            elif isinstance(dim, int) and dim >= 0:
                shape.append(dim)
            elif axis == 0:
                shape.append(named.setdefault(dim, batch) if isinstance(dim, str) else batch)
            else:
                spatial = len(spec.shape) == 4 and axis >= 2
                size = SIZES["spatial" if spatial else "default"]
                shape.append(named.setdefault(dim, size) if isinstance(dim, str) and dim else size)
        feeds[spec.name] = (tuple(shape), dtype)
    return feeds


def _run(
    path: Path, feeds: Mapping[str, tuple[tuple[int, ...], str]]
) -> dict[str, tuple[int, ...]]:
    """The shape of every output for random inputs of these shapes."""
    # deferred: NumPy and ONNX Runtime load only for --deep
    import numpy as np

    session = _session(str(path))
    rng = np.random.default_rng(0)
    arrays: dict[str, Any] = {}
    for name, (shape, dtype) in feeds.items():
        if dtype == "bool":
            arrays[name] = rng.integers(0, 2, size=shape).astype(bool)
        elif dtype.startswith(("int", "uint")):
            arrays[name] = np.zeros(shape, dtype=dtype)  # a valid index and token id
        else:
            arrays[name] = rng.random(size=shape).astype(dtype)  # [0, 1): valid boxes, scores
    try:
        results = session.run(None, arrays)
    except Exception as error:
        raise _Refused(str(error)[:300]) from None
    names = [o.name for o in session.get_outputs()]
    return {name: tuple(getattr(r, "shape", ())) for name, r in zip(names, results, strict=False)}


@lru_cache(maxsize=4)
def _session(path: str) -> Any:
    try:
        import onnxruntime
    except ImportError:
        raise _CannotRun("onnxruntime is not installed (pip install onnxruntime)") from None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 4  # fatal only: a refused run is an answer, not a log line
    onnxruntime.set_default_logger_severity(4)
    try:
        return onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    except Exception as error:
        raise _CannotRun(f"ONNX Runtime cannot load it ({str(error)[:200]})") from None
