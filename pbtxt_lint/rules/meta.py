"""PL015 and PL016: rules about how the config meets pbtxt-lint's own settings.

PL015 (unused suppressions) is reported by the linter core, which is where suppressions
are applied (`suppressions.py`); its check here yields nothing. PL016 compares the
config with the schema of the Triton release given by `--triton-version`
(`targets.py`).
"""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from pbtxt_lint.rules.api import (
    NEWEST,
    FieldPath,
    Finding,
    Key,
    ModelContext,
    Release,
    Rule,
    Severity,
    Stage,
    introduced,
    is_map,
    is_repeated,
    rule,
)

UNUSED_SUPPRESSION = "PL015"


@rule(
    UNUSED_SUPPRESSION,
    "unused-suppression",
    Severity.WARNING,
    "A `# pbtxt-lint: disable` comment that silences nothing, or names no rule.",
    needs_config=False,
)
def unused_suppression(context: ModelContext) -> Iterator[Finding]:
    """A suppression whose finding is gone (fixed, or the line moved) hides the next,
    real problem of that code on that line; one that names no rule (`PL31`, a typo)
    never silenced anything. Reported by the linter core after every rule has run,
    only for rules that are turned on and ran on the model.

    Bad:
        max_batch_size: 8  # pbtxt-lint: disable=PL301
    Good:
        max_batch_size: 8
    """
    yield from ()


@rule(
    "PL016",
    "unknown-in-target-release",
    Severity.ERROR,
    "A field or enum value that the target Triton release (--triton-version) does not know.",
    triton='Message type "inference.<Message>" has no field named "<field>".',
    stage=Stage.PARSE,
)
def unknown_in_target_release(context: ModelContext) -> Iterator[Finding]:
    """Triton parses config.pbtxt with the schema of its own release: a field or enum
    value added later (`optional` on inputs came in 22.01 / 2.18, `TYPE_BF16` in 22.05
    / 2.22, `model_metrics` in 24.11 / 2.52) makes the whole file unreadable there,
    with `has no field named` or `Unknown enumeration value`. Checked only with a
    target release; without one the newest release is assumed and this never fires.

    Bad:
        # pbtxt-lint check --triton-version 21.12
        input [ { name: "mask" data_type: TYPE_BOOL dims: [ -1 ] optional: true } ]
    Good:
        # pbtxt-lint check --triton-version 22.01
        input [ { name: "mask" data_type: TYPE_BOOL dims: [ -1 ] optional: true } ]
    """
    target = context.settings.target
    if target is None or target >= NEWEST or context.config is None:
        return
    for path, symbol, release, kind in _newer_than(context.config, (), target):
        name = symbol.rsplit(".", 1)[-1]
        owner = symbol.rsplit(".", 1)[0]
        if kind == "field":
            message = (
                f"field '{name}' of {owner} is new in Triton {release.label}: Triton "
                f"{target.label} does not know it and cannot read this config"
            )
        else:
            message = (
                f"{owner} value {name} is new in Triton {release.label}: Triton "
                f"{target.label} does not know it and cannot read this config"
            )
        yield Finding(
            message,
            at=path,
            hint=f"remove it, or deploy on Triton {release.container} or later",
        )


def _newer_than(
    message: Message, path: FieldPath, target: Release
) -> Iterator[tuple[FieldPath, str, Release, str]]:
    """(field path, symbol, release that added it, "field" or "enum") for every field or
    enum value set in `message` that the target release does not know. Nothing is
    reported inside a field that is itself too new (one finding per cause)."""
    owner = message.DESCRIPTOR.full_name.removeprefix("inference.")
    for fd, value in message.ListFields():
        here = (*path, fd.name)
        added = introduced(f"{owner}.{fd.name}")
        if added is not None and added > target:
            yield here, f"{owner}.{fd.name}", added, "field"
            continue
        yield from _values(fd, value, here, target)


def _values(
    fd: FieldDescriptor, value: object, path: FieldPath, target: Release
) -> Iterator[tuple[FieldPath, str, Release, str]]:
    if is_map(fd):
        assert fd.message_type is not None
        value_fd = fd.message_type.fields_by_name["value"]
        for key, item in value.items():  # type: ignore[attr-defined]
            yield from _values(value_fd, item, (*path, Key(key)), target)
        return
    repeated = is_repeated(fd)
    items = list(value) if repeated else [value]  # type: ignore[call-overload]
    for index, item in enumerate(items):
        here = (*path, index) if repeated else path
        if isinstance(item, Message):
            yield from _newer_than(item, here, target)
        elif fd.enum_type is not None:
            enum_value = fd.enum_type.values_by_number.get(item)
            if enum_value is None:
                continue
            symbol = f"{fd.enum_type.full_name.removeprefix('inference.')}.{enum_value.name}"
            added = introduced(symbol)
            if added is not None and added > target:
                yield here, symbol, added, "enum"


META_RULES: tuple[Rule, ...] = (unused_suppression, unknown_in_target_release)
