"""TensorRT plan reader: the header without a GPU, the engine's bindings with one.

A plan can only be deserialized by the TensorRT runtime, which needs CUDA, so on a CI
machine pbtxt-lint reads the few header bytes whose meaning is known (NVIDIA/TensorRT
#3073; Autoware's ``TRT_*_IDX = 24/25/26``; verified on a TensorRT 8.6 plan):

    offset 0   b"ftrt"                      magic (Torch-TensorRT tests the same prefix)
    offset 16  u64 little-endian            total size of the plan, in bytes
    offset 24  u8 major, minor, patch, build  the TensorRT version that built it

Plans of TensorRT 8.5 and older start with the inner tag b"ptrt" instead (the tag that
follows the outer header in a newer plan); their u32 at offset 8 is a serialization
version (205 for 8.2.1, 213 for 8.4.3, 232 for 8.5.3: NVIDIA/TensorRT#3073), not a
release, so their version is not read; DeepStream's sample engines are of this kind.

The layout is undocumented, so every field is advisory: a missing magic is reported
(Triton cannot deserialize such a file), a size or version is used for warnings only.
Plans are tied to the TensorRT version that built them ("The engine plan file is not
compatible with this version of TensorRT, expecting library version A got B, please
rebuild."), so the version is compared with the TensorRT the target Triton release
ships (`TENSORRT_OF_RELEASE`).

With the ``tensorrt`` package importable and a usable GPU, `read_plan` also
deserializes the engine (`deep=True`) and returns its real inputs, outputs and
optimization profiles. That path cannot run on a machine without a GPU and is only
exercised there; everywhere else `Signature.facts["check"]` says "header".
"""

from __future__ import annotations

import importlib.util
import mmap
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pbtxt_lint import storage
from pbtxt_lint.artifacts.signature import (
    ArtifactError,
    ArtifactProblem,
    Dim,
    Signature,
    TensorSpec,
    reason,
    stat_artifact,
)
from pbtxt_lint.schema.datatypes import config_type_from_tensorrt

__all__ = [
    "TENSORRT_OF_RELEASE",
    "PlanSignature",
    "Profile",
    "read_plan",
    "releases_shipping",
]

MAGIC = b"ftrt"
OLD_MAGIC = b"ptrt"
"""The first bytes of a plan of TensorRT 8.5 or older."""
_HEADER = 32
_LFS_MAGIC = b"version https://git-lfs.github.com/spec/v1"
_DEEP_LIMIT = 8 << 30
"""Largest plan handed to the TensorRT runtime in deep mode (it reads the whole file)."""

Version = tuple[int, int, int, int]

TENSORRT_OF_RELEASE: Mapping[str, tuple[tuple[str, str], ...]] = {
    # The main image, from each release's notes ("Contents of the Triton Inference
    # Server container"); later release notes defer to the DLFW support matrix.
    "20.09": (("py3", "7.1.3"),),
    "20.10": (("py3", "7.2.1"),),
    "20.11": (("py3", "7.2.1"),),
    "20.12": (("py3", "7.2.2"),),
    "21.02": (("py3", "7.2.2"),),
    "21.03": (("py3", "7.2.2.3"),),
    "21.04": (("py3", "7.2.3.4"),),
    "21.05": (("py3", "7.2.3.4"),),
    "21.08": (("py3", "8.0.1.6"),),
    "21.09": (("py3", "8.0.3"),),
    "21.10": (("py3", "8.0.3.4"),),
    "21.11": (("py3", "8.0.3.4"),),
    "21.12": (("py3", "8.2.1.8"),),
    # The trtllm-python-py3 image, from Triton's docs/introduction/compatibility.md.
    "24.05": (("trtllm-python-py3", "10.0.1.6"),),
    "24.06": (("trtllm-python-py3", "10.0.1"),),
    "24.07": (("trtllm-python-py3", "10.1.0"),),
    "24.08": (("trtllm-python-py3", "10.3.0"),),
    "24.09": (("trtllm-python-py3", "10.4.0"),),
    "24.10": (("trtllm-python-py3", "10.4.0"),),
    "24.11": (("trtllm-python-py3", "10.6.0"),),
    "24.12": (("trtllm-python-py3", "10.7.0"),),
    "25.01": (("trtllm-python-py3", "10.8.0.43"),),
    "25.02": (("trtllm-python-py3", "10.8.0.43"),),
    "25.03": (("trtllm-python-py3", "10.9.0.34"),),
    "25.04": (("trtllm-python-py3", "10.9.0.34"),),
    "25.05": (("trtllm-python-py3", "10.9.0.34"),),
    "25.06": (("trtllm-python-py3", "10.10.0.31"),),
    "25.08": (("trtllm-python-py3", "10.11.0.33"),),
    "25.09": (("trtllm-python-py3", "10.11.0.33"),),
    "25.10": (("trtllm-python-py3", "10.11.0.33"),),
    "25.11": (("trtllm-python-py3", "10.13.3.9"),),
    "25.12": (("trtllm-python-py3", "10.13.3.9"),),
    "26.01": (("trtllm-python-py3", "10.13.3.9"),),
    "26.02": (("trtllm-python-py3", "10.13.3.9"),),
    "26.03": (("trtllm-python-py3", "10.14.1.48"),),
    "26.04": (("trtllm-python-py3", "10.14.1.48"),),
    "26.05": (("trtllm-python-py3", "10.14.1.48"),),
    "26.06": (("trtllm-python-py3", "10.14.1.48"),),
    "26.07": (("trtllm-python-py3", "10.14.1.48"),),
}
"""Triton container tag -> (image, TensorRT version) pairs, facts from NVIDIA's notes only.

Releases or images that are not listed are unknown to pbtxt-lint (not "no TensorRT")."""


