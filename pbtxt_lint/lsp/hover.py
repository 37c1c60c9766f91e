"""Hover: what a field is (documentation, type, default), what an enum value means, and
the explanation of the rule behind a diagnostic under the cursor."""

from __future__ import annotations

from collections.abc import Sequence

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from lsprotocol import types as lsp

from pbtxt_lint.lsp.convert import lsp_range
from pbtxt_lint.lsp.core import (
    Diagnostic,
    ParsedConfig,
    Rule,
    byte_size,
    is_map,
    is_repeated,
    protocol_from_config_type,
    rules_by_code,
)
from pbtxt_lint.lsp.cursor import locate
from pbtxt_lint.lsp.documents import LineIndex
from pbtxt_lint.lsp.schema_docs import DOCS

_SCALAR_NAMES = {
    FieldDescriptor.TYPE_DOUBLE: "double",
    FieldDescriptor.TYPE_FLOAT: "float",
    FieldDescriptor.TYPE_INT64: "int64",
    FieldDescriptor.TYPE_UINT64: "uint64",
    FieldDescriptor.TYPE_INT32: "int32",
    FieldDescriptor.TYPE_UINT32: "uint32",
    FieldDescriptor.TYPE_BOOL: "bool",
    FieldDescriptor.TYPE_STRING: "string",
    FieldDescriptor.TYPE_BYTES: "bytes",
}


def type_name(fd: FieldDescriptor) -> str:
    """The field's type as the .proto writes it: `repeated ModelInput`, `map<string, string>`."""
    if is_map(fd):
        entry = fd.message_type
        assert entry is not None
        key, value = entry.fields_by_name["key"], entry.fields_by_name["value"]
        return f"map<{_base(key)}, {_base(value)}>"
    return f"repeated {_base(fd)}" if is_repeated(fd) else _base(fd)


def _base(fd: FieldDescriptor) -> str:
    if fd.message_type is not None:
        return fd.message_type.name
    if fd.enum_type is not None:
        return fd.enum_type.name
    return _SCALAR_NAMES.get(fd.type, "value")


def default_of(fd: FieldDescriptor) -> str | None:
    """What Triton reads when the field is not written (proto3 defaults)."""
    if is_map(fd) or is_repeated(fd):
        return "empty"
    if fd.message_type is not None:
        return None
    if fd.enum_type is not None:
        return fd.enum_type.values_by_number[0].name if 0 in fd.enum_type.values_by_number else None
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return "false"
    if fd.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
        return '""'
    return "0"


def field_markdown(fd: FieldDescriptor) -> str:
    lines = [f"**{fd.name}** `{type_name(fd)}`"]
    default = default_of(fd)
    if default is not None:
        lines[0] += f" · default `{default}`"
    doc = DOCS.get(fd.full_name)
    if doc:
        lines += ["", doc]
    if fd.message_type is not None and not is_map(fd):
        inner = DOCS.get(fd.message_type.full_name)
        if inner and inner != doc:
            lines += ["", f"`{fd.message_type.name}`: {inner}"]
    oneof = fd.containing_oneof
    if oneof is not None:
        others = ", ".join(f"`{f.name}`" for f in oneof.fields if f is not fd)
        lines += ["", f"One of `{oneof.name}`: not together with {others}."]
    if fd.enum_type is not None:
        lines += ["", "Values: " + ", ".join(f"`{v.name}`" for v in fd.enum_type.values)]
    lines += ["", f"`{fd.full_name}`"]
    return "\n".join(lines)


def enum_value_markdown(enum: EnumDescriptor, name: str) -> str | None:
    value = enum.values_by_name.get(name)
    if value is None:
        return None
    lines = [f"**{name}** = {value.number} · `{enum.name}`"]
    doc = DOCS.get(f"{enum.full_name}.{name}")
    if doc:
        lines += ["", doc]
    if enum.full_name == "inference.DataType":
        wire = protocol_from_config_type(name)
        size = byte_size(name)
        facts = []
        if wire:
            facts.append(f"`{wire}` in KServe requests and responses")
        if size:
            facts.append(f"{size} byte{'s' if size > 1 else ''} per element")
        elif name == "TYPE_STRING":
            facts.append("variable-length bytes (each element is prefixed by its 4-byte length)")
        if facts:
            lines += ["", "; ".join(facts).capitalize() + "."]
    return "\n".join(lines)


def rule_markdown(rule: Rule) -> str:
    """A rule's documentation: summary, explanation, Bad/Good examples, Triton's message."""
    lines = [f"**{rule.code} {rule.name}** ({rule.severity.value})", "", rule.summary, ""]
    example: list[str] | None = None  # lines of the Bad/Good example being read
    for line in rule.doc.splitlines():
        if line.strip() in ("Bad:", "Good:"):
            if example is not None:
                lines += ["```pbtxt", *example, "```"]
            lines += ["", f"*{line.strip()[:-1]}*"]
            example = []
        elif example is not None and (line.startswith("    ") or not line.strip()):
            example.append(line[4:])
        else:
            if example is not None:
                lines += ["```pbtxt", *example, "```"]
                example = None
            lines.append(line)
    if example is not None:
        lines += ["```pbtxt", *example, "```"]
    if rule.triton:
        lines += ["", f"Triton ({rule.stage.value}): `{rule.triton}`"]
    return "\n".join(lines)


def hover(
    parsed: ParsedConfig, index: LineIndex, offset: int, diagnostics: Sequence[Diagnostic]
) -> lsp.Hover | None:
    parts: list[str] = []
    span: tuple[int, int] | None = None
    cursor = locate(parsed.document, offset)
    fd = cursor.fd
    if fd is not None and cursor.field is not None:
        if cursor.on_name:
            parts.append(field_markdown(fd))
            span = (cursor.field.name.start, cursor.field.name.end)
        elif cursor.scalar is not None:
            scalar = cursor.scalar
            span = (scalar.first.start, scalar.last.end)
            shown = enum_value_markdown(fd.enum_type, scalar.text) if fd.enum_type else None
            parts.append(shown or field_markdown(fd))
    rules = rules_by_code() if diagnostics else {}
    for code in dict.fromkeys(d.code for d in diagnostics):
        rule = rules.get(code)
        if rule is not None:
            parts.append(rule_markdown(rule))
    if not parts:
        return None
    return lsp.Hover(
        contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value="\n\n---\n\n".join(parts)),
        range=lsp_range(index, *span) if span else None,
    )
