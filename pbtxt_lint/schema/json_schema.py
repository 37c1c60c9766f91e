"""A JSON Schema (draft 2020-12) of ModelConfig, generated from the compiled descriptors.

Triton takes a model configuration as JSON too: the `config` of the model-load API
and the answer of `GET /v2/models/<m>/config`. Triton parses it with protobuf's JSON
parser (`JsonToModelConfig`: unknown fields rejected, enum names case-insensitive),
so the schema follows protobuf's JSON mapping rather than the text format:

- every field under its lowerCamelCase JSON name and under its proto name, not both;
- enums by name (any letter case) or by number; 64-bit (and 32-bit) integers as
  numbers or as strings of digits; floats also as "NaN", "Infinity", "-Infinity";
- maps as objects keyed by strings (digits for integer keys);
- `null` for any field, meaning "not set"; at most one non-null member per oneof.

Generated, never hand-written, so it cannot drift from the schema Triton uses.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR
from pbtxt_lint.textproto.binder import is_map, is_repeated, message_type

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
Schema = dict[str, Any]

_INT_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}
_FLOAT_STRING = r"^(NaN|-?Infinity|-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?)$"
_SIGNED_DIGITS = r"^-?[0-9]+$"
_UNSIGNED_DIGITS = r"^[0-9]+$"

# Our own words for the fields people ask about; the rest are described by their path.
DESCRIPTIONS: dict[str, str] = {
    "inference.ModelConfig": "A Triton model configuration (config.pbtxt as JSON).",
    "inference.ModelConfig.name": "Model name; must equal the model's folder name.",
    "inference.ModelConfig.platform": (
        "Framework of the model file (onnxruntime_onnx, tensorrt_plan, "
        "pytorch_libtorch, tensorflow_savedmodel, ensemble ...)."
    ),
    "inference.ModelConfig.backend": (
        "Backend that runs the model (onnxruntime, tensorrt, pytorch, python, ...)."
    ),
    "inference.ModelConfig.runtime": "Backend runtime library to use instead of the default.",
    "inference.ModelConfig.version_policy": (
        "Which version folders Triton serves; default: the latest one."
    ),
    "inference.ModelConfig.max_batch_size": (
        "Largest batch Triton forms; > 0 means every input and output has an implicit "
        "first (batch) dimension not listed in dims; 0 disables batching."
    ),
    "inference.ModelConfig.input": "The model's input tensors.",
    "inference.ModelConfig.output": "The model's output tensors.",
    "inference.ModelConfig.batch_input": "Extra inputs Triton builds from the batch.",
    "inference.ModelConfig.batch_output": "Outputs Triton scatters back per request.",
    "inference.ModelConfig.optimization": "Optimisation settings (CUDA graphs, accelerators).",
    "inference.ModelConfig.dynamic_batching": (
        "Enable the dynamic batcher (stateless models); one of the scheduling choices."
    ),
    "inference.ModelConfig.sequence_batching": (
        "Enable the sequence batcher (stateful models); one of the scheduling choices."
    ),
    "inference.ModelConfig.ensemble_scheduling": (
        "The steps of an ensemble (platform: ensemble); one of the scheduling choices."
    ),
    "inference.ModelConfig.instance_group": "How many model instances run, and where.",
    "inference.ModelConfig.default_model_filename": (
        "Model file name inside each version folder (default per backend: model.onnx ...)."
    ),
    "inference.ModelConfig.cc_model_filenames": "Model file per CUDA compute capability.",
    "inference.ModelConfig.parameters": (
        "Backend-specific parameters: key -> {string_value: ...}."
    ),
    "inference.ModelConfig.model_warmup": "Requests Triton sends before serving.",
    "inference.ModelConfig.model_transaction_policy": "Decoupled (streaming) or not.",
    "inference.ModelInput.name": "Tensor name; must match the model's input name.",
    "inference.ModelInput.data_type": "Element type (TYPE_FP32, TYPE_INT64, TYPE_STRING ...).",
    "inference.ModelInput.dims": (
        "Shape without the batch dimension when max_batch_size > 0; -1 = any size."
    ),
    "inference.ModelInput.reshape": "Shape handed to the model instead of dims.",
    "inference.ModelInput.optional": "Requests may leave this input out.",
    "inference.ModelOutput.name": "Tensor name; must match the model's output name.",
    "inference.ModelOutput.data_type": "Element type (TYPE_FP32, TYPE_INT64, TYPE_STRING ...).",
    "inference.ModelOutput.dims": (
        "Shape without the batch dimension when max_batch_size > 0; -1 = any size."
    ),
    "inference.ModelInstanceGroup.kind": "KIND_GPU, KIND_CPU, KIND_MODEL or KIND_AUTO.",
    "inference.ModelInstanceGroup.count": "Instances per device (per GPU for KIND_GPU).",
    "inference.ModelInstanceGroup.gpus": "GPU ids to place instances on (KIND_GPU).",
    "inference.ModelDynamicBatching.preferred_batch_size": (
        "Batch sizes the batcher aims for; each must be <= max_batch_size."
    ),
    "inference.ModelDynamicBatching.max_queue_delay_microseconds": (
        "How long a request may wait for others to join its batch."
    ),
    "inference.ModelEnsembling.Step.model_name": "The composing model this step runs.",
    "inference.ModelEnsembling.Step.model_version": "Its version; -1 = the latest.",
    "inference.ModelEnsembling.Step.input_map": (
        "Composing model input name -> ensemble tensor name."
    ),
    "inference.ModelEnsembling.Step.output_map": (
        "Composing model output name -> ensemble tensor name."
    ),
    "inference.ModelParameter.string_value": "The parameter's value (always a string).",
}


def model_config_schema() -> Schema:
    """The JSON Schema of `inference.ModelConfig` (a fresh dict each call)."""
    definitions: dict[str, Schema] = {}
    _define(MODEL_CONFIG_DESCRIPTOR, definitions)
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": "urn:pbtxt-lint:triton:inference.ModelConfig",
        "title": "Triton Inference Server model configuration (inference.ModelConfig)",
        "description": (
            "protobuf JSON mapping of Triton's ModelConfig, as accepted by the "
            "model-load API and returned by GET /v2/models/<model>/config."
        ),
        "$ref": _ref(MODEL_CONFIG_DESCRIPTOR),
        "$defs": dict(sorted(definitions.items())),
    }


def _ref(descriptor: Descriptor | EnumDescriptor) -> str:
    return f"#/$defs/{descriptor.full_name}"


def _describe(full_name: str, fallback: str) -> str:
    return DESCRIPTIONS.get(full_name, fallback)


def _short(full_name: str) -> str:
    return full_name.removeprefix("inference.")


def _define(descriptor: Descriptor, definitions: dict[str, Schema]) -> None:
    """Add the schema of `descriptor` and of every type it uses to `definitions`."""
    if descriptor.full_name in definitions:
        return
    properties: dict[str, Schema] = {}
    constraints: list[Schema] = []
    definitions[descriptor.full_name] = {}  # placeholder: stops recursion
    for fd in descriptor.fields:
        field_schema = _nullable(_value_schema(fd, definitions))
        field_schema["description"] = _describe(fd.full_name, _short(fd.full_name))
        properties[fd.json_name] = field_schema
        if fd.name != fd.json_name:
            properties[fd.name] = field_schema
            constraints.append({"not": {"type": "object", "required": [fd.json_name, fd.name]}})
    for oneof in descriptor.oneofs:
        if oneof.name.startswith("_") or len(oneof.fields) < 2:
            continue  # a proto3 `optional` or a one-member oneof: nothing to choose
        constraints.append(_at_most_one(oneof.fields))
    schema: Schema = {
        "type": "object",
        "description": _describe(descriptor.full_name, _short(descriptor.full_name)),
        "properties": properties,
        "additionalProperties": False,
    }
    if constraints:
        schema["allOf"] = constraints
    definitions[descriptor.full_name] = schema


def json_names(fd: FieldDescriptor) -> tuple[str, ...]:
    """The names a JSON object may use for a field: its JSON name and its proto name."""
    return (fd.json_name,) if fd.json_name == fd.name else (fd.json_name, fd.name)


def _at_most_one(members: Sequence[FieldDescriptor]) -> Schema:
    """No two members of a oneof set to something other than null."""
    not_null = {"not": {"type": "null"}}
    pairs = []
    for first, second in itertools.combinations(members, 2):
        for a, b in itertools.product(json_names(first), json_names(second)):
            pairs.append(
                {
                    "type": "object",
                    "required": [a, b],
                    "properties": {a: not_null, b: not_null},
                }
            )
    return {"not": {"anyOf": pairs}}


def _nullable(schema: Schema) -> Schema:
    if "type" in schema and isinstance(schema["type"], list):
        return {**schema, "type": [*schema["type"], "null"]}
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    return {"anyOf": [schema, {"type": "null"}]}


def _value_schema(fd: FieldDescriptor, definitions: dict[str, Schema]) -> Schema:
    """The schema of a field's value (not null), a list or a map included."""
    if is_map(fd):
        entry = message_type(fd)
        key_fd, value_fd = entry.fields_by_name["key"], entry.fields_by_name["value"]
        schema: Schema = {
            "type": ["object"],
            "additionalProperties": _element_schema(value_fd, definitions),
        }
        if key_fd.cpp_type in _INT_RANGES:
            unsigned = key_fd.cpp_type in (
                FieldDescriptor.CPPTYPE_UINT32,
                FieldDescriptor.CPPTYPE_UINT64,
            )
            schema["propertyNames"] = {"pattern": _UNSIGNED_DIGITS if unsigned else _SIGNED_DIGITS}
        elif key_fd.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
            schema["propertyNames"] = {"enum": ["true", "false"]}
        return schema
    if is_repeated(fd):
        return {"type": ["array"], "items": _element_schema(fd, definitions)}
    return _element_schema(fd, definitions)


