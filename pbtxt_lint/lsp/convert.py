"""Engine diagnostics to LSP diagnostics on one open config file.

A finding in the config gets its exact range. A finding about another file or folder
of the model (a version folder, model.onnx) has no place in the buffer: it is shown on
the first line, its message prefixed with the path, with the real location attached as
related information, so the editor still shows every problem of the model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types as lsp

from pbtxt_lint.lsp.core import Diagnostic, Severity, Span
from pbtxt_lint.lsp.documents import LineIndex, path_to_uri, same_file

SOURCE = "pbtxt-lint"
_SEVERITIES = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
}
UNUSED_SUPPRESSION = "PL015"


@dataclass(frozen=True)
class Placed:
    """An engine diagnostic and where it sits in the buffer (offsets; None when it is
    about another file and shown on the first line)."""

    diagnostic: Diagnostic
    offsets: tuple[int, int] | None
    in_document: bool  # about this file (a fix's offsets are into its text)


def lsp_range(index: LineIndex, start: int, end: int) -> lsp.Range:
    first, last = index.position(start), index.position(end)
    return lsp.Range(
        lsp.Position(first.line, first.character), lsp.Position(last.line, last.character)
    )


def place(diagnostic: Diagnostic, document: Path, index: LineIndex) -> Placed:
    inside = same_file(diagnostic.path, document)
    if diagnostic.span is not None and inside:
        return Placed(diagnostic, index.span_offsets(diagnostic.span), True)
    return Placed(diagnostic, None, inside)


def docs_link(code: str, docs_url: str | None) -> lsp.CodeDescription | None:
    if not docs_url:
        return None
    return lsp.CodeDescription(href=f"{docs_url}#{code.lower()}")


def to_lsp(
    placed: Placed, key: int, document: Path, index: LineIndex, docs_url: str | None
) -> lsp.Diagnostic:
    """The LSP form; `key` (in `data`) finds the engine diagnostic again for code actions."""
    diagnostic = placed.diagnostic
    message = diagnostic.message
    related = None
    if placed.offsets is not None:
        range_ = lsp_range(index, *placed.offsets)
    else:
        first_line = index.line_text(0)
        range_ = lsp.Range(lsp.Position(0, 0), lsp.Position(0, len(first_line)))
        if not placed.in_document:
            shown = _relative(diagnostic.path, document)
            message = f"{shown}: {message}"
            if os.path.isfile(diagnostic.path):
                related = [
                    lsp.DiagnosticRelatedInformation(
                        lsp.Location(path_to_uri(diagnostic.path), _span_range(diagnostic.span)),
                        shown,
                    )
                ]
    if diagnostic.hint:
        message = f"{message}\nhint: {diagnostic.hint}"
    tags = [lsp.DiagnosticTag.Unnecessary] if diagnostic.code == UNUSED_SUPPRESSION else None
    return lsp.Diagnostic(
        range=range_,
        message=message,
        severity=_SEVERITIES[diagnostic.severity],
        code=diagnostic.code,
        code_description=docs_link(diagnostic.code, docs_url),
        source=SOURCE,
        related_information=related,
        tags=tags,
        data={"key": key},
    )


def _span_range(span: Span | None) -> lsp.Range:
    """A range in a file that is not open (code-point columns, good enough there)."""
    if span is None:
        return lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    return lsp.Range(
        lsp.Position(span.line - 1, span.column - 1),
        lsp.Position(span.end_line - 1, span.end_column - 1),
    )


def _relative(path: Path, document: Path) -> str:
    """`path` as the CLI shows it, relative to the repository of `document`."""
    model = document.parent.parent if document.parent.name == "configs" else document.parent
    try:
        return Path(os.path.relpath(path, model.parent)).as_posix()
    except ValueError:
        return str(path)
