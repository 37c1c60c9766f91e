"""The compiled ModelConfig schema matches Triton's, and the data-type tables agree with it."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from google.protobuf import descriptor_pb2, text_format
from google.protobuf.descriptor import Descriptor, EnumValueDescriptor

from pbtxt_lint.schema import (
    DATA_TYPE_DESCRIPTOR,
    MODEL_CONFIG_DESCRIPTOR,
    DataType,
    ModelConfig,
    datatypes,
    model_config_pb2,
)

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_DIR = ROOT / "pbtxt_lint" / "schema"
GENERATED = ("model_config_pb2.py", "model_config_pb2.pyi")

# SHA-256 of the serialized FileDescriptorProto that NVIDIA's own generated
# tritonclient/grpc/model_config_pb2.py embeds (tritonclient 2.64.0 to 2.73.0 all carry
# the same bytes). Equal bytes mean every message, field, number, type, label, oneof,
# map and enum value is Triton's, and that both modules can share one process.
TRITONCLIENT_2_73_DESCRIPTOR_SHA256 = (
    "d9cbaa1bf0cda450d16dcb115abab2f87a9105ccc90cf3d10520d15594791e5e"
)


def as_proto(descriptor: Descriptor) -> descriptor_pb2.DescriptorProto:
    """DescriptorProto view of a message: field labels read the same on every runtime."""
    proto = descriptor_pb2.DescriptorProto()
    descriptor.CopyToProto(proto)
    return proto


def message(full_name: str) -> Descriptor:
    return model_config_pb2.DESCRIPTOR.pool.FindMessageTypeByName(full_name)


# --- (a) the committed generated code is what the pinned protoc makes ------------------


def test_generated_files_match_proto(tmp_path: Path) -> None:
    if importlib.util.find_spec("grpc_tools") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("grpc_tools missing: pip install --no-deps grpcio-tools==1.65.5")
        pytest.skip("grpc_tools not installed; cannot regenerate the schema")
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_proto.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, f"scripts/gen_proto.py failed:\n{result.stderr}"
    stale = [n for n in GENERATED if (tmp_path / n).read_bytes() != (SCHEMA_DIR / n).read_bytes()]
    assert not stale, (
        f"{', '.join(stale)} out of date with protos/model_config.proto: "
        "run `python scripts/gen_proto.py` and commit the result"
    )


# --- (b) the schema is Triton's ---------------------------------------------------------


def test_descriptor_is_byte_identical_to_tritons() -> None:
    digest = hashlib.sha256(model_config_pb2.DESCRIPTOR.serialized_pb).hexdigest()
    assert digest == TRITONCLIENT_2_73_DESCRIPTOR_SHA256, (
        "protos/model_config.proto no longer matches Triton's ModelConfig; "
        "re-verify against Triton before changing this hash"
    )
    assert model_config_pb2.DESCRIPTOR.name == "model_config.proto"
    assert model_config_pb2.DESCRIPTOR.package == "inference"


def test_model_config_fields_match_triton() -> None:
    optional = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
    repeated = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
    expected = [  # declaration order, numbers and labels as in Triton's proto
        ("name", 1, optional),
        ("platform", 2, optional),
        ("backend", 17, optional),
        ("runtime", 25, optional),
        ("version_policy", 3, optional),
        ("max_batch_size", 4, optional),
        ("input", 5, repeated),
        ("output", 6, repeated),
        ("batch_input", 20, repeated),
        ("batch_output", 21, repeated),
        ("optimization", 12, optional),
        ("dynamic_batching", 11, optional),
        ("sequence_batching", 13, optional),
        ("ensemble_scheduling", 15, optional),
        ("instance_group", 7, repeated),
        ("default_model_filename", 8, optional),
        ("cc_model_filenames", 9, repeated),
        ("metric_tags", 10, repeated),
        ("parameters", 14, repeated),
        ("model_warmup", 16, repeated),
        ("model_operations", 18, optional),
        ("model_transaction_policy", 19, optional),
        ("model_repository_agents", 23, optional),
        ("response_cache", 24, optional),
        ("model_metrics", 26, optional),
    ]
    proto = as_proto(MODEL_CONFIG_DESCRIPTOR)
    assert [(f.name, f.number, f.label) for f in proto.field] == expected
    assert MODEL_CONFIG_DESCRIPTOR is ModelConfig.DESCRIPTOR
    assert DATA_TYPE_DESCRIPTOR is DataType.DESCRIPTOR
    assert MODEL_CONFIG_DESCRIPTOR.full_name == "inference.ModelConfig"


def test_scheduling_choice_oneof() -> None:
    oneof = MODEL_CONFIG_DESCRIPTOR.oneofs_by_name["scheduling_choice"]
    assert [f.name for f in oneof.fields] == [
        "dynamic_batching",
        "sequence_batching",
        "ensemble_scheduling",
    ]
    assert [o.name for o in MODEL_CONFIG_DESCRIPTOR.oneofs] == ["scheduling_choice"]


def test_parameters_is_a_map_of_model_parameter() -> None:
    field = next(f for f in as_proto(MODEL_CONFIG_DESCRIPTOR).field if f.name == "parameters")
    assert field.type_name == ".inference.ModelConfig.ParametersEntry"
    entry = MODEL_CONFIG_DESCRIPTOR.nested_types_by_name["ParametersEntry"]
    assert entry.GetOptions().map_entry
    value_type = entry.fields_by_name["value"].message_type
    assert value_type is not None
    assert value_type.full_name == "inference.ModelParameter"


@pytest.mark.parametrize(
    ("message_name", "field_name", "number"),
    [
        ("inference.ModelInstanceGroup", "kind", 4),
        ("inference.ModelInstanceGroup", "count", 2),
        ("inference.ModelInstanceGroup", "secondary_devices", 8),
        ("inference.ModelInput", "is_non_linear_format_io", 9),
        ("inference.ModelOutput", "label_filename", 4),
        ("inference.ModelOutput", "reshape", 5),
        ("inference.ModelSequenceBatching.Control", "bool_false_true", 5),
        ("inference.ModelSequenceBatching", "iterative_sequence", 6),
        ("inference.ModelEnsembling", "max_inflight_requests", 2),
        ("inference.ModelEnsembling.Step", "model_namespace", 5),
        ("inference.ModelDynamicBatching", "priority_queue_policy", 7),
    ],
)
def test_nested_field_numbers(message_name: str, field_name: str, number: int) -> None:
    assert message(message_name).fields_by_name[field_name].number == number


def test_data_type_enum_values() -> None:
    assert [(v.name, v.number) for v in DATA_TYPE_DESCRIPTOR.values] == [
        ("TYPE_INVALID", 0),
        ("TYPE_BOOL", 1),
        ("TYPE_UINT8", 2),
        ("TYPE_UINT16", 3),
        ("TYPE_UINT32", 4),
        ("TYPE_UINT64", 5),
        ("TYPE_INT8", 6),
        ("TYPE_INT16", 7),
        ("TYPE_INT32", 8),
        ("TYPE_INT64", 9),
        ("TYPE_FP16", 10),
        ("TYPE_FP32", 11),
        ("TYPE_FP64", 12),
        ("TYPE_STRING", 13),
        ("TYPE_BF16", 14),
    ]
    assert DataType.Value("TYPE_FP32") == 11


def test_text_format_parses_a_config_and_rejects_mistakes() -> None:
    config = text_format.Parse(
        """
        name: "resnet" backend: "onnxruntime" max_batch_size: 8
        input [ { name: "IN" data_type: TYPE_FP32 dims: [ 3, 224, 224 ] } ]
        output [ { name: "OUT" data_type: TYPE_STRING dims: [ 1 ] } ]
        instance_group [ { kind: KIND_GPU count: 2 } ]
        dynamic_batching { preferred_batch_size: [ 4, 8 ] }
        parameters { key: "k" value { string_value: "v" } }
        """,
        ModelConfig(),
    )
    assert config.WhichOneof("scheduling_choice") == "dynamic_batching"
    assert config.parameters["k"].string_value == "v"
    with pytest.raises(text_format.ParseError):
        text_format.Parse("input [ { data_type: TYPE_FLOAT32 } ]", ModelConfig())
    with pytest.raises(text_format.ParseError):
        text_format.Parse("dynamic_batching {} sequence_batching {}", ModelConfig())


# --- (c) the data-type tables agree with the enum and round-trip ------------------------

ONNX_NAMES = {  # onnx.TensorProto.DataType name expected for each config type
    "TYPE_BOOL": "BOOL",
    "TYPE_UINT8": "UINT8",
    "TYPE_UINT16": "UINT16",
    "TYPE_UINT32": "UINT32",
    "TYPE_UINT64": "UINT64",
    "TYPE_INT8": "INT8",
    "TYPE_INT16": "INT16",
    "TYPE_INT32": "INT32",
    "TYPE_INT64": "INT64",
    "TYPE_FP16": "FLOAT16",
    "TYPE_FP32": "FLOAT",
    "TYPE_FP64": "DOUBLE",
    "TYPE_STRING": "STRING",
    "TYPE_BF16": "BFLOAT16",
}

TENSORRT_IDS = {  # nvinfer1::DataType values; every other type has none
    "TYPE_FP32": 0,  # kFLOAT
    "TYPE_FP16": 1,  # kHALF
    "TYPE_INT8": 2,  # kINT8
    "TYPE_INT32": 3,  # kINT32
    "TYPE_BOOL": 4,  # kBOOL
    "TYPE_UINT8": 5,  # kUINT8
    "TYPE_BF16": 7,  # kBF16
    "TYPE_INT64": 8,  # kINT64
}

BYTE_SIZES = {  # element sizes; strings are variable (length-prefixed elements)
    "TYPE_BOOL": 1,
    "TYPE_UINT8": 1,
    "TYPE_UINT16": 2,
    "TYPE_UINT32": 4,
    "TYPE_UINT64": 8,
    "TYPE_INT8": 1,
    "TYPE_INT16": 2,
    "TYPE_INT32": 4,
    "TYPE_INT64": 8,
    "TYPE_FP16": 2,
    "TYPE_FP32": 4,
    "TYPE_FP64": 8,
    "TYPE_STRING": None,
    "TYPE_BF16": 2,
}


def test_table_covers_the_enum_in_order() -> None:
    assert [(i.config_type, i.enum_value) for i in datatypes.DATA_TYPES] == [
        (v.name, v.number) for v in DATA_TYPE_DESCRIPTOR.values
    ]


@pytest.mark.parametrize("value", list(DATA_TYPE_DESCRIPTOR.values), ids=lambda v: str(v.name))
def test_data_type_round_trips(value: EnumValueDescriptor) -> None:
    name = value.name
    info = datatypes.BY_CONFIG_TYPE[name]
    assert info.enum_value == value.number
    protocol = datatypes.protocol_from_config_type(name)
    onnx_type = datatypes.onnx_from_config_type(name)
    if name == "TYPE_INVALID":
        assert (protocol, onnx_type, datatypes.byte_size(name), info.tensorrt_type) == (
            None,
            None,
            None,
            None,
        )
        return
    assert protocol == ("BYTES" if name == "TYPE_STRING" else name.removeprefix("TYPE_"))
    assert datatypes.config_type_from_protocol(protocol) == name
    assert onnx_type is not None
    assert onnx.TensorProto.DataType.Name(onnx_type) == ONNX_NAMES[name]
    assert datatypes.config_type_from_onnx(onnx_type) == name
    assert info.tensorrt_type == TENSORRT_IDS.get(name)
    if info.tensorrt_type is not None:
        assert datatypes.config_type_from_tensorrt(info.tensorrt_type) == name
    assert datatypes.byte_size(name) == BYTE_SIZES[name]


def test_lookups_of_things_triton_lacks() -> None:
    assert datatypes.config_type_from_protocol("fp32") is None  # protocol names are exact
    assert datatypes.config_type_from_protocol("STRING") is None
    assert datatypes.config_type_from_onnx(onnx.TensorProto.UNDEFINED) is None
    assert datatypes.config_type_from_onnx(onnx.TensorProto.COMPLEX64) is None
    assert datatypes.config_type_from_onnx(onnx.TensorProto.FLOAT8E4M3FN) is None
    assert datatypes.config_type_from_tensorrt(6) is None  # kFP8
    assert datatypes.byte_size("TYPE_FLOAT32") is None
    assert datatypes.protocol_from_config_type("TYPE_INVALID") is None


def test_misspellings_point_at_real_names() -> None:
    valid = {v.name for v in DATA_TYPE_DESCRIPTOR.values} - {"TYPE_INVALID"}
    assert set(datatypes.MISSPELLINGS.values()) <= valid
    assert not set(datatypes.MISSPELLINGS) & set(DATA_TYPE_DESCRIPTOR.values_by_name)
    assert all(key == key.upper() for key in datatypes.MISSPELLINGS)
    expected = {
        "TYPE_FLOAT32": "TYPE_FP32",
        "TYPE_FLOAT": "TYPE_FP32",
        "TYPE_FLOAT16": "TYPE_FP16",
        "TYPE_HALF": "TYPE_FP16",
        "TYPE_INT": "TYPE_INT32",
        "TYPE_BYTES": "TYPE_STRING",
        "TYPE_BFLOAT16": "TYPE_BF16",
        "TYPE_DOUBLE": "TYPE_FP64",
        "TYPE_LONG": "TYPE_INT64",
        "FP32": "TYPE_FP32",
        "INT64": "TYPE_INT64",
        "BYTES": "TYPE_STRING",
        "BF16": "TYPE_BF16",
        "FLOAT32": "TYPE_FP32",
        "DT_FLOAT": "TYPE_FP32",
    }
    assert {key: datatypes.MISSPELLINGS[key] for key in expected} == expected
    # Every KServe protocol name is understood as a misspelling of its enum.
    for info in datatypes.DATA_TYPES[1:]:
        assert info.protocol is not None
        assert datatypes.MISSPELLINGS[info.protocol] == info.config_type


@pytest.mark.parametrize(
    ("word", "fixed"),
    [
        ("TYPE_FP32", "TYPE_FP32"),
        ('"TYPE_FP32"', "TYPE_FP32"),
        ("type_float32", "TYPE_FP32"),
        ("bytes", "TYPE_STRING"),
        (" half ", "TYPE_FP16"),
        ("TYPE_COMPLEX64", None),
        ("", None),
    ],
)
def test_suggest_config_type(word: str, fixed: str | None) -> None:
    assert datatypes.suggest_config_type(word) == fixed
