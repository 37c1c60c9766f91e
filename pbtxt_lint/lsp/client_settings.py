"""Settings from the editor: `initializationOptions` or the `pbtxt-lint` configuration
section, with the keys of the configuration file (`select`, `gpus`, `container`,
`backends`, `triton-version`, ...; camelCase works too). They act like command-line
options: they override the workspace's `.pbtxt-lint.toml` / `pyproject.toml`, which
`pbtxt_lint.settings_files` finds and resolves for each file as `check` does. Two keys are the
editor's own: `debounce-ms` (pause after typing before a lint, default 100) and
`docs-url` (where rule codes link).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pbtxt_lint.lsp.core import Options

DEFAULT_DEBOUNCE = 0.1
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")
_LISTS = ("select", "ignore", "extend-select")
_FLAGS = ("disable-auto-complete-config", "config-only")


SOURCE_DOCS = Path(__file__).resolve().parent.parent.parent / "docs" / "rules.md"
"""The rule reference of a source checkout (or an editable install of one)."""


def default_docs_url(source_docs: Path = SOURCE_DOCS) -> str | None:
    """Where rule codes link: docs/rules.md beside the package in a source checkout,
    else the "Rules" page the installed distribution names in its metadata (a wheel
    install has no docs folder; hover shows each rule's text either way)."""
    if source_docs.is_file():
        return source_docs.as_uri()
    return project_url("Rules")


def project_url(label: str) -> str | None:
    """The `Project-URL` of the installed pbtxt-lint with this label, if any."""
    from importlib import metadata  # deferred: read once, when the server starts

    try:
        entries: list[str] = metadata.metadata("pbtxt-lint").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in entries:
        name, _, url = str(entry).partition(",")
        if name.strip() == label and url.strip():
            return url.strip()
    return None


@dataclass(frozen=True)
class ClientSettings:
    options: Options = field(default_factory=Options)
    debounce: float = DEFAULT_DEBOUNCE
    docs_url: str | None = field(default_factory=default_docs_url)
    problems: tuple[str, ...] = ()  # keys that were ignored, and why


def _kebab(key: str) -> str:
    return _CAMEL.sub("-", key).lower().replace("_", "-")


def read_client_settings(raw: Any, previous: ClientSettings) -> ClientSettings:
    """Settings from the client's JSON object; a wrong value is reported and ignored."""
    if not isinstance(raw, dict):
        return previous
    values = {_kebab(str(key)): value for key, value in raw.items()}
    problems: list[str] = []
    options: dict[str, Any] = {}
    for key in _LISTS:
        value = values.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            options[key.replace("-", "_")] = tuple(value)
        else:
            problems.append(f"{key} must be a list of codes")
    for key in _FLAGS:
        value = values.get(key)
        if value is None:
            continue
        if isinstance(value, bool):
            options[key.replace("-", "_")] = value
        else:
            problems.append(f"{key} must be true or false")
    gpus = values.get("gpus")
    if gpus is not None:
        if isinstance(gpus, int) and not isinstance(gpus, bool) and gpus >= 0:
            options["gpus"] = gpus
        else:
            problems.append("gpus must be a whole number >= 0")
    backends = values.get("backends")
    if backends is not None:
        if isinstance(backends, str):
            backends = [backends]
        if isinstance(backends, list) and all(isinstance(v, str) for v in backends):
            options["backends"] = tuple(backends)
        else:
            problems.append("backends must be a list of backend names")
    for key in ("triton-version", "model-config-name", "container"):
        value = values.get(key)
        if value is None:
            continue
        if isinstance(value, str) and value:
            options[key.replace("-", "_")] = value
        else:
            problems.append(f"{key} must be a non-empty string")
    debounce = previous.debounce
    if "debounce-ms" in values:
        value = values["debounce-ms"]
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0:
            debounce = float(value) / 1000
        else:
            problems.append("debounce-ms must be a number of milliseconds >= 0")
    docs_url = previous.docs_url
    if isinstance(values.get("docs-url"), str):
        docs_url = values["docs-url"] or None
    return replace(
        previous,
        options=Options(**options),
        debounce=debounce,
        docs_url=docs_url,
        problems=tuple(problems),
    )
