"""Model configurations written as JSON, checked by the same rules as config.pbtxt.

Triton accepts JSON configs in two places: the `config` of the model-load API (alone,
or inside the whole request body `{"parameters": {"config": "<json>"}}`) and the
answer of `GET /v2/models/<m>/config`. `parse_json_config` turns such a file into the
same `ParsedConfig` as `parse_config` does for text format: the ModelConfig, a source
map from field paths to positions in the JSON text, and every problem, with the same
problem kinds (so an unknown field is PL002 in JSON too).

Python's `json` module forgets positions, so a small strict parser reads the text
here; the JSON Schema (`schema/json_schema.py`) decides what is valid, and protobuf's
`json_format` builds the message, as Triton's `JsonToModelConfig` does.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from pbtxt_lint.jsonconfig.binding import JsonBinder, field_named
from pbtxt_lint.jsonconfig.reader import (
    BOM,
    JsonPositions,
    JsonSyntaxError,
    JsonValue,
    escape_offsets,
    read_json,
)
from pbtxt_lint.jsonconfig.schema_errors import SchemaErrors
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR, ModelConfig
from pbtxt_lint.textproto.binder import Problem, ProblemKind, is_map, is_repeated, message_type
from pbtxt_lint.textproto.integers import integer
from pbtxt_lint.textproto.parse import ParsedConfig, decode, placeholder_problems
from pbtxt_lint.textproto.sourcemap import SourceMap
from pbtxt_lint.textproto.tokenizer import Token, TokenKind
from pbtxt_lint.textproto.tree import Document

_64_BIT = (FieldDescriptor.CPPTYPE_INT64, FieldDescriptor.CPPTYPE_UINT64)


# -- the entry point ----------------------------------------------------------------


def _validator() -> Any:
    """The JSON Schema validator, built once (jsonschema is imported only when needed)."""
    from pbtxt_lint.schema.json_schema import model_config_schema  # deferred: built on first use

    jsonschema = importlib.import_module("jsonschema")
    return jsonschema.Draft202012Validator(model_config_schema())


def _load_request_config(root: JsonValue) -> JsonValue | None:
    """The `config` string of a model-load request body, if `root` is one."""
    if root.kind != "object" or {m.key for m in root.members} != {"parameters"}:
        return None
    parameters = root.member("parameters")
    if parameters is None or parameters.value.kind != "object":
        return None
    config = parameters.value.member("config")
    if config is None or config.value.kind != "string":
        return None
    return config.value


def _upper_enums(data: Any, descriptor: Descriptor) -> Any:
    """Enum names in upper case: Triton parses them case-insensitively, Python does not."""
    return _each_scalar(data, descriptor, _upper_enum)


def _upper_enum(value: Any, fd: FieldDescriptor) -> Any:
    if fd.cpp_type == FieldDescriptor.CPPTYPE_ENUM and isinstance(value, str):
        return value.upper()
    return value


Change = Callable[[Any, FieldDescriptor], Any]
"""A new JSON value for a scalar field's value."""


def _each_scalar(data: Any, descriptor: Descriptor, change: Change) -> Any:
    """`data`, a message as JSON values, with `change(value, field)` applied to the value
    of every scalar field, at any depth (map values and list items included)."""
    if not isinstance(data, dict):
        return data
    out = {}
    for key, value in data.items():
        fd = field_named(descriptor, key)
        if fd is None or value is None:
            out[key] = value
            continue
        if is_map(fd):
            value_fd = message_type(fd).fields_by_name["value"]
            if isinstance(value, dict):
                value = {k: _each_value(v, value_fd, change) for k, v in value.items()}
        elif is_repeated(fd) and isinstance(value, list):
            value = [_each_value(v, fd, change) for v in value]
        else:
            value = _each_value(value, fd, change)
        out[key] = value
    return out


def _each_value(
    value: Any, fd: FieldDescriptor, change: Callable[[Any, FieldDescriptor], Any]
) -> Any:
    if fd.message_type is not None:
        return _each_scalar(value, fd.message_type, change)
    return change(value, fd)


