"""OpenVINO IR reader: Parameter and Result layers of `model.xml`, parsed safely.

The IR is XML (`<net><layers><layer type="Parameter">...<edges>...`); the weights are
in `model.bin` next to it. Triton's OpenVINO backend names a port by
`get_any_name()` (the smallest of the port's tensor names), takes dtypes and partial
shapes from the model, and compares them with the config (`openvino_utils.cc`
CompareDimsSupported). This module reads the same facts from the XML:

- inputs: `Parameter` layers; names from the output port's `names` (comma-separated,
  `\\,` escapes a comma), else the layer name; element type and shape from `<data
  element_type=... shape=...>` (`?` is dynamic, `1..10` an interval) or the port dims;
- outputs: `Result` layers; names from `output_names`, else the names of the
  producer's output port reached through `<edges>`; type from the port precision;
- `Const` layers' `offset + size`, to check that `model.bin` is long enough.

Parsing uses the expat parser underneath `xml.etree` directly, streaming: handlers keep
only those few attributes, so memory does not grow with the document, and a document
type declaration (`<!DOCTYPE`, where entities would be declared: billion laughs,
external entities) is refused when it starts, before any declaration is processed.
That covers what `defusedxml` would block for this use without a new dependency.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from xml.parsers import expat

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

__all__ = ["OpenVinoSignature", "parse_dims", "read_openvino"]

MAX_XML_BYTES = 256 << 20
"""IR files of large models are tens of MiB; the weights are in model.bin."""
MAX_KEPT = 1_000_000
"""Ports and edges remembered at most (15k layers make about 40k)."""
_CHUNK = 1 << 20
_LFS_MAGIC = b"version https://git-lfs.github.com/spec/v1"

# ov::element names (data@element_type) and port precisions -> Triton config types,
# as the backend converts them (openvino_utils.cc ConvertFromOpenVINOElement).
_TRITON_TYPES = {
    "f32": "TYPE_FP32", "f16": "TYPE_FP16", "u8": "TYPE_UINT8", "i8": "TYPE_INT8",
    "u16": "TYPE_UINT16", "i16": "TYPE_INT16", "i32": "TYPE_INT32", "i64": "TYPE_INT64",
    "u32": "TYPE_UINT32", "u64": "TYPE_UINT64", "boolean": "TYPE_BOOL",
}  # fmt: skip
_PRECISIONS = {
    "FP32": "f32", "FP16": "f16", "BF16": "bf16", "FP64": "f64", "U8": "u8", "I8": "i8",
    "U16": "u16", "I16": "i16", "I32": "i32", "I64": "i64", "U32": "u32", "U64": "u64",
    "BOOL": "boolean", "BOOLEAN": "boolean", "U1": "u1", "I4": "i4", "U4": "u4",
}  # fmt: skip


@dataclass(frozen=True, eq=False)
class OpenVinoSignature(Signature):
    """Parameter/Result ports of an IR; shapes may hold intervals ("1..10")."""

    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Port name (get_any_name) -> every tensor name of that port."""
    ir_version: str = ""
    weights: Path | None = None
    """The model.bin the backend reads next to the XML."""


def read_openvino(path: Path, model_dir: Path) -> OpenVinoSignature:
    """Read the I/O ports of an OpenVINO IR without the openvino package.

    Raises `ArtifactError` when the file is not a readable IR.
    """
    label = str(path)
    st = stat_artifact(path, folder="; Triton needs the IR's XML file")
    if st.st_size > MAX_XML_BYTES:
        return _uninspected(
            path,
            f"it is {st.st_size:,} bytes, more than the {MAX_XML_BYTES >> 20} MiB pbtxt-lint "
            "parses",
        )
    reader = _IrReader()
    try:
        with storage.open_binary(path) as handle:
            first = handle.read(_CHUNK)
            if first.startswith(_LFS_MAGIC):
                raise ArtifactError(
                    "lfs-pointer",
                    f"{label} is a Git LFS pointer, not the model: run `git lfs pull` "
                    "(or clone with Git LFS installed)",
                )
            chunk = first
            while chunk:
                reader.parser.Parse(chunk, False)
                chunk = handle.read(_CHUNK)
            reader.parser.Parse(b"", True)
    except _Refused as refused:
        return _uninspected(path, str(refused))
    except expat.ExpatError as exc:
        raise ArtifactError(
            "corrupt",
            f"{label} is not well-formed XML: {expat.ErrorString(exc.code)} at "
            f"line {exc.lineno}, column {exc.offset}",
        ) from None
    except OSError as exc:
        raise ArtifactError("unreadable", f"cannot read {label}: {reason(exc)}") from None
    except RecursionError:
        return _uninspected(path, "its elements are nested too deeply")
    except (LookupError, ValueError) as exc:
        # pyexpat decodes an encoding it does not know with Python's codecs: an unknown
        # name (LookupError), a multi-byte or non-text codec (ValueError, UnicodeError).
        return _uninspected(path, f"it declares an encoding pbtxt-lint cannot decode ({exc})")
    if reader.root != "net":
        raise ArtifactError(
            "corrupt",
            f"{label} is XML but not an OpenVINO IR (its root element is "
            f"<{reader.root}>, not <net>)",
        )
    inputs, aliases = reader.inputs()
    outputs, output_aliases = reader.outputs()
    problems = list(_check_weights(path, model_dir, reader.weights_end, reader.constants))
    return OpenVinoSignature(
        "openvino",
        path,
        inputs,
        outputs,
        {"ir_version": reader.version} if reader.version else {},
        tuple(problems),
        aliases={**aliases, **output_aliases},
        ir_version=reader.version,
        weights=path.with_suffix(".bin"),
    )


