"""Code actions: each diagnostic's fix (labelled safe or unsafe), a suppression comment
for it, and "fix all safe problems in this file".

Fixes are the engine's own (offsets into the text that was linted); they are offered
only while the buffer still is that text. "Fix all" applies the safe fixes together
the way `check --fix` does (never two that overlap) and is not offered when the
result would parse worse than the buffer. Like `check --fix`, both keep a buffer that is
in `fmt` layout in it (`keep_layout`).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from lsprotocol import types as lsp

from pbtxt_lint.lsp.convert import SOURCE, UNUSED_SUPPRESSION, Placed, lsp_range
from pbtxt_lint.lsp.core import (
    Fix,
    TokenKind,
    apply_edits,
    is_formatted,
    keep_layout,
    parse_config,
)
from pbtxt_lint.lsp.documents import LineIndex

if TYPE_CHECKING:
    from pbtxt_lint.lsp.server import Published

FIX_ALL_KIND = lsp.CodeActionKind.SourceFixAll + ".pbtxt-lint"
_DISABLE = re.compile(
    r"#\s*pbtxt-lint\s*:\s*(disable|disable-file)\s*=\s*([\w-]+(?:[ \t]*,[ \t]*[\w-]+)*)"
)


def minimal_edit(old: str, new: str, index: LineIndex) -> lsp.TextEdit | None:
    """One edit turning `old` into `new`: the changed middle, common ends kept."""
    if old == new:
        return None
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return lsp.TextEdit(lsp_range(index, start, end_old), new[start:end_new])


def _wanted(kind: str, only: list[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def code_actions(
    uri: str, text: str, index: LineIndex, published: Published, params: lsp.CodeActionParams
) -> list[lsp.CodeAction]:
    only = [str(k) for k in params.context.only] if params.context.only else None
    found: list[lsp.CodeAction] = []
    formatted: list[bool] = []  # is_formatted(text), computed once and only if needed
    if _wanted(lsp.CodeActionKind.QuickFix, only):
        for diagnostic in params.context.diagnostics:
            if diagnostic.source != SOURCE or not isinstance(diagnostic.data, dict):
                continue
            key = diagnostic.data.get("key")
            if not isinstance(key, int) or not 0 <= key < len(published.placed):
                continue
            placed = published.placed[key]
            fix = placed.diagnostic.fix
            if fix is not None and fix.edits and placed.in_document:
                if not formatted:
                    formatted.append(is_formatted(text))
                found.append(
                    _fix_action(uri, text, index, diagnostic, placed, fix, formatted=formatted[0])
                )
            suppress = _suppress_action(uri, text, index, diagnostic, placed)
            if suppress is not None:
                found.append(suppress)
    if _wanted(FIX_ALL_KIND, only):
        fix_all = _fix_all(uri, text, index, published)
        if fix_all is not None:
            found.append(fix_all)
    return found


def _fix_action(
    uri: str,
    text: str,
    index: LineIndex,
    diagnostic: lsp.Diagnostic,
    placed: Placed,
    fix: Fix,
    *,
    formatted: bool,
) -> lsp.CodeAction:
    code = placed.diagnostic.code
    label = "safe fix" if fix.safe else "unsafe fix: changes behaviour, review it"
    edits = [lsp.TextEdit(lsp_range(index, e.start, e.end), e.text) for e in fix.edits]
    if formatted:
        fixed, applied = apply_edits(text, [fix])
        laid_out = keep_layout(text, fixed, formatted=True) if applied else fixed
        edit = minimal_edit(text, laid_out, index) if laid_out != fixed else None
        edits = [edit] if edit is not None else edits
    return lsp.CodeAction(
        title=f"{code}: {fix.description} ({label})",
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=fix.safe,
        edit=lsp.WorkspaceEdit(changes={uri: edits}),
    )


def _suppress_action(
    uri: str, text: str, index: LineIndex, diagnostic: lsp.Diagnostic, placed: Placed
) -> lsp.CodeAction | None:
    code = placed.diagnostic.code
    if code == UNUSED_SUPPRESSION:
        return None  # delete the stale comment instead (its fix)
    if placed.offsets is None:
        edit = _add_directive(text, index, "disable-file", code, line=None)
        title = f"Suppress {code} for this model (# pbtxt-lint: disable-file={code})"
    else:
        line = index.position(placed.offsets[0]).line
        edit = _add_directive(text, index, "disable", code, line=line)
        title = f"Suppress {code} on this line (# pbtxt-lint: disable={code})"
    return lsp.CodeAction(
        title=title,
        kind=lsp.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        edit=lsp.WorkspaceEdit(changes={uri: [edit]}),
    )


def _add_directive(
    text: str, index: LineIndex, action: str, code: str, line: int | None
) -> lsp.TextEdit:
    """Add `code` to an existing directive, or write a new one.

    `disable` goes at the end of the line (or alone on the line above when the line
    already ends with another comment, which a directive may not follow); `disable-file`
    goes on the first line.
    """
    parsed = parse_config(text.encode("utf-8", errors="surrogateescape"))
    comments = parsed.document.comments
    for comment in comments:
        if comment.kind is not TokenKind.COMMENT:
            continue
        if line is not None and comment.line - 1 != line:
            continue
        match = _DISABLE.match(comment.text)
        if match and match.group(1) == action:
            at = comment.start + match.end(2)
            return lsp.TextEdit(lsp_range(index, at, at), f",{code}")
    directive = f"# pbtxt-lint: {action}={code}"
    if line is None:
        return lsp.TextEdit(lsp_range(index, 0, 0), directive + "\n")
    start = index.starts[line]
    line_text = index.line_text(line)
    if any(c.line - 1 == line for c in comments):
        indent = line_text[: len(line_text) - len(line_text.lstrip())]
        return lsp.TextEdit(lsp_range(index, start, start), f"{indent}{directive}\n")
    end = start + len(line_text)
    return lsp.TextEdit(lsp_range(index, end, end), f"  {directive}")


def _fix_all(uri: str, text: str, index: LineIndex, published: Published) -> lsp.CodeAction | None:
    fixes = [
        p.diagnostic.fix
        for p in published.placed
        if p.diagnostic.fix is not None
        and p.diagnostic.fix.safe
        and p.diagnostic.fix.edits
        and p.in_document
    ]
    if not fixes:
        return None
    fixed, applied = apply_edits(text, [f for f in fixes if f is not None])
    if not applied or fixed == text:
        return None
    fixed = keep_layout(text, fixed)
    before = parse_config(text.encode("utf-8", errors="surrogateescape"))
    after = parse_config(fixed.encode("utf-8", errors="surrogateescape"))
    if after.config is None and before.config is not None:
        return None
    edit = minimal_edit(text, fixed, index)
    if edit is None:
        return None
    return lsp.CodeAction(
        title=f"Fix all safe problems in this file ({applied})",
        kind=FIX_ALL_KIND,
        edit=lsp.WorkspaceEdit(changes={uri: [edit]}),
    )
