"""Placeholder seam: the artifacts engineer replaces this module."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbtxt_lint.rules.base import ModelContext


class ModelArtifacts:
    def __init__(self, context: ModelContext) -> None:
        self.context = context