def parse_json_config(data: bytes) -> ParsedConfig:
    """Parse a JSON model configuration into the same result `parse_config` gives."""
    text, problems = decode(data)
    has_bom = text.startswith(BOM)
    body = " " + text[1:] if has_bom else text
    positions = JsonPositions(body)
    try:
        root = read_json(body)
    except JsonSyntaxError as error:
        placeholders = placeholder_problems(body)
        if placeholders and placeholders[0].kind is ProblemKind.PLACEHOLDER:
            return _failed(text, positions, problems + placeholders)
        span = positions.span(error.offset, error.offset + 1)
        problem = Problem(ProblemKind.SYNTAX, f"not valid JSON: {error.message}", span, error.hint)
        return _failed(text, positions, [*problems, problem])
    editable = True
    wrapped = _load_request_config(root)
    if wrapped is not None:
        # The model-load request body: check the config it carries, at its positions.
        offsets = escape_offsets(body, wrapped)
        positions = JsonPositions(body, lambda offset: offsets[min(offset, len(offsets) - 1)])
        editable = False
        try:
            root = read_json(wrapped.value)
        except JsonSyntaxError as error:
            span = positions.span(error.offset, error.offset + 1)
            problem = Problem(
                ProblemKind.SYNTAX,
                f'the "config" string is not valid JSON: {error.message}',
                span,
                error.hint,
            )
            return _failed(text, positions, [*problems, problem])
    binder = JsonBinder(positions)
    if root.kind == "object":
        block = binder.message(root, MODEL_CONFIG_DESCRIPTOR, ())
        fields = block.fields
    else:
        fields = []
    translator = SchemaErrors(root, positions, editable)
    python = root.to_python()
    for schema_error in sorted(
        _validator().iter_errors(python), key=lambda e: [str(p) for p in e.absolute_path]
    ):
        translator.translate(schema_error)
    ours = binder.problems + translator.problems
    tokens = sorted(positions.tokens, key=lambda t: t.start)
    line, column = positions.line_column(len(body))
    tokens.append(Token(TokenKind.EOF, "", len(body), line, column))
    document = Document(fields, tokens, [])
    if any(p.kind not in (ProblemKind.DUPLICATE_MAP_KEY,) for p in ours) or has_bom:
        return ParsedConfig(text, None, document, binder.source_map, problems + ours)
    config = ModelConfig()
    try:
        json_format.ParseDict(_upper_enums(python, MODEL_CONFIG_DESCRIPTOR), config)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
        problem = Problem(
            ProblemKind.SYNTAX,
            f"protobuf rejects this: {error}",
            positions.span(root.start, root.start + 1),
        )
        return ParsedConfig(text, None, document, binder.source_map, [*problems, *ours, problem])
    return ParsedConfig(text, config, document, binder.source_map, problems + ours)


def _failed(text: str, positions: JsonPositions, problems: list[Problem]) -> ParsedConfig:
    return ParsedConfig(text, None, Document([], [], []), SourceMap(), problems)


# -- ModelConfig -> JSON --------------------------------------------------------------


def config_to_json(config: ModelConfig) -> str:
    """The config as Triton's `GET /v2/models/<m>/config` writes it: proto field names,
    64-bit integers as numbers (protobuf would quote them), two-space indentation."""
    data = json_format.MessageToDict(config, preserving_proto_field_name=True)
    return (
        json.dumps(_unquote_64_bit(data, MODEL_CONFIG_DESCRIPTOR), indent=2, ensure_ascii=False)
        + "\n"
    )


def _unquote_64_bit(data: Any, descriptor: Descriptor) -> Any:
    return _each_scalar(data, descriptor, _unquote)


def _unquote(value: Any, fd: FieldDescriptor) -> Any:
    if fd.cpp_type in _64_BIT and isinstance(value, str):
        return integer(value)
    return value
