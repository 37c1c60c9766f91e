"""The repository model: which folders are models, which config file each one uses.

Mirrors Triton's scan: every sub-folder of a repository is a model (hidden ones too),
the config is `configs/<--model-config-name>.pbtxt` if present, else `config.pbtxt`.
PATH arguments may be a repository, a model folder or a config file; for a file we
still know its whole repository so that cross-model checks can run (each model folder
is listed only when something looks at it).

An `Overlay` (config path -> text) stands in for the bytes of those files: an editor
lints its unsaved buffers, the rest of the repository as it is on disk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint import storage
from pbtxt_lint.repository.fs import Entry, FolderEntry, FsError, list_dir, read_text_file

if TYPE_CHECKING:
    from pbtxt_lint.textproto.parse import ParsedConfig

CONFIG_NAME = "config.pbtxt"
CONFIGS_FOLDER = "configs"
TOOL_FOLDERS = frozenset({"__pycache__", "__MACOSX", "lost+found"})
_NUMERIC = re.compile(r"\d+")

Overlay = Mapping[Path, str]
"""Config files' text by absolute path, read instead of the file (unsaved buffers)."""


@dataclass
class ConfigFile:
    """A config file as read: parsed, or why it could not be read."""

    path: Path
    parsed: ParsedConfig | None = None
    read_error: str | None = None


class ModelFolder:
    """One sub-folder of a repository, which Triton treats as a model.

    Its listing (entries, the config it selects) is read on first use: checking one
    config of a 10,000-model repository (a pre-commit hook) lists one model folder, not
    10,000, and a repository split over worker processes is listed by the workers.
    """

    _OUTSIDE = (
        "is a symlink to a folder outside the repository (or a broken or looping link); "
        "pbtxt-lint does not follow it"
    )

    def __init__(
        self,
        repository: Path,
        name: str,
        *,
        model_config_name: str | None = None,
        symlink: bool = False,
        outside: bool = False,
        overlay: Overlay | None = None,
    ) -> None:
        self.repository = repository
        self._overlay = overlay
        self.name = name
        self.outside = outside
        self._symlink = symlink
        self._model_config_name = model_config_name
        self._loaded = False
        self._entries: list[Entry] | None = None
        self._error: str | None = None
        self._config_path: Path | None = None
        self._unused_configs: list[Path] = []
        self._config_known_inside = False
        self._config: ConfigFile | None = None
        self._contents: dict[str, Mapping[str, FolderEntry] | None] = {}

    def __repr__(self) -> str:
        return f"ModelFolder({self.repository!r}, {self.name!r})"

    def _load(self) -> None:
        """List the folder and select its config file (once)."""
        if self._loaded:
            return
        self._loaded = True
        if self.outside:
            self._error = self._OUTSIDE
            return
        try:
            entries = list_dir(self.repository, self.path)
        except FsError as error:
            self._error = str(error)
            return
        self._entries = entries
        names = {e.name: e for e in entries}
        configs = self.contents(CONFIGS_FOLDER) if CONFIGS_FOLDER in names else None
        custom = [name for name in configs or {} if name.endswith(".pbtxt")]
        wanted = f"{self._model_config_name}.pbtxt"
        if self._model_config_name and wanted in custom:
            self._config_path = self.path / CONFIGS_FOLDER / wanted
        elif CONFIG_NAME in names:
            self._config_path = self.path / CONFIG_NAME
            self._config_known_inside = not self._symlink and not names[CONFIG_NAME].is_symlink
        selected = self._config_path.name if self._config_path else None
        self._unused_configs = [
            self.path / CONFIGS_FOLDER / name
            for name in custom
            if not (
                self._config_path
                and self._config_path.parent.name == CONFIGS_FOLDER
                and name == selected
            )
        ]

    @property
    def entries(self) -> list[Entry] | None:
        """The folder's entries, sorted like Triton's; None if it cannot be listed."""
        self._load()
        return self._entries

    @property
    def error(self) -> str | None:
        """Why the folder cannot be listed (or is not followed)."""
        self._load()
        return self._error

    @property
    def config_path(self) -> Path | None:
        """The config file Triton would read, None if there is none."""
        self._load()
        return self._config_path

    @config_path.setter
    def config_path(self, path: Path | None) -> None:
        """Select another file (one named explicitly); it is checked to stay inside."""
        self._load()
        self._config_path = path
        self._config_known_inside = False
        self._config = None

    @property
    def unused_configs(self) -> list[Path]:
        """configs/*.pbtxt files that are not the selected config."""
        self._load()
        return self._unused_configs

    @unused_configs.setter
    def unused_configs(self, paths: list[Path]) -> None:
        self._load()
        self._unused_configs = paths

    @property
    def config_known_inside(self) -> bool:
        """`config_path` was reached through listed folders, none of them a symlink."""
        self._load()
        return self._config_known_inside

    @cached_property
    def path(self) -> Path:
        return self.repository / self.name

    @property
    def is_stray(self) -> bool:
        """A hidden or tool folder: Triton still treats it as a model."""
        return self.name.startswith(".") or self.name in TOOL_FOLDERS

    @property
    def subfolders(self) -> list[str]:
        return [e.name for e in self.entries or [] if e.is_dir]

    def contents(self, subfolder: str) -> Mapping[str, FolderEntry] | None:
        """Names in `<model>/<subfolder>`, or None if it cannot be listed.

        Listed once per run: several rules (and Triton's backend inference) look at the
        same version folder, and the repository does not change while it is checked.
        """
        if subfolder in self._contents:
            return self._contents[subfolder]
        try:
            entries = list_dir(self.repository, self.path / subfolder)
        except FsError:
            listing = None
        else:
            listing = {e.name: FolderEntry(e.name, e.is_dir) for e in entries}
        self._contents[subfolder] = listing
        return listing

    def first_subfolder_contents(self) -> Mapping[str, FolderEntry] | None:
        """What Triton's backend inference looks at: the first sub-folder, sorted."""
        subfolders = self.subfolders
        if not subfolders:
            return None
        return self.contents(subfolders[0]) or {}

    def config(self) -> ConfigFile | None:
        """The selected config file, read and parsed once; None if there is none."""
        if self.config_path is None:
            return None
        if self._config is None:
            self._config = ConfigFile(self.config_path)
            text = self._overlay.get(self.config_path) if self._overlay else None
            if text is not None:
                data = text.encode("utf-8", errors="surrogateescape")
                self._config.parsed = _parse(self.config_path, data)
                return self._config
            try:
                data = read_text_file(
                    self.repository, self.config_path, known_inside=self.config_known_inside
                )
            except FsError as error:
                self._config.read_error = str(error)
            else:
                self._config.parsed = _parse(self.config_path, data)
        return self._config


