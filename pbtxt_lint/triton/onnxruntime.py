"""Which ONNX Runtime each Triton release ships, and which ONNX models it can load.

The ONNX Runtime of a release is the `ORT version` of the server's build.py
(`TRITON_VERSION_MAP`) on that release's branch. ONNX Runtime refuses a model whose
`ir_version` is newer than the ONNX it was built with ("Unsupported model IR version: 11,
max supported IR version: 10", onnxruntime core/graph/model.cc `Model::Model`) and one
stamped with a default-domain opset newer than the last one that ONNX released ("ONNX
Runtime only *guarantees* support for models stamped with official released onnx opset
versions ... Current official support for domain ai.onnx is till opset 21.",
core/graph/model_load_utils.h `ValidateOpsetForDomain`). The limits below were measured:
models stamped with every IR version and opset loaded into each ONNX Runtime wheel, the
limit read from its message. Releases shipping a version not measured are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class OnnxLimits:
    """The newest ONNX an ONNX Runtime version loads."""

    ir_version: int
    opset: int
    """The newest opset of the default domain (ai.onnx)."""


LIMITS: Mapping[str, OnnxLimits] = {
    "1.9": OnnxLimits(8, 15),
    "1.10": OnnxLimits(8, 15),
    "1.11": OnnxLimits(8, 16),
    "1.12": OnnxLimits(8, 17),
    "1.13": OnnxLimits(8, 17),
    "1.14": OnnxLimits(8, 18),
    "1.15": OnnxLimits(9, 19),
    "1.16": OnnxLimits(9, 19),
    "1.17": OnnxLimits(9, 20),
    "1.18": OnnxLimits(10, 21),
    "1.19": OnnxLimits(10, 21),
    "1.20": OnnxLimits(10, 21),
    "1.21": OnnxLimits(10, 22),
    "1.22": OnnxLimits(10, 22),
    "1.23": OnnxLimits(11, 23),
    "1.24": OnnxLimits(13, 25),
}
"""Keyed by major.minor: measured on 1.9.0, 1.10.0, 1.11.1, 1.12.1, 1.13.1, 1.14.1 (with
Python 3.8), 1.15.1, 1.16.3, 1.17.3, 1.18.0, 1.19.2, 1.20.1, 1.21.0, 1.22.0, 1.23.2 and
1.24.4 (a patch release keeps its minor's ONNX)."""

ONNXRUNTIME_OF_RELEASE: Mapping[str, str] = {
    "21.10": "1.9.0", "21.11": "1.9.0", "21.12": "1.10.0", "22.01": "1.10.0",
    "22.02": "1.10.0", "22.03": "1.10.0", "22.04": "1.10.0", "22.05": "1.11.1",
    "22.06": "1.11.1", "22.07": "1.12.0", "22.08": "1.12.0", "22.09": "1.12.1",
    "22.10": "1.13.1", "22.11": "1.13.1", "22.12": "1.13.1", "23.01": "1.13.1",
    "23.02": "1.13.1", "23.03": "1.14.1", "23.04": "1.14.1",
    "23.05": "1.15.0", "23.06": "1.15.0", "23.07": "1.15.1", "23.08": "1.15.1",
    "23.09": "1.16.0", "23.10": "1.16.0", "23.11": "1.16.3", "23.12": "1.16.3",
    "24.01": "1.16.3", "24.02": "1.16.3", "24.03": "1.17.2", "24.04": "1.17.3",
    "24.05": "1.18.0", "24.06": "1.18.0", "24.07": "1.18.1", "24.08": "1.19.0",
    "24.09": "1.19.2", "24.10": "1.19.2", "24.11": "1.19.2", "24.12": "1.20.1",
    "25.01": "1.20.1", "25.02": "1.20.1", "25.03": "1.21.0", "25.04": "1.21.0",
    "25.05": "1.22.0", "25.06": "1.22.0", "25.07": "1.22.0", "25.08": "1.23.0",
    "25.09": "1.23.0", "25.10": "1.23.1", "25.11": "1.23.2", "25.12": "1.23.2",
    "26.01": "1.23.2", "26.02": "1.24.1", "26.03": "1.24.2", "26.04": "1.24.4",
    "26.05": "1.24.4", "26.06": "1.24.4",
}  # fmt: skip
"""Container tag -> ONNX Runtime version (server build.py of each rYY.MM branch). 24.02
shipped no ONNX Runtime backend (server issue #6991); its build.py names one anyway."""


def limits_of(container: str) -> tuple[str, OnnxLimits] | None:
    """(ONNX Runtime version, its limits) for a release, None when not known."""
    version = ONNXRUNTIME_OF_RELEASE.get(container)
    if version is None:
        return None
    limits = LIMITS.get(".".join(version.split(".")[:2]))
    return (version, limits) if limits is not None else None


def first_release_loading(ir_version: int, opset: int) -> str | None:
    """The oldest release whose ONNX Runtime loads a model of this IR version and opset."""
    for container, version in ONNXRUNTIME_OF_RELEASE.items():
        limits = LIMITS.get(".".join(version.split(".")[:2]))
        if limits and ir_version <= limits.ir_version and opset <= limits.opset:
            return container
    return None
