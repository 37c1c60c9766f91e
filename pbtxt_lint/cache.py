"""Results of earlier runs, so a repeated run re-lints only the models that changed.

Pre-commit hooks, CI and editors lint the same repository again and again with one or
two configs changed. Each model's outcome (its diagnostics, already suppressed and
graded) is stored under a key of everything it was computed from:

- the config file's bytes (a hash) and the identity (name, size, mtime) of every file
  and folder in the model folder down to `MAX_DEPTH` levels (model files, labels,
  warmup data, environments...);
- the settings (every field), pbtxt-lint's version and the identity of its own code;
- for an ensemble, or a model whose checks read other models (a BLS model's callees),
  the keys of the models it reads (its steps, their steps...) and the names of every
  model of the repository (missing models, did-you-mean).

A lookup recomputes the key from the disk and returns the stored outcome only when
every part matches, so a warm run reports exactly what a cold run reports. A model
whose folder holds more than `MAX_ENTRIES` entries is never cached (its key would cost
what linting it costs).

The store is one JSON file per repository and settings under the cache folder
(`.pbtxt_lint_cache/` in the working folder by default, with a `.gitignore` so it is
never committed). Files are replaced atomically, so concurrent runs never see half a
file; a file that does not decode, has another version, or whose checksum does not
match is ignored, never trusted. The folder keeps at most `MAX_FILES` files (the
oldest are removed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import hashlib
import json
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pbtxt_lint import __version__
from pbtxt_lint.diagnostics import Diagnostic, Edit, Fix, Severity, Span

FORMAT = 1
MAX_DEPTH = 3
MAX_ENTRIES = 4000
MAX_FILES = 64
PACKAGE = Path(__file__).resolve().parent


@dataclasses.dataclass
class Outcome:
    """What one model contributes to a run; the unit the cache stores."""

    diagnostics: list[Diagnostic]
    files: int
    internal_errors: list[tuple[str, str, str]]
    """(rule, model, error) of rules that crashed."""
    suppressed: int
    ensemble: bool = False
    """The model is an ensemble (its key then covers the models it reads)."""
    steps: tuple[str, ...] = ()
    """The models its ensemble steps name, then the other models its checks read (a
    BLS model's callees): its key covers them."""


def code_identity() -> str:
    """pbtxt-lint's version and the identity of its own files: a change of the code
    (a new release, or an edited checkout) invalidates every entry."""
    digest = hashlib.blake2b(__version__.encode(), digest_size=16)
    for folder, subfolders, files in os.walk(PACKAGE):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".json")):
                info = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


def settings_key(settings: object) -> str:
    """A stable text for a settings dataclass (sets sorted, paths as strings)."""
    return json.dumps(_plain(settings), sort_keys=True)


def _plain(value: object) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (frozenset, set)):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return repr(value)


def folder_key(model_path: str, root: str) -> str | None:
    """The key of one model's own files; None when it cannot be cached (too many
    entries). Config files (`*.pbtxt`, `*.json` in the model folder and its `configs/`)
    count by their bytes, every other entry by name, kind, size and modification time;
    a link counts as its target when that is inside the repository."""
    digest = hashlib.blake2b(digest_size=16)
    entries = 0
    pending = [(model_path, 0)]
    while pending:
        folder, depth = pending.pop()
        try:
            with os.scandir(folder) as listing:
                found = sorted(listing, key=lambda e: e.name)
        except OSError as error:
            digest.update(f"{folder}:unlistable:{error.errno};".encode())
            continue
        for entry in found:
            entries += 1
            if entries > MAX_ENTRIES:
                return None
            path = entry.path
            try:
                if entry.is_dir(follow_symlinks=False):
                    digest.update(f"{path}/;".encode())
                    if depth + 1 < MAX_DEPTH:
                        pending.append((path, depth + 1))
                    continue
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISLNK(info.st_mode):
                    target = os.path.realpath(path)
                    if target == root or target.startswith(root + os.sep):
                        info = os.stat(target)
                        if stat.S_ISDIR(info.st_mode) and depth + 1 < MAX_DEPTH:
                            pending.append((target, depth + 1))
                config = entry.name.endswith((".pbtxt", ".json"))
                if config and depth < 2 and stat.S_ISREG(info.st_mode):
                    digest.update(f"{path}:{info.st_size}:".encode())
                    handle = os.open(path, os.O_RDONLY)  # unbuffered: one read call
                    try:
                        digest.update(os.read(handle, min(info.st_size, _CONFIG_LIMIT)))
                    finally:
                        os.close(handle)
                    continue
            except OSError as error:
                digest.update(f"{path}:unreadable:{error.errno};".encode())
                continue
            digest.update(f"{path}:{info.st_mode}:{info.st_size}:{info.st_mtime_ns};".encode())
    return digest.hexdigest()


_CONFIG_LIMIT = 1 << 24
"""Bytes of a config file that count (beyond it, its size and time do)."""


