"""Where `# pbtxt-lint:` comments sit, and which line of config each one is about.

The syntax lives here, beside the tokenizer, because two layers read it: the
suppressions (which findings a directive silences) and the formatter (which must not
spread a silenced line over several lines, or the findings move out from under it).
"""

from __future__ import annotations

import re

from pbtxt_lint.textproto.tokenizer import Token, TokenKind
from pbtxt_lint.textproto.tree import Document

DISABLE, DISABLE_FILE = "disable", "disable-file"
DIRECTIVE = re.compile(
    r"#\s*pbtxt-lint\s*:\s*(?P<action>[\w-]*)"
    r"(?:\s*=\s*(?P<codes>[\w-]+(?:[ \t]*,[ \t]*[\w-]+)*))?"
)


class Lines:
    """The lines of one document that hold config tokens, and those that hold comments."""

    def __init__(self, document: Document) -> None:
        self.code = {t.line for t in document.tokens if t.kind is not TokenKind.EOF}
        self.comments = {t.line for t in document.comments}

    def is_alone(self, comment: Token) -> bool:
        """Is the comment the only thing on its line (no config before it)?"""
        return comment.line not in self.code

    def target(self, comment: Token) -> int:
        """The line a `disable` comment silences: its own line when it trails config;
        alone on its line, the next line with config on it, skipping lines that hold
        only comments (stacked directives, explanations)."""
        if not self.is_alone(comment):
            return comment.line
        candidate = comment.line + 1
        while candidate not in self.code and candidate in self.comments:
            candidate += 1
        return candidate


def silenced_lines(document: Document) -> set[int]:
    """The lines that a `# pbtxt-lint: disable=...` comment of the document silences."""
    lines = Lines(document)
    found = set()
    for comment in document.comments:
        match = DIRECTIVE.match(comment.text)
        if match and match.group("action") == DISABLE and match.group("codes"):
            found.add(lines.target(comment))
    return found
