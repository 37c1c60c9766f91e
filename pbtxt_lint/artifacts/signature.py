"""Format-neutral description of a model artifact's inputs and outputs.

Artifact readers (ONNX, TensorRT, ...) all produce a :class:`Signature`, so the rules that
compare ``config.pbtxt`` with a model never need to know how the file was parsed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from pbtxt_lint import storage

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.onnx_signature import Inference

Dim: TypeAlias = int | str
"""One dimension: ``>= 0`` fixed size, ``-1`` unknown, ``str`` a named dynamic dim ("batch")."""


@dataclass(frozen=True)
class TensorSpec:
    """One model input or output as the serving runtime reports it."""

    name: str
    data_type: str | None
    """Triton config enum name ("TYPE_FP32"); None when the artifact type has no Triton twin."""
    source_type: str
    """The artifact's own type name, e.g. ONNX "FLOAT", "INT64", "seq(FLOAT)"."""
    shape: tuple[Dim, ...] | None
    """None when the rank is unknown."""
    optional: bool = False
    """The runtime does not require it, e.g. an ONNX graph input backed by an initializer."""
    is_tensor: bool = True
    """False for ONNX sequence/map/optional/sparse types, which a Triton config cannot describe."""
    inferred: Inference | None = None
    """Set when `shape` is the runtime's (ONNX Runtime's shape inference), not the file's
    declaration: what the file declares and where each difference comes from."""


@dataclass(frozen=True)
class ArtifactProblem:
    """A non-fatal finding about the file itself (the signature is still usable)."""

    kind: str
    """Stable identifier, e.g. "external-data-missing", "external-data-escapes"."""
    message: str


@dataclass(frozen=True)
class Signature:
    """What a model artifact promises to the serving backend."""

    format: str
    """Artifact format, e.g. "onnx"."""
    path: Path
    """The file actually read (``model.onnx/model.onnx`` when ``model.onnx`` is a directory)."""
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    facts: Mapping[str, str]
    """Format metadata, e.g. "ir_version", "opset:ai.onnx", "producer_name"."""
    problems: tuple[ArtifactProblem, ...] = ()


class ArtifactError(Exception):
    """The artifact could not be read at all; ``kind`` says why in a stable, machine-usable way.

    Kinds: "truncated", "corrupt", "lfs-pointer", "not-a-file", "unreadable", "empty".
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def reason(exc: BaseException) -> str:
    """Why a read failed, for a message: the OS's words ("Permission denied") when
    there are some, else the exception's text."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def stat_artifact(
    path: Path, *, folder: str, other: str | None = None, empty_ok: bool = False
) -> os.stat_result:
    """The model file's status, or the `ArtifactError` every reader raises alike: it
    cannot be reached, is a folder (`folder` ends the message: what Triton wants
    instead), is no regular file (`other`, by default `folder`), or is empty (unless
    `empty_ok`)."""
    label = str(path)
    try:
        st = storage.stat(path)
    except (OSError, ValueError) as exc:
        raise ArtifactError("not-a-file", f"cannot access {label}: {reason(exc)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ArtifactError("not-a-file", f"{label} is a folder{folder}")
    if not stat.S_ISREG(st.st_mode):
        ending = folder if other is None else other
        raise ArtifactError("not-a-file", f"{label} is not a regular file{ending}")
    if st.st_size == 0 and not empty_ok:
        raise ArtifactError("empty", f"{label} is empty (0 bytes)")
    return st


class VarintError(Exception):
    """A protobuf varint that runs past the end of its message, or past ten bytes."""

    def __init__(self, overlong: bool) -> None:
        super().__init__("a varint longer than 10 bytes" if overlong else "a varint cut short")
        self.overlong = overlong


def decode_varint(buf: storage.Buffer, i: int, end: int) -> tuple[int, int]:
    """The protobuf varint at `i` of `buf` (before `end`): its value as a uint64 and the
    position after it (the ONNX and SavedModel readers walk the wire format alike)."""
    result = shift = 0
    while True:
        if i >= end:
            raise VarintError(overlong=False)
        byte = buf[i]
        i += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, i
        shift += 7
        if shift >= 70:
            raise VarintError(overlong=True)


def map_artifact(path: Path, label: str) -> storage.Buffer:
    """The file mapped read-only (an object in a bucket: read by ranges), bytes then
    read only where a reader looks; every failure an `ArtifactError`."""
    try:
        return storage.map_file(path)
    except OSError as exc:
        raise ArtifactError("unreadable", f"cannot open {label}: {reason(exc)}") from None
    except storage.NotRegularFile:
        raise ArtifactError("not-a-file", f"{label} is not a regular file") from None
    except storage.EmptyFile:
        raise ArtifactError("empty", f"{label} is empty (0 bytes)") from None
    except storage.MapFailed as exc:
        raise ArtifactError("unreadable", f"cannot map {label}: {exc.reason}") from None
