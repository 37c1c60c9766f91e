"""What the text-format binder and the JSON reader check and say alike.

A config written as JSON (`jsonconfig.py`) is validated by JSON Schema, a config in
text format by the binder (`binder.py`); both explain a problem in the same words,
from here: the integer ranges of protobuf's types, "did you mean" for fields and enum
values, how a block of ModelConfig is named.
"""

from __future__ import annotations

from collections.abc import Iterable

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

INT_RANGES = {
    FieldDescriptor.CPPTYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.CPPTYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.CPPTYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.CPPTYPE_UINT64: (0, 2**64 - 1),
}
"""The values each integer type of protobuf holds."""


def out_of_range(text: str, fd: FieldDescriptor) -> str:
    """The message for an integer (as written) that `fd`'s type cannot hold."""
    low, high = INT_RANGES[fd.cpp_type]
    return f"{text} is out of range for '{fd.name}' ({low} to {high})"


def message_label(descriptor: Descriptor) -> str:
    """A block of the config as messages name it: `the model configuration`, `'ModelInput'`."""
    if descriptor.full_name == "inference.ModelConfig":
        return "the model configuration"
    return f"'{descriptor.full_name.removeprefix('inference.')}'"


def suggest(word: str, candidates: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The closest candidate, case-insensitively, or None."""
    import difflib  # only when there is a mistake to explain

    by_lower = {c.lower(): c for c in candidates}
    match = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=cutoff)
    return by_lower[match[0]] if match else None


def enum_suggestion(word: str, enum_type: EnumDescriptor) -> str | None:
    """Best guess at the enum value meant by `word` (TYPE_FLOAT32, GPU, fp32...)."""
    from pbtxt_lint.schema.datatypes import MISSPELLINGS  # deferred: only on a mistake

    names = list(enum_type.values_by_name)
    upper = word.upper()
    if upper in enum_type.values_by_name:
        return upper
    fixed = MISSPELLINGS.get(upper)
    if fixed in enum_type.values_by_name:
        return fixed
    prefixes = {name.split("_", 1)[0] + "_" for name in names if "_" in name}
    for prefix in sorted(prefixes):
        if prefix + upper in enum_type.values_by_name:
            return prefix + upper
        fixed = MISSPELLINGS.get(prefix + upper)
        if fixed in enum_type.values_by_name:
            return fixed
    return suggest(word, names)


def unknown_enum(word: str, fd: FieldDescriptor) -> tuple[str, str, str | None]:
    """The message and hint for `word` as a value of enum field `fd`, and the value it
    probably means (None: no close one)."""
    enum_type = fd.enum_type
    assert enum_type is not None
    target = enum_suggestion(word, enum_type)
    message = f"'{word}' is not a value of {enum_type.name} (field '{fd.name}')"
    names = ", ".join(enum_type.values_by_name)
    return message, f"did you mean {target}?" if target else f"use one of: {names}", target
