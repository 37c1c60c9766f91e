"""Parse a config.pbtxt: our own reading decides, with the C++ parser's rules.

The flow: decode the bytes, build the recovering syntax tree (whose tokenizer follows
protobuf's C++ tokenizer), bind it to the schema (every problem, with positions and
fixes, and the ModelConfig itself). Triton reads the file with protobuf's C++
`TextFormat`, so that is the parser to agree with; Python's `text_format` accepts and
refuses different spellings (`- 1`, `\\777`, `0x1` for a bool, NBSP as a space...), so
it is not consulted at all: the file parses exactly when no problem of an error kind
was found, and the message the binder built is the result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pbtxt_lint.diagnostics import Edit, Fix, Span
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR, ModelConfig
from pbtxt_lint.textproto.binder import ACCEPTED_KINDS, Binder, Problem, ProblemKind
from pbtxt_lint.textproto.sniff import NotText, sniff
from pbtxt_lint.textproto.sourcemap import SourceMap
from pbtxt_lint.textproto.tokenizer import MAX_TOKENS
from pbtxt_lint.textproto.tree import Document, parse_tree

_PLACEHOLDER_RE = re.compile(r"\$\{[^}\n]*\}|\{\{[^}\n]*\}\}|\$[A-Z_][A-Z0-9_]*\b|<<[^>\n]*>>")
_BOM = "\ufeff"
MAX_REPORTED = 20
"""Problems reported for a file Triton refuses: it stops at the first, and past a few
dozen the rest are one mistake's echoes or a file that is no config at all (clang's
error limit is 20 too). The report says how many it leaves out."""


@dataclass
class ParsedConfig:
    """The outcome of parsing one file. `config` is None when Triton's parser would
    reject it."""

    text: str
    config: ModelConfig | None
    document: Document
    source_map: SourceMap
    problems: list[Problem] = field(default_factory=list)
    not_text: NotText | None = None  # what the file is when it is not text at all
    unreported: int = 0  # problems past MAX_REPORTED in a file Triton refuses


def decode(data: bytes) -> tuple[str, list[Problem]]:
    """Bytes to text, reporting what protobuf would choke on (BOM, invalid UTF-8)."""
    problems: list[Problem] = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8", errors="replace")
        line = prefix.count("\n") + 1
        column = len(prefix) - (prefix.rfind("\n") + 1) + 1
        problems.append(
            Problem(
                ProblemKind.NOT_UTF8,
                f"the file is not valid UTF-8 (byte 0x{data[error.start]:02x}); Triton reads "
                "it, but any string value keeps the raw bytes",
                Span.point(line, column),
                "save the file as UTF-8",
            )
        )
        text = data.decode("utf-8", errors="replace")
    if text.startswith(_BOM):
        problems.append(
            Problem(
                ProblemKind.ENCODING,
                "the file starts with a byte-order mark (BOM), which protobuf's parser "
                "does not accept",
                Span.point(1, 1),
                "save the file as UTF-8 without BOM",
                Fix("remove the byte-order mark", (Edit(0, 1, ""),)),
            )
        )
    return text, problems


def find_placeholders(text: str) -> list[Problem]:
    """Unrendered template variables (`${x}`, `{{ x }}`), outside comments."""
    problems = []
    # Lines end at "\n" only, as for every other position (not at \r, \f, \u2028...).
    for number, line in enumerate(text.split("\n"), start=1):
        code = _strip_comment(line)
        for match in _PLACEHOLDER_RE.finditer(code):
            problems.append(
                Problem(
                    ProblemKind.PLACEHOLDER,
                    f"unfilled template placeholder {match.group()}: this file is a "
                    "template, not a config Triton can read",
                    Span(number, match.start() + 1, number, match.end() + 1),
                    "render the template (fill every placeholder) before deploying or "
                    "linting; lint the rendered config",
                )
            )
    return problems


def _strip_comment(line: str) -> str:
    """The line without a trailing `#` comment (quotes respected)."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == "\\":
                continue
            if char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:index]
    return line


def parse_config(data: bytes) -> ParsedConfig:
    """Parse config bytes into a ModelConfig plus positions and every problem found.

    A file that is not text at all (`sniff`) and that Triton refuses gets one problem
    that says what it is, instead of one per stray byte.
    """
    not_text = sniff(data)
    if not_text is not None and b"\0" in data:
        # A NUL byte anywhere makes protobuf's C++ parser refuse the file (a string
        # or a comment ends at it): no need to read the rest.
        return _not_text(not_text)
    parsed = _parse_text(data)
    if not_text is not None and parsed.config is None:
        return _not_text(not_text)
    return parsed


def _not_text(not_text: NotText) -> ParsedConfig:
    document = parse_tree("")
    binder = Binder(MODEL_CONFIG_DESCRIPTOR)
    binder.bind(document)
    problem = Problem(ProblemKind.NOT_TEXT, not_text.message, Span.point(1, 1), not_text.hint())
    return ParsedConfig("", None, document, binder.source_map, [problem], not_text)


def _too_large(text: str, document: Document, binder: Binder) -> ParsedConfig:
    """A file of more tokens than pbtxt-lint reads: one problem, nothing else read."""
    problem = Problem(
        ProblemKind.TOO_LARGE,
        f"the file holds more than {MAX_TOKENS:,} tokens (names, values, punctuation), "
        "more than pbtxt-lint reads; a model configuration holds a few hundred",
        Span.point(1, 1),
        "a list of millions of dims or fields is no model configuration: check how the "
        "file was generated",
    )
    return ParsedConfig(text, None, document, binder.source_map, [problem])


def _parse_text(data: bytes) -> ParsedConfig:
    text, problems = decode(data)
    has_bom = text.startswith(_BOM)
    # Past a BOM (reported above; Triton's parser rejects it) the rest is read as usual.
    body = " " + text[1:] if has_bom else text
    document = parse_tree(body)
    binder = Binder(MODEL_CONFIG_DESCRIPTOR)
    if document.truncated:
        return _too_large(text, document, binder)
    binder.bind(document)
    ours = [
        Problem(ProblemKind.SYNTAX, issue.message, issue.span, issue.hint)
        for issue in document.issues
    ] + binder.problems
    if not has_bom and all(p.kind in ACCEPTED_KINDS for p in ours):
        config = binder.message
        assert isinstance(config, ModelConfig)
        return ParsedConfig(text, config, document, binder.source_map, problems + ours)
    placeholders = find_placeholders(body)
    if placeholders:
        # A template is not a config: what follows a placeholder only cascades (a
        # bare `${n}` inside a list of blocks derails the nesting), so report just
        # the placeholders; lint the rendered file for the rest.
        ours = placeholders
    refused = problems + ours
    unreported = 0 if placeholders else document.dropped_issues
    if len(refused) > MAX_REPORTED:
        refused.sort(key=lambda problem: (problem.span.line, problem.span.column))
        unreported += len(refused) - MAX_REPORTED
        refused = refused[:MAX_REPORTED]
    return ParsedConfig(text, None, document, binder.source_map, refused, unreported=unreported)
