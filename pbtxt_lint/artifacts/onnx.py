"""Header-only ONNX reader.

``onnx.load`` parses the whole ModelProto: on a 1.5 GiB model that costs seconds and about twice the
file size in RAM, and it cannot read files over protobuf's 2 GiB limit at all. This module walks the
protobuf wire format over an ``mmap`` instead and descends only into the few messages that describe
the graph's interface (inputs, outputs, initializer names, opsets). Every other field, including
weight payloads, is skipped by its length prefix, so its bytes are never paged in and memory use
does not grow with the file size.

Field numbers come from onnx's ``onnx.proto``. Protobuf semantics are respected: fields may come in
any order, a singular message field that appears twice (e.g. two ``graph`` fields) is merged, and
the last value of a scalar field wins.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint import storage
from pbtxt_lint.artifacts.onnx_signature import InferenceReport, OnnxSignature
from pbtxt_lint.artifacts.signature import (
    ArtifactError,
    ArtifactProblem,
    Dim,
    TensorSpec,
    VarintError,
    decode_varint,
    map_artifact,
    reason,
)
from pbtxt_lint.schema.datatypes import config_type_from_onnx
from pbtxt_lint.textproto.integers import BEYOND_64_BITS, integer

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.onnx_axes import AxisTrace

__all__ = ["read_onnx"]

_MAX_TYPE_DEPTH = 32
"""TypeProto nests (seq(map(...))); real models use 3 levels, hostile files could use millions."""
_MAX_STRING = 1 << 20
"""Longest name/key/value copied out of the file; protects memory against hostile lengths."""
_PROTOBUF_LIMIT = 2**31 - 1
"""Protobuf (and so ONNX Runtime) refuses to parse a serialized message larger than this."""
_LFS_MAGIC = b"version https://git-lfs.github.com/spec/v1"
_EXTERNAL = 1
"""TensorProto.DataLocation.EXTERNAL."""

# TensorProto.DataType names, indexed by value (onnx.proto).
_ONNX_TYPE_NAMES = (
    "UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16", "INT32", "INT64", "STRING", "BOOL",
    "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
    "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4",
    "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2", "FLOAT6E2M3", "FLOAT6E3M2",
)  # fmt: skip

# What a file that fails to parse probably is, to make the error actionable.
_MAGIC_HINTS = (
    (b"PK\x03\x04", "a ZIP archive (a PyTorch/TorchScript model?)"),
    (b"ftrt", "a TensorRT plan"),
    (b"ptrt", "a TensorRT plan (TensorRT 8.5 or older)"),
    (b"\x89HDF", "an HDF5 file (a Keras model?)"),
    *((b"\x80" + bytes([protocol]), "a Python pickle") for protocol in (2, 3, 4, 5)),
    (b"<", "a text/HTML/XML file"),
)

# Names for the fields an error message is most likely to be about.
_FIELD_NAMES = {
    ("ModelProto", 2): "producer_name", ("ModelProto", 7): "graph",
    ("ModelProto", 8): "opset_import", ("ModelProto", 20): "training_info",
    ("ModelProto", 25): "functions", ("graph", 1): "node", ("graph", 5): "initializer",
    ("graph", 11): "input", ("graph", 12): "output", ("graph", 13): "value_info",
    ("graph", 15): "sparse_initializer", ("initializer", 9): "raw_data",
}  # fmt: skip

# TypeProto oneof field numbers.
_TENSOR, _SEQUENCE, _MAP, _OPAQUE, _SPARSE, _OPTIONAL = 1, 4, 5, 7, 8, 9


def read_onnx(path: Path, model_dir: Path) -> OnnxSignature:
    """Read the I/O signature of the ONNX model at ``path`` without loading its weights.

    ``path`` may be a directory named like the model file: Triton then loads ``path/model.onnx``.
    ``model_dir`` is the model's folder in the repository; external data must stay inside it.
    Output shapes are those ONNX Runtime reports (see `onnx_infer`).
    Raises :class:`ArtifactError` when the file cannot be read as an ONNX model at all.
    """
    target = _model_file(path)
    label = str(target)
    with map_artifact(target, label) as buf:
        if buf[: len(_LFS_MAGIC)] == _LFS_MAGIC:
            raise _lfs_error(buf, label)
        model = _Model(_Wire(buf, label))
        try:
            model.read()
            if not model.has_graph:
                raise ArtifactError("corrupt", f"{label} contains no ONNX graph")
        except ArtifactError as exc:
            raise ArtifactError(exc.kind, exc.message + _hint(buf)) from None
        size = len(buf)
        outputs = tuple(_spec(name, ty) for name, ty in model.outputs)
        inference, unoptimized = InferenceReport("skipped", _why_not(model, outputs)), None
        axes = None
        if not inference.reason:
            outputs, unoptimized, inference, axes = _infer_shapes(model, outputs)
    problems = []
    if size > _PROTOBUF_LIMIT:
        problems.append(
            ArtifactProblem(
                "protobuf-too-large",
                f"{label} is {size:,} bytes; protobuf cannot parse messages over 2 GiB, so ONNX "
                "Runtime will refuse it: store the weights as external data",
            )
        )
    problems.extend(_check_external(target, model_dir, model.external))
    return OnnxSignature(
        format="onnx",
        path=target,
        inputs=model.input_specs(),
        outputs=outputs,
        facts=model.facts,
        problems=tuple(problems),
        inference=inference,
        unoptimized_outputs=unoptimized,
        axes=axes,
    )


def _why_not(model: _Model, outputs: tuple[TensorSpec, ...]) -> str:
    """Why ONNX Runtime cannot report other output shapes than the declared ones ("" if
    it may): every output's dims are fixed sizes and none is a graph input or initializer."""
    defined = {name for name, _ in model.inputs} | model.initializers
    for spec in outputs:
        if spec.is_tensor and (spec.name in defined or spec.shape is None):
            return ""
        if spec.is_tensor and any(not isinstance(d, int) or d < 0 for d in spec.shape or ()):
            return ""
    return "every graph output is declared with fixed sizes"


