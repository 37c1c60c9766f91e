"""Helpers the PL7xx topic modules share: how backends parse parameter values, where
a model's instances run, and where a file the model names is found."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from pbtxt_lint.analysis.instances import GPU, resolve_groups
from pbtxt_lint.rules.api import (
    INT32_MAX,
    INT32_MIN,
    FieldPath,
    Key,
    ModelConfig,
    ModelContext,
    Severity,
    is_inside,
    leading_int,
    parse_bool,
)

INT_HINT = 'write a whole number, e.g. "4"'
BOOL_HINT = 'write "true" or "false"'


def params(config: ModelConfig) -> Iterator[tuple[str, str, FieldPath]]:
    """(key, string value, path of the value) for each `parameters` entry."""
    for key, value in config.parameters.items():
        yield key, value.string_value, ("parameters", Key(key), "value", "string_value")


def int_problem(text: str) -> str | None:
    """Why `std::stoi` (ParseIntValue) rejects `text`, or None when it reads a number."""
    value = leading_int(text)
    if value is None:
        return f"'{text}' is not a number (\"failed to convert '{text}' to integral number\")"
    if not INT32_MIN <= value <= INT32_MAX:
        return f"'{text}' does not fit a 32-bit integer (std::stoi throws)"
    return None


def bool_problem(text: str) -> str | None:
    """Why `ParseBoolValue` rejects `text`, or None when it reads a boolean."""
    if parse_bool(text) is None:
        return (
            f"'{text}' is not a boolean: the backend accepts true/false, on/off or 1/0 "
            f"(\"failed to convert '{text}' to boolean\")"
        )
    return None


def parser_problems(
    config: ModelConfig, checks: Mapping[str, Callable[[str], str | None]]
) -> Iterator[tuple[str, FieldPath, str, str]]:
    """(key, path, why, hint) for parameters that fail their backend's parser."""
    for key, value, at in params(config):
        check = checks.get(key)
        why = check(value) if check else None
        if why:
            yield key, at, why, BOOL_HINT if check is bool_problem else INT_HINT


def gpu_instances(context: ModelContext) -> Severity | None:
    """ERROR when an instance runs on a GPU, WARNING when that depends on the host."""
    kinds = {group.kind for group in resolve_groups(context)}
    if GPU in kinds:
        return Severity.ERROR
    return Severity.WARNING if None in kinds else None


def is_file(context: ModelContext, path: Path) -> bool:
    """A regular file inside the repository (never looks outside it)."""
    return is_inside(context.repository.root, path) and path.is_file()


def version_holding(context: ModelContext, relative: str) -> str | None:
    """The loaded version folder that holds `relative` (for a "wrong folder" hint)."""
    for version in context.selection.versions:
        if is_file(context, context.folder.path / str(version) / relative):
            return str(version)
    return None
