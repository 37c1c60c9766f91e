"""Completion: the field names valid in the block at the cursor (by the schema), enum
values, platform and backend names, the repository's models in an ensemble step, and
the composing model's tensors in `input_map`/`output_map`.

The block around the cursor comes from the recovering syntax tree; what is being typed
on the current line (a field name, or `field: value`) from the text itself, since a
half-typed line does not parse into what the user means yet.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from google.protobuf.descriptor import FieldDescriptor
from lsprotocol import types as lsp

from pbtxt_lint.lsp.convert import lsp_range
from pbtxt_lint.lsp.core import (
    KNOWN_BACKENDS,
    KNOWN_PLATFORMS,
    Block,
    ParsedConfig,
    is_map,
    is_repeated,
    load_repository,
)
from pbtxt_lint.lsp.cursor import Cursor, blocks_of, field_value, io_names, locate, string_of
from pbtxt_lint.lsp.documents import LineIndex
from pbtxt_lint.lsp.hover import enum_value_markdown, field_markdown, type_name
from pbtxt_lint.lsp.schema_docs import DOCS

_VALUE = re.compile(r"(\w+)\s*:\s*(\[[^\]\"]*?,?\s*)?(\"[^\"]*|[\w.+-]*)$")
_WORD = re.compile(r"[\w]*$")
STEP = "inference.ModelEnsembling.Step"
_MAP_FIELDS = ("input_map", "output_map")

Tensors = Callable[[str], Awaitable[tuple[list[str], list[str]]]]


@dataclass(frozen=True)
class Context:
    text: str
    parsed: ParsedConfig
    index: LineIndex
    offset: int
    repository: Path
    model: str
    snippets: bool
    tensors: Tensors  # a composing model's (inputs, outputs), from the worker


def _markdown(value: str) -> lsp.MarkupContent:
    return lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=value)


async def complete(context: Context) -> list[lsp.CompletionItem]:
    line = context.index.position(context.offset).line
    line_start = context.index.starts[line]
    before = context.text[line_start : context.offset]
    if _in_comment(before):
        return []
    cursor = locate(context.parsed.document, context.offset)
    value = _VALUE.search(before)
    if value is not None:
        name, typed = value.group(1), value.group(3)
        fd = cursor.message.fields_by_name.get(name)
        if fd is None:
            return []
        start = context.offset - len(typed)
        return await _values(context, cursor, fd, typed, start)
    if before.count('"') % 2 == 1:
        return []  # inside a string that is no field's value
    word = _WORD.search(before)
    typed = word.group() if word else ""
    return _field_names(context, cursor, context.offset - len(typed))


def _in_comment(before: str) -> bool:
    quote = False
    for index, char in enumerate(before):
        if char == '"' and (index == 0 or before[index - 1] != "\\"):
            quote = not quote
        elif char == "#" and not quote:
            return True
    return False


def _field_names(context: Context, cursor: Cursor, start: int) -> list[lsp.CompletionItem]:
    frame = cursor.frames[-1]
    fields = frame.block.fields if frame.block is not None else context.parsed.document.fields
    written = {node.name.text for node in fields if node is not cursor.field}
    items = []
    for fd in cursor.message.fields:
        if fd.name in written and not is_repeated(fd):
            continue
        text, snippet = _insertion(fd, context.snippets)
        items.append(
            lsp.CompletionItem(
                label=fd.name,
                kind=lsp.CompletionItemKind.Module
                if fd.message_type is not None
                else lsp.CompletionItemKind.Field,
                detail=type_name(fd),
                documentation=_markdown(field_markdown(fd)),
                insert_text_format=lsp.InsertTextFormat.Snippet
                if snippet
                else lsp.InsertTextFormat.PlainText,
                text_edit=lsp.TextEdit(lsp_range(context.index, start, context.offset), text),
            )
        )
    return items


def _insertion(fd: FieldDescriptor, snippets: bool) -> tuple[str, bool]:
    """The text a chosen field name inserts: the name and the start of its value."""
    name = fd.name
    if not snippets:
        return (f"{name} {{ }}" if fd.message_type is not None else f"{name}: "), False
    if is_map(fd):
        entry = fd.message_type
        assert entry is not None
        value = entry.fields_by_name["value"]
        if value.message_type is not None:
            inner = value.message_type.fields[0].name if value.message_type.fields else ""
            return f'{name} {{\n\tkey: "$1"\n\tvalue {{\n\t\t{inner}: "$0"\n\t}}\n}}', True
        return f'{name} {{\n\tkey: "$1"\n\tvalue: "$0"\n}}', True
    if fd.message_type is not None:
        if is_repeated(fd):
            return f"{name} [\n\t{{\n\t\t$0\n\t}}\n]", True
        return f"{name} {{\n\t$0\n}}", True
    if fd.enum_type is not None:
        choices = ",".join(v.name for v in fd.enum_type.values)
        return f"{name}: ${{1|{choices}|}}", True
    if fd.type == FieldDescriptor.TYPE_STRING:
        return f'{name}: "$0"', True
    if is_repeated(fd):
        return f"{name}: [ $0 ]", True
    return f"{name}: $0", True


async def _values(
    context: Context, cursor: Cursor, fd: FieldDescriptor, typed: str, start: int
) -> list[lsp.CompletionItem]:
    quoted = typed.startswith('"')
    if fd.enum_type is not None:
        enum = fd.enum_type
        return [
            _value_item(context, start, v.name, v.name, lsp.CompletionItemKind.EnumMember,
                        enum_value_markdown(enum, v.name))
            for v in enum.values
        ]  # fmt: skip
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return [
            _value_item(context, start, word, word, lsp.CompletionItemKind.Keyword, None)
            for word in ("true", "false")
        ]
    if fd.type != FieldDescriptor.TYPE_STRING:
        return []
    names, kind, doc = await _string_choices(context, cursor, fd)
    return [
        _value_item(context, start, name, f'"{name}"' if not quoted else f'"{name}',
                    kind, doc)
        for name in names
    ]  # fmt: skip


async def _string_choices(
    context: Context, cursor: Cursor, fd: FieldDescriptor
) -> tuple[list[str], lsp.CompletionItemKind, str | None]:
    owner = fd.containing_type.full_name if fd.containing_type is not None else ""
    if owner == "inference.ModelConfig" and fd.name == "platform":
        return list(KNOWN_PLATFORMS), lsp.CompletionItemKind.Value, DOCS.get(fd.full_name)
    if owner == "inference.ModelConfig" and fd.name == "backend":
        return list(KNOWN_BACKENDS), lsp.CompletionItemKind.Value, DOCS.get(fd.full_name)
    if owner == STEP and fd.name == "model_name":
        return _models(context), lsp.CompletionItemKind.Module, None
    frame = cursor.frames[-1]
    if frame.fd is not None and frame.fd.name in _MAP_FIELDS and len(cursor.frames) >= 2:
        step = cursor.frames[-2]
        if step.descriptor.full_name == STEP and step.block is not None:
            return await _map_choices(context, frame.fd.name, fd.name, step.block)
    return [], lsp.CompletionItemKind.Value, None


def _models(context: Context) -> list[str]:
    repository = load_repository(context.repository, None)
    return [
        name for name in repository.models if not name.startswith(".") and name != context.model
    ]


async def _map_choices(
    context: Context, map_name: str, side: str, step: Block
) -> tuple[list[str], lsp.CompletionItemKind, str | None]:
    """Keys: the composing model's inputs (input_map) or outputs (output_map). Values:
    the ensemble tensors that can flow there."""
    kind = lsp.CompletionItemKind.Variable
    if side == "key":
        model = string_of(field_value(step.fields, "model_name"))
        if not model:
            return [], kind, None
        inputs, outputs = await context.tensors(model)
        names = inputs if map_name == "input_map" else outputs
        what = "an input" if map_name == "input_map" else "an output"
        return names, kind, f"{what} of model `{model}`"
    ensemble_inputs, ensemble_outputs, produced, consumed = _ensemble_tensors(context.parsed)
    if map_name == "input_map":
        names = ensemble_inputs + [n for n in produced if n not in ensemble_inputs]
        return names, kind, "an ensemble input or a tensor another step produces"
    names = ensemble_outputs + [n for n in consumed if n not in ensemble_outputs]
    return names, kind, "an ensemble output or a tensor another step consumes"


def _ensemble_tensors(parsed: ParsedConfig) -> tuple[list[str], list[str], list[str], list[str]]:
    """Names of the ensemble's inputs and outputs, and the tensors its steps produce
    (output_map values) and consume (input_map values), in the order written."""
    inputs, outputs = io_names(parsed.document)
    found: dict[str, list[str]] = {"output_map": [], "input_map": []}
    for node in parsed.document.fields:
        if node.name.text != "ensemble_scheduling":
            continue
        for scheduling in blocks_of(node):
            for step_field in scheduling.fields:
                if step_field.name.text != "step":
                    continue
                for step in blocks_of(step_field):
                    for entry in step.fields:
                        if entry.name.text not in _MAP_FIELDS:
                            continue
                        for block in blocks_of(entry):
                            tensor = string_of(field_value(block.fields, "value"))
                            if tensor and tensor not in found[entry.name.text]:
                                found[entry.name.text].append(tensor)
    return inputs, outputs, found["output_map"], found["input_map"]


def _value_item(
    context: Context,
    start: int,
    label: str,
    text: str,
    kind: lsp.CompletionItemKind,
    doc: str | None,
) -> lsp.CompletionItem:
    return lsp.CompletionItem(
        label=label,
        kind=kind,
        documentation=_markdown(doc) if doc else None,
        filter_text=text,
        text_edit=lsp.TextEdit(lsp_range(context.index, start, context.offset), text),
    )
