"""Document symbols (the outline: inputs, outputs, instance groups, ensemble steps,
every block) and go-to-definition from an ensemble step's `model_name`."""

from __future__ import annotations

from pathlib import Path

from google.protobuf.descriptor import Descriptor
from lsprotocol import types as lsp

from pbtxt_lint.lsp.convert import lsp_range
from pbtxt_lint.lsp.core import (
    MODEL_CONFIG_DESCRIPTOR,
    Block,
    Field,
    ListValue,
    ParsedConfig,
    Scalar,
    is_repeated,
    load_repository,
)
from pbtxt_lint.lsp.cursor import field_value, locate, string_of
from pbtxt_lint.lsp.documents import LineIndex, path_to_uri

STEP = "inference.ModelEnsembling.Step"
_LABEL_FIELDS = ("name", "model_name", "key", "kind")


def document_symbols(parsed: ParsedConfig, index: LineIndex) -> list[lsp.DocumentSymbol]:
    return _fields(parsed.document.fields, MODEL_CONFIG_DESCRIPTOR, index)


def _fields(
    fields: list[Field], descriptor: Descriptor, index: LineIndex
) -> list[lsp.DocumentSymbol]:
    symbols: list[lsp.DocumentSymbol] = []
    counts: dict[str, int] = {}
    for node in fields:
        fd = descriptor.fields_by_name.get(node.name.text)
        value = node.value
        if value is None:
            continue
        selection = lsp_range(index, node.name.start, node.name.end)
        whole = lsp_range(index, node.name.start, node.last.end)
        if isinstance(value, Scalar):
            kind = (
                lsp.SymbolKind.EnumMember
                if fd is not None and fd.enum_type is not None
                else lsp.SymbolKind.Field
            )
            symbols.append(lsp.DocumentSymbol(node.name.text, kind, whole, selection, value.text))
            continue
        blocks = (
            [value]
            if isinstance(value, Block)
            else [i for i in value.items if isinstance(i, Block)]
        )
        inner = fd.message_type if fd is not None else None
        if isinstance(value, ListValue) and not blocks:
            detail = "[ " + ", ".join(i.text for i in value.items if isinstance(i, Scalar)) + " ]"
            symbols.append(
                lsp.DocumentSymbol(node.name.text, lsp.SymbolKind.Array, whole, selection, detail)
            )
            continue
        repeated = fd is not None and is_repeated(fd)
        children = []
        for block in blocks:
            number = counts.get(node.name.text, 0)
            counts[node.name.text] = number + 1
            grandchildren = _fields(block.fields, inner, index) if inner is not None else []
            if not repeated:
                children = grandchildren
                break
            label = _label(block, node.name.text, number, inner)
            block_range = lsp_range(index, block.open.start, block.last.end)
            open_range = lsp_range(index, block.open.start, block.open.end)
            children.append(
                lsp.DocumentSymbol(
                    label,
                    lsp.SymbolKind.Object,
                    block_range,
                    open_range,
                    _detail(block, inner),
                    children=grandchildren,
                )
            )
        kind = lsp.SymbolKind.Array if repeated else lsp.SymbolKind.Struct
        symbols.append(
            lsp.DocumentSymbol(node.name.text, kind, whole, selection, children=children)
        )
    return symbols


def _label(block: Block, field_name: str, number: int, descriptor: Descriptor | None) -> str:
    if descriptor is not None and descriptor.full_name == STEP:
        model = string_of(field_value(block.fields, "model_name"))
        return f"step {number + 1}: {model}" if model else f"step {number + 1}"
    for name in _LABEL_FIELDS:
        value = field_value(block.fields, name)
        if value is not None:
            return string_of(value) or value.text
    return f"{field_name} [{number}]"


def _detail(block: Block, descriptor: Descriptor | None) -> str | None:
    """What a reader wants next to an input's name: its type and shape."""
    parts = []
    data_type = field_value(block.fields, "data_type")
    if data_type is not None:
        parts.append(data_type.text)
    for node in block.fields:
        if node.name.text == "dims" and isinstance(node.value, ListValue):
            parts.append(
                "[ " + ", ".join(i.text for i in node.value.items if isinstance(i, Scalar)) + " ]"
            )
    kind = field_value(block.fields, "kind")
    count = field_value(block.fields, "count")
    if descriptor is not None and descriptor.full_name == "inference.ModelInstanceGroup":
        parts = [kind.text if kind else "KIND_AUTO", f"x{count.text if count else 1}"]
    return " ".join(parts) or None


def definition(
    parsed: ParsedConfig, offset: int, repository: Path, model_config_name: str | None
) -> lsp.Location | None:
    """The config of the model named by the step `model_name` under the cursor."""
    cursor = locate(parsed.document, offset)
    if cursor.field is None or cursor.field.name.text != "model_name" or cursor.scalar is None:
        return None
    if cursor.message.full_name != STEP:
        return None
    name = string_of(cursor.scalar)
    if not name:
        return None
    folder = load_repository(repository, model_config_name).model(name)
    if folder is None or folder.config_path is None:
        return None
    start = lsp.Position(0, 0)
    return lsp.Location(path_to_uri(folder.config_path), lsp.Range(start, start))
