"""JSON Schema's verdicts on a JSON config in our words: the same problem kinds, messages
and fixes as the text-format binder gives (`textproto/checks.py` holds what they share)."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from pbtxt_lint.diagnostics import Edit, Fix
from pbtxt_lint.jsonconfig.binding import field_named
from pbtxt_lint.jsonconfig.reader import JsonMember, JsonPositions, JsonValue
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR
from pbtxt_lint.textproto.binder import (
    FIELD_ALIASES,
    Problem,
    ProblemKind,
    is_map,
    is_repeated,
    message_type,
)
from pbtxt_lint.textproto.checks import (
    INT_RANGES,
    message_label,
    out_of_range,
    suggest,
    unknown_enum,
)

# -- schema errors in our words -----------------------------------------------------


def _locate(
    root: JsonValue, path: list[Any]
) -> tuple[JsonValue, Descriptor | None, FieldDescriptor | None, bool]:
    """The JSON value at a schema error's path; the message type of that value (when it
    is a message object); the field it is a value of; and whether it is one element of
    a repeated field or a map (rather than the whole list or map)."""
    value = root
    descriptor: Descriptor | None = MODEL_CONFIG_DESCRIPTOR
    fd: FieldDescriptor | None = None
    element = False
    for step in path:
        if value.kind == "object" and isinstance(step, str):
            member = value.member(step)
            if member is None:
                break
            value = member.value
            if fd is not None and is_map(fd) and not element:
                fd = message_type(fd).fields_by_name["value"]  # `step` is a map key
                element = True
            else:
                fd = field_named(descriptor, step) if descriptor is not None else None
                element = False
        elif value.kind == "array" and isinstance(step, int) and 0 <= step < len(value.items):
            value = value.items[step]
            element = True
        else:
            break
        whole = fd is not None and (is_map(fd) or is_repeated(fd)) and not element
        descriptor = fd.message_type if fd is not None and not whole else None
    return value, descriptor, fd, element


def _type_words(fd: FieldDescriptor) -> str:
    cpp = fd.cpp_type
    if cpp == FieldDescriptor.CPPTYPE_MESSAGE:
        return "an object { ... }"
    if cpp == FieldDescriptor.CPPTYPE_ENUM:
        return "an enum name in quotes"
    if cpp in INT_RANGES:
        return "an integer"
    if cpp in (FieldDescriptor.CPPTYPE_FLOAT, FieldDescriptor.CPPTYPE_DOUBLE):
        return "a number"
    if cpp == FieldDescriptor.CPPTYPE_BOOL:
        return "true or false"
    return "a string in double quotes"


def _json_text(value: JsonValue) -> str:
    if value.kind in ("object", "array"):
        return "an object" if value.kind == "object" else "a list"
    return json.dumps(value.value)


class SchemaErrors:
    """jsonschema errors -> Problems with positions, suggestions and fixes."""

    def __init__(self, root: JsonValue, positions: JsonPositions, editable: bool) -> None:
        self.root = root
        self.positions = positions
        self.editable = editable
        self.problems: list[Problem] = []
        self.seen: set[tuple[int, int, ProblemKind]] = set()

    def add(
        self,
        kind: ProblemKind,
        message: str,
        where: tuple[int, int],
        hint: str | None = None,
        fix: Fix | None = None,
    ) -> None:
        """A problem at `where` (start and end offsets in the JSON text), once."""
        start, end = where
        if (start, end, kind) in self.seen:
            return
        self.seen.add((start, end, kind))
        fix = fix if self.editable else None
        self.problems.append(Problem(kind, message, self.positions.span(start, end), hint, fix))

    def replace(self, start: int, end: int, text: str, description: str) -> Fix:
        file_start, file_end = self.positions.to_file(start), self.positions.to_file(end)
        return Fix(description, (Edit(file_start, file_end, text),))

    def translate(self, error: Any) -> None:
        if error.validator == "not":
            return  # both names of a field, or two members of a oneof: the binder says so
        path = list(error.absolute_path)
        value, descriptor, fd, element = _locate(self.root, path)
        if (
            error.validator == "additionalProperties"
            and descriptor is not None
            and value.kind == "object"
        ):
            for member in value.members:
                if field_named(descriptor, member.key) is None:
                    self.unknown_field(member, descriptor)
            return
        if error.validator == "propertyNames" and fd is not None:
            self.add(
                ProblemKind.WRONG_TYPE,
                f"the keys of '{fd.name}' are numbers written as strings",
                (value.start, value.end),
            )
            return
        if fd is None:
            if not path:
                self.add(
                    ProblemKind.WRONG_TYPE,
                    f"a model configuration is a JSON object {{ ... }}, not {_json_text(value)}",
                    (value.start, value.end),
                )
            return
        if not element and is_map(fd):
            self.add(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' is a map: write an object {{\"<key>\": ...}}, "
                f"not {_json_text(value)}",
                (value.start, value.end),
            )
        elif not element and is_repeated(fd):
            self.add(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' is repeated: write a list [ ... ] of {_type_words(fd)}, "
                f"not {_json_text(value)}",
                (value.start, value.end),
                f'write "{fd.json_name}": [ ... ]',
            )
        elif fd.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
            self.enum(value, fd)
        elif (
            fd.cpp_type in INT_RANGES
            and value.kind == "number"
            and isinstance(value.value, int | float)
            and float(value.value).is_integer()
        ):
            self.add(
                ProblemKind.OUT_OF_RANGE,
                out_of_range(self.positions.written(value.start, value.end), fd),
                (value.start, value.end),
            )
        else:
            hint, fix = None, None
            if (
                fd.cpp_type == FieldDescriptor.CPPTYPE_BOOL
                and value.kind == "string"
                and value.value in ("true", "false")
            ):
                hint = f"write {value.value} without quotes"
                fix = self.replace(value.start, value.end, value.value, "remove the quotes")
            self.add(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects {_type_words(fd)}, not {_json_text(value)}",
                (value.start, value.end),
                hint,
                fix,
            )

    def unknown_field(self, member: JsonMember, descriptor: Descriptor) -> None:
        key = member.key
        names = [fd.name for fd in descriptor.fields]
        target = FIELD_ALIASES.get(key)
        if target not in descriptor.fields_by_name:
            target = suggest(key, names + [fd.json_name for fd in descriptor.fields])
        label = message_label(descriptor)
        message = f'{label} has no field named "{key}"'
        if target is None:
            self.add(
                ProblemKind.UNKNOWN_FIELD,
                message,
                (member.key_start, member.key_end),
                f"the fields of {label} are: {', '.join(sorted(names))}",
            )
            return
        fd = field_named(descriptor, target)
        assert fd is not None
        camel = any(c.isupper() for c in key) and "_" not in key
        spelled = fd.json_name if camel else fd.name
        self.add(
            ProblemKind.UNKNOWN_FIELD,
            message,
            (member.key_start, member.key_end),
            f'did you mean "{spelled}"?',
            self.replace(
                member.key_start,
                member.key_end,
                json.dumps(spelled),
                f'rename "{key}" to "{spelled}"',
            ),
        )

    def enum(self, value: JsonValue, fd: FieldDescriptor) -> None:
        enum_type = fd.enum_type
        assert enum_type is not None
        names = list(enum_type.values_by_name)
        if value.kind != "string":
            self.add(
                ProblemKind.WRONG_TYPE,
                f"'{fd.name}' expects an enum name, not {_json_text(value)}",
                (value.start, value.end),
                f"use one of: {', '.join(names)}",
            )
            return
        message, hint, target = unknown_enum(value.value, fd)
        fix = (
            self.replace(value.start, value.end, json.dumps(target), f"replace with {target}")
            if target
            else None
        )
        self.add(ProblemKind.UNKNOWN_ENUM, message, (value.start, value.end), hint, fix)
