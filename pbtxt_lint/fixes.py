"""Apply the fixes diagnostics carry, without ever making a file worse.

A fix is data (edits on the file text); this engine decides what to apply: safe fixes
unless the user opted into unsafe ones, never two edits that touch the same text (the
skipped one is found again on the next run), and never a result that parses worse than
the original. Everything outside the edits stays byte for byte (comments, layout, CRLF,
even bytes that are not UTF-8), with one exception: a config.pbtxt the user keeps in
`fmt` layout stays in it (`textproto.write.keep_layout`), so a field a fix inserts gets
a line of its own there. Files are replaced atomically, so an interrupted run leaves the
old file or the new one, never half of each.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import stat
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pbtxt_lint.diagnostics import Diagnostic, Edit, Fix
from pbtxt_lint.paths import display_path
from pbtxt_lint.textproto.parse import ParsedConfig, parse_config
from pbtxt_lint.textproto.write import keep_layout


@dataclass(frozen=True)
class FixOutcome:
    """What happened to one file: fixes applied, the diff, or why it was left alone."""

    path: Path
    applied: int
    diff: str
    written: bool
    refused: str | None = None


def apply_fixes(
    diagnostics: Sequence[Diagnostic], *, unsafe: bool, write: bool
) -> list[FixOutcome]:
    """Apply the eligible fixes of `diagnostics`, one outcome per file that has any.

    With `write=False` nothing is written and each outcome carries the diff that
    `--fix` would apply.
    """
    by_file: dict[str, tuple[Path, list[Fix]]] = {}
    for diagnostic in diagnostics:
        fix = diagnostic.fix
        if fix is None or not fix.edits or not (fix.safe or unsafe):
            continue
        # One group per file, however it is named (relative, absolute, via a symlink):
        # two groups for one file would apply stale offsets to already edited text.
        key = os.path.realpath(diagnostic.path)
        by_file.setdefault(key, (diagnostic.path, []))[1].append(fix)
    groups = sorted(by_file.values(), key=lambda group: str(group[0]))
    return [_fix_file(path, fixes, write) for path, fixes in groups]


def apply_edits(text: str, fixes: Iterable[Fix]) -> tuple[str, int]:
    """`text` with every fix applied whose edits overlap no earlier accepted one.

    Fixes are taken in order of position; a fix is applied whole or not at all, and a
    fix identical to an accepted one (the same problem reported twice) counts once.
    """
    accepted: list[Edit] = []
    seen: set[tuple[tuple[int, int, str], ...]] = set()
    for fix in sorted((f for f in fixes if f.edits), key=lambda f: min(e.start for e in f.edits)):
        key = tuple(sorted((e.start, e.end, e.text) for e in fix.edits))
        if key in seen:
            continue
        edits = list(fix.edits)
        if any(not 0 <= e.start <= e.end <= len(text) for e in edits):
            continue
        if _overlapping(edits) or any(_overlap(a, b) for a in edits for b in accepted):
            continue
        accepted.extend(edits)
        seen.add(key)
    result = text
    for edit in sorted(accepted, key=lambda e: e.start, reverse=True):
        result = result[: edit.start] + edit.text + result[edit.end :]
    return result, len(seen)


def fix_text(path: Path, text: str, fixes: Iterable[Fix]) -> tuple[str, int]:
    """`apply_edits`, then the layout of a config.pbtxt kept (`keep_layout`).

    `path` says the file's kind: a JSON config is left as the edits make it.
    """
    fixed, applied = apply_edits(text, fixes)
    if applied and path.suffix.lower() != ".json":
        fixed = keep_layout(text, fixed)
    return fixed, applied


def _overlap(a: Edit, b: Edit) -> bool:
    """Edits that share text, or an insertion at the edge of another edit (whose
    relative order would be a guess)."""
    if a.start == a.end or b.start == b.end:
        return max(a.start, b.start) <= min(a.end, b.end)
    return max(a.start, b.start) < min(a.end, b.end)


def _overlapping(edits: list[Edit]) -> bool:
    return any(_overlap(a, b) for i, a in enumerate(edits) for b in edits[i + 1 :])


def _decode(data: bytes) -> str | None:
    """The text that diagnostics' offsets count in, decodable back to the same bytes.

    The parser decodes invalid UTF-8 with one U+FFFD per bad byte; surrogate escapes
    have the same length and round-trip, so a file with a stray Latin-1 byte in a
    comment can still be fixed without touching that byte. None when the two decodings
    disagree in length (offsets would be off).
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        escaped = data.decode("utf-8", errors="surrogateescape")
        replaced = data.decode("utf-8", errors="replace")
        return escaped if len(escaped) == len(replaced) else None


def parse_any(path: Path, data: bytes) -> ParsedConfig:
    """Parse a config file by its kind: JSON (`.json`) or protobuf text format."""
    if path.suffix.lower() == ".json":
        from pbtxt_lint.jsonconfig import parse_json_config  # deferred: jsonschema loads with it

        return parse_json_config(data)
    return parse_config(data)


def _first_problem(parsed: ParsedConfig) -> str:
    if not parsed.problems:
        return "it does not parse"
    problem = parsed.problems[0]
    return f"line {problem.span.line}: {problem.message}"


def _regression(path: Path, before: bytes, after: bytes) -> str | None:
    """Why the edited file is worse than (or as broken as) the original, or None."""
    old, new = parse_any(path, before), parse_any(path, after)
    if new.config is None:
        if old.config is not None:
            return f"the fixes would break the file ({_first_problem(new)})"
        return f"the file would still not parse after the fixes ({_first_problem(new)})"
    if old.config is not None and len(new.problems) > len(old.problems):
        return f"the fixes would add a problem ({_first_problem(new)})"
    return None


def _fix_file(path: Path, fixes: list[Fix], write: bool) -> FixOutcome:
    try:
        data = path.read_bytes()
    except OSError as error:
        return FixOutcome(path, 0, "", False, f"cannot read the file: {error.strerror or error}")
    text = _decode(data)
    if text is None:
        return FixOutcome(
            path, 0, "", False, "the file is not valid UTF-8 in a way fixes cannot preserve"
        )
    fixed, applied = fix_text(path, text, fixes)
    if applied == 0 or fixed == text:
        return FixOutcome(path, 0, "", False, None)
    new_data = fixed.encode("utf-8", errors="surrogateescape")
    reason = _regression(path, data, new_data)
    if reason is not None:
        return FixOutcome(path, 0, "", False, reason)
    diff = unified_diff(path, text, fixed)
    if not write:
        return FixOutcome(path, applied, diff, False, None)
    try:
        write_atomically(path, new_data)
    except OSError as error:
        return FixOutcome(path, 0, diff, False, f"cannot write the file: {error.strerror or error}")
    return FixOutcome(path, applied, diff, True, None)


def unified_diff(path: Path, before: str, after: str) -> str:
    """A unified diff of one file, as `git apply` and reviewers read it."""
    name = display_path(path)
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
    )
    out = []
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace the file's content in one step, keeping its permissions (or create it).

    The new content goes to a temporary file in the same folder (same file system),
    which then replaces the original with `os.replace`. A symlink is followed, so the
    link stays a link and its target gets the new content.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:  # a new file: the mode open() would give it
        umask = os.umask(0o022)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