class _Models(Mapping[str, ModelFolder]):
    """The model folders of a listed repository, by name in Triton's order; each
    ModelFolder is made on first access (checking one config of a 10,000-model
    repository touches one)."""

    def __init__(
        self,
        root: Path,
        entries: list[Entry],
        model_config_name: str | None,
        overlay: Overlay | None = None,
    ) -> None:
        self._root = root
        self._entries = {entry.name: entry for entry in entries}
        self._model_config_name = model_config_name
        self._overlay = overlay
        self._folders: dict[str, ModelFolder] = {}

    def __getitem__(self, name: str) -> ModelFolder:
        folder = self._folders.get(name)
        if folder is None:
            entry = self._entries[name]
            folder = self._folders[name] = ModelFolder(
                self._root,
                name,
                model_config_name=self._model_config_name,
                symlink=entry.is_symlink,
                outside=entry.outside,
                overlay=self._overlay,
            )
        return folder

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)


@dataclass(eq=False)
class Repository:
    """A listed repository (one object per root and run: compared by identity)."""

    root: Path
    models: Mapping[str, ModelFolder]
    error: str | None = None

    def model(self, name: str) -> ModelFolder | None:
        return self.models.get(name)


@dataclass(frozen=True)
class Job:
    """One model to check: what the engine lints and the result cache keeps an outcome of."""

    repository: Repository
    model: str


@dataclass
class Target:
    """A repository and the models in it that the user asked to check."""

    repository: Repository
    selected: list[str]
    explicit_files: list[Path] = field(default_factory=list)

    @property
    def jobs(self) -> list[Job]:
        """The selected models, in the order they are reported."""
        return [Job(self.repository, name) for name in self.selected]


@dataclass(frozen=True)
class PathProblem:
    path: Path
    message: str


def load_repository(
    root: Path, model_config_name: str | None, overlay: Overlay | None = None
) -> Repository:
    root = root.resolve()
    try:
        entries = list_dir(root, root)
    except FsError as error:
        return Repository(root, {}, str(error))
    # Every folder is a model (hidden ones too); so is a link Triton would follow out.
    models = [e for e in entries if e.is_dir or (e.is_symlink and e.outside)]
    return Repository(root, _Models(root, models, model_config_name, overlay))


