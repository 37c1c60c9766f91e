#!/usr/bin/env python3
"""Write the model files of the PL6xx fixture repositories from one declarative table.

Usage: python scripts/make_fixture_artifacts.py [--check]

The fixture cases under tests/fixtures/rules/PL6xx/ are model repositories whose
config.pbtxt (and Python model.py) is written by hand (PL017's config files, which are
not text, are generated too) and whose tiny ONNX models (and
external data files, Git LFS pointers, links), TensorRT plan headers, TorchScript
archives, OpenVINO IRs and SavedModel protobufs are generated here, so that a model's
content is readable in this table rather than hidden in a binary. Output is
deterministic: running the script again rewrites identical bytes, and
tests/test_fixture_artifacts.py checks that the committed files are exactly what the
table produces. `--check` compares without writing (exit 1 on a difference).
"""

from __future__ import annotations

import struct
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "rules"
EXAMPLES = ROOT / "examples" / "model_repository"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_tree import command_line, table_differences, write_all  # noqa: E402
from onnx import TensorProto  # noqa: E402  (dev-only script: onnx builds the models)
from onnx_builders import (  # type: ignore[import-not-found]  # noqa: E402
    build_graph_model,
    build_model,
    set_external_location,
    write_external_data,
    write_initializer_inputs,
    write_model,
    write_sequence_input,
)

FLOAT, INT64, INT32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
BOOL, STRING, UINT64 = TensorProto.BOOL, TensorProto.STRING, TensorProto.UINT64

Shape = list[int | str] | tuple[int | str, ...] | None
IO = tuple[str, int, Shape]


@dataclass(frozen=True)
class Graph:
    """`build_model`: output j is Identity (or Cast) of input j; shapes as declared."""

    inputs: list[IO]
    outputs: list[IO]

    def write(self, path: Path) -> None:
        write_model(build_model(self.inputs, self.outputs), path)


@dataclass(frozen=True)
class Stamped:
    """A graph (XY unless told) stamped with another IR version and default-domain opset,
    as the exporter that wrote it does."""

    ir_version: int
    opset: int
    inputs: tuple[IO, ...] = (("x", FLOAT, ("batch", 4)),)
    outputs: tuple[IO, ...] = (("y", FLOAT, ("batch", 4)),)

    def write(self, path: Path) -> None:
        model = build_model(
            list(self.inputs), list(self.outputs), ir_version=self.ir_version,
            opsets=(("", self.opset),),
        )  # fmt: skip
        write_model(model, path)


Node = tuple[str, str, tuple[str, ...], tuple[str, ...], dict[str, object]]
"""(name, op_type, inputs, outputs, attributes); names like torch.onnx writes them."""


@dataclass(frozen=True)
class Ops:
    """A model written node by node: int64 `constants` by value, float `weights` by dims.

    These are the models whose output shapes ONNX Runtime infers (a node fixes a dim the
    file declares dynamic); tests/test_onnx_infer.py checks pbtxt-lint's shapes against
    onnxruntime for each of them.
    """

    inputs: tuple[IO, ...]
    outputs: tuple[IO, ...]
    nodes: tuple[Node, ...]
    constants: tuple[tuple[str, tuple[int, ...]], ...] = ()
    weights: tuple[tuple[str, tuple[int, ...]], ...] = ()
    value_infos: tuple[IO, ...] = ()
    overridable: tuple[str, ...] = ()

    def write(self, path: Path) -> None:
        model = build_graph_model(
            self.inputs,
            self.outputs,
            self.nodes,
            constants=dict(self.constants),
            weights=dict(self.weights),
            value_infos=self.value_infos,
            initializers_as_inputs=self.overridable,
        )
        write_model(model, path)


@dataclass(frozen=True)
class Truncated:
    """The first `keep` bytes of a model: an interrupted download."""

    model: Graph
    keep: int

    def write(self, path: Path) -> None:
        self.model.write(path)
        path.write_bytes(path.read_bytes()[: self.keep])


@dataclass(frozen=True)
class LfsPointer:
    """What a checkout without Git LFS holds in place of the model."""

    size: int

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        oid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
        path.write_text(
            f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {self.size}\n"
        )


@dataclass(frozen=True)
class ExternalData:
    """`Y = X @ W @ W2` with its weights in an external file named by `location`.

    `data` False leaves the data file out; a `location` outside the model folder is
    written into the model only (the data is never written there).
    """

    location: str = "model.onnx.data"
    data: bool = True

    def write(self, path: Path) -> None:
        inside = not (self.location.startswith("/") or self.location.startswith(".."))
        written = self.location if inside else "model.onnx.data"
        (path.parent / written).unlink(missing_ok=True)  # onnx appends to an existing file
        write_external_data(path, written)
        if not inside:
            (path.parent / written).unlink()
            set_external_location(path, self.location)
        elif not self.data:
            (path.parent / self.location).unlink()
        else:
            (path.parent / self.location).chmod(0o644)  # onnx creates it owner-only


@dataclass(frozen=True)
class Special:
    """A model written by one of the builders' special-purpose writers."""

    writer: Callable[[Path], object]

    def write(self, path: Path) -> None:
        self.writer(path)


@dataclass(frozen=True)
class Link:
    """A symbolic link (relative target), e.g. to a file outside the case repository."""

    target: str

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(self.target)


# --- other formats, written byte by byte (no framework needed) ---------------------------


@dataclass(frozen=True)
class Plan:
    """A TensorRT plan header as documented in artifacts.md; the engine body is zeros.

    `declared` is the size the header claims (default: the real size); `magic` can be
    replaced to make a file that is not a plan.
    """

    version: tuple[int, int, int, int] = (8, 6, 1, 6)
    size: int = 96
    declared: int | None = None
    magic: bytes = b"ftrt"

    def write(self, path: Path) -> None:
        declared = self.size if self.declared is None else self.declared
        head = self.magic + bytes(12) + struct.pack("<Q", declared) + bytes(self.version)
        head += bytes(4) + b"NGNE" + struct.pack("<QQ", 56, self.size - 56) + b"ptrt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(head.ljust(self.size, b"\0"))


@dataclass(frozen=True)
class OldPlan:
    """A plan of TensorRT 8.5 or older: it starts with the tag `ptrt`, and the u32 at
    offset 8 is a serialization version (232: TensorRT 8.5.3), as in DeepStream's
    sample engines; the body is zeros."""

    serialization: int = 232
    size: int = 96

    def write(self, path: Path) -> None:
        head = b"ptrt" + bytes(4) + struct.pack("<I", self.serialization) + bytes(4)
        head += struct.pack("<Q", self.size - 24)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(head.ljust(self.size, b"\0"))