def _uninspected(path: Path, why: str) -> OpenVinoSignature:
    problem = ArtifactProblem("not-inspected", f"the IR was not read: {why}")
    return OpenVinoSignature("openvino", path, (), (), {}, (problem,))


def _check_weights(
    xml: Path, model_dir: Path, needed: int, constants: int
) -> list[ArtifactProblem]:
    """model.bin must exist (when there are constants) and reach the last constant."""
    if constants == 0:
        return []
    weights = xml.with_suffix(".bin")
    root = os.path.abspath(model_dir)
    target = os.path.normpath(os.path.abspath(weights))
    if os.path.commonpath([root, target]) != root or os.path.islink(weights):
        return []  # not looked at: only files inside the model folder are read
    try:
        st = storage.stat(weights)
    except (OSError, ValueError):
        return [
            ArtifactProblem(
                "weights-missing",
                f"{weights.name} does not exist next to {xml.name}, whose {constants:,} "
                f"constant layer{'s store their' if constants != 1 else ' stores its'} "
                "values there",
            )
        ]
    if stat.S_ISREG(st.st_mode) and st.st_size < needed:
        return [
            ArtifactProblem(
                "weights-short",
                f"{weights.name} has {st.st_size:,} bytes but {xml.name} reads constants up to "
                f"byte {needed:,} (an interrupted copy, or the .bin of another export)",
            )
        ]
    return []


class _Refused(Exception):
    """The document uses a feature this reader does not process (DTDs, entities)."""


@dataclass
class _Port:
    names: str = ""
    precision: str = ""
    dims: list[str] = field(default_factory=list)


@dataclass
class _Layer:
    id: str
    name: str
    type: str
    output_names: str = ""
    element_type: str = ""
    shape: str | None = None
    input_port: _Port | None = None
    output_port: _Port | None = None


