"""Everything the language server uses from the engine, imported in one place.

The engine is being reorganised; keeping the server's view of it to this module makes
re-pointing an import a one-line change. Nothing here imports pygls: the lint worker
process uses this module alone.
"""

from __future__ import annotations

from pbtxt_lint.analysis.context import Workspace
from pbtxt_lint.analysis.ensemble import describe_model
from pbtxt_lint.config import ConfigError, Options, known_rules, resolve_settings
from pbtxt_lint.diagnostics import Diagnostic, Edit, Fix, Severity, Span
from pbtxt_lint.fixes import apply_edits
from pbtxt_lint.linter import CheckOptions, LintResult, check
from pbtxt_lint.repository.fs import FsError, read_text_file
from pbtxt_lint.repository.layout import (
    CONFIG_NAME,
    CONFIGS_FOLDER,
    Overlay,
    classify,
    load_repository,
)
from pbtxt_lint.rules.base import Rule
from pbtxt_lint.rules.registry import RULES_BY_CODE
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR, ModelConfig
from pbtxt_lint.schema.datatypes import byte_size, protocol_from_config_type
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.binder import is_map, is_repeated, message_type
from pbtxt_lint.textproto.format import FormatError, format_text
from pbtxt_lint.textproto.parse import ParsedConfig, parse_config
from pbtxt_lint.textproto.tokenizer import Token, TokenKind, string_value
from pbtxt_lint.textproto.tree import Block, Document, Field, ListValue, Scalar
from pbtxt_lint.textproto.write import is_formatted, keep_layout
from pbtxt_lint.triton.autofill import ENSEMBLE_PLATFORM
from pbtxt_lint.triton.autofill import is_ensemble as is_ensemble_config
from pbtxt_lint.triton.backends import BACKENDS, PLATFORMS

KNOWN_BACKENDS = tuple(BACKENDS)
"""Backend names Triton's containers know (`triton.backends`)."""
KNOWN_PLATFORMS = (*PLATFORMS, ENSEMBLE_PLATFORM)
"""Platform names Triton's core knows."""


def rules_by_code() -> dict[str, Rule]:
    """Every rule (meta rules included) by code."""
    return dict(RULES_BY_CODE)


__all__ = [
    "CONFIGS_FOLDER",
    "CONFIG_NAME",
    "KNOWN_BACKENDS",
    "KNOWN_PLATFORMS",
    "MODEL_CONFIG_DESCRIPTOR",
    "Block",
    "CheckOptions",
    "ConfigError",
    "Diagnostic",
    "Document",
    "Edit",
    "Field",
    "Fix",
    "FormatError",
    "FsError",
    "LintResult",
    "ListValue",
    "ModelConfig",
    "Options",
    "Overlay",
    "ParsedConfig",
    "Rule",
    "Scalar",
    "Settings",
    "Severity",
    "Span",
    "Token",
    "TokenKind",
    "Workspace",
    "apply_edits",
    "byte_size",
    "check",
    "classify",
    "describe_model",
    "format_text",
    "is_ensemble_config",
    "is_formatted",
    "is_map",
    "is_repeated",
    "keep_layout",
    "known_rules",
    "load_repository",
    "message_type",
    "parse_config",
    "protocol_from_config_type",
    "read_text_file",
    "resolve_settings",
    "rules_by_code",
    "string_value",
]