def _zip(path: Path, entries: list[tuple[str, bytes, int]]) -> None:
    """A deterministic ZIP: fixed timestamps and modes, entries in the given order."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data, method in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)


@dataclass(frozen=True)
class TorchScript:
    """A handmade TorchScript archive: data.pkl names the root class, code/ has forward().

    `kind`: "script" (what torch.jit.save writes), "torch_save" (a torch.save zip: no
    code/, no constants.pkl), "pickle" (torch.save before 1.6), "pt2" (an AOTInductor
    package), "bomb" (a code file that inflates to 16 MiB).
    """

    args: tuple[tuple[str, str], ...] = (("x", "Tensor"),)
    returns: str = "Tensor"
    root: str = "__torch__.Net"
    kind: str = "script"
    body: str = ""
    """forward()'s statements (indented by four spaces); default: return the first argument."""
    storage: str = ""
    """The storage class of one weight (`HalfStorage` as after model.half()); none if empty."""

    def write(self, path: Path) -> None:
        stored, deflated = zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED
        if self.kind == "pickle":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"\x80\x02}q\x00X\x06\x00\x00\x00weightq\x01K\x01s.")
            return
        if self.kind == "torch_save":
            _zip(path, [
                ("model/data.pkl", b"\x80\x02}q\x00.", stored),
                ("model/.format_version", b"1", stored),
                ("model/byteorder", b"little", stored),
                ("model/data/0", bytes(16), stored),
                ("model/version", b"3\n", stored),
            ])  # fmt: skip
            return
        if self.kind == "pt2":
            _zip(path, [
                ("model/archive_format", b"pt2", stored),
                ("model/data/aotinductor/model/model_metadata.json", b"{}", stored),
                ("model/version", b"0", stored),
            ])  # fmt: skip
            return
        module, _, cls = self.root.rpartition(".")
        state = b"}q\x02"
        if self.storage:  # {"weight": persistent id ("storage", torch.<Storage>, "0", "cpu", 4)}
            state += (
                b"(X\x06\x00\x00\x00weight(X\x07\x00\x00\x00storagectorch\n"
                + self.storage.encode()
                + b"\nX\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x04tQu"
            )
        pickle = (
            b"\x80\x02c"
            + module.encode()
            + b"\n"
            + cls.encode()
            + b"\nq\x00)\x81q\x01"
            + state
            + b"b."
        )
        params = ",\n    ".join(f"{name}: {annotation}" for name, annotation in self.args)
        first = self.args[0][0] if self.args else "self"
        code = (
            f"class {cls}(Module):\n"
            "  __parameters__ = []\n"
            "  __buffers__ = []\n"
            "  training : bool\n"
            f"  def forward(self: {self.root},\n    {params}) -> {self.returns}:\n"
            + (self.body or f"    return {first}\n")
        ).encode()
        method = stored
        if self.kind == "bomb":
            code, method = code + b"\n" * (16 << 20), deflated
        code_path = "model/code/" + module.replace(".", "/") + ".py"
        _zip(path, [
            ("model/data.pkl", pickle, stored),
            (code_path, code, method),
            ("model/constants.pkl", b"\x80\x02).", stored),
            ("model/data/0", bytes(16), stored),
            ("model/version", b"3\n", stored),
        ])  # fmt: skip


OvPort = tuple[str, str, str]
"""(comma-separated tensor names, element type or precision, shape like "?,4")."""


@dataclass(frozen=True)
class OpenVino:
    """An OpenVINO IR v11: Parameter -> Relu -> Result per output, plus model.bin.

    Inputs are (names, element_type, shape); outputs (names, precision, dims). `needed`
    is the end of the one Const layer (0: no Const), `weights` the size of model.bin
    (None: not written). `doctype` prepends a document type declaration with entities.
    """

    inputs: tuple[OvPort, ...]
    outputs: tuple[OvPort, ...]
    needed: int = 16
    weights: int | None = 16
    doctype: bool = False

    def write(self, path: Path) -> None:
        lines = ['<?xml version="1.0"?>']
        if self.doctype:
            lines += [
                "<!DOCTYPE net [",
                '  <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">',
                '  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">',
                '  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">',
                '  <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">',
                "]>",
            ]
        lines += ['<net name="model" version="11">', "\t<layers>"]
        edges = []
        layer = 0
        params = []
        for names, element, shape in self.inputs:
            dims = "".join(f"<dim>{-1 if d == '?' else d}</dim>" for d in shape.split(",") if d)
            lines.append(
                f'\t\t<layer id="{layer}" name="{names.split(",")[0]}" type="Parameter" '
                f'version="opset1"><data shape="{shape}" element_type="{element}" />'
                f'<output><port id="0" precision="{element.upper()}" names="{names}">{dims}'
                "</port></output></layer>"
            )
            params.append(layer)
            layer += 1
        if self.needed:
            lines.append(
                f'\t\t<layer id="{layer}" name="w" type="Const" version="opset1"><data '
                f'element_type="f32" shape="4" offset="0" size="{self.needed}" /><output>'
                '<port id="0" precision="FP32"><dim>4</dim></port></output></layer>'
            )
            layer += 1
        for index, (names, precision, shape) in enumerate(self.outputs):
            dims = "".join(f"<dim>{d}</dim>" for d in shape.split(",") if d)
            source = params[index % len(params)]
            op, result = layer, layer + 1
            lines.append(
                f'\t\t<layer id="{op}" name="op{index}" type="Relu" version="opset1"><input>'
                f'<port id="0" precision="{precision}">{dims}</port></input><output>'
                f'<port id="1" precision="{precision}" names="{names}">{dims}</port></output>'
                "</layer>"
            )
            lines.append(
                f'\t\t<layer id="{result}" name="{names.split(",")[0]}/sink_port_0" '
                f'type="Result" version="opset1"><input><port id="0" precision="{precision}">'
                f"{dims}</port></input></layer>"
            )
            edges.append((source, 0, op, 0))
            edges.append((op, 1, result, 0))
            layer += 2
        lines.append("\t</layers>")
        lines.append("\t<edges>")
        for a, b, c, d in edges:
            lines.append(
                f'\t\t<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}" />'
            )
        lines += ["\t</edges>", "</net>", ""]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines))
        weights = path.with_suffix(".bin")
        weights.unlink(missing_ok=True)
        if self.weights is not None:
            weights.write_bytes(bytes(self.weights))


