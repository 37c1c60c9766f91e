"""Triton's ``inference.ModelConfig`` schema, compiled into the package.

A config.pbtxt is protobuf text format of this message, so checking a file against the
same schema Triton uses catches unknown fields, wrong value types and bad enum names
exactly where Triton would reject them. ``model_config_pb2`` is generated from
``protos/model_config.proto`` by ``scripts/gen_proto.py``; never edit it by hand.
"""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, EnumDescriptor

from pbtxt_lint.schema import model_config_pb2
from pbtxt_lint.schema.model_config_pb2 import DataType, ModelConfig

# Taken from the file descriptor, whose stubs give the precise descriptor classes.
MODEL_CONFIG_DESCRIPTOR: Descriptor = model_config_pb2.DESCRIPTOR.message_types_by_name[
    "ModelConfig"
]
"""Descriptor of ``inference.ModelConfig``: rules walk it instead of hard-coding fields."""

DATA_TYPE_DESCRIPTOR: EnumDescriptor = model_config_pb2.DESCRIPTOR.enum_types_by_name["DataType"]
"""Descriptor of the ``inference.DataType`` enum (``TYPE_FP32`` ...)."""

__all__ = [
    "DATA_TYPE_DESCRIPTOR",
    "MODEL_CONFIG_DESCRIPTOR",
    "DataType",
    "ModelConfig",
    "model_config_pb2",
]
