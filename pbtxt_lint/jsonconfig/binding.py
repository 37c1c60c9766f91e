"""The JSON config walked with ModelConfig's descriptors: the source map (field path to
position), a syntax tree for the fixes, and the problems JSON Schema cannot see
(duplicate keys, two members of a oneof, integers written as strings)."""

from __future__ import annotations

import re
from functools import cache

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from pbtxt_lint.jsonconfig.reader import JsonMember, JsonPositions, JsonValue
from pbtxt_lint.textproto.binder import (
    Problem,
    ProblemKind,
    is_map,
    is_repeated,
    message_type,
)
from pbtxt_lint.textproto.checks import (
    INT_RANGES,
    out_of_range,
)
from pbtxt_lint.textproto.integers import integer
from pbtxt_lint.textproto.sourcemap import Key, Located, PathElement, SourceMap
from pbtxt_lint.textproto.tokenizer import Token, TokenKind
from pbtxt_lint.textproto.tree import Block, Field, ListValue, Scalar

# -- binding JSON to the schema -----------------------------------------------------


@cache
def field_named(descriptor: Descriptor, key: str) -> FieldDescriptor | None:
    """A field by JSON name or proto name, as protobuf's JSON parser looks it up."""
    for fd in descriptor.fields:
        if fd.json_name == key:
            return fd
    return descriptor.fields_by_name.get(key)


def _map_key(key_fd: FieldDescriptor, text: str) -> object:
    if key_fd.cpp_type in INT_RANGES:
        try:
            return integer(text)
        except ValueError:
            return text
    if key_fd.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
        return text == "true"
    return text