def _pb_varint(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _pb(field: int, value: int | bytes | str) -> bytes:
    """One protobuf field: a varint for int, length-delimited for bytes/str."""
    if isinstance(value, int):
        return _pb_varint(field << 3) + _pb_varint(value)
    data = value.encode() if isinstance(value, str) else value
    return _pb_varint(field << 3 | 2) + _pb_varint(len(data)) + data


# --- config files that are not text (PL017) ---------------------------------------------

PYTHON_CONFIG = (
    'name: "m"\nbackend: "python"\n'
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


@dataclass(frozen=True)
class BinaryConfig:
    """A ModelConfig as a script saves it with SerializeToString()."""

    text: str = PYTHON_CONFIG

    def write(self, path: Path) -> None:
        from google.protobuf import text_format

        from pbtxt_lint.schema import ModelConfig

        config = text_format.Parse(self.text, ModelConfig())
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(config.SerializeToString(deterministic=True))


@dataclass(frozen=True)
class Utf16Config:
    """A config as Windows PowerShell's `>` writes it: UTF-16 LE with a byte-order mark."""

    text: str = PYTHON_CONFIG

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\xff\xfe" + self.text.encode("utf-16-le"))


@dataclass(frozen=True)
class RandomBytes:
    """Bytes from a seeded generator: a file that is nothing Triton could read."""

    size: int
    seed: int = 14

    def write(self, path: Path) -> None:
        import random

        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(random.Random(self.seed).randbytes(self.size))


TfTensor = tuple[str, int, tuple[int, ...] | None]
"""(signature key, tensorflow DataType number, dims; None: unknown rank)."""


@dataclass(frozen=True)
class SavedModel:
    """saved_model.pb with one MetaGraph: its tags and one signature (none if "")."""

    inputs: tuple[TfTensor, ...]
    outputs: tuple[TfTensor, ...]
    tags: tuple[str, ...] = ("serve",)
    signature: str = "serving_default"

    def write(self, path: Path) -> None:
        def info(key: str, dtype: int, dims: tuple[int, ...] | None) -> bytes:
            shape = _pb(3, 1) if dims is None else b"".join(_pb(2, _pb(1, d)) for d in dims)
            tensor = _pb(1, f"{self.signature}_{key}:0") + _pb(2, dtype) + _pb(3, shape)
            return _pb(1, key) + _pb(2, tensor)

        signature = b"".join(_pb(1, info(*t)) for t in self.inputs)
        signature += b"".join(_pb(2, info(*t)) for t in self.outputs)
        signature += _pb(3, "tensorflow/serving/predict")
        meta_info = b"".join(_pb(4, tag) for tag in self.tags) + _pb(5, "2.21.0")
        graph_def = _pb(1, _pb(1, "x") + _pb(2, "Placeholder")) + _pb(4, _pb(1, 1987))
        meta_graph = _pb(1, meta_info) + _pb(2, graph_def)
        if self.signature:
            meta_graph += _pb(5, _pb(1, self.signature) + _pb(2, signature))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_pb(1, 1) + _pb(2, meta_graph))


Spec = (
    Graph
    | Stamped
    | Ops
    | Truncated
    | LfsPointer
    | ExternalData
    | Special
    | Link
    | Plan
    | OldPlan
    | TorchScript
) | (OpenVino | SavedModel | BinaryConfig | Utf16Config | RandomBytes)

# --- common models --------------------------------------------------------------------------

XY = Graph([("x", FLOAT, ["batch", 4])], [("y", FLOAT, ["batch", 4])])
XY_FIXED = Graph([("x", FLOAT, [1, 4])], [("y", FLOAT, [1, 4])])
BERT = Graph(
    [("input_ids", INT64, ["batch", "seq"]), ("attention_mask", INT64, ["batch", "seq"])],
    [("logits", FLOAT, ["batch", 2])],
)

# Graphs whose declared output shapes agree with what ONNX Runtime infers from the nodes.
CLASSIFIER_8X8 = Ops(  # images [1, 3, 8, 8] -> global average pool -> a 3x10 linear layer
    (("images", FLOAT, (1, 3, 8, 8)),),
    (("scores", FLOAT, (1, 10)),),
    (
        (
            "/pool/ReduceMean",
            "ReduceMean",
            ("images",),
            ("pooled",),
            {"axes": [2, 3], "keepdims": 0},
        ),
        ("/fc/MatMul", "MatMul", ("pooled", "fc.weight"), ("scores",), {}),
    ),
    weights=(("fc.weight", (3, 10)),),
)
RAGGED_FLAT = Ops(  # all requests' tokens in one 1-D tensor, regrouped by 4
    (("tokens", FLOAT, ("total",)),),
    (("y", FLOAT, ("batch", 4)),),
    (("/Reshape", "Reshape", ("tokens", "groups"), ("y",), {}),),
    constants=(("groups", (-1, 4)),),
)
DYNAMIC_OUTPUT = Ops(  # the reshape target is an input too, so its size is unknown at load
    (("x", FLOAT, ("batch", 16)),),
    (("y", FLOAT, ("batch", "n")),),
    (("/Reshape", "Reshape", ("x", "target_shape"), ("y",), {}),),
    constants=(("target_shape", (0, -1)),),
    overridable=("target_shape",),
)

# Graphs whose axis 0 is not the batch everywhere (PL900-PL902, tests/heldout/contracts).
YOLO_NMS = Ops(  # a detector exported with NMS inside: one row per detection over the batch
    (("images", FLOAT, ("batch", 3, 32, 32)),),
    (("output", FLOAT, ("num_dets", 7)),),
    (
        ("/model/Conv", "Conv", ("images", "model.weight"), ("feat",), {"strides": [8, 8]}),
        ("/Reshape", "Reshape", ("feat", "pred_shape"), ("pred_t",), {}),
        ("/Transpose", "Transpose", ("pred_t",), ("pred",), {"perm": [0, 2, 1]}),
        ("/Slice", "Slice", ("pred", "box_start", "box_end", "last_axis"), ("boxes",), {}),
        ("/Slice_1", "Slice", ("pred_t", "score_start", "score_end", "one"), ("scores",), {}),
        (
            "/NonMaxSuppression",
            "NonMaxSuppression",
            ("boxes", "scores", "max_boxes", "iou_threshold", "score_threshold"),
            ("selected",),
            {},
        ),
        ("/Gather", "Gather", ("selected", "zero"), ("image_index",), {"axis": 1}),
        ("/Gather_1", "Gather", ("selected", "one"), ("class_id",), {"axis": 1}),
        ("/Gather_2", "Gather", ("selected", "two"), ("box_index",), {"axis": 1}),
        ("/Reshape_1", "Reshape", ("boxes", "flat_boxes"), ("boxes_flat",), {}),
        ("/Squeeze", "Squeeze", ("box_index", "one"), ("box_rows",), {}),
        ("/Gather_3", "Gather", ("boxes_flat", "box_rows"), ("det_boxes",), {"axis": 0}),
        ("/Cast", "Cast", ("image_index",), ("image_f",), {"to": FLOAT}),
        ("/Cast_1", "Cast", ("class_id",), ("class_f",), {"to": FLOAT}),
        ("/Cast_2", "Cast", ("box_index",), ("score_f",), {"to": FLOAT}),
        (
            "/Concat",
            "Concat",
            ("image_f", "det_boxes", "class_f", "score_f"),
            ("output",),
            {"axis": 1},
        ),
    ),
    constants=(
        ("pred_shape", (0, 6, -1)),
        ("box_start", (0,)),
        ("box_end", (4,)),
        ("last_axis", (2,)),
        ("score_start", (4,)),
        ("score_end", (6,)),
        ("max_boxes", (100,)),
        ("zero", (0,)),
        ("one", (1,)),
        ("two", (2,)),
        ("flat_boxes", (-1, 4)),
    ),
    weights=(("model.weight", (6, 3, 8, 8)), ("iou_threshold", (1,)), ("score_threshold", (1,))),
)
ROI_HEAD = Ops(  # a second-stage head: feature maps per image, boxes with their image index
    (
        ("images", FLOAT, ("batch", 3, 32, 32)),
        ("rois", FLOAT, ("num_rois", 4)),
        ("batch_indices", INT64, ("num_rois",)),
    ),
    (("roi_features", FLOAT, ("num_rois", 3, 7, 7)),),
    (
        (
            "/roi_align/RoiAlign",
            "RoiAlign",
            ("images", "rois", "batch_indices"),
            ("roi_features",),
            {"output_height": 7, "output_width": 7},
        ),
    ),
)
BERT_RENAMED = Ops(  # three inputs whose batch dim each exporter pass named its own way
    (
        ("input_ids", INT64, ("batch", "sequence")),
        ("attention_mask", INT64, ("batch_size", "sequence")),
        ("token_type_ids", INT64, ("N", "sequence")),
    ),
    (("logits", FLOAT, ("unk__12", "sequence")),),
    (
        ("/Add", "Add", ("input_ids", "attention_mask"), ("summed",), {}),
        ("/Add_1", "Add", ("summed", "token_type_ids"), ("total",), {}),
        ("/Cast", "Cast", ("total",), ("logits",), {"to": FLOAT}),
    ),
)
LSTM_TIME_MAJOR = Ops(  # torch.nn.LSTM(80, 32) exported as is: [seq_len, batch, features]
    (("features", FLOAT, ("seq_len", "batch", 80)),),
    (("encoder_out", FLOAT, ("seq_len", 1, "batch", 32)),),
    (
        (
            "/lstm/LSTM",
            "LSTM",
            ("features", "lstm.W", "lstm.R"),
            ("encoder_out",),
            {"hidden_size": 32},
        ),
    ),
    weights=(("lstm.W", (1, 128, 80)), ("lstm.R", (1, 128, 32))),
)
LSTM_BATCH_FIRST = Ops(  # batch_first=True: torch.onnx transposes around the LSTM node
    (("features", FLOAT, ("batch", "seq_len", 80)),),
    (("encoder_out", FLOAT, ("batch", "seq_len", 1, 32)),),
    (
        ("/lstm/Transpose", "Transpose", ("features",), ("time_major",), {"perm": [1, 0, 2]}),
        ("/lstm/LSTM", "LSTM", ("time_major", "lstm.W", "lstm.R"), ("y",), {"hidden_size": 32}),
        ("/lstm/Transpose_1", "Transpose", ("y",), ("encoder_out",), {"perm": [2, 0, 1, 3]}),
    ),
    weights=(("lstm.W", (1, 128, 80)), ("lstm.R", (1, 128, 32))),
)
TRANSFORMER_TIME_MAJOR = Ops(  # nn.TransformerEncoder's default layout: [seq, batch, d_model]
    (("src", FLOAT, ("seq_len", "batch_size", 64)),),
    (("memory", FLOAT, ("seq_len", "batch_size", 64)),),
    (("/layers.0/linear1/MatMul", "MatMul", ("src", "linear1.weight"), ("memory",), {}),),
    weights=(("linear1.weight", (64, 64)),),
)

# Graphs where a node fixes a dim the file declares dynamic: ONNX Runtime reports the size.
ISSUE_CLASSIFIER = Ops(  # declares logits [batch, 10]; a reshape to [1, 10] makes it [1, 10]
    (("images", FLOAT, ("batch", 4)),),
    (("logits", FLOAT, ("batch", 10)),),
    (
        ("/fc/Gemm", "Gemm", ("images", "fc.weight", "fc.bias"), ("fc_out",), {"transB": 1}),
        ("/Reshape", "Reshape", ("fc_out", "logits_shape"), ("logits",), {}),
    ),
    constants=(("logits_shape", (1, 10)),),
    weights=(("fc.weight", (10, 4)), ("fc.bias", (10,))),
)
CONCAT_PIN = Ops(  # concatenating a [1, 2] constant makes every dim but the axis 1
    (("x", FLOAT, ("batch", 4)),),
    (("y", FLOAT, ("batch", "n")),),
    (("/Concat", "Concat", ("x", "pad"), ("y",), {"axis": 1}),),
    weights=(("pad", (1, 2)),),
)
EXPAND_PIN = Ops(  # expanding to a constant [3, 5]
    (("x", FLOAT, ("batch", 1)),),
    (("y", FLOAT, ("batch", "n")),),
    (("/Expand", "Expand", ("x", "target"), ("y",), {}),),
    constants=(("target", (3, 5)),),
)
VALUE_INFO_PIN = Ops(  # the file's own value_info fixes the intermediate tensor's batch dim
    (("x", FLOAT, ("batch", 4)),),
    (("y", FLOAT, ("batch", 4)),),
    (
        ("/act1/Relu", "Relu", ("x",), ("hidden",), {}),
        ("/act2/Relu", "Relu", ("hidden",), ("y",), {}),
    ),
    value_infos=(("hidden", FLOAT, (1, 4)),),
)
FOLDED_PIN = Ops(  # the target shape is computed from constants: fixed once constant-folded
    (("x", FLOAT, ("batch", 4)),),
    (("y", FLOAT, ("batch", 4)),),
    (
        ("/Concat", "Concat", ("one", "four"), ("target",), {"axis": 0}),
        ("/Reshape", "Reshape", ("x", "target"), ("y",), {}),
    ),
    constants=(("one", (1,)), ("four", (4,))),
)
TILE_PIN = Ops(
    (("x", FLOAT, (1, "n")),),
    (("y", FLOAT, ("b", "m")),),
    (("/Tile", "Tile", ("x", "repeats"), ("y",), {}),),
    constants=(("repeats", (8, 1)),),
)
ZEROS_PIN = Ops(  # adding a constant-of-shape [1, 6] broadcasts the last dim to 6
    (("x", FLOAT, ("batch", "n")),),
    (("y", FLOAT, ("batch", "n")),),
    (
        ("/ConstantOfShape", "ConstantOfShape", ("bias_shape",), ("bias",), {}),
        ("/Add", "Add", ("x", "bias"), ("y",), {}),
    ),
    constants=(("bias_shape", (1, 6)),),
)
MATMUL_PIN = Ops(  # exported with a dynamic class axis, but the weight has 10 columns
    (("x", FLOAT, ("batch", 4)),),
    (("logits", FLOAT, ("batch", "classes")),),
    (("/fc/MatMul", "MatMul", ("x", "fc.weight"), ("logits",), {}),),
    weights=(("fc.weight", (4, 10)),),
)
SQUEEZE_PIN = Ops(
    (("x", FLOAT, ("batch", 1, 4)),),
    (("y", FLOAT, ("batch", "n")),),
    (("/Squeeze", "Squeeze", ("x", "axes"), ("y",), {}),),
    constants=(("axes", (1,)),),
)
UNSQUEEZE_PIN = Ops(
    (("x", FLOAT, ("batch", 4)),),
    (("y", FLOAT, ("batch", "one", "n")),),
    (("/Unsqueeze", "Unsqueeze", ("x", "axes"), ("y",), {}),),
    constants=(("axes", (1,)),),
)
SLICE_PIN = Ops(  # keeps the first 4 of 16 features
    (("x", FLOAT, ("batch", 16)),),
    (("y", FLOAT, ("batch", "n")),),
    (("/Slice", "Slice", ("x", "starts", "ends", "axes"), ("y",), {}),),
    constants=(("starts", (0,)), ("ends", (4,)), ("axes", (1,))),
)
INFERRED_BATCH = {  # PL612 cases: model folder -> the model
    "reshape": ISSUE_CLASSIFIER,
    "concat": CONCAT_PIN,
    "expand": EXPAND_PIN,
    "value_info": VALUE_INFO_PIN,
    "folded": FOLDED_PIN,
}
INFERRED_SIZES = {  # PL614 cases
    "tile": TILE_PIN,
    "zeros": ZEROS_PIN,
    "matmul": MATMUL_PIN,
    "squeeze": SQUEEZE_PIN,
    "unsqueeze": UNSQUEEZE_PIN,
    "slice": SLICE_PIN,
}

DT_FLOAT, DT_INT32, DT_STRING, DT_INT64 = 1, 3, 7, 9
"""tensorflow DataType numbers."""

OV_XY = OpenVino((("x", "f32", "?,4"),), (("y", "FP32", "-1,4"),))
OV_BERT = OpenVino(
    (("input_ids", "i64", "?,16"), ("attention_mask,mask", "i64", "?,16")),
    (("logits", "FP32", "-1,2"),),
)
OV_IDS = OpenVino((("ids", "i64", "?,16"),), (("logits", "FP32", "-1,2"),))
OV_SHAPES = OpenVino(
    (("x", "f32", "?,4"), ("len", "f32", "?,1..10")),
    (("y", "FP32", "-1,4"),),
)
TF_XY = SavedModel((("x", DT_FLOAT, (-1, 4)),), (("y", DT_FLOAT, (-1, 4)),))
TF_BERT = SavedModel(
    (("input_ids", DT_INT64, (-1, 16)), ("text", DT_STRING, (-1, 1))),
    (("logits", DT_FLOAT, (-1, 2)),),
)
TF_IDS = SavedModel((("input_ids", DT_INT64, (-1, 16)),), (("logits", DT_FLOAT, (-1, 2)),))
TS_BERT = TorchScript(
    (("input_ids", "Tensor"), ("attention_mask", "Tensor")), root="__torch__.___torch_mangle_1.Bert"
)
TS_TEXT = TorchScript((("x", "Tensor"), ("texts", "List[str]")))
TS_DICT = TorchScript(
    (("inputs", "Dict[str, Tensor]"),),
    root="__torch__.___torch_mangle_3.Encoder",
    body='    _0 = inputs["input_ids"]\n'
    '    _1 = torch.get(inputs, "attention_mask", torch.ones_like(_0))\n'
    "    return torch.mul(_0, _1)\n",
)
TS_LABELS = TorchScript(
    (("texts", "List[str]"),),
    returns="List[str]",
    body="    _0 = annotate(List[str], [])\n"
    "    for _1 in range(torch.len(texts)):\n"
    "      _2 = torch.append(_0, torch.upper(texts[_1]))\n"
    "    return _0\n",
)


ARTIFACTS: dict[str, Spec] = {
    "PL017/fail_binary_model_config/m/config.pbtxt": BinaryConfig(),
    "PL017/fail_utf16_from_powershell/m/config.pbtxt": Utf16Config(),
    "PL017/fail_random_bytes/m/config.pbtxt": RandomBytes(2048),
    "PL600/fail_misnamed/m/1/resnet50.onnx": XY,
    "PL600/fail_filename_typo/m/1/model.onnx": XY,
    "PL600/pass_model_directory/m/1/model.onnx/model.onnx": XY,
    "PL601/fail_truncated/m/1/model.onnx": Truncated(XY, 60),
    "PL601/fail_link_outside/m/1/model.onnx": Link("../../../pass_valid/m/1/model.onnx"),
    "PL601/pass_valid/m/1/model.onnx": XY,
    "PL602/fail_lfs_pointer/m/1/model.onnx": LfsPointer(104857600),
    "PL602/pass_pulled/m/1/model.onnx": XY,
    "PL603/fail_data_missing/m/1/model.onnx": ExternalData(data=False),
    "PL603/pass_data_present/m/1/model.onnx": ExternalData(),
    "PL604/fail_absolute_location/m/1/model.onnx": ExternalData("/opt/weights/model.onnx.data"),
    "PL604/pass_subfolder_location/m/1/model.onnx": ExternalData("weights/model.onnx.data"),
    "PL605/fail_sequence_input/m/1/model.onnx": Special(write_sequence_input),
    "PL605/pass_tensors/m/1/model.onnx": XY,
    "PL606/fail_fixed_batch_autofill/m/1/model.onnx": XY_FIXED,
    "PL606/pass_unbatched_autofill/m/1/model.onnx": XY_FIXED,
    "PL606/fail_inferred_fixed_batch/m/1/model.onnx": ISSUE_CLASSIFIER,
    "PL606/pass_inferred_unbatched/m/1/model.onnx": ISSUE_CLASSIFIER,
    "PL607/fail_default_max_batch_size/m/1/model.onnx": XY,
    "PL607/pass_explicit_max_batch_size/m/1/model.onnx": XY,
    "PL608/fail_renamed_tensors/m/1/model.onnx": BERT,
    "PL608/pass_overridable_initializer/m/1/model.onnx": Special(
        lambda path: write_initializer_inputs(path, ir_version=8)
    ),
    "PL609/fail_missing_input/m/1/model.onnx": Graph(
        [*BERT.inputs, ("token_type_ids", INT64, ["batch", "seq"])], BERT.outputs
    ),
    "PL609/pass_inputs_autofilled/m/1/model.onnx": BERT,
    "PL610/fail_int32_ids/m/1/model.onnx": BERT,
    "PL610/pass_matching_types/m/1/model.onnx": Graph(
        [("text", STRING, ["batch"]), ("flag", BOOL, ["batch", 1])],
        [("echo", STRING, ["batch"]), ("mask", BOOL, ["batch", 1])],
    ),
    "PL611/fail_ragged_2d/m/1/model.onnx": Graph(
        [("tokens", FLOAT, ["batch", 4])], [("y", FLOAT, ["batch", 4])]
    ),
    "PL611/pass_ragged_flat/m/1/model.onnx": RAGGED_FLAT,
    "PL612/fail_fixed_batch/m/1/model.onnx": CLASSIFIER_8X8,
    "PL612/pass_unbatched_full_shape/m/1/model.onnx": CLASSIFIER_8X8,
    **{f"PL612/fail_inferred_batch/{m}/1/model.onnx": s for m, s in INFERRED_BATCH.items()},
    **{f"PL612/pass_inferred_batch/{m}/1/model.onnx": s for m, s in INFERRED_BATCH.items()},
    "PL613/fail_batch_twice/m/1/model.onnx": BERT,
    "PL613/pass_sample_dims/m/1/model.onnx": BERT,
    "PL614/fail_input_wildcard_output_fixed/m/1/model.onnx": DYNAMIC_OUTPUT,
    **{f"PL614/fail_inferred_sizes/{m}/1/model.onnx": s for m, s in INFERRED_SIZES.items()},
    **{f"PL614/pass_inferred_sizes/{m}/1/model.onnx": s for m, s in INFERRED_SIZES.items()},
    "PL614/fail_missing_batch_dim/m/1/model.onnx": XY,
    "PL614/pass_fixed_where_dynamic/m/1/model.onnx": Graph(
        [("x", FLOAT, ["batch", "seq"])], [("y", FLOAT, ["batch", "seq"])]
    ),
    "PL615/fail_scalar_and_unknown_rank/m/1/model.onnx": Graph(
        [("x", FLOAT, ["n", 4]), ("temperature", FLOAT, []), ("u", FLOAT, None)],
        [("y", FLOAT, ["n", 4])],
    ),
    "PL615/pass_dims_one/m/1/model.onnx": Graph(
        [("x", FLOAT, ["n", 4]), ("temperature", FLOAT, []), ("u", FLOAT, None)],
        [("y", FLOAT, ["n", 4])],
    ),
    "PL616/fail_controls/m/1/model.onnx": Graph(
        [
            ("x", FLOAT, ["batch", 4]),
            ("START_FLAG", INT32, ["batch", 1]),
            ("READY", INT32, ["batch", 2]),
            ("END", BOOL, ["batch", 1]),
        ],
        [("y", FLOAT, ["batch", 4])],
    ),
    "PL616/pass_controls/m/1/model.onnx": Graph(
        [
            ("x", FLOAT, ["batch", 4]),
            ("START", INT32, ["batch", 1]),
            ("CORRID", UINT64, ["batch", 1]),
        ],
        [("y", FLOAT, ["batch", 4])],
    ),
    # Implicit state on ONNX Runtime: the graph takes the controls and the state input
    # and returns the state output; the config lists only x and y.
    "PL666/pass_onnx_implicit_state/m/1/model.onnx": Graph(
        [
            ("x", FLOAT, ["batch", 4]),
            ("state_in", FLOAT, ["batch", 4]),
            ("START", INT32, ["batch", 1]),
            ("CORRID", UINT64, ["batch", 1]),
        ],
        [("y", FLOAT, ["batch", 4]), ("state_out", FLOAT, ["batch", 4])],
    ),
    "PL617/fail_scalar_with_batching/m/1/model.onnx": Graph(
        [("x", FLOAT, ["batch", 4]), ("temperature", FLOAT, [])], [("y", FLOAT, ["batch", 4])]
    ),
    "PL617/pass_scalar_unbatched/m/1/model.onnx": Graph(
        [("x", FLOAT, ["batch", 4]), ("temperature", FLOAT, [])], [("y", FLOAT, ["batch", 4])]
    ),
    "PL618/fail_fixed_vs_dynamic/m/1/model.onnx": BERT,
    "PL618/pass_both_fixed/m/1/model.onnx": BERT,
    # Axis 0 that is not the batch (PL900-PL902).
    "PL900/fail_roi_head/m/1/model.onnx": ROI_HEAD,
    "PL900/pass_roi_head_unbatched/m/1/model.onnx": ROI_HEAD,
    "PL900/pass_batch_named_per_input/m/1/model.onnx": BERT_RENAMED,
    "PL901/fail_nms_inside/m/1/model.onnx": YOLO_NMS,
    "PL901/pass_nms_unbatched/m/1/model.onnx": YOLO_NMS,
    "PL902/fail_lstm_time_major/m/1/model.onnx": LSTM_TIME_MAJOR,
    "PL902/fail_transformer_time_major/m/1/model.onnx": TRANSFORMER_TIME_MAJOR,
    "PL902/pass_lstm_batch_first/m/1/model.onnx": LSTM_BATCH_FIRST,
    # TensorRT plans: only the header is meaningful without a GPU.
    "PL630/fail_plan_for_other_release/m/1/model.plan": Plan((8, 6, 1, 6)),
    "PL630/pass_plan_matches_release/m/1/model.plan": Plan((10, 8, 0, 43)),
    "PL630/fail_plan_for_declared_image/m/1/model.plan": Plan((8, 6, 1, 6)),
    "PL630/pass_main_image_unknown/m/1/model.plan": Plan((8, 6, 1, 6)),
    "PL630/fail_plan_of_tensorrt_8_5/m/1/model.plan": OldPlan(),
    "PL630/pass_plan_of_tensorrt_8_5_for_8_2/m/1/model.plan": OldPlan(),
    "PL601/pass_plan_of_tensorrt_8_5/m/1/model.plan": OldPlan(),
    "PL631/fail_header_only/m/1/model.plan": Plan(),
    "PL631/pass_config_only/m/1/model.plan": Plan(),
    "PL632/fail_truncated_plan/m/1/model.plan": Plan(declared=98_566_144),
    "PL632/pass_complete_plan/m/1/model.plan": Plan(),
    # OpenVINO IRs and SavedModels, compared with the config by their backends' rules.
    "PL640/fail_openvino_names/m/1/model.xml": OV_BERT,
    # PL620: an ONNX model newer than the ONNX Runtime of the target release.
    "PL620/fail_ir_version/m/1/model.onnx": Stamped(10, 21),
    "PL620/fail_opset/m/1/model.onnx": Stamped(9, 20),
    "PL620/pass_newer_release/m/1/model.onnx": Stamped(10, 21),
    "PL640/fail_savedmodel_tensor_names/m/1/model.savedmodel/saved_model.pb": TF_IDS,
    "PL640/pass_port_names/m/1/model.xml": OV_BERT,
    "PL641/fail_openvino_missing_input/m/1/model.xml": OV_BERT,
    "PL641/fail_savedmodel_missing_input/m/1/model.savedmodel/saved_model.pb": TF_BERT,
    "PL641/pass_inputs_autofilled/m/1/model.xml": OV_BERT,
    "PL642/fail_int32_ids/m/1/model.savedmodel/saved_model.pb": TF_BERT,
    "PL642/pass_matching_types/m/1/model.savedmodel/saved_model.pb": TF_BERT,
    "PL643/fail_openvino_dims/m/1/model.xml": OV_SHAPES,
    "PL643/fail_savedmodel_fixed_batch/m/1/model.savedmodel/saved_model.pb": SavedModel(
        (("images", DT_FLOAT, (1, 3, 8, 8)),), (("scores", DT_FLOAT, (1, 10)),)
    ),
    "PL643/pass_openvino_interval_and_wildcards/m/1/model.xml": OV_SHAPES,
    "PL644/fail_converted_type/m/1/model.xml": OV_IDS,
    "PL644/pass_same_type/m/1/model.xml": OV_IDS,
    "PL645/fail_bin_missing/m/1/model.xml": OpenVino(OV_XY.inputs, OV_XY.outputs, weights=None),
    "PL645/fail_bin_short/m/1/model.xml": OpenVino(OV_XY.inputs, OV_XY.outputs, weights=8),
    "PL645/pass_bin_present/m/1/model.xml": OV_XY,
    # PL885-PL886: a config the SavedModel's signature refuses.
    "PL885/fail_control_not_input/m/1/model.savedmodel/saved_model.pb": TF_XY,
    "PL885/fail_control_type/m/1/model.savedmodel/saved_model.pb": SavedModel(
        (("x", DT_FLOAT, (-1, 4)), ("START", DT_FLOAT, (-1, 1))), (("y", DT_FLOAT, (-1, 4)),)
    ),
    "PL885/pass_control_input/m/1/model.savedmodel/saved_model.pb": SavedModel(
        (("x", DT_FLOAT, (-1, 4)), ("START", DT_INT32, (-1, 1))), (("y", DT_FLOAT, (-1, 4)),)
    ),
    "PL885/fail_ragged_shape/m/1/model.savedmodel/saved_model.pb": TF_XY,
    "PL886/fail_batch_hint/m/1/model.savedmodel/saved_model.pb": SavedModel(
        (("a", DT_FLOAT, (-1, 4)), ("b", DT_FLOAT, (-1, 4))), (("y", DT_FLOAT, (-1, 4)),)
    ),
    "PL886/pass_batch_hint/m/1/model.savedmodel/saved_model.pb": SavedModel(
        (("a", DT_FLOAT, (-1, 4)), ("b", DT_FLOAT, (-1, 4))), (("y", DT_FLOAT, (-1, 4)),)
    ),
    "PL886/fail_max_batch_fixed_signature/m/1/model.savedmodel/saved_model.pb": SavedModel(
        (("images", DT_FLOAT, (1, 3, 8, 8)),), (("scores", DT_FLOAT, (1, 10)),)
    ),
    "PL886/fail_scalar_without_dims/m/1/model.savedmodel/saved_model.pb": SavedModel(
        (("x", DT_FLOAT, (-1, 4)),), (("y", DT_FLOAT, (-1, 4)), ("score", DT_FLOAT, ()))
    ),
    "PL650/fail_train_tag/m/1/model.savedmodel/saved_model.pb": SavedModel(
        TF_XY.inputs, TF_XY.outputs, tags=("train",)
    ),
    "PL650/pass_tag_parameter/m/1/model.savedmodel/saved_model.pb": SavedModel(
        TF_XY.inputs, TF_XY.outputs, tags=("tpu",)
    ),
    "PL651/fail_no_signature/m/1/model.savedmodel/saved_model.pb": SavedModel(
        TF_XY.inputs, TF_XY.outputs, signature=""
    ),
    "PL651/fail_fallback_signature/m/1/model.savedmodel/saved_model.pb": SavedModel(
        TF_XY.inputs, TF_XY.outputs, signature="predict"
    ),
    "PL651/pass_signature_parameter/m/1/model.savedmodel/saved_model.pb": SavedModel(
        TF_XY.inputs, TF_XY.outputs, signature="predict"
    ),
    # An ensemble step whose ONNX output size is symbolic where the next step fixes it.
    "PL528/fail_onnx_size_is_symbolic/detector/1/model.onnx": Graph(
        [("x", FLOAT, ["batch", "boxes", 4])], [("boxes", FLOAT, ["batch", "boxes", 4])]
    ),
    # TorchScript archives, handmade: forward() is what the rules read.
    "PL670/fail_torch_save/m/1/model.pt": TorchScript(kind="torch_save"),
    "PL670/fail_pt2_archive/m/1/model.pt": TorchScript(kind="pt2"),
    "PL670/pass_torchscript/m/1/model.pt": TorchScript(),
    "PL671/fail_missing_input/m/1/model.pt": TS_BERT,
    "PL671/pass_dict_input/m/1/model.pt": TorchScript((("inputs", "Dict[str, Tensor]"),)),
    "PL672/fail_swapped_by_config_order/m/1/model.pt": TS_BERT,
    "PL672/fail_index_out_of_range/m/1/model.pt": TS_BERT,
    "PL672/pass_named_index/m/1/model.pt": TS_BERT,
    "PL673/fail_int_argument/m/1/model.pt": TorchScript((("x", "Tensor"), ("top_k", "int"))),
    "PL673/pass_tensor_and_string_list/m/1/model.pt": TS_TEXT,
    "PL674/fail_string_to_tensor/m/1/model.pt": TorchScript(
        (("x", "Tensor"), ("texts", "Tensor")), root="__torch__.___torch_mangle_2.Net"
    ),
    "PL674/pass_string_list/m/1/model.pt": TS_TEXT,
    "PL672/pass_single_input_by_order/m/1/model.pt": TorchScript(),
    "PL675/fail_output_past_return/m/1/model.pt": TorchScript(),
    "PL675/pass_tuple_outputs/m/1/model.pt": TorchScript(returns="Tuple[Tensor, Tensor]"),
    # forward() ends in a cast: traced code writes the dtype as a ScalarType number.
    "PL676/fail_traced_cast_to_half/m/1/model.pt": TorchScript(
        (("x", "Tensor"),),
        body="    _0 = torch.softmax(torch.to(x, 5, False, False, None), 1)\n"
        "    logits = torch.to(_0, 5, False, False, None)\n"
        "    return logits\n",
    ),
    "PL676/fail_half_weights/m/1/model.pt": TorchScript(
        (("pixel_values", "Tensor"),), root="__torch__.segformer.Segformer", storage="HalfStorage"
    ),
    "PL676/pass_float_weights/m/1/model.pt": TorchScript(
        (("pixel_values", "Tensor"),), root="__torch__.segformer.Segformer", storage="FloatStorage"
    ),
    "PL676/pass_casts_match_config/m/1/model.pt": TorchScript(
        (("input0", "Tensor"), ("input1", "Tensor")),
        returns="Tuple[Tensor, Tensor]",
        root="__torch__.___torch_mangle_15.AddSubNet",
        body="    _0 = torch.to(torch.add(input0, input1, alpha=1), 6, False, False, None)\n"
        "    _1 = torch.to(torch.sub(input0, input1, alpha=1), 3, False, False, None)\n"
        "    return (_0, _1)\n",
    ),
    # forward() of another type than libtorch passes: a List[Tensor] argument fed a Tensor.
    "PL674/fail_tensor_list_argument/m/1/model.pt": TorchScript(
        (("frames", "List[Tensor]"),), body="    return torch.stack(frames)\n"
    ),
    # A Dict input, as torch.jit.script writes its reads (PL863).
    "PL863/fail_key_not_a_config_name/m/1/model.pt": TS_DICT,
    "PL863/fail_string_input_into_dict/m/1/model.pt": TS_DICT,
    "PL863/fail_dict_of_string_lists/m/1/model.pt": TorchScript(
        (("inputs", "Dict[str, List[str]]"),),
        body='    return torch.tensor([torch.len(inputs["text"])])\n',
    ),
    "PL863/pass_keys_are_config_names/m/1/model.pt": TS_DICT,
    # Returns the backend cannot send (PL864).
    "PL864/fail_returns_dict/m/1/model.pt": TorchScript(
        returns="Dict[str, Tensor]", body='    return {"logits": x}\n'
    ),
    "PL864/fail_tuple_with_tensor_list/m/1/model.pt": TorchScript(
        returns="Tuple[Tensor, List[Tensor]]", body="    return (x, [x, x])\n"
    ),
    "PL864/pass_tuple_of_tensor_and_strings/m/1/model.pt": TorchScript(
        (("x", "Tensor"), ("texts", "List[str]")),
        returns="Tuple[Tensor, List[str]]",
        body="    return (x, texts)\n",
    ),
    # A List[str] output on a model that batches requests (PL865).
    "PL865/fail_strings_dynamic_batching/m/1/model.pt": TS_LABELS,
    "PL865/pass_strings_no_batching/m/1/model.pt": TS_LABELS,
    # Files a reader refuses to inspect: entity declarations, a code file past the cap.
    "PL690/fail_xml_with_entities/m/1/model.xml": OpenVino(
        OV_XY.inputs, OV_XY.outputs, doctype=True
    ),
    "PL690/fail_code_inflates_past_cap/m/1/model.pt": TorchScript(kind="bomb"),
    "PL690/pass_plain_xml/m/1/model.xml": OV_XY,
}
"""Fixture file (relative to tests/fixtures/rules) -> how it is made."""

EXAMPLE_ARTIFACTS: dict[str, Spec] = {
    # A sentence encoder exported with dynamic batch and sequence axes; the config
    # writes the hidden size as 384 where the model says 768.
    "text_encoder/1/model.onnx": Ops(
        (
            ("input_ids", INT64, ("batch", "sequence")),
            ("attention_mask", INT64, ("batch", "sequence")),
        ),
        (("last_hidden_state", FLOAT, ("batch", "sequence", 768)),),
        (
            ("/embeddings/Cast", "Cast", ("input_ids",), ("ids",), {"to": FLOAT}),
            ("/embeddings/Unsqueeze", "Unsqueeze", ("ids", "axes"), ("ids3",), {}),
            ("/embeddings/Expand", "Expand", ("ids3", "hidden"), ("last_hidden_state",), {}),
        ),
        constants=(("axes", (2,)), ("hidden", (1, 1, 768))),
    ),
    # An image classifier exported with a fixed batch of 1.
    "resnet50/01/model.onnx": Ops(
        (("input", FLOAT, (1, 3, 224, 224)),),
        (("logits", FLOAT, (1, 1000)),),
        (
            ("/pool/ReduceMean", "ReduceMean", ("input",), ("pooled",), {"axes": [1, 2, 3]}),
            ("/Reshape", "Reshape", ("pooled", "flat"), ("flat_out",), {}),
            ("/head/Expand", "Expand", ("flat_out", "classes"), ("logits",), {}),
        ),
        constants=(("flat", (1, 1)), ("classes", (1, 1000))),
    ),
}
"""Example repository file (relative to examples/model_repository) -> how it is made."""

TABLES: list[tuple[Path, dict[str, Spec], int]] = [
    (FIXTURES, ARTIFACTS, 2),  # a case is <CODE>/<case>
    (EXAMPLES, EXAMPLE_ARTIFACTS, 1),  # a case is <model>
]
"""(base folder, table relative to it, path parts that name one case)."""


def generated_files(root: Path) -> list[Path]:
    """Every file and link below `root` that the table accounts for (data files too);
    `.gitkeep` placeholders keep an empty version folder in git and are written by hand."""
    hand_written = (".pbtxt", ".txt", ".py")
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_symlink()
        or (
            p.is_file()
            and p.name != ".gitkeep"
            and (p.suffix not in hand_written or _binary_config(p))
        )
    )


def _binary_config(path: Path) -> bool:
    """A .pbtxt that is not text (PL017's cases) is generated, not written by hand."""
    return path.suffix == ".pbtxt" and bool(path.read_bytes().translate(None, _TEXT_BYTES))


_TEXT_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r" + bytes(range(0x80, 0x100))


def differences() -> list[str]:
    """Files the tables would write differently (or not at all) in the committed tree."""
    return [
        problem
        for base, table, depth in TABLES
        for problem in table_differences(base, table, depth, generated_files)
    ]


def main() -> int:
    def write() -> str:
        for base, table, _ in TABLES:
            write_all(base, table)
        lines = [f"wrote {len(t)} artifacts under {b.relative_to(ROOT)}" for b, t, _ in TABLES]
        return "\n".join(lines)

    return command_line(__doc__.splitlines()[0], differences, write)


if __name__ == "__main__":
    sys.exit(main())