def releases_shipping(version: Version) -> list[tuple[str, str]]:
    """(container tag, image) pairs whose TensorRT has the plan's major.minor.patch."""
    return [
        (tag, image)
        for tag, shipped in TENSORRT_OF_RELEASE.items()
        for image, text in shipped
        if same_release(version, text)
    ]


def same_release(version: Version, text: str) -> bool:
    """Compare major.minor.patch; the build number is not reliably in the header."""
    parts = [int(p) for p in text.split(".")[:3]]
    return list(version[: len(parts)]) == parts


@dataclass(frozen=True)
class Profile:
    """One optimization profile of one engine input: (min, opt, max) shapes."""

    minimum: tuple[int, ...]
    optimum: tuple[int, ...]
    maximum: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class PlanSignature(Signature):
    """A plan's header facts; inputs and outputs are filled only by a deep check."""

    tensorrt_version: Version | None = None
    """major, minor, patch, build from the header; None when they are not plausible."""
    declared_size: int | None = None
    file_size: int = 0
    deep: bool = False
    """True when the engine was deserialized and inputs/outputs are the engine's."""
    deep_skipped: str = ""
    """Why no deep check ran (no tensorrt package, no GPU, ...)."""
    profiles: Mapping[str, tuple[Profile, ...]] = field(default_factory=dict)
    """Input name -> one entry per optimization profile (deep check only)."""
    shape_tensors: frozenset[str] = frozenset()
    before_8_6: bool = False
    """The plan has the layout of TensorRT 8.5 and older (`ptrt` first): its exact
    version is not in the header."""

    @property
    def version_text(self) -> str | None:
        version = self.tensorrt_version
        return ".".join(str(part) for part in version) if version else None


def read_plan(path: Path, model_dir: Path) -> PlanSignature:
    """Read what a plan's header says; deserialize it too where TensorRT and a GPU exist.

    Raises `ArtifactError` when the file is not a TensorRT plan at all.
    """
    label = str(path)
    st = stat_artifact(path, folder="; Triton needs the plan file", other="")
    try:
        head = storage.read_head(path, 1024)
    except OSError as exc:
        raise ArtifactError("unreadable", f"cannot read {label}: {reason(exc)}") from None
    if head.startswith(_LFS_MAGIC):
        raise ArtifactError(
            "lfs-pointer",
            f"{label} is a Git LFS pointer, not the model: run `git lfs pull` "
            "(or clone with Git LFS installed)",
        )
    old = head.startswith(OLD_MAGIC)
    if not head.startswith(MAGIC) and not old:
        raise ArtifactError("corrupt", f"{label} is not a TensorRT plan: {_what_instead(head)}")
    declared = struct.unpack_from("<Q", head, 16)[0] if len(head) >= 24 and not old else None
    version: Version | None = None
    if len(head) >= 28 and not old:
        major, minor, patch, build = head[24:28]
        if 5 <= major <= 30:  # TensorRT 5 is the oldest Triton ever shipped
            version = (major, minor, patch, build)
    problems = []
    if declared is not None and declared != st.st_size:
        how = "is truncated" if declared > st.st_size else "has trailing bytes"
        problems.append(
            ArtifactProblem(
                "plan-size-mismatch",
                f"{label} {how}: its header declares {declared:,} bytes but the file has "
                f"{st.st_size:,}",
            )
        )
    facts: dict[str, str] = {"check": "header"}
    if version is not None:
        facts["tensorrt_version"] = ".".join(str(v) for v in version)
    if old:
        facts["tensorrt_version"] = "8.5 or older"
    deep = (
        "the plan is in a bucket: pbtxt-lint reads only its header there"
        if storage.is_remote(path)
        else _deep_check(path, st.st_size)
    )
    if isinstance(deep, str):
        return PlanSignature(
            "plan",
            path,
            (),
            (),
            facts,
            tuple(problems),
            tensorrt_version=version,
            declared_size=declared,
            file_size=st.st_size,
            deep_skipped=deep,
            before_8_6=old,
        )
    facts["check"] = "deserialized"
    inputs, outputs, profiles, shape_tensors = deep
    return PlanSignature(
        "plan",
        path,
        inputs,
        outputs,
        facts,
        tuple(problems),
        tensorrt_version=version,
        declared_size=declared,
        file_size=st.st_size,
        deep=True,
        profiles=profiles,
        shape_tensors=shape_tensors,
        before_8_6=old,
    )