class JsonBinder:
    """Walks the JSON with the descriptors: source map, syntax tree, structural problems."""

    def __init__(self, positions: JsonPositions) -> None:
        self.positions = positions
        self.source_map = SourceMap()
        self.problems: list[Problem] = []

    def key_token(self, member: JsonMember) -> Token:
        return self.positions.token(TokenKind.STRING, member.key_start, member.key_end)

    def generic(self, value: JsonValue) -> Block | ListValue | Scalar:
        """A node for a value the schema rejects: positions only, no source map."""
        p = self.positions
        if value.kind == "object":
            fields = [
                Field(self.key_token(m), p.colon(m), self.generic(m.value)) for m in value.members
            ]
            open_token, close_token = p.brackets(value)
            return Block(open_token, fields, close_token)
        if value.kind == "array":
            items: list[Scalar | Block] = []
            for item in value.items:
                node = self.generic(item)
                # Text format has no list of lists; the inner list's `[` stands for it.
                items.append(node if not isinstance(node, ListValue) else Scalar([node.open]))
            open_token, close_token = p.brackets(value)
            return ListValue(open_token, items, close_token)
        return p.scalar(value)

    def message(
        self, value: JsonValue, descriptor: Descriptor, path: tuple[PathElement, ...]
    ) -> Block:
        p = self.positions
        fields: list[Field] = []
        seen_keys: dict[str, JsonMember] = {}
        seen_fields: dict[str, JsonMember] = {}
        seen_oneofs: dict[str, tuple[FieldDescriptor, JsonMember]] = {}
        for member in value.members:
            key_span = p.span(member.key_start, member.key_end)
            first = seen_keys.get(member.key)
            fd = field_named(descriptor, member.key)
            if first is not None:
                line, _ = p.line_column(p.to_file(first.key_start))
                self.problems.append(
                    Problem(
                        ProblemKind.DUPLICATE_FIELD,
                        f'"{member.key}" appears twice in this object (first at line {line}); '
                        "JSON parsers keep only one of them",
                        key_span,
                        "keep one of the two",
                    )
                )
            seen_keys[member.key] = member
            if fd is None:
                generic = Field(self.key_token(member), p.colon(member), self.generic(member.value))
                fields.append(generic)
                continue  # reported through the schema, with a suggestion
            other = seen_fields.get(fd.name)
            if other is not None and other.key != member.key:
                self.problems.append(
                    Problem(
                        ProblemKind.DUPLICATE_FIELD,
                        f'"{member.key}" and "{other.key}" are the same field ({fd.name}); '
                        "protobuf refuses a field given twice",
                        key_span,
                        "keep one of the two",
                    )
                )
            seen_fields[fd.name] = member
            oneof = fd.containing_oneof
            if oneof is not None and not oneof.name.startswith("_") and member.value.kind != "null":
                previous = seen_oneofs.get(oneof.name)
                if previous is not None and previous[0].name != fd.name:
                    self.problems.append(
                        Problem(
                            ProblemKind.ONEOF_CONFLICT,
                            f'"{member.key}" and "{previous[1].key}" cannot both be set: they are '
                            f"alternatives of '{oneof.name}'",
                            key_span,
                            f'keep either "{member.key}" or "{previous[1].key}"',
                        )
                    )
                seen_oneofs.setdefault(oneof.name, (fd, member))
            fields.append(self.field(member, fd, path + (fd.name,)))
        open_token, close_token = p.brackets(value)
        return Block(open_token, fields, close_token)

    def field(
        self, member: JsonMember, fd: FieldDescriptor, path: tuple[PathElement, ...]
    ) -> Field:
        p = self.positions
        name = self.key_token(member)
        colon = p.colon(member)
        value = member.value
        if value.kind == "null":
            return Field(name, colon, p.scalar(value))
        if is_map(fd) and value.kind == "object":
            node = Field(name, colon, self.map(value, fd, path))
        elif is_repeated(fd) and not is_map(fd) and value.kind == "array":
            items = [self.element(item, fd, path + (i,)) for i, item in enumerate(value.items)]
            open_token, close_token = p.brackets(value)
            node = Field(name, colon, ListValue(open_token, items, close_token))
        elif not is_repeated(fd):
            element = self.element(value, fd, path, record=False)
            node = Field(name, colon, element)
        else:
            node = Field(name, colon, self.generic(value))
        value_node = node.value
        assert value_node is not None
        located_value = (
            value_node if isinstance(value_node, (Block, Scalar)) and not is_repeated(fd) else node
        )
        self.source_map.add(path, Located(name, located_value, node))
        return node

    def element(
        self,
        value: JsonValue,
        fd: FieldDescriptor,
        path: tuple[PathElement, ...],
        record: bool = True,
    ) -> Scalar | Block:
        """One value of the field's type (a list element when `record`)."""
        if fd.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE and value.kind == "object":
            node: Scalar | Block = self.message(value, message_type(fd), path)
        elif fd.cpp_type != FieldDescriptor.CPPTYPE_MESSAGE and value.kind not in (
            "object",
            "array",
        ):
            node = self.positions.scalar(value)
            self.check_scalar(value, fd)
        else:
            generic = self.generic(value)
            node = generic if not isinstance(generic, ListValue) else Scalar([generic.open])
        if record:
            self.source_map.add(path, Located(None, node, node))
        return node

    def map(self, value: JsonValue, fd: FieldDescriptor, path: tuple[PathElement, ...]) -> Block:
        p = self.positions
        entry = message_type(fd)
        key_fd, value_fd = entry.fields_by_name["key"], entry.fields_by_name["value"]
        fields: list[Field] = []
        seen: dict[object, JsonMember] = {}
        for member in value.members:
            key = _map_key(key_fd, member.key)
            name = self.key_token(member)
            if key in seen:
                line, _ = p.line_column(p.to_file(seen[key].key_start))
                self.problems.append(
                    Problem(
                        ProblemKind.DUPLICATE_MAP_KEY,
                        f"'{fd.name}' has key {key!r} twice (first at line {line}); "
                        "only the last one is kept",
                        p.span(member.key_start, member.key_end),
                        "delete or merge one of the two entries",
                    )
                )
            seen[key] = member
            entry_path = path + (Key(key),)
            node = self.element(member.value, value_fd, entry_path + ("value",), record=False)
            key_node = Scalar([name])
            self.source_map.add(entry_path, Located(name, node, node))
            self.source_map.add(entry_path + ("key",), Located(None, key_node, key_node))
            value_field = Field(name, p.colon(member), node)
            self.source_map.add(entry_path + ("value",), Located(name, node, value_field))
            fields.append(value_field)
        open_token, close_token = p.brackets(value)
        return Block(open_token, fields, close_token)

    def check_scalar(self, value: JsonValue, fd: FieldDescriptor) -> None:
        """What the schema cannot say: integers written as strings must fit too."""
        if (
            fd.cpp_type in INT_RANGES
            and value.kind == "string"
            and re.fullmatch(r"-?[0-9]+", value.value)
        ):
            low, high = INT_RANGES[fd.cpp_type]
            if not low <= integer(value.value) <= high:
                self.problems.append(
                    Problem(
                        ProblemKind.OUT_OF_RANGE,
                        out_of_range(value.value, fd),
                        self.positions.span(value.start, value.end),
                    )
                )