def _infer_shapes(
    model: _Model, outputs: tuple[TensorSpec, ...]
) -> tuple[
    tuple[TensorSpec, ...], tuple[TensorSpec, ...] | None, InferenceReport, AxisTrace | None
]:
    """Run the shape inference emulation; keep the declared shapes when it cannot finish.
    Also trace where each output axis comes from (`onnx_axis_trace`), when the graph is read."""
    from pbtxt_lint.artifacts import onnx_axis_trace, onnx_graph, onnx_infer

    try:
        graph = onnx_graph.collect(model, model.graph_ranges)
    except (onnx_graph.GraphTooLarge, ArtifactError) as exc:
        reason = exc.message if isinstance(exc, ArtifactError) else str(exc)
        return outputs, None, InferenceReport("declared", reason), None
    axes = None
    if onnx_axis_trace.worth_tracing(graph, model.inputs, model.outputs):
        axes = onnx_axis_trace.trace_axes(graph, model.inputs, [name for name, _ in model.outputs])
    try:
        result = onnx_infer.infer(
            graph,
            model.inputs,
            outputs,
            [ty for _, ty in model.outputs],
            model.initializers,
            model.ir_version,
            model.opset,
        )
    except (onnx_infer.GiveUp, ArtifactError) as exc:
        reason = exc.message if isinstance(exc, ArtifactError) else str(exc)
        return outputs, None, InferenceReport("declared", reason), axes
    return result.outputs, result.unoptimized, result.report, axes


def _model_file(path: Path) -> Path:
    """Apply Triton's rule for a directory named ``model.onnx`` and reject non-files early."""
    st = _stat(path, f"{path} does not exist")
    if stat.S_ISDIR(st.st_mode):
        inner = path / "model.onnx"
        st = _stat(inner, f"{path} is a directory, so Triton loads {inner}, which does not exist")
        path = inner
    if not stat.S_ISREG(st.st_mode):
        raise ArtifactError("not-a-file", f"{path} is not a regular file")
    return path


def _stat(path: Path, missing: str) -> os.stat_result:
    try:
        return storage.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise ArtifactError("not-a-file", missing) from None
    except (OSError, ValueError) as exc:
        raise ArtifactError("unreadable", f"cannot access {path}: {reason(exc)}") from None


def _lfs_error(buf: storage.Buffer, label: str) -> ArtifactError:
    """Name the missing object: pointer files are tiny text, so reading them whole is safe."""
    text = buf[:1024].decode("utf-8", "replace")
    details = dict(line.split(" ", 1) for line in text.splitlines() if " " in line)
    what = ""
    if "size" in details:
        what = f" of a {details['size'].strip()}-byte file"
    return ArtifactError(
        "lfs-pointer",
        f"{label} is a Git LFS pointer{what}, not the model: run `git lfs pull` "
        "(or clone with Git LFS installed)",
    )


