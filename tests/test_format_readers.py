"""Readers of TensorRT plans, TorchScript archives, OpenVINO IRs and SavedModels.

Each reader must return what the backend would see, fail only with ArtifactError, never
execute or unpickle anything, and bound its time and memory on hostile files. Model
files are built with the generator script's builders (the same ones the fixtures use)
and, where a builder could share a mistake with the reader, independently.
"""

from __future__ import annotations

import importlib.util
import io
import pickle
import struct
import sys
import time
import tracemalloc
import types
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from script_modules import load_script

from pbtxt_lint.artifacts import tensorrt as trt_reader
from pbtxt_lint.artifacts.openvino import OpenVinoSignature, parse_dims, read_openvino
from pbtxt_lint.artifacts.savedmodel import SavedModelSignature, read_savedmodel
from pbtxt_lint.artifacts.signature import ArtifactError
from pbtxt_lint.artifacts.tensorrt import PlanSignature, read_plan, releases_shipping
from pbtxt_lint.artifacts.torchscript import (
    MAX_CODE_BYTES,
    TorchScriptSignature,
    read_torchscript,
)
from pbtxt_lint.linter import lint
from pbtxt_lint.rules.registry import ALL_RULES
from pbtxt_lint.settings import Settings

RULES = [r for r in ALL_RULES if "PL630" <= r.code <= "PL699"]
"""The rules on TensorRT, OpenVINO, SavedModel, Python and TorchScript files (and PL690)."""


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    return load_script("make_fixture_artifacts")


@pytest.fixture
def no_unpickling(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Any attempt to unpickle during the test fails it."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a reader tried to unpickle")

    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    monkeypatch.setattr(pickle, "Unpickler", refuse)
    yield


R = TypeVar("R")


def traced(function: Callable[..., R], *args: object) -> tuple[R, int]:
    """The result and the peak bytes Python allocated while computing it."""
    tracemalloc.start()
    try:
        result = function(*args)
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --- TensorRT ---------------------------------------------------------------------------------


