"""Configuration files: `.pbtxt-lint.toml` or `[tool.pbtxt-lint]` in `pyproject.toml`.

A team writes its choices once (which rules, which Triton release, which host) and every
run (terminal, pre-commit, CI) uses them. The file is found by walking up from each
checked path, stopping at the folder that holds `.git` or at the filesystem root;
`.pbtxt-lint.toml` wins over `pyproject.toml` in the same folder. Command-line options
override the file: `--select` replaces its `select`, `--ignore` and `--extend-select`
add to its lists, every other option replaces the value.

Every mistake in a file is a `SettingsError` naming the file and the key, with a "did you
mean" where one is close: a typo in a config must not silently check nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.settings import PathIgnore, Settings
from pbtxt_lint.storage import is_remote
from pbtxt_lint.targets import RequestedRelease, UnknownRelease, resolve

if TYPE_CHECKING:
    from pbtxt_lint.rules.base import PlannedRule

DEDICATED = ".pbtxt-lint.toml"
PYPROJECT = "pyproject.toml"
KEYS = (
    "select",
    "ignore",
    "extend-select",
    "per-path-ignores",
    "severity",
    "disable-auto-complete-config",
    "model-config-name",
    "gpus",
    "triton-version",
    "config-only",
    "deep",
    "python-packages",
    "container",
    "backends",
)


class SettingsError(Exception):
    """A usage problem in a configuration file or option: reported, never a traceback."""

    def __init__(self, source: str, message: str) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source


def known_rules() -> tuple[PlannedRule, ...]:
    """Every rule, in code order, as the engine plans runs (`rules/catalog.py`)."""
    from pbtxt_lint.rules import catalog  # deferred: only runs that resolve rules need it

    return catalog.known_rules()


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`; did you mean 'x'?` or nothing."""
    import difflib  # only on a mistake

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def resolve_code(item: str, rules: Sequence[PlannedRule] | None = None) -> str:
    """A code, prefix (`PL3`) or rule name -> the code or prefix; ValueError if unknown."""
    rules = rules if rules is not None else known_rules()
    by_name = {r.name: r.code for r in rules}
    item = item.strip()
    if item in by_name:
        return by_name[item]
    code = item.upper()
    if code and any(r.code.startswith(code) for r in rules):
        return code
    choices = [r.code for r in rules] + list(by_name)
    raise ValueError(f"no rule code or name '{item}'{did_you_mean(item, choices)}")


def resolve_codes(values: Iterable[str], source: str) -> frozenset[str]:
    """`["PL2,PL301", "name-mismatch"]` -> {"PL2", "PL301", "PL103"}, validated."""
    rules = known_rules()
    codes = set()
    for value in values:
        for item in value.split(","):
            if item.strip():
                try:
                    codes.add(resolve_code(item, rules))
                except ValueError as error:
                    raise SettingsError(source, str(error)) from None
    return frozenset(codes)


@dataclass(frozen=True)
class Origin:
    """Where a setting's value came from, for `--show-settings`."""

    value: str
    source: str


@dataclass(frozen=True)
class Options:
    """The command-line side: None (or empty) means "not given"."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    disable_auto_complete_config: bool | None = None
    model_config_name: str | None = None
    gpus: int | None = None
    triton_version: str | None = None
    config_only: bool | None = None
    deep: bool | None = None
    python_packages: Path | None = None
    container: str | None = None
    backends: tuple[str, ...] = ()
    """Empty: not given; `("",)` (`--backends ""`) declares nothing beyond the image."""


@dataclass
class Resolved:
    """The settings for a group of paths, with the file they came from and the origins."""

    settings: Settings
    settings_file: Path | None
    paths: list[Path] = field(default_factory=list)
    origins: dict[str, Origin] = field(default_factory=dict)
    target: RequestedRelease | None = None


def find_settings_file(start: Path) -> Path | None:
    """The nearest `.pbtxt-lint.toml`, or `pyproject.toml` with `[tool.pbtxt-lint]`,
    from `start` up to the folder holding `.git` (or the filesystem root)."""
    folder = start.absolute()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        try:
            dedicated = candidate / DEDICATED
            if dedicated.is_file():
                return dedicated
            pyproject = candidate / PYPROJECT
            if pyproject.is_file() and _has_tool_table(pyproject):
                return pyproject
            if (candidate / ".git").exists():
                return None
        except OSError:  # a folder we may not look into holds no configuration for us
            continue
    return None


def _toml() -> ModuleType:
    """The TOML parser (the standard one, or its backport before 3.11), loaded when needed."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    return tomllib