def _hint(buf: storage.Buffer) -> str:
    head = buf[:8]
    for magic, what in _MAGIC_HINTS:
        if head.startswith(magic):
            return f" (the file looks like {what}, not ONNX)"
    text = bytes(buf[:_TEXT_PROBE])
    if (
        len(buf) <= _TEXT_PROBE
        and text.strip()
        and all(32 <= b < 127 or b in b"\t\r\n" for b in text)
    ):
        shown = text.decode("ascii").strip()
        if shown.startswith(("/", "./", "../")) and "\n" not in shown:
            return (
                f" (the file is a line of text, the path '{shown[:80]}': a symbolic link "
                "that git stored as a text file, or a placeholder; put the model there)"
            )
        return f" (the file is a short text file starting '{shown[:40]}', not ONNX)"
    return ""


_TEXT_PROBE = 4096
"""A file this small and all printable text is named as text in the error."""


class _Wire:
    """Bounds-checked protobuf wire-format cursor over a read-only buffer."""

    __slots__ = ("buf", "label", "size")

    def __init__(self, buf: storage.Buffer, label: str) -> None:
        self.buf = buf
        self.label = label
        self.size = len(buf)

    def overrun(self, need: int, at: int, ctx: str) -> ArtifactError:
        """Past the end of the file means truncated; past a parent's end means corrupt."""
        if need > self.size:
            return ArtifactError(
                "truncated",
                f"{self.label} is truncated: {ctx} at byte {at} needs data up to byte {need:,} "
                f"but the file has only {self.size:,} bytes",
            )
        return ArtifactError(
            "corrupt",
            f"{self.label} is corrupt: {ctx} at byte {at} runs past the end of its "
            "enclosing message",
        )

    def corrupt(self, at: int, what: str) -> ArtifactError:
        return ArtifactError("corrupt", f"{self.label} is corrupt: {what} at byte {at}")

    def varint(self, i: int, end: int, ctx: str) -> tuple[int, int]:
        """Decode a varint at ``i``; return (value as uint64, next position)."""
        try:
            return decode_varint(self.buf, i, end)
        except VarintError as error:
            if error.overlong:
                raise self.corrupt(i, f"varint longer than 10 bytes in {ctx}") from None
            raise self.overrun(max(end, i) + 1, i, ctx) from None

    def fields(self, start: int, end: int, ctx: str) -> Iterator[tuple[int, int, int, int]]:
        """Yield ``(field, wire_type, a, b)`` for each field in ``[start, end)``.

        Varint: ``a`` is the value. Length-delimited and fixed-width: ``[a, b)`` is the payload,
        which the caller may decode or ignore; it is never read here.
        """
        buf = self.buf
        i = start
        while i < end:
            at = i
            tag = buf[i]
            if tag < 0x80:
                i += 1
            else:
                tag, i = self.varint(i, end, ctx)
            field = tag >> 3
            wire = tag & 7
            if field == 0 or tag > 0xFFFFFFFF:
                raise self.corrupt(at, f"invalid field tag {tag} in {ctx}")
            if wire == 0:
                if i < end and buf[i] < 0x80:  # fast path: one-byte varint
                    value = buf[i]
                    i += 1
                else:
                    value, i = self.varint(i, end, ctx)
                yield field, 0, value, i
            elif wire == 2:
                if i < end and buf[i] < 0x80:
                    length = buf[i]
                    payload = i + 1
                else:
                    length, payload = self.varint(i, end, ctx)
                i = payload + length
                if i > end:
                    raise self.overrun(i, at, f"{_field_name(ctx, field)} ({length:,} bytes)")
                yield field, 2, payload, i
            elif wire in (1, 5):
                payload = i
                i += 8 if wire == 1 else 4
                if i > end:
                    raise self.overrun(i, at, _field_name(ctx, field))
                yield field, wire, payload, i
            else:
                raise self.corrupt(at, f"invalid wire type {wire} for field {field} in {ctx}")

    def string(self, start: int, end: int, ctx: str) -> str:
        if end - start > _MAX_STRING:
            raise self.corrupt(start, f"{ctx} is implausibly long ({end - start:,} bytes)")
        return self.buf[start:end].decode("utf-8", "replace")


def _field_name(ctx: str, field: int) -> str:
    name = _FIELD_NAMES.get((ctx, field))
    return f"{ctx}.{name}" if name else f"field {field} of {ctx}"


