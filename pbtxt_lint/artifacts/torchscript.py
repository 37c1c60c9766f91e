"""TorchScript reader: forward()'s arguments from the archive's code, never unpickled.

A TorchScript file (`torch.jit.save`) is a ZIP archive:

    <name>/data.pkl          the module tree, pickled (storages by persistent id)
    <name>/constants.pkl     constants; libtorch refuses an archive without it
    <name>/code/__torch__... the TorchScript source of every class, in Python syntax

The libtorch backend checks `forward`'s schema against the config (argument count,
types, names). The same information is in `code/`: the root class is named by the
first GLOBAL opcode of `data.pkl`, found with `pickletools.genops`, which decodes
opcodes without executing anything (the pickle is never loaded), and its `forward` is
parsed with `ast`. `torch.save` files are ZIPs too (or raw pickles before PyTorch 1.6)
but carry no `code/` and no `constants.pkl`: libtorch fails with "PytorchStreamReader
failed locating file constants.pkl: file not found".

Only the central directory, the head of `data.pkl` and one code file are read, each
with a byte cap checked against the declared size and enforced on the decompressed
stream, so a huge or hostile archive (a zip bomb) costs bounded time and memory.
"""

from __future__ import annotations

import io
import pickletools
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pbtxt_lint import storage
from pbtxt_lint.artifacts.signature import (
    ArtifactError,
    ArtifactProblem,
    Signature,
    TensorSpec,
    reason,
    stat_artifact,
)
from pbtxt_lint.artifacts.torchscript_code import (
    DictKey,
    Forward,
    ForwardArg,
    Returned,
    TorchType,
    read_forward,
)

__all__ = [
    "DictKey",
    "ForwardArg",
    "Returned",
    "TorchScriptSignature",
    "TorchType",
    "read_torchscript",
]

MAX_ENTRIES = 200_000
"""More entries than a real model has (one per tensor storage); zipfile keeps each in memory."""
MAX_CENTRAL_DIRECTORY = 64 << 20
MAX_CODE_BYTES = 4 << 20
"""One `code/` file; real ones are a few KiB to a few hundred KiB."""
MAX_PICKLE_HEAD = 1 << 20
"""Bytes of data.pkl disassembled to find the root class (its first opcodes)."""
_LFS_MAGIC = b"version https://git-lfs.github.com/spec/v1"
_STRING_OPS = frozenset(
    {"SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING", "BINSTRING"}
)
_EOCD = b"PK\x05\x06"
_ZIP64_LOCATOR = b"PK\x06\x07"
_ZIP64_EOCD = b"PK\x06\x06"


@dataclass(frozen=True, eq=False)
class TorchScriptSignature(Signature):
    """What libtorch reads from a TorchScript file; inputs are forward()'s arguments."""

    not_torchscript: str = ""
    """Why libtorch refuses the file ("" for a TorchScript archive)."""
    root_class: str = ""
    code: Forward | None = None
    """forward()'s code; None when it could not be found (see `problems`)."""
    code_file: str = ""
    """The archive entry holding forward() (`model/code/__torch__/net.py`)."""
    storages: frozenset[str] = frozenset()
    """The storage classes data.pkl names for the module's tensors (`HalfStorage` for a
    model exported after `model.half()`); empty when none is named in its first MiB."""

    @property
    def forward(self) -> tuple[ForwardArg, ...] | None:
        """forward()'s arguments, self excluded; None when forward() was not read."""
        return self.code.args if self.code is not None else None

    @property
    def returns(self) -> str:
        """forward()'s return annotation as written."""
        return self.code.returns if self.code is not None else ""

    @property
    def return_type(self) -> TorchType | None:
        return self.code.return_type if self.code is not None else None

    @property
    def output_count(self) -> int | None:
        """Values forward() returns: the Tuple's arity, 1 for a Tensor or List[str]."""
        return self.code.output_count if self.code is not None else None

    @property
    def returned(self) -> tuple[Returned, ...]:
        return self.code.returned if self.code is not None else ()

    @property
    def dict_keys(self) -> tuple[DictKey, ...]:
        return self.code.dict_keys if self.code is not None else ()