class _IrReader:
    """Expat handlers that keep only the I/O layers, named ports and edges."""

    def __init__(self) -> None:
        parser = expat.ParserCreate()
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartDoctypeDeclHandler = self._doctype
        parser.EntityDeclHandler = self._entity
        parser.ExternalEntityRefHandler = self._external
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._text
        self.parser = parser
        self.root = ""
        self.version = ""
        self.stack: list[str] = []
        self.layer: _Layer | None = None
        self.port: _Port | None = None
        self.in_dim = False
        self.dim_text: list[str] = []
        self.parameters: list[_Layer] = []
        self.results: list[_Layer] = []
        self.port_names: dict[tuple[str, str], tuple[str, str]] = {}
        self.edges: dict[str, tuple[str, str]] = {}
        self.weights_end = 0
        self.constants = 0

    # --- refused constructs -------------------------------------------------------------

    def _doctype(self, name: str, *_: object) -> None:
        raise _Refused(
            f"it has a document type declaration (<!DOCTYPE {name}>), which can declare "
            "entities; pbtxt-lint does not expand entities, and OpenVINO IRs never need one"
        )

    def _entity(self, name: str, *_: object) -> None:
        raise _Refused(f"it declares the entity '{name}'; pbtxt-lint does not expand entities")

    def _external(self, *_: object) -> int:
        raise _Refused("it references an external entity; pbtxt-lint does not fetch them")

    # --- elements -----------------------------------------------------------------------

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        stack = self.stack
        if not stack:
            self.root = tag
            self.version = attrs.get("version", "")
        parent = stack[-1] if stack else ""
        stack.append(tag)
        if tag == "layer" and parent == "layers":
            self.layer = _Layer(
                attrs.get("id", ""),
                attrs.get("name", ""),
                attrs.get("type", ""),
                attrs.get("output_names", ""),
            )
        elif tag == "data" and parent == "layer" and self.layer is not None:
            self._data(self.layer, attrs)
        elif tag == "port" and parent in ("input", "output") and self.layer is not None:
            port = _Port(attrs.get("names", ""), attrs.get("precision", ""))
            self.port = port
            if parent == "output":
                if port.names and len(self.port_names) < MAX_KEPT:
                    key = (self.layer.id, attrs.get("id", ""))
                    self.port_names[key] = (port.names, port.precision)
                if self.layer.output_port is None:
                    self.layer.output_port = port
            elif self.layer.input_port is None:
                self.layer.input_port = port
        elif tag == "dim" and self.port is not None:
            self.in_dim = True
            self.dim_text = []
        elif tag == "edge" and parent == "edges" and len(self.edges) < MAX_KEPT:
            to = attrs.get("to-layer", "")
            if to:
                self.edges.setdefault(to, (attrs.get("from-layer", ""), attrs.get("from-port", "")))

    def _data(self, layer: _Layer, attrs: dict[str, str]) -> None:
        if layer.type == "Parameter":
            layer.element_type = attrs.get("element_type", "")
            layer.shape = attrs.get("shape")
        elif layer.type == "Const":
            self.constants += 1
            offset, size = _decimal(attrs.get("offset", "")), _decimal(attrs.get("size", ""))
            if offset is not None and size is not None:
                self.weights_end = max(self.weights_end, offset + size)

    def _end(self, tag: str) -> None:
        self.stack.pop()
        if tag == "dim" and self.in_dim:
            self.in_dim = False
            if self.port is not None and len(self.port.dims) < 64:
                self.port.dims.append("".join(self.dim_text).strip())
        elif tag == "port":
            self.port = None
        elif tag == "layer" and self.layer is not None and self.stack[-1:] == ["layers"]:
            if self.layer.type == "Parameter" and len(self.parameters) < MAX_KEPT:
                self.parameters.append(self.layer)
            elif self.layer.type == "Result" and len(self.results) < MAX_KEPT:
                self.results.append(self.layer)
            self.layer = None

    def _text(self, data: str) -> None:
        if self.in_dim and len(self.dim_text) < 64:
            self.dim_text.append(data)

    # --- results --------------------------------------------------------------------------

    def inputs(self) -> tuple[tuple[TensorSpec, ...], dict[str, tuple[str, ...]]]:
        specs = []
        aliases: dict[str, tuple[str, ...]] = {}
        for layer in self.parameters:
            port = layer.output_port or _Port()
            names = _split_names(port.names) or (layer.name,)
            element = layer.element_type or _PRECISIONS.get(port.precision.upper(), "")
            shape = parse_dims(layer.shape) if layer.shape is not None else _port_shape(port)
            name = min(names)
            aliases[name] = names
            specs.append(TensorSpec(name, _TRITON_TYPES.get(element), element or "?", shape))
        return tuple(specs), aliases

    def outputs(self) -> tuple[tuple[TensorSpec, ...], dict[str, tuple[str, ...]]]:
        specs = []
        aliases: dict[str, tuple[str, ...]] = {}
        for layer in self.results:
            port = layer.input_port or _Port()
            producer = self.port_names.get(self.edges.get(layer.id, ("", "")), ("", ""))
            names = _split_names(layer.output_names) or _split_names(producer[0])
            if not names:
                names = (layer.name.removesuffix("/sink_port_0"),)
            precision = port.precision or producer[1]
            element = _PRECISIONS.get(precision.upper(), precision.lower())
            name = min(names)
            aliases[name] = names
            specs.append(
                TensorSpec(name, _TRITON_TYPES.get(element), element or "?", _port_shape(port))
            )
        return tuple(specs), aliases


def _split_names(text: str) -> tuple[str, ...]:
    """Split `names`: commas separate, `\\,` is a literal comma."""
    names: list[str] = []
    current: list[str] = []
    chars = iter(text)
    for char in chars:
        if char == "\\":
            current.append(next(chars, ""))
        elif char == ",":
            names.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    names.append("".join(current).strip())
    return tuple(n for n in names if n)


def parse_dims(text: str) -> tuple[Dim, ...] | None:
    """An IR shape ("?,16", "1..10,3", "[1,3]"): -1 dynamic, "a..b" an interval."""
    text = text.strip().strip("[]").strip()
    if text in ("...", "?..."):
        return None  # dynamic rank
    if not text:
        return ()
    dims: list[Dim] = []
    for part in text.split(","):
        dims.append(_dim(part.strip()))
    return tuple(dims)


def _dim(part: str) -> Dim:
    if part in ("?", "-1", ""):
        return -1
    if ".." in part:
        low, _, high = part.partition("..")
        if not high:
            return -1 if not low or low == "0" else f"{low}.."
        return f"{low or '0'}..{high}"
    try:
        value = int(part)
    except ValueError:
        return -1
    return value if value >= 0 else -1


def _decimal(text: str) -> int | None:
    """A Const's offset or size: ASCII digits only ("²".isdigit() is true too)."""
    if not (text.isascii() and text.isdigit()):
        return None
    try:
        return int(text)
    except ValueError:  # more digits than int() converts (sys.get_int_max_str_digits)
        return None


def _port_shape(port: _Port) -> tuple[Dim, ...]:
    return tuple(_dim(d) for d in port.dims)
