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

import bisect
import re
from collections import Counter
from dataclasses import dataclass, field

from pbtxt_lint.diagnostics import Edit, Fix, Span
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR, ModelConfig
from pbtxt_lint.textproto.binder import ACCEPTED_KINDS, Binder, Problem, ProblemKind
from pbtxt_lint.textproto.sniff import NotText, sniff
from pbtxt_lint.textproto.sourcemap import SourceMap
from pbtxt_lint.textproto.tokenizer import MAX_TOKENS
from pbtxt_lint.textproto.tree import Document, parse_tree

_PLACEHOLDER_RE = re.compile(
    r"\$\{[^}\n]{0,256}\}|\{\{[^}\n]{0,256}\}\}|\$[A-Z_][A-Z0-9_]*\b|<<[^>\n]{0,256}>>"
)
"""A placeholder is short: unbounded, each `{{` of a line of a million scanned to its end."""
_BOM = "\ufeff"
MAX_REPORTED = 20
"""Problems reported for a file Triton refuses, among those the run selects (the engine
caps them, PL019): Triton stops at the first, and past a few dozen the rest are one
mistake's echoes or a file that is no config at all (clang's error limit is 20 too). The
report says how many it leaves out, and of which codes."""
MAX_KEPT = 1_000
"""Problems kept for a file Triton refuses, so the cap can follow the selection; the rest
are only counted, by kind."""


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
    unreported: Counter[ProblemKind] = field(default_factory=Counter)
    """Problems of a file Triton refuses past MAX_KEPT, by kind: counted, not kept."""


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


@dataclass(frozen=True)
class Placeholder:
    """An unrendered template variable and where it stands."""

    text: str
    span: Span
    quoted: bool  # inside a string: the file parses, the value is the literal text


def find_placeholders(text: str) -> list[Placeholder]:
    """Template variables (`${x}`, `{{ x }}`, `$X`, `<<x>>`) outside comments. Inside a
    string only `${x}` and `{{ x }}` count: a `$$TRITON_MODEL_DIRECTORY` or a `$HOME` there
    is a value some backend reads as it is."""
    if "$" not in text and "{{" not in text and "<<" not in text:
        return []
    found = []
    # Lines end at "\n" only, as for every other position (not at \r, \f, \u2028...).
    for number, line in enumerate(text.split("\n"), start=1):
        if "$" not in line and "{{" not in line and "<<" not in line:
            continue
        strings, comment = _strings_and_comment(line)
        starts = [start for start, _ in strings]  # in order, never overlapping
        for match in _PLACEHOLDER_RE.finditer(line, 0, comment):
            inside = bisect.bisect_left(starts, match.start()) - 1  # the last string before
            quoted = inside >= 0 and match.start() < strings[inside][1]
            if quoted and not match.group().startswith(("${", "{{")):
                continue
            span = Span(number, match.start() + 1, number, match.end() + 1)
            found.append(Placeholder(match.group(), span, quoted))
    return found


def _strings_and_comment(line: str) -> tuple[list[tuple[int, int]], int]:
    """The (start, end) of each quoted string of a line, and where its `#` comment starts
    (the line's length when it has none)."""
    strings: list[tuple[int, int]] = []
    quote, start, index = "", 0, 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\":
                index += 1  # the escaped character cannot close the string
            elif char == quote:
                strings.append((start, index))
                quote = ""
        elif char in "\"'":
            quote, start = char, index
        elif char == "#":
            return strings, index
        index += 1
    if quote:
        strings.append((start, len(line)))
    return strings, len(line)


def placeholder_problems(text: str) -> list[Problem]:
    """One problem for a template's placeholders: PLACEHOLDER when one stands where a
    value belongs (the file does not parse; the list names every placeholder), else
    QUOTED_PLACEHOLDER when some sit inside strings (the file parses, the backend gets
    the literal text)."""
    found = find_placeholders(text)
    bare = [p for p in found if not p.quoted]
    quoted = [p for p in found if p.quoted]
    render = "render the template (fill every placeholder) before deploying; lint the result"
    if bare:
        inside = ""
        if quoted:
            inside = ", one of them" if len(quoted) == 1 else f", {len(quoted)} of them"
            inside += " inside strings"
        if len(found) == 1:
            where = "it stands"
        elif not quoted:
            where = "they all stand"
        elif len(bare) == 1:
            where = "one of them stands"
        else:
            where = f"{len(bare)} of them stand"
        return [
            Problem(
                ProblemKind.PLACEHOLDER,
                f"{_count(found)}{inside}: {_listing(found)}; {where} where a value belongs, "
                "which protobuf's text parser refuses, so Triton cannot read this file (a "
                "template, not a config)",
                bare[0].span,
                render,
            )
        ]
    if quoted:
        return [
            Problem(
                ProblemKind.QUOTED_PLACEHOLDER,
                f"{_count(quoted)} inside strings: {_listing(quoted)}; Triton reads the file "
                f"as it is and hands the backend the text '{quoted[0].text}' itself (which "
                "TensorRT-LLM's backend and models take as not set for most of their "
                "parameters; anything else gets the text as the value)",
                quoted[0].span,
                "give each the value meant, or delete the parameter to leave it unset",
            )
        ]
    return []


def _count(found: list[Placeholder]) -> str:
    if len(found) == 1:
        return "an unfilled template placeholder"
    return f"{len(found)} unfilled template placeholders"


def _listing(found: list[Placeholder], shown: int = 6) -> str:
    """`${a} (line 3), ${b} (line 9) and 4 more` (each text once, where it first stands)."""
    first: dict[str, int] = {}
    for placeholder in found:
        first.setdefault(placeholder.text, placeholder.span.line)
    items = [f"{text} (line {line})" for text, line in first.items()]
    listed = ", ".join(items[:shown])
    return listed + (f" and {len(items) - shown} more" if len(items) > shown else "")


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
    placeholders = placeholder_problems(body)
    if not has_bom and all(p.kind in ACCEPTED_KINDS for p in ours):
        config = binder.message
        assert isinstance(config, ModelConfig)
        accepted = problems + ours + placeholders
        return ParsedConfig(text, config, document, binder.source_map, accepted)
    unreported: Counter[ProblemKind] = Counter()
    if placeholders and placeholders[0].kind is ProblemKind.PLACEHOLDER:
        # A template is not a config: what follows a placeholder only cascades (a
        # bare `${n}` inside a list of blocks derails the nesting), so report just
        # the placeholders; lint the rendered file for the rest.
        ours = placeholders
    else:
        ours += placeholders
        if document.dropped_issues:
            unreported[ProblemKind.SYNTAX] = document.dropped_issues
    refused = sorted(problems + ours, key=lambda problem: (problem.span.line, problem.span.column))
    unreported.update(problem.kind for problem in refused[MAX_KEPT:])
    refused = refused[:MAX_KEPT]
    return ParsedConfig(text, None, document, binder.source_map, refused, unreported=unreported)