def read_torchscript(path: Path, model_dir: Path) -> TorchScriptSignature:
    """Read forward()'s signature from a TorchScript archive without loading it.

    Raises `ArtifactError` when the file cannot be read or is not an archive at all.
    """
    label = str(path)
    st = stat_artifact(path, folder="; Triton needs the TorchScript file")
    try:
        with storage.open_binary(path) as handle:
            return _read(handle, path, st.st_size)
    except OSError as exc:
        raise ArtifactError("unreadable", f"cannot read {label}: {reason(exc)}") from None


def _read(handle: BinaryIO, path: Path, size: int) -> TorchScriptSignature:
    label = str(path)
    head = handle.read(64)
    if head.startswith(_LFS_MAGIC):
        raise ArtifactError(
            "lfs-pointer",
            f"{label} is a Git LFS pointer, not the model: run `git lfs pull` "
            "(or clone with Git LFS installed)",
        )
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        return _not_torchscript(
            path, "it is a plain pickle (torch.save before PyTorch 1.6, or pickle.dump)"
        )
    if not head.startswith(b"PK"):
        raise ArtifactError(
            "corrupt",
            f"{label} is not a TorchScript archive (a ZIP file): {_what_instead(head)}",
        )
    entries, directory = _central_directory(handle, size, label)
    if entries > MAX_ENTRIES or directory > MAX_CENTRAL_DIRECTORY:
        return _uninspected(
            path,
            f"its ZIP directory lists {entries:,} entries ({directory:,} bytes), more than "
            f"the {MAX_ENTRIES:,} entries pbtxt-lint reads",
        )
    handle.seek(0)
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError) as exc:
        raise ArtifactError("corrupt", f"{label} is not a readable ZIP archive: {exc}") from None
    with archive:
        return _inspect(archive, path)


def _inspect(archive: zipfile.ZipFile, path: Path) -> TorchScriptSignature:
    names = archive.namelist()
    pickles = sorted((n for n in names if n == "data.pkl" or n.endswith("/data.pkl")), key=len)
    if not pickles:
        if any(n.endswith("archive_format") or "/aotinductor/" in n for n in names):
            return _not_torchscript(
                path,
                "it is a PT2 archive (torch.export / AOTInductor), which the libtorch "
                'backend cannot load; serve it with platform "torch_aoti" as model.pt2',
            )
        return _not_torchscript(path, "it is a ZIP archive without data.pkl, not a PyTorch model")
    prefix = pickles[0][: -len("data.pkl")]
    has_code = any(n.startswith(prefix + "code/") for n in names)
    if not has_code or prefix + "constants.pkl" not in names:
        return _not_torchscript(
            path,
            "it was saved with torch.save() (a pickled module or state_dict): it has no "
            "TorchScript code/ and no constants.pkl",
        )
    head = _read_entry(archive, pickles[0], MAX_PICKLE_HEAD, truncate=True)
    root = _root_class(head) if head is not None else None
    if root is None:
        return _uninspected(path, "the root module's class is not named at the start of data.pkl")
    module, _, cls = root.rpartition(".")
    code_name = f"{prefix}code/{module.replace('.', '/')}.py"
    if code_name not in names:
        return _uninspected(path, f"it has no source for {root} ({code_name})", root)
    source = _read_entry(archive, code_name, MAX_CODE_BYTES)
    if source is None:
        return _uninspected(
            path, f"{code_name} is larger than {MAX_CODE_BYTES >> 20} MiB uncompressed", root
        )
    code = read_forward(source, cls, path.parent)
    if code is None:
        return _uninspected(path, f"{code_name} has no readable {cls}.forward()", root)
    inputs = tuple(
        TensorSpec(arg.name, "TYPE_STRING" if arg.is_string_list else None, arg.annotation, None)
        for arg in code.args
    )
    return TorchScriptSignature(
        "torchscript",
        path,
        inputs,
        (),
        {"root_class": root},
        root_class=root,
        code=code,
        code_file=code_name,
        storages=_storages(head) if head is not None else frozenset(),
    )


def _not_torchscript(path: Path, why: str) -> TorchScriptSignature:
    return TorchScriptSignature("torchscript", path, (), (), {}, not_torchscript=why)


def _uninspected(path: Path, why: str, root: str = "") -> TorchScriptSignature:
    problem = ArtifactProblem("not-inspected", f"forward() was not read: {why}")
    return TorchScriptSignature("torchscript", path, (), (), {}, (problem,), root_class=root)