def test_plan_header_gives_version_and_size(gen: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "model.plan"
    gen.Plan((10, 8, 0, 43), size=200).write(path)
    signature = read_plan(path, tmp_path)
    assert isinstance(signature, PlanSignature)
    assert signature.tensorrt_version == (10, 8, 0, 43)
    assert signature.declared_size == signature.file_size == 200
    assert signature.facts == {"check": "header", "tensorrt_version": "10.8.0.43"}
    assert not signature.deep and "tensorrt" in signature.deep_skipped
    assert signature.problems == ()


def test_plan_size_mismatch_is_a_problem_not_an_error(gen: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "model.plan"
    gen.Plan(declared=1 << 30).write(path)
    (problem,) = read_plan(path, tmp_path).problems
    assert problem.kind == "plan-size-mismatch" and "truncated" in problem.message


@pytest.mark.parametrize(
    ("head", "says"),
    [
        (struct.pack("<I", 20) + b'{"description": "x"}ftrt', "Ultralytics"),
        (b"PK\x03\x04" + bytes(60), "ZIP archive"),
        (b"\x08\x08\x12\x07pytorch", "ONNX"),
        (b"hello world, not a plan", "ftrt"),
    ],
)
def test_not_a_plan_says_what_it_is(tmp_path: Path, head: bytes, says: str) -> None:
    path = tmp_path / "model.plan"
    path.write_bytes(head)
    with pytest.raises(ArtifactError) as error:
        read_plan(path, tmp_path)
    assert error.value.kind == "corrupt" and says in error.value.message


def test_plan_with_implausible_version_bytes_has_no_version(
    gen: ModuleType, tmp_path: Path
) -> None:
    path = tmp_path / "model.plan"
    gen.Plan((0, 0, 0, 0)).write(path)
    assert read_plan(path, tmp_path).tensorrt_version is None


def test_release_table_lookups() -> None:
    assert ("25.02", "trtllm-python-py3") in releases_shipping((10, 8, 0, 43))
    assert ("21.12", "py3") in releases_shipping((8, 2, 1, 8))
    assert releases_shipping((8, 6, 1, 6)) == []  # no verified release in the table


class _FakeEngine:
    """The subset of tensorrt.ICudaEngine the deep check uses."""

    num_io_tensors = 3
    num_optimization_profiles = 1
    _tensors = (  # name, is input, nvinfer1 DataType number, shape, profile (min, opt, max)
        ("input_ids", True, 8, (-1, -1), ((1, 1), (4, 64), (8, 128))),
        ("attention_mask", True, 8, (-1, -1), ((1, 1), (4, 64), (8, 128))),
        ("logits", False, 1, (-1, 2), None),
    )

    def get_tensor_name(self, index: int) -> str:
        return self._tensors[index][0]

    def _find(self, name: str) -> tuple[Any, ...]:
        return next(t for t in self._tensors if t[0] == name)

    def get_tensor_mode(self, name: str) -> str:
        return "INPUT" if self._find(name)[1] else "OUTPUT"

    def get_tensor_dtype(self, name: str) -> int:
        return int(self._find(name)[2])

    def get_tensor_shape(self, name: str) -> tuple[int, ...]:
        return tuple(self._find(name)[3])

    def is_shape_inference_io(self, name: str) -> bool:
        return False

    def get_tensor_profile_shape(self, name: str, profile: int) -> tuple[Any, ...]:
        return tuple(self._find(name)[4])


def _fake_tensorrt() -> ModuleType:
    module = types.ModuleType("tensorrt")

    class Logger:
        ERROR = 1

        def __init__(self, level: int) -> None:
            self.level = level

    class Runtime:
        def __init__(self, logger: Logger) -> None:
            self.logger = logger

        def deserialize_cuda_engine(self, data: Any) -> _FakeEngine | None:
            return _FakeEngine() if bytes(data[:4]) == b"ftrt" else None

    module.Logger = Logger  # type: ignore[attr-defined]
    module.Runtime = Runtime  # type: ignore[attr-defined]
    module.TensorIOMode = types.SimpleNamespace(INPUT="INPUT")  # type: ignore[attr-defined]
    module.__spec__ = importlib.util.spec_from_loader("tensorrt", loader=None)
    return module


def test_deep_check_path_with_a_fake_tensorrt(
    gen: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The GPU path cannot run here; a stand-in for the tensorrt API exercises its code."""
    monkeypatch.setitem(sys.modules, "tensorrt", _fake_tensorrt())
    repo = tmp_path / "repo"
    gen.Plan().write(repo / "m" / "1" / "model.plan")
    (repo / "m" / "config.pbtxt").write_text(
        'backend: "tensorrt"\nmax_batch_size: 8\n'
        'input [ { name: "input_ids" data_type: TYPE_INT32 dims: [ 256 ] } ]\n'
        'output [ { name: "logit" data_type: TYPE_FP32 dims: [ 2 ] } ]\n'
        "dynamic_batching { }\n"
    )
    signature = read_plan(repo / "m" / "1" / "model.plan", repo / "m")
    assert signature.deep and signature.facts["check"] == "deserialized"
    assert [s.name for s in signature.inputs] == ["input_ids", "attention_mask"]
    assert signature.inputs[0].data_type == "TYPE_INT64"
    assert signature.profiles["input_ids"][0].maximum == (8, 128)
    found: dict[str, list[str]] = defaultdict(list)
    for diagnostic in lint([repo], Settings(gpus=1), RULES).diagnostics:
        found[diagnostic.code].append(diagnostic.message)
    assert any("deserialized" in m for m in found["PL631"])
    assert any("unexpected inference output 'logit'" in m for m in found["PL640"])
    assert any("engine inputs attention_mask" in m for m in found["PL641"])
    assert any("engine output logits" in m for m in found["PL641"])
    assert any("unexpected datatype TYPE_INT64" in m for m in found["PL642"])
    assert any("between 1 and 128 but received 256" in m for m in found["PL643"])


def test_deep_check_falls_back_when_tensorrt_cannot_start(
    gen: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = _fake_tensorrt()

    def no_gpu(logger: object) -> None:
        raise TypeError("pybind11::init(): factory function returned nullptr")

    fake.Runtime = no_gpu  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tensorrt", fake)
    path = tmp_path / "model.plan"
    gen.Plan().write(path)
    signature = read_plan(path, tmp_path)
    assert not signature.deep and "no usable GPU" in signature.deep_skipped


def test_no_tensorrt_means_header_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert trt_reader._deep_check(Path("/nonexistent"), 10) == (
        "the tensorrt package is not installed"
    )


# --- TorchScript ------------------------------------------------------------------------------


def test_torchscript_forward_from_code(
    gen: ModuleType, tmp_path: Path, no_unpickling: None
) -> None:
    path = tmp_path / "model.pt"
    gen.TorchScript(
        (("input_ids", "Tensor"), ("texts", "List[str]"), ("extra", "Dict[str, Tensor]")),
        returns="Tuple[Tensor, Tensor, List[str]]",
        root="__torch__.___torch_mangle_7.Encoder",
    ).write(path)
    signature = read_torchscript(path, tmp_path)
    assert isinstance(signature, TorchScriptSignature) and not signature.not_torchscript
    assert signature.root_class == "__torch__.___torch_mangle_7.Encoder"
    assert signature.forward is not None
    assert [(a.name, a.kind) for a in signature.forward] == [
        ("input_ids", "tensor"),
        ("texts", "list"),
        ("extra", "dict"),
    ]
    assert signature.forward[1].is_string_list
    assert signature.output_count == 3
    assert [s.data_type for s in signature.inputs] == [None, "TYPE_STRING", None]


def test_torchscript_types_and_dict_keys(gen: ModuleType, tmp_path: Path) -> None:
    """Types as TorchScript writes them (and as libtorch prints them), and the keys forward()
    reads from its Dict on every path (a read guarded by an `if` is left out)."""
    path = tmp_path / "model.pt"
    gen.TorchScript(
        (("inputs", "Dict[str, Tensor]"),),
        returns="Tuple[Tensor, List[Tensor], Optional[Tensor]]",
        body='    _0 = inputs["input_ids"]\n'
        '    if torch.__contains__(inputs, "mask"):\n'
        '      _1 = inputs["mask"]\n'
        "    else:\n"
        "      _1 = _0\n"
        '    return (torch.mul(_0, inputs["scale"]), [_0], None)\n',
    ).write(path)
    signature = read_torchscript(path, tmp_path)
    assert signature.forward is not None and signature.forward[0].kind == "dict"
    returns = signature.return_type
    assert returns is not None and str(returns) == "Tuple[Tensor, List[Tensor], Optional[Tensor]]"
    assert [a.c10 for a in returns.args] == ["Tensor", "Tensor[]", "Tensor?"]
    assert [(k.key, k.line) for k in signature.dict_keys] == [("input_ids", 7), ("scale", 12)]


def test_stack_global_pickles_name_the_root_class_too(tmp_path: Path, no_unpickling: None) -> None:
    """Protocol 4 pickles name classes with STACK_GLOBAL instead of GLOBAL."""
    pickled = (
        b"\x80\x04\x95\x20\x00\x00\x00\x00\x00\x00\x00"
        b"\x8c\x09__torch__\x94\x8c\x03Net\x94\x93\x94)\x81\x94."
    )
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("m/data.pkl", pickled)
        archive.writestr("m/constants.pkl", b"\x80\x02).")
        archive.writestr(
            "m/code/__torch__.py",
            "class Net(Module):\n  def forward(self: __torch__.Net, x: Tensor) -> Tensor:\n"
            "    return x\n",
        )
    signature = read_torchscript(path, tmp_path)
    assert signature.root_class == "__torch__.Net"
    assert signature.forward is not None and [a.name for a in signature.forward] == ["x"]


def test_malicious_data_pkl_is_only_disassembled(tmp_path: Path, no_unpickling: None) -> None:
    """A pickle whose loading would run os.system: the reader never loads it."""
    marker = tmp_path / "ran"
    payload = f"touch {marker}".encode()
    evil = b"\x80\x02cos\nsystem\nq\x00X" + struct.pack("<I", len(payload)) + payload
    evil += b"q\x01\x85q\x02Rq\x03."
    path = tmp_path / "model.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("m/data.pkl", evil)
        archive.writestr("m/constants.pkl", b"\x80\x02).")
        archive.writestr("m/code/__torch__.py", "")
    signature = read_torchscript(path, tmp_path)
    assert not marker.exists()
    assert signature.forward is None
    assert signature.problems[0].kind == "not-inspected"  # os.system is not a __torch__ class


@pytest.mark.parametrize(
    ("kind", "says"),
    [
        ("torch_save", "torch.save()"),
        ("pickle", "plain pickle"),
        ("pt2", "PT2 archive"),
    ],
)
def test_not_torchscript(gen: ModuleType, tmp_path: Path, kind: str, says: str) -> None:
    path = tmp_path / "model.pt"
    gen.TorchScript(kind=kind).write(path)
    signature = read_torchscript(path, tmp_path)
    assert says in signature.not_torchscript


def test_code_file_larger_than_the_cap_is_not_read(gen: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    gen.TorchScript(kind="bomb").write(path)
    assert path.stat().st_size < 1 << 20
    signature = read_torchscript(path, tmp_path)
    assert signature.forward is None and "larger than" in signature.problems[0].message


def test_zip_bomb_with_a_lying_declared_size_is_cut_off(tmp_path: Path) -> None:
    """The central directory says 100 bytes; the entry inflates to 256 MiB."""
    path = tmp_path / "model.pt"
    header = (
        "class Net(Module):\n  def forward(self: __torch__.Net, x: Tensor) -> Tensor:\n"
        "    return x\n"
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("m/data.pkl", b"\x80\x02c__torch__\nNet\nq\x00)\x81q\x01}q\x02b.")
        archive.writestr("m/constants.pkl", b"\x80\x02).")
        with archive.open("m/code/__torch__.py", "w", force_zip64=True) as entry:
            entry.write(header.encode())
            chunk = b"#" * (1 << 20)
            for _ in range(256):
                entry.write(chunk)
    data = bytearray(path.read_bytes())
    # Rewrite the uncompressed size the central directory declares for the code entry.
    end = data.rfind(b"PK\x05\x06")
    count, _, offset = struct.unpack_from("<HII", data, end + 10)
    at = offset
    for _ in range(count):
        name_length, extra_length, comment_length = struct.unpack_from("<HHH", data, at + 28)
        if data[at + 46 : at + 46 + name_length] == b"m/code/__torch__.py":
            struct.pack_into("<I", data, at + 24, 100)
        at += 46 + name_length + extra_length + comment_length
    path.write_bytes(bytes(data))
    started = time.monotonic()
    signature, peak = traced(read_torchscript, path, tmp_path)
    assert time.monotonic() - started < 5
    assert peak < MAX_CODE_BYTES + (8 << 20)  # 256 MiB is never inflated
    assert signature.forward is None  # cut at the declared size: the CRC check fails


def test_huge_central_directory_is_not_loaded(tmp_path: Path) -> None:
    """An end record claiming millions of entries: not handed to zipfile at all."""
    path = tmp_path / "model.pt"
    eocd = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0, 0)
    locator = b"PK\x06\x07" + struct.pack("<IQI", 0, 4, 1)
    record = b"PK\x06\x06" + struct.pack("<QHHIIQQQQ", 44, 45, 45, 0, 0, 10**8, 10**8, 1 << 40, 0)
    path.write_bytes(b"PK\x03\x04" + record + locator + eocd)
    signature = read_torchscript(path, tmp_path)
    assert signature.problems and "100,000,000 entries" in signature.problems[0].message


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"PK\x03\x04truncated", "truncated"),
        (b"ftrt" + bytes(60), "corrupt"),
        (b"", "empty"),
        (b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n", "lfs-pointer"),
    ],
)
def test_unreadable_torchscript(tmp_path: Path, data: bytes, kind: str) -> None:
    path = tmp_path / "model.pt"
    path.write_bytes(data)
    with pytest.raises(ArtifactError) as error:
        read_torchscript(path, tmp_path)
    assert error.value.kind == kind


# --- OpenVINO ---------------------------------------------------------------------------------


def test_openvino_ports_names_types_and_shapes(gen: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    gen.OpenVino(
        (("ids,input_ids", "i64", "?,16"), ("len", "f32", "1..10,3"), ("flag", "boolean", "")),
        (("logits,scores", "FP16", "-1,8"),),
    ).write(path)
    signature = read_openvino(path, tmp_path)
    assert isinstance(signature, OpenVinoSignature) and signature.problems == ()
    assert [(s.name, s.data_type, s.shape) for s in signature.inputs] == [
        ("ids", "TYPE_INT64", (-1, 16)),
        ("len", "TYPE_FP32", ("1..10", 3)),
        ("flag", "TYPE_BOOL", ()),
    ]
    assert [(s.name, s.data_type, s.shape) for s in signature.outputs] == [
        ("logits", "TYPE_FP16", (-1, 8))
    ]
    assert signature.aliases["ids"] == ("ids", "input_ids")
    assert signature.ir_version == "11"


def test_openvino_escaped_commas_and_output_names_attribute(tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    path.write_text(
        '<?xml version="1.0"?><net name="n" version="11"><layers>'
        '<layer id="0" name="p" type="Parameter" version="opset1">'
        '<data shape="2" element_type="u8"/>'
        '<output><port id="0" precision="U8" names="a\\,b,c"><dim>2</dim></port></output>'
        "</layer>"
        '<layer id="1" name="r/sink_port_0" type="Result" version="opset1" output_names="out">'
        '<input><port id="0" precision="U8"><dim>2</dim></port></input></layer>'
        '</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/></edges>'
        "</net>"
    )
    signature = read_openvino(path, tmp_path)
    assert signature.aliases["a,b"] == ("a,b", "c")
    assert [s.name for s in signature.outputs] == ["out"]
    assert signature.outputs[0].data_type == "TYPE_UINT8"


@pytest.mark.parametrize(
    ("text", "dims"),
    [("?,16", (-1, 16)), ("", ()), ("[1,3]", (1, 3)), ("1..", ("1..",)), ("..8", ("0..8",))],
)
def test_parse_dims(text: str, dims: tuple[object, ...]) -> None:
    assert parse_dims(text) == dims


def test_openvino_weights_missing_and_short(gen: ModuleType, tmp_path: Path) -> None:
    missing = tmp_path / "a" / "model.xml"
    gen.OpenVino((("x", "f32", "?,4"),), (("y", "FP32", "-1,4"),), weights=None).write(missing)
    assert [p.kind for p in read_openvino(missing, tmp_path).problems] == ["weights-missing"]
    short = tmp_path / "b" / "model.xml"
    gen.OpenVino((("x", "f32", "?,4"),), (("y", "FP32", "-1,4"),), needed=64).write(short)
    assert [p.kind for p in read_openvino(short, tmp_path).problems] == ["weights-short"]
    no_constants = tmp_path / "c" / "model.xml"
    gen.OpenVino((("x", "f32", "?,4"),), (("y", "FP32", "-1,4"),), needed=0, weights=None).write(
        no_constants
    )
    assert read_openvino(no_constants, tmp_path).problems == ()


def test_billion_laughs_is_refused_fast(gen: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "model.xml"
    entities = ['<!ENTITY e0 "lololololol">'] + [
        f'<!ENTITY e{i} "{f"&e{i - 1};" * 10}">' for i in range(1, 12)
    ]
    path.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE net [\n' + "\n".join(entities) + "\n]>\n"
        '<net name="&e11;" version="11"><layers/></net>\n'
    )
    started = time.monotonic()
    signature, peak = traced(read_openvino, path, tmp_path)
    assert time.monotonic() - started < 1 and peak < 4 << 20
    assert signature.inputs == () and "document type declaration" in signature.problems[0].message


def test_external_entity_is_never_fetched(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("<layers/>")
    path = tmp_path / "model.xml"
    path.write_text(
        f'<?xml version="1.0"?><!DOCTYPE net SYSTEM "file://{secret}"><net version="11">&xxe;</net>'
    )
    signature = read_openvino(path, tmp_path)
    assert signature.problems[0].kind == "not-inspected"


@pytest.mark.parametrize(
    ("text", "says"),
    [("<net><layers>", "not well-formed"), ("<html></html>", "not an OpenVINO IR")],
)
def test_broken_xml_is_an_artifact_error(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "model.xml"
    path.write_text(text)
    with pytest.raises(ArtifactError) as error:
        read_openvino(path, tmp_path)
    assert error.value.kind == "corrupt" and says in error.value.message


def test_huge_ir_is_not_parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pbtxt_lint.artifacts import openvino

    monkeypatch.setattr(openvino, "MAX_XML_BYTES", 100)
    path = tmp_path / "model.xml"
    path.write_text("<net>" + " " * 200 + "</net>")
    assert read_openvino(path, tmp_path).problems[0].kind == "not-inspected"


# --- SavedModel -------------------------------------------------------------------------------


def _tf_classes() -> dict[str, Any]:
    """The SavedModel message subset, declared with protobuf itself (field numbers from
    tensorflow/core/protobuf), to check the wire walker independently of our builder."""
    file = descriptor_pb2.FileDescriptorProto(name="tf_subset.proto", package="tfsub")
    T = descriptor_pb2.FieldDescriptorProto
    optional, repeated = T.LABEL_OPTIONAL, T.LABEL_REPEATED

    def message(name: str, *fields: tuple[str, int, int, int, str]) -> None:
        proto = file.message_type.add(name=name)
        for field_name, number, kind, field_label, type_name in fields:
            field = proto.field.add(name=field_name, number=number, type=kind, label=field_label)
            if type_name:
                field.type_name = type_name

    message(
        "Dim", ("size", 1, T.TYPE_INT64, optional, ""), ("name", 2, T.TYPE_STRING, optional, "")
    )
    message(
        "Shape",
        ("dim", 2, T.TYPE_MESSAGE, repeated, ".tfsub.Dim"),
        ("unknown_rank", 3, T.TYPE_BOOL, optional, ""),
    )
    message(
        "TensorInfo",
        ("name", 1, T.TYPE_STRING, optional, ""),
        ("dtype", 2, T.TYPE_INT32, optional, ""),
        ("tensor_shape", 3, T.TYPE_MESSAGE, optional, ".tfsub.Shape"),
    )
    message(
        "Entry",
        ("key", 1, T.TYPE_STRING, optional, ""),
        ("value", 2, T.TYPE_MESSAGE, optional, ".tfsub.TensorInfo"),
    )
    message(
        "SignatureDef",
        ("inputs", 1, T.TYPE_MESSAGE, repeated, ".tfsub.Entry"),
        ("outputs", 2, T.TYPE_MESSAGE, repeated, ".tfsub.Entry"),
        ("method_name", 3, T.TYPE_STRING, optional, ""),
    )
    message(
        "SigEntry",
        ("key", 1, T.TYPE_STRING, optional, ""),
        ("value", 2, T.TYPE_MESSAGE, optional, ".tfsub.SignatureDef"),
    )
    message(
        "MetaInfoDef",
        ("tags", 4, T.TYPE_STRING, repeated, ""),
        ("tensorflow_version", 5, T.TYPE_STRING, optional, ""),
    )
    message(
        "MetaGraphDef",
        ("meta_info_def", 1, T.TYPE_MESSAGE, optional, ".tfsub.MetaInfoDef"),
        ("graph_def", 2, T.TYPE_BYTES, optional, ""),
        ("signature_def", 5, T.TYPE_MESSAGE, repeated, ".tfsub.SigEntry"),
    )
    message(
        "SavedModel",
        ("saved_model_schema_version", 1, T.TYPE_INT64, optional, ""),
        ("meta_graphs", 2, T.TYPE_MESSAGE, repeated, ".tfsub.MetaGraphDef"),
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tfsub.{name}"))
        for name in ("SavedModel",)
    }


def test_savedmodel_matches_protobufs_own_encoding(tmp_path: Path) -> None:
    saved = _tf_classes()["SavedModel"]()
    saved.saved_model_schema_version = 1
    graph = saved.meta_graphs.add()
    graph.meta_info_def.tags.extend(["serve", "gpu"])
    graph.meta_info_def.tensorflow_version = "2.15.0"
    graph.graph_def = bytes(100_000)  # skipped by length, never decoded
    for key in ("__saved_model_init_op", "serving_default"):
        entry = graph.signature_def.add(key=key)
        if key == "serving_default":
            for name, dtype, dims in (("ids", 9, (-1, 16)), ("text", 7, (-1,))):
                tensor = entry.value.inputs.add(key=name).value
                tensor.name, tensor.dtype = f"serving_default_{name}:0", dtype
                for size in dims:
                    tensor.tensor_shape.dim.add(size=size)
            out = entry.value.outputs.add(key="emb").value
            out.dtype = 14  # DT_BFLOAT16: no Triton type
            out.tensor_shape.unknown_rank = True
    path = tmp_path / "model.savedmodel" / "saved_model.pb"
    path.parent.mkdir()
    path.write_bytes(saved.SerializeToString())
    signature = read_savedmodel(path, tmp_path)
    assert isinstance(signature, SavedModelSignature)
    assert signature.chosen == ("serve", "serving_default")
    assert [(s.name, s.data_type, s.shape) for s in signature.inputs] == [
        ("ids", "TYPE_INT64", (-1, 16)),
        ("text", "TYPE_STRING", (-1,)),
    ]
    (out,) = signature.outputs
    assert (out.name, out.data_type, out.source_type, out.shape) == (
        "emb",
        None,
        "DT_BFLOAT16",
        None,
    )
    assert signature.facts == {"tags": "serve,gpu", "tensorflow_version": "2.15.0"}


def test_savedmodel_falls_back_like_triton(gen: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "saved_model.pb"
    gen.SavedModel((("x", 1, (-1, 4)),), (("y", 1, (-1, 4)),), signature="predict").write(path)
    signature = read_savedmodel(path, tmp_path)
    graph, key = signature.select("serve", "serving_default")
    assert graph is not None and key == "predict"
    assert signature.select("train", "serving_default") == (None, None)


@pytest.mark.parametrize(
    ("data", "kind"),
    [
        (b"\x12\xff\xff\x03", "truncated"),  # a meta graph claiming 65k bytes
        (b"\x08\x01", "corrupt"),  # a schema version, no meta graph
        (b"\x0f\x00", "corrupt"),  # wire type 7
    ],
)
def test_broken_savedmodel(tmp_path: Path, data: bytes, kind: str) -> None:
    path = tmp_path / "saved_model.pb"
    path.write_bytes(data)
    with pytest.raises(ArtifactError) as error:
        read_savedmodel(path, tmp_path)
    assert error.value.kind == kind


def test_savedmodel_file_instead_of_folder(tmp_path: Path) -> None:
    path = tmp_path / "model.savedmodel"
    path.write_bytes(b"\x08\x01")
    with pytest.raises(ArtifactError, match="folder"):
        read_savedmodel(path, tmp_path)


def test_fixture_builders_are_deterministic(gen: ModuleType, tmp_path: Path) -> None:
    outputs = []
    for run in ("a", "b"):
        folder = tmp_path / run
        gen.TorchScript().write(folder / "model.pt")
        gen.OpenVino((("x", "f32", "?,4"),), (("y", "FP32", "-1,4"),)).write(folder / "model.xml")
        gen.SavedModel((("x", 1, (-1,)),), (("y", 1, (-1,)),)).write(folder / "saved_model.pb")
        gen.Plan().write(folder / "model.plan")
        outputs.append({p.name: p.read_bytes() for p in sorted(folder.iterdir())})
    assert outputs[0] == outputs[1]
    assert io.BytesIO(outputs[0]["model.pt"]).read(2) == b"PK"
