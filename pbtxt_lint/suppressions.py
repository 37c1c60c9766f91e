"""Inline suppressions: `# pbtxt-lint: disable=PL301` and `# pbtxt-lint: disable-file=...`.

Some findings are deliberate (a model that is meant to fail over to CPU, a folder kept
for a tool); the fix is to say so next to the config line, where a reviewer sees it.
Handled here, in the core, for every rule alike:

- `disable=CODES` at the end of a line silences those codes on that line; alone on its
  own line, on the next line of config (further directive or comment lines skipped);
- `disable-file=CODES` anywhere silences them for the whole model: its config file and
  the findings about its folders and files, which have no line of their own.

CODES are rule codes or names, comma-separated. A suppression that silences nothing
(or names no rule) is reported as PL015, so suppressions do not outlive their reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pbtxt_lint.diagnostics import Diagnostic, Edit, Fix, Span
from pbtxt_lint.textproto.directives import DIRECTIVE, DISABLE, DISABLE_FILE, Lines
from pbtxt_lint.textproto.tokenizer import Token
from pbtxt_lint.textproto.tree import Document

_CODE = re.compile(r"[\w-]+")


@dataclass(frozen=True)
class Problem:
    """A PL015 finding: a suppression that silences nothing, or that cannot be read."""

    message: str
    span: Span
    hint: str | None = None
    fix: Fix | None = None


@dataclass
class CodeRef:
    """One code in a directive, where it is written, and whether it silenced anything."""

    text: str
    code: str | None  # None: names no rule
    span: Span
    used: bool = False


@dataclass
class Directive:
    comment: Token
    action: str
    codes: list[CodeRef]
    line: int | None  # the line it silences; None for disable-file
    codes_start: int = 0  # offsets of the code list in the text, for fixes
    codes_end: int = 0
    trailing: str = ""  # what follows the directive in the same comment
    alone: bool = False  # the comment is the only thing on its line


@dataclass
class Suppressions:
    """The directives of one config file."""

    path: Path
    text: str
    directives: list[Directive] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def silences(self, diagnostic: Diagnostic, model_folder: Path) -> bool:
        """Does a directive cover this diagnostic? Marks the directives that do."""
        in_file = diagnostic.path == self.path
        lineless = diagnostic.span is None and _inside(diagnostic.path, model_folder)
        if not in_file and not lineless:
            return False
        line = diagnostic.span.line if in_file and diagnostic.span is not None else None
        found = False
        for directive in self.directives:
            if directive.action == DISABLE and (line is None or directive.line != line):
                continue
            for ref in directive.codes:
                if ref.code == diagnostic.code:
                    ref.used = found = True
        return found

    def unused(self, could_report: Callable[[str], bool]) -> Iterator[Problem]:
        """PL015 problems: directives that cannot be read, unknown codes, and codes
        that silenced nothing although their rule ran (a rule that is turned off, or
        did not run, says nothing about its suppressions)."""
        yield from self.problems
        for directive in self.directives:
            for ref in directive.codes:
                if ref.code is None:
                    yield Problem(
                        f"'{ref.text}' in this suppression is not a rule code or name",
                        ref.span,
                        "`pbtxt-lint rules` lists the codes and names",
                    )
            stale = [
                r
                for r in directive.codes
                if r.code is not None and not r.used and could_report(r.code)
            ]
            if stale:
                yield self._unused_problem(directive, stale)

    def _unused_problem(self, directive: Directive, stale: list[CodeRef]) -> Problem:
        names = ", ".join(r.text for r in stale)
        where = f"on line {directive.line}" if directive.line is not None else "in this model"
        plural = "s" if len(stale) > 1 else ""
        message = f"unused suppression{plural} {names}: nothing reported {names} {where}"
        keep = [r.text for r in directive.codes if r not in stale]
        if keep:
            fix = Fix(
                f"remove {names} from the suppression",
                (Edit(directive.codes_start, directive.codes_end, ", ".join(keep)),),
            )
        else:
            fix = Fix(f"remove the suppression of {names}", (self._removal(directive),))
        hint = "remove it (`pbtxt-lint check --fix` does)"
        return Problem(message, stale[0].span, hint, fix)

    def _removal(self, directive: Directive) -> Edit:
        """The edit deleting a whole directive (its line, if it is alone there)."""
        comment = directive.comment
        if directive.trailing.strip():
            # Keep what follows (`# pbtxt-lint: disable=X  # note` -> `# note`).
            end = comment.end - len(directive.trailing.lstrip())
            return Edit(comment.start, end, "")
        text = self.text
        if directive.alone:
            start = text.rfind("\n", 0, comment.start) + 1
            newline = text.find("\n", comment.end)
            return Edit(start, len(text) if newline < 0 else newline + 1, "")
        start = comment.start
        while start > 0 and text[start - 1] in " \t":
            start -= 1
        return Edit(start, comment.end, "")


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def parse(
    path: Path, text: str, document: Document, resolve: Callable[[str], str | None]
) -> Suppressions:
    """Read every `# pbtxt-lint:` comment of a parsed file. `resolve` maps a code or
    rule name to its code (None if it names no rule)."""
    found = Suppressions(path, text)
    lines = Lines(document)
    for comment in document.comments:
        match = DIRECTIVE.match(comment.text)
        if match is None:
            continue
        action = match.group("action")
        anchor = Span.point(comment.line, comment.column, len(comment.text))
        if action not in (DISABLE, DISABLE_FILE):
            close = " (did you mean 'disable' or 'disable-file'?)" if action else ""
            found.problems.append(
                Problem(
                    f"unknown pbtxt-lint directive '{action}'{close}; it silences nothing",
                    anchor,
                    "write `# pbtxt-lint: disable=CODE` or `# pbtxt-lint: disable-file=CODE`",
                )
            )
            continue
        if match.group("codes") is None:
            found.problems.append(
                Problem(
                    f"'{action}' names no rule; it silences nothing",
                    anchor,
                    f"name the codes: `# pbtxt-lint: {action}=PL301,PL302`",
                )
            )
            continue
        alone = lines.is_alone(comment)
        line = lines.target(comment) if action == DISABLE else None
        directive = Directive(
            comment,
            action,
            list(_code_refs(comment, match, resolve)),
            line,
            codes_start=comment.start + match.start("codes"),
            codes_end=comment.start + match.end("codes"),
            trailing=comment.text[match.end() :],
            alone=alone,
        )
        found.directives.append(directive)
    return found


def _code_refs(
    comment: Token, match: re.Match[str], resolve: Callable[[str], str | None]
) -> Iterable[CodeRef]:
    offset = match.start("codes")
    for item in _CODE.finditer(match.group("codes")):
        column = comment.column + offset + item.start()
        span = Span(comment.line, column, comment.line, column + len(item.group()))
        yield CodeRef(item.group(), resolve(item.group()), span)
