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

import ast
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

__all__ = ["ForwardArg", "Returned", "TorchScriptSignature", "read_torchscript"]

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


@dataclass(frozen=True)
class ForwardArg:
    """One argument of `forward` (self excluded), as the TorchScript source declares it."""

    name: str
    annotation: str
    """As written ("Tensor", "List[str]", "Dict[str, Tensor]"); "Tensor" when absent."""

    @property
    def kind(self) -> str:
        """libtorch's view: "tensor", "list", "dict" or "other" (refused by the backend)."""
        base = self.annotation.split("[", 1)[0].strip().rsplit(".", 1)[-1]
        return {"Tensor": "tensor", "List": "list", "list": "list", "Dict": "dict"}.get(
            base, "dict" if base == "dict" else "other"
        )

    @property
    def is_string_list(self) -> bool:
        return self.annotation.replace(" ", "") in ("List[str]", "list[str]")


SCALAR_TYPES = {
    0: "TYPE_UINT8",
    1: "TYPE_INT8",
    2: "TYPE_INT16",
    3: "TYPE_INT32",
    4: "TYPE_INT64",
    5: "TYPE_FP16",
    6: "TYPE_FP32",
    7: "TYPE_FP64",
    11: "TYPE_BOOL",
    15: "TYPE_BF16",
}
"""c10::ScalarType numbers, as TorchScript code writes dtypes (`torch.to(x, 5, ...)`), and
the config type of each."""
_CAST_METHODS = {
    "half": "TYPE_FP16",
    "float": "TYPE_FP32",
    "double": "TYPE_FP64",
    "bfloat16": "TYPE_BF16",
    "long": "TYPE_INT64",
    "int": "TYPE_INT32",
    "short": "TYPE_INT16",
    "char": "TYPE_INT8",
    "byte": "TYPE_UINT8",
    "bool": "TYPE_BOOL",
}
"""Tensor methods that convert to one element type (`x.half()`)."""
MAX_TRACE = 64
"""Assignments followed back from a returned value, at most."""


@dataclass(frozen=True)
class Returned:
    """What the code shows about the element type of one value forward() returns."""

    data_type: str | None = None
    """The config type of a final cast (`torch.to(x, 5, ...)`, `x.half()`); None when the
    code does not show it."""


@dataclass(frozen=True, eq=False)
class TorchScriptSignature(Signature):
    """What libtorch reads from a TorchScript file; inputs are forward()'s arguments."""

    not_torchscript: str = ""
    """Why libtorch refuses the file ("" for a TorchScript archive)."""
    root_class: str = ""
    forward: tuple[ForwardArg, ...] | None = None
    """None when forward() could not be found (see `problems`)."""
    returns: str = ""
    """forward()'s return annotation as written."""
    output_count: int | None = None
    """Values forward() returns: the Tuple's arity, 1 for a Tensor or List[str]."""
    returned: tuple[Returned, ...] = ()
    """Per returned value, what the code shows of its element type (empty when forward()
    does not end in one return of a value or tuple)."""
    code_file: str = ""
    """The archive entry holding forward() (`model/code/__torch__/net.py`)."""
    storages: frozenset[str] = frozenset()
    """The storage classes data.pkl names for the module's tensors (`HalfStorage` for a
    model exported after `model.half()`); empty when none is named in its first MiB."""


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
    forward = _forward(source, cls, path.parent)
    if forward is None:
        return _uninspected(path, f"{code_name} has no readable {cls}.forward()", root)
    args, returns, count, returned = forward
    inputs = tuple(
        TensorSpec(arg.name, "TYPE_STRING" if arg.is_string_list else None, arg.annotation, None)
        for arg in args
    )
    return TorchScriptSignature(
        "torchscript",
        path,
        inputs,
        (),
        {"root_class": root},
        root_class=root,
        forward=args,
        returns=returns,
        output_count=count,
        returned=returned,
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


def _forward(
    source: bytes, cls: str, folder: Path
) -> tuple[tuple[ForwardArg, ...], str, int | None, tuple[Returned, ...]] | None:
    """forward()'s arguments (self dropped), return annotation, output count and what the
    code shows of each returned value's type."""
    try:
        # On a syntax error CPython reads the failing line back from the file named
        # `filename` (by default "<unknown>" in the working directory). The code comes
        # from the archive, so name the archive's folder: it opens and yields no line.
        tree = ast.parse(source, filename=str(folder))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls]
    if not classes:
        return None
    methods = [
        n
        for n in classes[-1].body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "forward"
    ]
    if not methods:
        return None
    function = methods[-1]
    positional = [*function.args.posonlyargs, *function.args.args]
    if positional and (
        positional[0].arg == "self" or _text(positional[0].annotation).startswith("__torch__")
    ):
        positional = positional[1:]
    args = tuple(ForwardArg(a.arg, _text(a.annotation) or "Tensor") for a in positional)
    returns = _text(function.returns)
    returned = _returned(function)
    return args, returns, _output_count(function.returns), returned