def _looks_like_model(folder: Path) -> bool:
    try:
        children = list(folder.iterdir())
    except OSError:
        return False
    names = {child.name for child in children}
    if CONFIG_NAME in names or CONFIGS_FOLDER in names:
        return True
    return any(_NUMERIC.fullmatch(child.name) and child.is_dir() for child in children)


def classify(path: Path) -> tuple[Path, str | None, Path | None]:
    """(repository root, selected model or None for all, explicit config file or None)."""
    if path.is_file() or (path.exists() and not path.is_dir()):
        parent = path.parent
        model = parent.parent if parent.name == CONFIGS_FOLDER else parent
        return model.parent, model.name, path
    if (path / CONFIG_NAME).exists() or (path / CONFIGS_FOLDER).is_dir():
        return path.parent, path.name, None
    try:
        children = [child for child in path.iterdir() if child.is_dir()]
    except OSError:
        return path, None, None
    if any(_looks_like_model(child) for child in children):
        return path, None, None
    if any(_NUMERIC.fullmatch(child.name) for child in children):
        return path.parent, path.name, None
    return path, None, None


def discover(
    paths: Iterable[Path], model_config_name: str | None, overlay: Overlay | None = None
) -> tuple[list[Target], list[PathProblem]]:
    """Group the PATH arguments into repositories with the models to check (`overlay`:
    text to read instead of some config files)."""
    targets: dict[Path, Target] = {}
    problems = []
    for raw in paths:
        if storage.is_remote(raw):
            problem = _unreachable(raw)
            if problem is not None:
                problems.append(problem)
                continue
        elif not raw.exists() and not raw.is_symlink():
            problems.append(PathProblem(raw, "no such file or folder"))
            continue
        root, model, config_file = classify(raw.absolute())
        key = root.resolve()
        target = targets.get(key)
        if target is None:
            repository = load_repository(root, model_config_name, overlay)
            target = targets[key] = Target(repository, [])
        if model is None:
            target.selected.extend(target.repository.models)
            if not target.repository.models:
                # A typo'd or wrong path in CI must not pass as "no problems found".
                problems.append(_nothing_found(raw, target.repository, model_config_name))
        elif model in target.repository.models:
            target.selected.append(model)
        if config_file is not None:
            target.explicit_files.append(config_file)
            folder = target.repository.models.get(model or "")
            if folder is not None and config_file.suffix == ".json":
                # A JSON config (Triton's load-API override, or GET .../config output).
                folder.config_path = config_file
            elif folder is not None and config_file.parent.name == CONFIGS_FOLDER:
                # The user named this variant explicitly: check it, as if selected.
                folder.config_path = folder.path / CONFIGS_FOLDER / config_file.name
                folder.unused_configs = [
                    p for p in folder.unused_configs if p.name != config_file.name
                ]
    for target in targets.values():
        target.selected = list(dict.fromkeys(target.selected))
    return list(targets.values()), problems


def _unreachable(url: Path) -> PathProblem | None:
    """A URL whose bucket, object or service cannot be reached: what the service said."""
    try:
        url.stat()
    except OSError as error:
        return PathProblem(url, f"{error.strerror or error}; nothing checked")
    return None


def _nothing_found(
    path: Path, repository: Repository, model_config_name: str | None
) -> PathProblem:
    """Why a PATH selected no model: its folder cannot be listed, or holds no model."""
    if repository.error is not None:
        return PathProblem(path, f"{repository.error}; nothing checked")
    variant = f"{CONFIGS_FOLDER}/{model_config_name or '*'}.pbtxt"
    names = f"{variant} and {CONFIG_NAME}" if model_config_name else f"{CONFIG_NAME} and {variant}"
    return PathProblem(
        path,
        f"no model configuration found: looked for {names} in it and in each of its "
        "sub-folders (a model repository holds <model>/config.pbtxt); nothing checked",
    )


def _parse(path: Path, data: bytes) -> ParsedConfig:
    """A config file by its kind: JSON (validated against the JSON Schema) or pbtxt."""
    if path.suffix == ".json":
        from pbtxt_lint.jsonconfig import parse_json_config  # deferred: jsonschema loads with it

        return parse_json_config(data)
    # Deferred for start-up time: a run answered from the result cache parses nothing.
    from pbtxt_lint.textproto.parse import parse_config

    return parse_config(data)