def _what_instead(head: bytes) -> str:
    """Name the common wrappers users deploy by mistake, with how to fix each."""
    if len(head) >= 5 and head[4:5] == b"{":
        length = struct.unpack_from("<I", head, 0)[0]
        return (
            f"it starts with a {length:,}-byte JSON header (an Ultralytics .engine); Triton "
            f"needs the raw plan that follows it: drop the first {length + 4:,} bytes or "
            "export with a plain TensorRT builder"
        )
    if head.startswith(b"PK\x03\x04"):
        return "it is a ZIP archive (a Torch-TensorRT TorchScript/PT2 module?), not a raw plan"
    if head[:1] == b"\x08" or head.startswith(b"\x0a"):
        return "it looks like a protobuf (an ONNX model?); build a plan from it with trtexec"
    return f"it does not start with the plan magic 'ftrt' (first bytes: {head[:8].hex(' ')})"


# --- deep check (needs the tensorrt package and a CUDA device) ---------------------------

_DeepResult = tuple[
    tuple[TensorSpec, ...],
    tuple[TensorSpec, ...],
    Mapping[str, tuple[Profile, ...]],
    frozenset[str],
]


def _deep_check(path: Path, size: int) -> _DeepResult | str:
    """The engine's bindings, or why they could not be read (the usual case: no GPU).

    Only a plan TensorRT itself accepts gets here, and host code embedded in
    version-compatible plans is not allowed to run (TensorRT's default).
    """
    try:
        if importlib.util.find_spec("tensorrt") is None:
            return "the tensorrt package is not installed"
    except (ImportError, ValueError):
        return "the tensorrt package is not installed"
    if size > _DEEP_LIMIT:
        return f"the plan is larger than {_DEEP_LIMIT >> 30} GiB"
    try:
        import tensorrt as trt  # type: ignore[import-not-found,unused-ignore]

        runtime = trt.Runtime(trt.Logger(trt.Logger.ERROR))
    except Exception as exc:  # CUDA missing: TensorRT raises TypeError/RuntimeError
        return f"TensorRT could not start (no usable GPU?): {exc}"
    if runtime is None:
        return "TensorRT could not start (no usable GPU?)"
    try:
        with (
            open(path, "rb") as handle,
            mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data,
        ):
            engine = runtime.deserialize_cuda_engine(data)  # a buffer: no copy in Python
        if engine is None:
            return (
                "TensorRT on this machine could not deserialize the plan (another TensorRT "
                "version or GPU than the one that built it)"
            )
        return _bindings(trt, engine)
    except Exception as exc:
        return f"TensorRT failed to inspect the plan: {exc}"


def _bindings(trt: object, engine: object) -> _DeepResult:
    """Inputs, outputs, per-input profiles and shape tensors of a deserialized engine."""
    api = trt
    inputs: list[TensorSpec] = []
    outputs: list[TensorSpec] = []
    profiles: dict[str, tuple[Profile, ...]] = {}
    shape_tensors: set[str] = set()
    count = int(engine.num_io_tensors)  # type: ignore[attr-defined]
    profile_count = int(engine.num_optimization_profiles)  # type: ignore[attr-defined]
    for index in range(count):
        name = str(engine.get_tensor_name(index))  # type: ignore[attr-defined]
        is_input = engine.get_tensor_mode(name) == api.TensorIOMode.INPUT  # type: ignore[attr-defined]
        dtype = engine.get_tensor_dtype(name)  # type: ignore[attr-defined]
        shape: tuple[Dim, ...] = tuple(int(d) for d in engine.get_tensor_shape(name))  # type: ignore[attr-defined]
        spec = TensorSpec(name, config_type_from_tensorrt(int(dtype)), str(dtype), shape)
        if engine.is_shape_inference_io(name):  # type: ignore[attr-defined]
            shape_tensors.add(name)
        if is_input:
            inputs.append(spec)
            ranges = []
            for profile in range(profile_count):
                low, opt, high = engine.get_tensor_profile_shape(name, profile)  # type: ignore[attr-defined]
                ranges.append(
                    Profile(tuple(map(int, low)), tuple(map(int, opt)), tuple(map(int, high)))
                )
            profiles[name] = tuple(ranges)
        else:
            outputs.append(spec)
    return tuple(inputs), tuple(outputs), profiles, frozenset(shape_tensors)