def _returned(function: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[Returned, ...]:
    """The element type evidence of each value of forward()'s single, final return.

    TorchScript code is straight-line Python in which most values are assigned once. A
    returned name is followed back through single assignments in the function body to
    the call that made it; a cast to a fixed type is evidence, anything else unknown.
    """
    try:
        returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    except RecursionError:
        return ()
    last = function.body[-1] if function.body else None
    if len(returns) != 1 or not isinstance(last, ast.Return) or last.value is None:
        return ()
    assigned: dict[str, ast.expr | None] = {}
    for statement in function.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        once = name.id not in assigned and isinstance(target, ast.Name)
                        value = statement.value if once else None
                        assigned[name.id] = value if isinstance(statement, ast.Assign) else None
        elif not isinstance(statement, ast.Expr | ast.Return | ast.Pass):
            for node in ast.walk(statement):  # names bound inside if/for/with: unknown
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    assigned[node.id] = None
    value = last.value
    values = value.elts if isinstance(value, ast.Tuple) else [value]
    return tuple(_origin(v, assigned) for v in values)


def _origin(node: ast.expr, assigned: dict[str, ast.expr | None]) -> Returned:
    for _ in range(MAX_TRACE):
        if isinstance(node, ast.Name):
            value = assigned.get(node.id)
            if value is None:
                return Returned()  # an argument, a name bound twice or in a block
            node = value
            continue
        if isinstance(node, ast.Call):
            return Returned(_cast_type(node))
        return Returned()
    return Returned()


def _cast_type(call: ast.Call) -> str | None:
    """The config type a call converts its tensor to, if it is a cast to a fixed type."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    on_torch = isinstance(func.value, ast.Name) and func.value.id == "torch"
    if func.attr == "to":
        candidates = list(call.args[1:3]) if on_torch else list(call.args[:2])
        candidates += [k.value for k in call.keywords if k.arg == "dtype"]
        for candidate in candidates:
            if isinstance(candidate, ast.Constant) and type(candidate.value) is int:
                return SCALAR_TYPES.get(candidate.value)
            dtype = _dtype_attribute(candidate)
            if dtype is not None:
                return dtype
        return None
    if func.attr in _CAST_METHODS and not call.keywords:
        if (on_torch and len(call.args) == 1) or (not on_torch and not call.args):
            return _CAST_METHODS[func.attr]
    return None


_DTYPE_NAMES = {
    "float16": "TYPE_FP16",
    "half": "TYPE_FP16",
    "float32": "TYPE_FP32",
    "float": "TYPE_FP32",
    "float64": "TYPE_FP64",
    "double": "TYPE_FP64",
    "bfloat16": "TYPE_BF16",
    "int64": "TYPE_INT64",
    "long": "TYPE_INT64",
    "int32": "TYPE_INT32",
    "int": "TYPE_INT32",
    "int16": "TYPE_INT16",
    "int8": "TYPE_INT8",
    "uint8": "TYPE_UINT8",
    "bool": "TYPE_BOOL",
}


def _dtype_attribute(node: ast.expr) -> str | None:
    """`torch.float16` and its aliases, as a config type."""
    if (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "torch"
    ):
        return _DTYPE_NAMES.get(node.attr)
    return None


def _text(node: ast.expr | None) -> str:
    if node is None:
        return ""
    try:
        return ast.unparse(node)
    except (ValueError, RecursionError):
        return ""


def _output_count(node: ast.expr | None) -> int | None:
    if node is None:
        return None
    if isinstance(node, ast.Subscript):
        base = _text(node.value).rsplit(".", 1)[-1]
        if base in ("Tuple", "tuple"):
            return len(node.slice.elts) if isinstance(node.slice, ast.Tuple) else 1
        if base in ("List", "list") and _text(node.slice) == "str":
            return 1
        return None
    return 1 if _text(node).rsplit(".", 1)[-1] == "Tensor" else None


def _what_instead(head: bytes) -> str:
    if head.startswith(b"ftrt"):
        return 'it is a TensorRT plan (serve it with backend "tensorrt" as model.plan)'
    if head.startswith(b"\x89HDF"):
        return "it is an HDF5 file (a Keras model?)"
    if head[:1] == b"\x08":
        return "it looks like a protobuf (an ONNX model?)"
    return f"its first bytes are {head[:8].hex(' ')}"