class ResultCache:
    """The stored outcomes of one repository under one set of settings."""

    def __init__(self, directory: Path, root: Path, settings: str, code: str) -> None:
        self.directory = directory
        self.root = root
        self.context = hashlib.blake2b(
            f"{FORMAT}\0{root}\0{settings}\0{code}".encode(), digest_size=16
        ).hexdigest()
        self.path = directory / f"{self.context}.json"
        self._entries: dict[str, dict[str, Any]] = self._load()
        self._changed = False

    # ---- reading

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            document = json.loads(self.path.read_bytes())
            body = document["body"]
            if document.get("format") != FORMAT or document.get("checksum") != _checksum(body):
                return {}
            entries = body["entries"] if body.get("context") == self.context else {}
            return entries if isinstance(entries, dict) else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return {}  # missing, truncated, tampered or foreign: start afresh

    def entry(self, model: str) -> dict[str, Any] | None:
        found = self._entries.get(model)
        return found if isinstance(found, dict) else None

    def outcome(self, model: str, key: str) -> Outcome | None:
        """The stored outcome of `model` if it was computed under `key`."""
        entry = self.entry(model)
        if entry is None or entry.get("key") != key:
            return None
        try:
            return _decode(entry["outcome"])
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    # ---- writing

    def store(self, model: str, key: str, own: str, outcome: Outcome) -> None:
        """Keep `outcome` under `key` (`own`: the key of the model's own files)."""
        self._entries[model] = {"key": key, "own": own, "outcome": _encode(outcome)}
        self._changed = True

    def forget_missing(self, present: Iterable[str]) -> None:
        """Drop entries of models that are no longer in the repository."""
        keep = set(present)
        for name in [n for n in self._entries if n not in keep]:
            del self._entries[name]
            self._changed = True

    def save(self) -> None:
        """Write the entries atomically; a cache that cannot be written is skipped."""
        if not self._changed:
            return
        body = {"context": self.context, "root": str(self.root), "entries": self._entries}
        document = {"format": FORMAT, "checksum": _checksum(body), "body": body}
        with contextlib.suppress(OSError):
            _prepare(self.directory)
            import tempfile  # deferred: only a run that writes the cache needs it

            handle, temporary = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    # dumps, not dump: only the one-shot encoder is C (dump is 10x slower)
                    stream.write(json.dumps(document, separators=(",", ":")))
                os.replace(temporary, self.path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
            _prune(self.directory)


def _prepare(directory: Path) -> None:
    """Create the folder with a .gitignore (and a cache tag) so it is never committed."""
    directory.mkdir(parents=True, exist_ok=True)
    ignore = directory / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Created by pbtxt-lint: results of earlier runs.\n*\n")
    tag = directory / "CACHEDIR.TAG"
    if not tag.exists():
        tag.write_text(
            "Signature: 8a477f597d28d172789f06886806bc55\n"
            "# This file is a cache directory tag created by pbtxt-lint.\n"
        )


def _prune(directory: Path) -> None:
    """Keep the `MAX_FILES` most recently written cache files."""
    files = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in files[MAX_FILES:]:
        with contextlib.suppress(OSError):
            old.unlink()


def _checksum(body: object) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


# ---- outcomes as JSON


def _encode(outcome: Outcome) -> dict[str, Any]:
    return {
        "diagnostics": [_encode_diagnostic(d) for d in outcome.diagnostics],
        "files": outcome.files,
        "internal": [list(e) for e in outcome.internal_errors],
        "suppressed": outcome.suppressed,
        "ensemble": outcome.ensemble,
        "steps": list(outcome.steps),
    }


def _decode(data: dict[str, Any]) -> Outcome:
    internal = [(str(r), str(m), str(e)) for r, m, e in data["internal"]]
    return Outcome(
        [_decode_diagnostic(d) for d in data["diagnostics"]],
        int(data["files"]),
        internal,
        int(data["suppressed"]),
        bool(data["ensemble"]),
        tuple(str(s) for s in data["steps"]),
    )


def _encode_diagnostic(d: Diagnostic) -> dict[str, Any]:
    span = d.span
    fix = d.fix
    return {
        "code": d.code,
        "severity": d.severity.value,
        "message": d.message,
        "path": str(d.path),
        "span": [span.line, span.column, span.end_line, span.end_column] if span else None,
        "model": d.model,
        "hint": d.hint,
        "fix": None
        if fix is None
        else [fix.description, fix.safe, [[e.start, e.end, e.text] for e in fix.edits]],
        "stage": d.stage,
        "trailer": d.trailer,
    }


def _decode_diagnostic(data: dict[str, Any]) -> Diagnostic:
    span = data["span"]
    fix = data["fix"]
    return Diagnostic(
        code=str(data["code"]),
        severity=Severity(data["severity"]),
        message=str(data["message"]),
        path=Path(data["path"]),
        span=Span(*(int(v) for v in span)) if span is not None else None,
        model=None if data["model"] is None else str(data["model"]),
        hint=None if data["hint"] is None else str(data["hint"]),
        fix=None
        if fix is None
        else Fix(
            str(fix[0]),
            tuple(Edit(int(s), int(e), str(t)) for s, e, t in fix[2]),
            bool(fix[1]),
        ),
        stage=None if data["stage"] is None else str(data["stage"]),
        trailer=bool(data["trailer"]),
    )
