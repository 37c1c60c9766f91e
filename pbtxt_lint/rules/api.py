"""The one module a rule imports for its tools.

A rule reads a typed `ModelContext` and yields `Finding`s; everything it needs to say
so (the decorator, severities, field paths, the helpers that print values, the
did-you-mean and the model's name in messages) comes from here, so rules do not reach
into the layers below one by one.
"""

from __future__ import annotations

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Fix, Severity
from pbtxt_lint.echo import shorten
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import config_dims, type_name, written
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.textproto.binder import suggest
from pbtxt_lint.textproto.sourcemap import FieldPath, Key
from pbtxt_lint.triton.parameters import parameter

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

__all__ = [
    "ERROR",
    "INFO",
    "WARNING",
    "DataType",
    "FieldPath",
    "Finding",
    "Fix",
    "Key",
    "ModelConfig",
    "ModelContext",
    "Scope",
    "Severity",
    "Stage",
    "config_dims",
    "parameter",
    "rule",
    "shorten",
    "suggest",
    "type_name",
    "written",
]
