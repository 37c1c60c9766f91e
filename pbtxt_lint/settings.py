"""What the user asked for, in one typed object built before any work starts.

Flags and settings files (`settings_files.py`) both end up here; the engine reads nothing
else, so the same Settings give the same result from the CLI or the Python API.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.targets import Release


@dataclass(frozen=True)
class PathIgnore:
    """`per-path-ignores`: codes to skip on paths matching a glob relative to `base`.

    `*` and `?` stay within a path segment, `**` spans segments; a pattern without `/`
    matches a file or folder name at any depth (as in .gitignore).
    """

    pattern: str
    codes: frozenset[str]
    base: Path

    @cached_property
    def _regex(self) -> re.Pattern[str]:
        pattern = self.pattern.strip("/")
        prefix = "" if "/" in self.pattern.rstrip("/") else "(?:.*/)?"
        parts: list[str] = []
        index = 0
        while index < len(pattern):
            if pattern.startswith("**/", index):
                parts.append("(?:.*/)?")
                index += 3
            elif pattern.startswith("**", index):
                parts.append(".*")
                index += 2
            elif pattern[index] == "*":
                parts.append("[^/]*")
                index += 1
            elif pattern[index] == "?":
                parts.append("[^/]")
                index += 1
            else:
                parts.append(re.escape(pattern[index]))
                index += 1
        # A folder pattern also covers everything inside it.
        return re.compile(prefix + "".join(parts) + "(?:/.*)?")

    def matches(self, path: Path) -> bool:
        try:
            relative = Path(os.path.relpath(path, self.base)).as_posix()
        except ValueError:  # another drive on Windows
            return False
        return not relative.startswith("../") and bool(self._regex.fullmatch(relative))


def _longest(prefixes: frozenset[str], code: str) -> int:
    """Length of the longest prefix of `code` in `prefixes`, -1 if none."""
    return max((len(p) for p in prefixes if code.startswith(p)), default=-1)


@dataclass(frozen=True)
class Settings:
    """Target host, target release and rule selection.

    The defaults are Triton's own: auto-complete on, `config.pbtxt`, an unknown target
    host (so what depends on its GPUs or backends is a fact, not a verdict) and the
    newest release.
    Codes are full codes or prefixes (`PL3`); names are resolved to codes before here.
    """

    auto_complete: bool = True
    model_config_name: str | None = None
    config_only: bool = False
    deep: bool = False
    """`--deep`: run ONNX models on synthetic batches (onnxruntime) to confirm what their
    batch axis is."""
    gpus: int | None = None
    select: frozenset[str] = field(default_factory=frozenset)
    ignore: frozenset[str] = field(default_factory=frozenset)
    extend_select: frozenset[str] = field(default_factory=frozenset)
    per_path_ignores: tuple[PathIgnore, ...] = ()
    severity: tuple[tuple[str, Severity], ...] = ()
    target: Release | None = None  # None: the newest release
    # --- the target host's profile: each part is None until the user declares it ---
    python_packages: Path | None = None
    """A requirements / pip-freeze file of the serving image's Python packages: a
    module none of them provides is then a verdict, not a fact about the host."""
    container: str | None = None
    """The NGC tritonserver image flavour the host runs (`py3`, `vllm-python-py3`,
    ... or `custom`); None: not declared."""
    backends: frozenset[str] | None = None
    """Backends installed on the host beyond those its image ships; None: not declared."""

    @property
    def backends_declared(self) -> bool:
        """Did the user say which backends the host has (`container` or `backends`)?
        Only then is a backend the host lacks a verdict instead of a fact."""
        return self.container is not None or self.backends is not None

    def wants(self, code: str) -> bool:
        """Is `code` selected? The most specific matching prefix decides, so
        `select = ["PL3"]` with `ignore = ["PL301"]` keeps PL3 but PL301, and
        `ignore = ["PL3"]` with `extend-select = ["PL301"]` keeps only PL301 of PL3;
        on a tie, ignore wins. No `select` means every rule.
        """
        chosen = _longest(self.select or frozenset({""}), code)
        chosen = max(chosen, _longest(self.extend_select, code))
        return chosen >= 0 and chosen > _longest(self.ignore, code)

    def ignored_at(self, code: str, path: Path) -> bool:
        """Does a `per-path-ignores` entry turn `code` off for `path`?"""
        return any(
            _longest(entry.codes, code) >= 0 and entry.matches(path)
            for entry in self.per_path_ignores
        )

    def severity_for(self, code: str, default: Severity) -> Severity:
        """The configured severity of `code` (most specific prefix), else `default`."""
        best, found = -1, default
        for prefix, severity in self.severity:
            if code.startswith(prefix) and len(prefix) > best:
                best, found = len(prefix), severity
        return found