def _int64(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _int32(value: int) -> int:
    """Protobuf keeps the low 32 bits of an int32/enum varint."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


class _Type:
    """A TypeProto being decoded; mutable because repeated occurrences merge."""

    __slots__ = ("child", "dims", "elem", "kind", "opaque")

    def __init__(self, kind: int = 0) -> None:
        self.kind = kind
        self.elem = 0
        self.dims: list[Dim] | None = None
        self.child: _Type | None = None
        self.opaque = ["", ""]


class _Tensor:
    """The header of an initializer: its name and where its data lives."""

    __slots__ = ("external", "location", "name")

    def __init__(self) -> None:
        self.name = ""
        self.location = 0
        self.external: dict[str, str] = {}


class _Model:
    """State accumulated over the ModelProto; graph fields merge as protobuf requires."""

    def __init__(self, wire: _Wire) -> None:
        self.wire = wire
        self.has_graph = False
        self.ir_version: int | None = None
        self.facts: dict[str, str] = {}
        self.inputs: list[tuple[str, _Type | None]] = []
        self.outputs: list[tuple[str, _Type | None]] = []
        self.initializers: set[str] = set()
        self.external: list[_Tensor] = []
        self.graph_ranges: list[tuple[int, int]] = []
        self.opset: int | None = None
        """The version of the default ONNX domain ("" or "ai.onnx") the model imports."""

    def read(self) -> None:
        w = self.wire
        for field, wire, a, b in w.fields(0, w.size, "ModelProto"):
            if field == 7 and wire == 2:
                self.has_graph = True
                self.graph_ranges.append((a, b))
                self.read_graph(a, b)
            elif field == 1 and wire == 0:
                self.ir_version = _int64(a)
                self.facts["ir_version"] = str(self.ir_version)
            elif field == 8 and wire == 2:
                self.read_opset(a, b)
            elif field in (2, 3, 4) and wire == 2:
                key = ("producer_name", "producer_version", "domain")[field - 2]
                self.facts[key] = w.string(a, b, key)
            elif field == 5 and wire == 0:
                self.facts["model_version"] = str(_int64(a))

    def read_opset(self, start: int, end: int) -> None:
        domain, version = "", 0
        for field, wire, a, b in self.wire.fields(start, end, "opset_import"):
            if field == 1 and wire == 2:
                domain = self.wire.string(a, b, "opset domain")
            elif field == 2 and wire == 0:
                version = _int64(a)
        self.facts[f"opset:{domain or 'ai.onnx'}"] = str(version)
        if domain in ("", "ai.onnx"):
            self.opset = version

    def read_graph(self, start: int, end: int) -> None:
        for field, wire, a, b in self.wire.fields(start, end, "graph"):
            if wire != 2:
                continue
            if field == 11:
                self.inputs.append(self.read_value(a, b, "graph input"))
            elif field == 12:
                self.outputs.append(self.read_value(a, b, "graph output"))
            elif field == 5:
                tensor = _Tensor()
                self.read_tensor(a, b, tensor, "initializer")
                self.add_initializer(tensor)
            elif field == 15:
                self.read_sparse(a, b)

    def read_sparse(self, start: int, end: int) -> None:
        """Only ``values`` (field 1) carries the initializer's name and data location."""
        tensor = _Tensor()
        for field, wire, a, b in self.wire.fields(start, end, "sparse_initializer"):
            if field == 1 and wire == 2:
                self.read_tensor(a, b, tensor, "sparse_initializer values")
        self.add_initializer(tensor)

    def add_initializer(self, tensor: _Tensor) -> None:
        self.initializers.add(tensor.name)
        if tensor.location == _EXTERNAL:
            self.external.append(tensor)

    def read_tensor(self, start: int, end: int, tensor: _Tensor, ctx: str) -> None:
        """Read name and data location; raw_data and the typed *_data payloads are skipped."""
        w = self.wire
        for field, wire, a, b in w.fields(start, end, ctx):
            if field == 8 and wire == 2:
                tensor.name = w.string(a, b, f"{ctx} name")
            elif field == 14 and wire == 0:
                tensor.location = _int32(a)
            elif field == 13 and wire == 2:
                key, value = "", ""
                for f, wt, c, d in w.fields(a, b, "external_data entry"):
                    if f == 1 and wt == 2:
                        key = w.string(c, d, "external_data key")
                    elif f == 2 and wt == 2:
                        value = w.string(c, d, "external_data value")
                tensor.external[key] = value

    def read_value(self, start: int, end: int, ctx: str) -> tuple[str, _Type | None]:
        """Decode a ValueInfoProto into (name, type)."""
        w = self.wire
        name = ""
        ty: _Type | None = None
        for field, wire, a, b in w.fields(start, end, ctx):
            if field == 1 and wire == 2:
                name = w.string(a, b, f"{ctx} name")
            elif field == 2 and wire == 2:
                ty = self.read_type(a, b, ty or _Type(), 0)
        return name, ty

    def read_type(self, start: int, end: int, ty: _Type, depth: int) -> _Type:
        """Decode a TypeProto, merging into ``ty``; returns the merged type."""
        w = self.wire
        if depth > _MAX_TYPE_DEPTH:
            raise w.corrupt(start, f"type nesting deeper than {_MAX_TYPE_DEPTH} levels")
        for field, wire, a, b in w.fields(start, end, "type"):
            if wire != 2 or field not in (_TENSOR, _SEQUENCE, _MAP, _OPAQUE, _SPARSE, _OPTIONAL):
                continue
            if field != ty.kind:  # a oneof member replaces a different one, merges into itself
                ty = _Type(field)
            for f, wt, c, d in w.fields(a, b, "type"):
                if field in (_TENSOR, _SPARSE):
                    if f == 1 and wt == 0:
                        ty.elem = _int32(c)
                    elif f == 2 and wt == 2:
                        self.read_shape(c, d, ty)
                elif field == _OPAQUE:
                    if f in (1, 2) and wt == 2:
                        ty.opaque[f - 1] = w.string(c, d, "opaque type name")
                elif field == _MAP and f == 1 and wt == 0:
                    ty.elem = _int32(c)
                elif wt == 2 and f == (2 if field == _MAP else 1):  # the element/value type
                    ty.child = self.read_type(c, d, ty.child or _Type(), depth + 1)
        return ty

    def read_shape(self, start: int, end: int, ty: _Type) -> None:
        """Decode TensorShapeProto; a present shape (even empty) means the rank is known."""
        w = self.wire
        dims = ty.dims if ty.dims is not None else []
        ty.dims = dims
        for field, wire, a, b in w.fields(start, end, "shape"):
            if field != 1 or wire != 2:
                continue
            dim: Dim = -1
            for f, wt, c, d in w.fields(a, b, "dimension"):
                if f == 1 and wt == 0:
                    value = _int64(c)
                    dim = value if value >= 0 else -1
                elif f == 2 and wt == 2:
                    dim = w.string(c, d, "dim_param") or -1
            dims.append(dim)

    def input_specs(self) -> tuple[TensorSpec, ...]:
        """Graph inputs as ONNX Runtime exposes them.

        IR >= 4: an input that is also an initializer is an optional, overridable input.
        IR < 4: initializers are constants that cannot be fed, so they are not inputs at all.
        """
        overridable = self.ir_version is not None and self.ir_version >= 4
        specs = []
        for name, ty in self.inputs:
            if name not in self.initializers:
                specs.append(_spec(name, ty))
            elif overridable:
                specs.append(_spec(name, ty, optional=True))
        return tuple(specs)


def _spec(name: str, ty: _Type | None, optional: bool = False) -> TensorSpec:
    if ty is None or ty.kind == 0:
        return TensorSpec(name, None, "<no type>", None, optional, is_tensor=False)
    if ty.kind == _TENSOR:
        shape = tuple(ty.dims) if ty.dims is not None else None
        return TensorSpec(name, config_type_from_onnx(ty.elem), _type_name(ty), shape, optional)
    return TensorSpec(name, None, _type_name(ty), None, optional, is_tensor=False)


def _type_name(ty: _Type | None) -> str:
    """Spell a type like "FLOAT", "seq(FLOAT)", "map(INT64,FLOAT)"."""
    if ty is None or ty.kind == 0:
        return "<no type>"
    if ty.kind == _OPAQUE:
        return f"opaque({'.'.join(part for part in ty.opaque if part)})"
    if ty.kind in (_TENSOR, _SPARSE, _MAP):
        elem = _elem_name(ty.elem)
        if ty.kind == _TENSOR:
            return elem
        if ty.kind == _SPARSE:
            return f"sparse_tensor({elem})"
        return f"map({elem},{_type_name(ty.child)})"
    wrapper = "seq" if ty.kind == _SEQUENCE else "optional"
    return f"{wrapper}({_type_name(ty.child)})"


def _elem_name(elem: int) -> str:
    return _ONNX_TYPE_NAMES[elem] if 0 <= elem < len(_ONNX_TYPE_NAMES) else f"UNKNOWN({elem})"


def _check_external(
    model_file: Path, model_dir: Path, tensors: list[_Tensor]
) -> list[ArtifactProblem]:
    """Check external data files by name and size only; they are never opened.

    Locations are resolved lexically relative to the model file, as ONNX Runtime does,
    and must stay inside ``model_dir``, symbolic links on the way included. Anything that
    escapes is not even stat()ed, so a hostile model cannot make the linter probe the
    rest of the filesystem.
    """
    base = os.path.dirname(os.path.abspath(model_file))
    root = os.path.abspath(model_dir)
    by_location: dict[str, list[_Tensor]] = {}
    problems = []
    for tensor in tensors:
        location = tensor.external.get("location", "")
        if not location or "\x00" in location:
            problems.append(
                ArtifactProblem(
                    "external-data-invalid",
                    f"initializer '{tensor.name}' has external data without a valid 'location'",
                )
            )
        else:
            by_location.setdefault(location, []).append(tensor)
    for location, group in by_location.items():
        names = _names(group)
        target = os.path.normpath(os.path.join(base, location))
        if os.path.isabs(location) or os.path.commonpath([root, target]) != root:
            where = "an absolute path" if os.path.isabs(location) else "outside the model folder"
            problems.append(
                ArtifactProblem(
                    "external-data-escapes",
                    f"external data '{location}' for {names} is {where}; Triton model folders "
                    "must be self-contained",
                )
            )
            continue
        found = _external_file(model_file, location, target)
        if not storage.is_remote(found) and not _stays_in(root, found):
            problems.append(
                ArtifactProblem(
                    "external-data-escapes",
                    f"external data '{location}' for {names} is reached through a symbolic "
                    "link that leaves the model folder; Triton model folders must be "
                    "self-contained, and pbtxt-lint does not follow it",
                )
            )
            continue
        try:
            st = storage.stat(found)
        except (OSError, ValueError):
            st = None
        if st is None or not stat.S_ISREG(st.st_mode):
            state = "does not exist" if st is None else "is not a regular file"
            problems.append(
                ArtifactProblem(
                    "external-data-missing",
                    f"external data file '{location}' for {names} {state} (looked for {found})",
                )
            )
            continue
        problems.extend(_check_range(location, group, st.st_size))
    return problems


def _stays_in(root: str, path: Path) -> bool:
    """`path`, with every symlink on the way resolved, is inside the folder `root`: a
    location that passes the lexical check can still cross a linked folder."""
    try:
        real_root, real = os.path.realpath(root), os.path.realpath(path)
    except (OSError, ValueError):
        return False
    return os.path.commonpath([real_root, real]) == real_root


def _external_file(model_file: Path, location: str, target: str) -> Path:
    """The external data file: `target` on disk; beside the model in its bucket."""
    if storage.is_remote(model_file):
        return (model_file.parent / location).resolve()
    return Path(target)


def _check_range(location: str, group: list[_Tensor], size: int) -> list[ArtifactProblem]:
    problems = []
    for tensor in group:
        offset = tensor.external.get("offset", "0")
        length = tensor.external.get("length", "0")
        if not (offset.isascii() and offset.isdigit() and length.isascii() and length.isdigit()):
            problems.append(
                ArtifactProblem(
                    "external-data-invalid",
                    f"initializer '{tensor.name}' has a non-numeric external data "
                    f"offset/length ('{offset}', '{length}')",
                )
            )
        elif (start := integer(offset)) + integer(length) > size:
            end = start + integer(length)
            span = "past byte 2**64" if end >= BEYOND_64_BITS else f"{start:,}...{end:,}"
            problems.append(
                ArtifactProblem(
                    "external-data-out-of-range",
                    f"initializer '{tensor.name}' reads bytes {span} of '{location}', "
                    f"which has only {size:,} bytes",
                )
            )
    return problems


def _names(group: list[_Tensor]) -> str:
    shown = ", ".join(f"'{t.name}'" for t in group[:3])
    more = f" and {len(group) - 3} more" if len(group) > 3 else ""
    noun = "initializer" if len(group) == 1 else "initializers"
    return f"{noun} {shown}{more}"