def _has_tool_table(pyproject: Path) -> bool:
    """Does it have `[tool.pbtxt-lint]`? A pyproject.toml that does not parse counts when
    it mentions the table (so its error is reported), and is passed over otherwise (it
    is not ours to judge)."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if "pbtxt-lint" not in text:
        return False  # most projects' pyproject.toml: no need to parse it
    tomllib = _toml()
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return "tool.pbtxt-lint" in text
    tool = document.get("tool")
    return isinstance(tool, dict) and "pbtxt-lint" in tool


def load_table(path: Path) -> dict[str, Any]:
    """The pbtxt-lint table of a configuration file (empty if it has none)."""
    tomllib = _toml()
    try:
        document: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SettingsError(str(path), f"cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SettingsError(str(path), "not valid UTF-8") from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(str(path), f"invalid TOML: {error}") from None
    if path.name != PYPROJECT:
        return document
    tool = document.get("tool", {})
    table = tool.get("pbtxt-lint", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: tool.pbtxt-lint", "must be a table")
    return table


def _source(path: Path, key: str) -> str:
    prefix = "tool.pbtxt-lint." if path.name == PYPROJECT else ""
    return f"{path}: {prefix}{key}"


def _strings(value: object, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(where, 'must be a list of strings, e.g. ["PL1", "PL301"]')
    return list(value)


def _bool(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        raise SettingsError(where, "must be true or false")
    return value


@dataclass
class _Layer:
    """One source of settings (a file or the command line), validated."""

    values: dict[str, Any] = field(default_factory=dict)
    source: str = ""


def parse_table(table: Mapping[str, Any], path: Path) -> _Layer:
    """Validate every key of a pbtxt-lint table into typed values."""
    layer = _Layer(source=str(path))
    for key, value in table.items():
        where = _source(path, key)
        if key not in KEYS:
            raise SettingsError(
                where, f"unknown key '{key}'{did_you_mean(key, KEYS)} (known: {', '.join(KEYS)})"
            )
        if key in ("select", "ignore", "extend-select"):
            layer.values[key] = resolve_codes(_strings(value, where), where)
        elif key == "per-path-ignores":
            if not isinstance(value, dict):
                raise SettingsError(where, 'must be a table: "glob" = ["PL1", ...]')
            layer.values[key] = tuple(
                PathIgnore(
                    pattern,
                    resolve_codes(_strings(codes, f"{where}.{pattern}"), f"{where}.{pattern}"),
                    path.parent,
                )
                for pattern, codes in value.items()
            )
        elif key == "severity":
            layer.values[key] = _severities(value, where)
        elif key in ("disable-auto-complete-config", "config-only", "deep"):
            layer.values[key] = _bool(value, where)
        elif key == "model-config-name":
            if not isinstance(value, str) or not value:
                raise SettingsError(where, "must be a non-empty string")
            layer.values[key] = value
        elif key == "gpus":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise SettingsError(where, "must be a whole number >= 0")
            layer.values[key] = value
        elif key == "triton-version":
            if not isinstance(value, str):
                raise SettingsError(
                    where, f'must be a string: triton-version = "{value}" (24.10 is not 24.1)'
                )
            layer.values[key] = _target(value, where)
        elif key == "python-packages":
            if not isinstance(value, str) or not value:
                raise SettingsError(where, 'must be a path: python-packages = "requirements.txt"')
            layer.values[key] = _packages_file(path.parent / value, where)
        elif key == "container":
            if not isinstance(value, str):
                raise SettingsError(where, 'must be a string: container = "py3"')
            layer.values[key] = _container(value, where)
        elif key == "backends":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise SettingsError(where, 'must be a list of backend names, e.g. ["vllm"]')
            layer.values[key] = _backends(value, where)
    return layer


def _container(value: str, where: str) -> str:
    """An image flavour of `pbtxt_lint.triton.backends.IMAGES`, with a did-you-mean."""
    from pbtxt_lint.triton.backends import IMAGES  # deferred: only profiles need it

    name = value.strip()
    if name in IMAGES:
        return name
    known = ", ".join(IMAGES)
    tag = name.rsplit(":", 1)[-1]
    release, _, flavour = tag.partition("-")
    if flavour in IMAGES and release.replace(".", "").isdigit():
        raise SettingsError(
            where,
            f"'{value}' is an image tag: write container = \"{flavour}\" and "
            f'triton-version = "{release}"',
        )
    kind = next((k for k in ("py3-min", "py3-sdk") if k in (name, flavour)), None)
    if kind is not None:
        what = (
            "the base image Triton is built from (CUDA, cuDNN, TensorRT), not a server image"
            if kind == "py3-min"
            else "the client SDK image, not a server image"
        )
        raise SettingsError(
            where,
            f"{kind} is {what}; for an image built from py3-min (compose.py, build.py) write "
            'container = "custom" and list its backends in `backends`',
        )
    raise SettingsError(
        where, f"unknown container '{value}'{did_you_mean(name, IMAGES)} (known: {known})"
    )


def _backends(values: Sequence[str], where: str) -> frozenset[str]:
    """Backend names as Triton looks them up (`backends/<name>/`): a platform or a path
    is a mistake the host profile must not hide."""
    from pbtxt_lint.triton.backends import PLATFORMS  # deferred: only profiles need it

    names = set()
    for value in values:
        name = value.strip()
        if not name or "/" in name or "\\" in name or name != value:
            raise SettingsError(
                where, f"'{value}' is not a backend name (a folder name under backends/)"
            )
        platform = PLATFORMS.get(name)
        if platform is not None or name == "ensemble":
            backend = platform.backend if platform is not None else None
            raise SettingsError(
                where,
                f"'{name}' is a platform, not a backend"
                + (f"; its backend is '{backend}'" if backend else "; ensembles need no backend"),
            )
        names.add(name)  # a custom backend's name is as good as a published one
    return frozenset(names)


def _packages_file(path: Path, where: str) -> Path:
    """A readable requirements / pip-freeze file (host profile, issue 20)."""
    from pbtxt_lint.artifacts.python_packages import ProfileError, read_host_packages

    try:
        read_host_packages(path)
    except ProfileError as error:
        raise SettingsError(where, str(error)) from None
    return path


def _severities(value: object, where: str) -> tuple[tuple[str, Severity], ...]:
    if not isinstance(value, dict):
        raise SettingsError(where, 'must be a table: PL301 = "warning"')
    levels = {s.value: s for s in Severity}
    found = []
    for code, level in value.items():
        if level not in levels:
            raise SettingsError(
                f"{where}.{code}", f"must be one of {', '.join(repr(s) for s in levels)}"
            )
        (resolved,) = resolve_codes([code], f"{where}.{code}")
        found.append((resolved, levels[level]))
    return tuple(found)


def _target(text: str, where: str) -> RequestedRelease:
    try:
        return resolve(text)
    except UnknownRelease as error:
        raise SettingsError(where, str(error)) from None


def cli_layer(options: Options) -> _Layer:
    """The command line as a layer (codes validated the same way as in files)."""
    layer = _Layer(source="command line")
    for key, values in (
        ("select", options.select),
        ("ignore", options.ignore),
        ("extend-select", options.extend_select),
    ):
        if values:
            layer.values[key] = resolve_codes(values, f"--{key}")
    for key, value in (
        ("disable-auto-complete-config", options.disable_auto_complete_config),
        ("model-config-name", options.model_config_name),
        ("gpus", options.gpus),
        ("config-only", options.config_only),
        ("deep", options.deep),
    ):
        if value is not None:
            layer.values[key] = value
    if options.triton_version is not None:
        layer.values["triton-version"] = _target(options.triton_version, "--triton-version")
    if options.python_packages is not None:
        layer.values["python-packages"] = _packages_file(
            options.python_packages, "--python-packages"
        )
    if options.container is not None:
        layer.values["container"] = _container(options.container, "--container")
    if options.backends:
        names = [n for value in options.backends for n in value.split(",") if n.strip()]
        layer.values["backends"] = _backends([n.strip() for n in names], "--backends")
    return layer


def merge(
    file_layer: _Layer | None, cli: _Layer
) -> tuple[Settings, dict[str, Origin], RequestedRelease | None]:
    """Settings from a file layer and the command line, and where each value came from."""
    values: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    for layer in (file_layer, cli) if file_layer is not None else (cli,):
        for key, value in layer.values.items():
            if key in ("ignore", "extend-select") and key in values:
                value = values[key] | value
                source = f"{origins[key].source} + {layer.source}"
            else:
                source = layer.source
            values[key] = value
            origins[key] = Origin(_show(value), source)
    target: RequestedRelease | None = values.get("triton-version")
    settings = Settings(
        auto_complete=not values.get("disable-auto-complete-config", False),
        model_config_name=values.get("model-config-name"),
        config_only=values.get("config-only", False),
        deep=values.get("deep", False),
        gpus=values.get("gpus"),
        select=values.get("select", frozenset()),
        ignore=values.get("ignore", frozenset()),
        extend_select=values.get("extend-select", frozenset()),
        per_path_ignores=values.get("per-path-ignores", ()),
        severity=values.get("severity", ()),
        target=target.release if target is not None else None,
        python_packages=values.get("python-packages"),
        container=values.get("container"),
        backends=values.get("backends"),
    )
    defaults = {
        "select": "all rules",
        "ignore": "none",
        "extend-select": "none",
        "per-path-ignores": "none",
        "severity": "each rule's own",
        "disable-auto-complete-config": "false",
        "model-config-name": "none (config.pbtxt)",
        "gpus": "unknown (GPU placement is a fact about the host, not a verdict)",
        "triton-version": "newest known",
        "config-only": "false",
        "deep": "false (header-only: model files are read, never run)",
        "python-packages": "none (third-party imports are facts about the host)",
        "container": "unknown (backend availability is a fact, not a verdict)",
        "backends": "unknown",
    }
    for key in KEYS:
        origins.setdefault(key, Origin(defaults[key], "default"))
    if target is not None:
        shown = f"{target.requested}: {target.note}" if target.note else target.release.label
        origins["triton-version"] = replace(origins["triton-version"], value=shown)
    if settings.backends_declared:
        origins["container"] = replace(origins["container"], value=_host_image(settings))
    return settings, {key: origins[key] for key in KEYS}, target


def _host_image(settings: Settings) -> str:
    """`py3 (the standard image of 26.09 ships dali, fil, ...)` for --show-settings."""
    from pbtxt_lint.triton.backends import IMAGES, host_backends, shipped_backends

    host = host_backends(settings)
    assert host is not None  # a declared profile
    image = IMAGES[host.image]
    shipped = shipped_backends(host.image, host.release)
    what = (
        ", ".join(sorted(shipped)) or "nothing"
        if shipped is not None
        else "backends pbtxt-lint does not know"
    )
    default = "" if settings.container else " (the default once `backends` is set)"
    return f"{host.image}{default}: {image.about}; release {host.release.container} ships {what}"


def _show(value: object) -> str:
    if isinstance(value, frozenset):
        return ", ".join(sorted(value)) or "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple):
        parts = []
        for item in value:
            if isinstance(item, PathIgnore):
                parts.append(f"{item.pattern} -> {', '.join(sorted(item.codes))}")
            else:
                code, severity = item
                parts.append(f"{code} = {severity.value}")
        return "; ".join(parts) or "none"
    if isinstance(value, RequestedRelease):
        return value.release.label
    return str(value)


def resolve_settings(
    paths: Sequence[Path], options: Options, config: Path | None = None
) -> list[Resolved]:
    """Group `paths` by the configuration file that applies to each and build the
    settings of every group. `config` forces one file for all paths."""
    cli = cli_layer(options)
    groups: dict[Path | None, Resolved] = {}
    for path in paths:
        # A repository in a bucket takes its settings from the working folder (a
        # checkout of the configs, typically), never from files in the bucket.
        start = Path(".") if is_remote(path) else path
        found = config if config is not None else find_settings_file(start)
        key = found.resolve() if found is not None else None
        if key not in groups:
            layer = parse_table(load_table(found), found) if found is not None else None
            settings, origins, target = merge(layer, cli)
            groups[key] = Resolved(settings, found, [], origins, target)
        groups[key].paths.append(path)
    return list(groups.values())