def _central_directory(handle: BinaryIO, size: int, label: str) -> tuple[int, int]:
    """(entries, central directory bytes) from the end records, before zipfile reads them."""
    tail_size = min(size, 65536 + 22)
    handle.seek(size - tail_size)
    tail = handle.read(tail_size)
    at = tail.rfind(_EOCD)
    if at < 0 or at + 22 > len(tail):
        raise ArtifactError(
            "truncated", f"{label} is truncated or corrupt: its ZIP end record is missing"
        )
    entries, directory = struct.unpack_from("<HI", tail, at + 10)
    if entries != 0xFFFF and directory != 0xFFFFFFFF:
        return entries, directory
    locator = at - 20
    if locator < 0 or tail[locator : locator + 4] != _ZIP64_LOCATOR:
        return entries, directory
    (record,) = struct.unpack_from("<Q", tail, locator + 8)
    if record + 56 > size:
        raise ArtifactError("corrupt", f"{label} is corrupt: its ZIP64 end record is out of range")
    handle.seek(record)
    data = handle.read(56)
    if data[:4] != _ZIP64_EOCD:
        raise ArtifactError("corrupt", f"{label} is corrupt: its ZIP64 end record is missing")
    big_entries, big_directory = struct.unpack_from("<QQ", data, 32)
    return big_entries, big_directory


def _read_entry(
    archive: zipfile.ZipFile, name: str, limit: int, truncate: bool = False
) -> bytes | None:
    """At most `limit` bytes of an entry; None if it is larger (unless `truncate`)."""
    try:
        info = archive.getinfo(name)
        if info.file_size > limit and not truncate:
            return None
        with archive.open(info) as entry:
            data = entry.read(limit + 1)  # the cap holds even if the declared size lies
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError, NotImplementedError):
        return None
    except Exception:  # zlib/bz2/lzma errors from hostile data
        return None
    if len(data) > limit:
        return data[:limit] if truncate else None
    return data


def _root_class(pickle_head: bytes) -> str | None:
    """`module.Class` of the first class the pickle names, by disassembly only."""
    strings: list[str] = []
    try:
        for opcode, arg, _ in pickletools.genops(io.BytesIO(pickle_head)):
            if opcode.name == "GLOBAL" and isinstance(arg, str):
                module, _, name = arg.partition(" ")
                return f"{module}.{name}" if module.startswith("__torch__") else None
            if opcode.name == "STACK_GLOBAL" and len(strings) >= 2:
                module, name = strings[-2], strings[-1]
                return f"{module}.{name}" if module.startswith("__torch__") else None
            if opcode.name in _STRING_OPS and isinstance(arg, str | bytes):
                strings.append(arg if isinstance(arg, str) else arg.decode("latin-1"))
    except Exception:  # genops raises ValueError (and others) on truncated or bad data
        return None
    return None


def _storages(pickle_head: bytes) -> frozenset[str]:
    """The `torch.<Type>Storage` classes the pickle names (by disassembly only): the
    element types of the module's parameters and buffers."""
    found: set[str] = set()
    strings: list[str] = []
    try:
        for opcode, arg, _ in pickletools.genops(io.BytesIO(pickle_head)):
            if opcode.name == "GLOBAL" and isinstance(arg, str):
                module, _, name = arg.partition(" ")
                if module == "torch" and name.endswith("Storage"):
                    found.add(name)
            elif opcode.name == "STACK_GLOBAL" and len(strings) >= 2:
                if strings[-2] == "torch" and strings[-1].endswith("Storage"):
                    found.add(strings[-1])
            elif opcode.name in _STRING_OPS and isinstance(arg, str | bytes):
                strings.append(arg if isinstance(arg, str) else arg.decode("latin-1"))
    except Exception:  # genops raises on a head cut in the middle of an opcode
        pass
    return frozenset(found)


def _what_instead(head: bytes) -> str:
    if head.startswith(b"ftrt"):
        return 'it is a TensorRT plan (serve it with backend "tensorrt" as model.plan)'
    if head.startswith(b"\x89HDF"):
        return "it is an HDF5 file (a Keras model?)"
    if head[:1] == b"\x08":
        return "it looks like a protobuf (an ONNX model?)"
    return f"its first bytes are {head[:8].hex(' ')}"