def _element_schema(fd: FieldDescriptor, definitions: dict[str, Schema]) -> Schema:
    """The schema of one value of the field's type (an element, for a repeated field)."""
    cpp = fd.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        _define(message_type(fd), definitions)
        return {"$ref": _ref(message_type(fd))}
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        enum_type = fd.enum_type
        assert enum_type is not None
        _define_enum(enum_type, definitions)
        return {"$ref": _ref(enum_type)}
    if cpp in _INT_RANGES:
        low, high = _INT_RANGES[cpp]
        digits = _SIGNED_DIGITS if low < 0 else _UNSIGNED_DIGITS
        return {"type": ["integer", "string"], "minimum": low, "maximum": high, "pattern": digits}
    if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return {"type": ["number", "string"], "pattern": _FLOAT_STRING}
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return {"type": ["boolean"]}
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return {"type": ["string"], "contentEncoding": "base64"}
    return {"type": ["string"]}


def _define_enum(enum_type: EnumDescriptor, definitions: dict[str, Schema]) -> None:
    if enum_type.full_name in definitions:
        return
    names = list(enum_type.values_by_name)
    definitions[enum_type.full_name] = {
        "description": (
            f"{_short(enum_type.full_name)}: one of {', '.join(names)} (Triton also "
            "accepts them in any letter case), or the value's number"
        ),
        "anyOf": [
            {"enum": names},
            {"type": "string", "pattern": case_insensitive_pattern(names)},
            {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1},
        ],
    }


def case_insensitive_pattern(words: list[str]) -> str:
    """`^(?:[Tt][Yy][Pp][Ee]_...)$`: portable regexes have no case-insensitive flag."""

    def letters(word: str) -> str:
        return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)

    return "^(?:" + "|".join(letters(word) for word in words) + ")$"
