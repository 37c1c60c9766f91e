"""One cache file: the kept outcomes of one repository under one set of settings.

The file holds the components (the models what their checks read connects, with the
key they had) and, per model, its component and its outcome as JSON. It is sealed by
the folder (`cache.folder`); a file that is not sealed with the user's key, not for
this repository and settings, or not of this shape is ignored, never trusted.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pbtxt_lint.cache.folder import FORMAT, CacheFolder
from pbtxt_lint.cache.keys import Keys
from pbtxt_lint.diagnostics import Diagnostic, Edit, Fix, Severity, Span
from pbtxt_lint.repository.layout import Target
from pbtxt_lint.results import InternalError, Outcome


class RepositoryCache:
    """The kept outcomes of one repository under one set of settings: one cache file."""

    def __init__(self, folder: CacheFolder, target: Target, settings: str, code: str) -> None:
        self._folder = folder
        self.repository = target.repository
        root = target.repository.root
        context = f"{FORMAT}\0{root}\0{settings}\0{code}"
        self.context = hashlib.blake2b(context.encode(), digest_size=16).hexdigest()
        self.name = f"{self.context}.json"
        self._keys = Keys(target)
        self._components: dict[str, dict[str, Any]] = {}
        self._entries: dict[str, dict[str, Any]] = {}
        self._load()
        self._changed = False

    def _load(self) -> None:
        data = self._folder.read(self.name)
        body = self._folder.unseal(data) if data is not None else None
        if body is None:
            return  # missing, damaged, edited or another user's: start afresh
        try:
            document = json.loads(body)
        except (ValueError, RecursionError):
            return
        if not isinstance(document, dict) or document.get("context") != self.context:
            return
        components, entries = document.get("components"), document.get("entries")
        if isinstance(components, dict) and isinstance(entries, dict):
            self._components, self._entries = components, entries

    def lookup(self, name: str, fixes: bool) -> Outcome | None:
        """The kept outcome of model `name` if nothing it was computed from changed
        (`fixes`: the run applies or shows fixes; an outcome with one is recomputed)."""
        try:
            entry = self._entries[name]
            component = self._components[entry["component"]]
            members = [str(m) for m in component["members"]]
            key = self._keys.component(members, bool(component["all"]))
            if key is None or key != component["key"]:
                return None
            outcome = _decode(entry["outcome"])
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        if fixes and any(d.fix is not None for d in outcome.diagnostics):
            return None
        return outcome

    def store(self, outcomes: Mapping[str, Outcome]) -> None:
        """Keep the outcomes of the models linted in this run, each under the key of the
        component that what their checks read connects it to."""
        parent: dict[str, str] = {}

        def find(name: str) -> str:
            parent.setdefault(name, name)
            while parent[name] != name:
                parent[name] = parent[parent[name]]
                name = parent[name]
            return name

        for name, outcome in outcomes.items():
            for read in outcome.reads:
                parent[find(read)] = find(name)
            find(name)
        groups: dict[str, list[str]] = {}
        for name in list(parent):
            groups.setdefault(find(name), []).append(name)
        scanning = {find(name) for name, outcome in outcomes.items() if outcome.scans}
        for name, outcome in outcomes.items():
            group = find(name)
            members = sorted(groups[group])
            everything = group in scanning
            key = self._keys.component(members, everything)
            self._changed = True
            if key is None:
                self._entries.pop(name, None)
                continue
            identity = hashlib.blake2b(
                f"{everything}\0{chr(0).join(members)}".encode(), digest_size=16
            ).hexdigest()
            self._components[identity] = {"members": members, "all": everything, "key": key}
            self._entries[name] = {"component": identity, "outcome": _encode(outcome)}

    def save(self) -> None:
        """Write the file atomically (entries of models no longer in the repository and
        components no entry uses are dropped); a cache that cannot be written is skipped."""
        for name in [n for n in self._entries if n not in self.repository.models]:
            del self._entries[name]
            self._changed = True
        if not self._changed:
            return
        used = {entry.get("component") for entry in self._entries.values()}
        components = {k: v for k, v in self._components.items() if k in used}
        document = {
            "context": self.context,
            "root": str(self.repository.root),
            "components": components,
            "entries": self._entries,
        }
        # dumps, not dump: only the one-shot encoder is C (dump is 10x slower)
        body = json.dumps(document, separators=(",", ":")).encode()
        with contextlib.suppress(OSError):
            self._folder.write(self.name, self._folder.seal(body))
            self._folder.prune()


# ---- outcomes as JSON


def _encode(outcome: Outcome) -> dict[str, Any]:
    return {
        "diagnostics": [_encode_diagnostic(d) for d in outcome.diagnostics],
        "files": outcome.files,
        "internal": [[e.rule, e.model, e.error] for e in outcome.internal_errors],
        "suppressed": outcome.suppressed,
    }


def _decode(data: dict[str, Any]) -> Outcome:
    internal = [InternalError(str(r), str(m), str(e)) for r, m, e in data["internal"]]
    return Outcome(
        [_decode_diagnostic(d) for d in data["diagnostics"]],
        int(data["files"]),
        internal,
        int(data["suppressed"]),
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
