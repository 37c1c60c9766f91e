"""Fixture repositories and their expectations, shared by the rule and oracle tests.

A case is a small model repository under `tests/fixtures/rules/` that must trigger a
rule (its name starts with `fail`) or, as a close variant, must not (`pass`). It is
written one of two ways:

- **a data case** (the common one): a `[[case]]` table in the rule's data file
  `tests/fixtures/rules/<CODE>.toml`:

      [[case]]
      name = "fail_typo"
      args = "--config-only"          # extra `pbtxt-lint check` flags
      python_stub = ["m/1/model.py"]  # files holding PYTHON_STUB
      files."m/config.pbtxt" = '''
      backend: "python"
      max_batch: 8  # expect: PL002
      '''

  Other keys: `empty = ["m/1/model.onnx"]` (empty files), `dirs = ["m/2"]` (empty
  folders), `expect = ["PL107 m", "PL665 m/1/model.py:3"]` (diagnostics without a
  line, or on a line of a file that is not `.pbtxt`), `fifos = ["m/config.pbtxt"]`
  (FIFOs git could not store). Only `name` is required. Text is TOML: a `'''` string
  keeps it verbatim (the newline right after the opening quotes is dropped);
  double-quoted strings take backslash escapes. The helpers write a data case out as
  a repository in a temporary folder (`materialize`, `Case.path`), so every test sees
  the files a folder would hold.
- **a folder case** `tests/fixtures/rules/<CODE>/<case>/` holding the repository
  itself, for what a data file cannot hold: binary model files (written by
  scripts/make_fixture_artifacts.py), symbolic links, bytes that are not plain UTF-8
  text. Its `expect.txt` carries `args: ...`, `fifo: <path>` and `<CODE> <path>[:line]`
  lines; `#` starts a comment line.

In both, `# expect: PL204` (comma-separated codes) at the end of a line of any
`.pbtxt` file expects a diagnostic with that code on that line of that file. The
expected set must equal the reported set exactly (path, line, code), so a case also
proves that nothing else fires. What each case reports, word for word, is recorded in
`tests/snapshots/<CODE>.txt` (test_snapshots.py; `make snapshots` rewrites it).
"""

from __future__ import annotations

import atexit
import os
import re
import shlex
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
EXAMPLES = Path(__file__).parent.parent / "examples"
_EXPECT_COMMENT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")

PYTHON_STUB = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"
"""The minimal model.py of a config-level case (`python_stub` in a data file)."""

Expectation = tuple[str, int | None, str]  # (relative path, line or None, code)
_CASE_KEYS = {"name", "args", "files", "python_stub", "empty", "dirs", "expect", "fifos"}


@dataclass(frozen=True)
class Case:
    code: str
    name: str
    source: Path  # the case folder, or the data file that lists the case
    args: tuple[str, ...]
    expected: Counter[Expectation]
    fifos: tuple[str, ...] = ()
    files: tuple[tuple[str, bytes], ...] | None = None  # a data case's files, None: a folder
    dirs: tuple[str, ...] = ()  # a data case's empty folders

    @property
    def id(self) -> str:
        return f"{self.code}/{self.name}"

    @property
    def should_fail(self) -> bool:
        return self.name.startswith("fail")

    @property
    def path(self) -> Path:
        """The repository to read (never to change; FIFOs left out): the case folder,
        or for a data case a copy written once per process in a temporary folder."""
        if self.files is None:
            return self.source
        return _shared_copy(self)


def _expectations(texts: Iterable[tuple[str, bytes]], lines: Iterable[str]) -> Counter[Expectation]:
    """`# expect:` comments of the .pbtxt files, plus `<CODE> <path>[:line]` lines."""
    found: Counter[Expectation] = Counter()
    for relative, data in texts:
        text = data.decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            match = _EXPECT_COMMENT.search(line)
            if match:
                for code in match.group(1).replace(",", " ").split():
                    found[(relative, number, code)] += 1
    for line in lines:
        expected_code, _, target = line.partition(" ")
        path, _, number = target.strip().partition(":")
        found[(path, int(number) if number else None, expected_code)] += 1
    return found


def load_case(code: str, case_dir: Path) -> Case:
    """A folder case: the folder and its `expect.txt`."""
    pbtxt = [
        (file.relative_to(case_dir).as_posix(), file.read_bytes())
        for file in sorted(case_dir.rglob("*.pbtxt"))
        if file.is_file()
    ]
    args: tuple[str, ...] = ()
    fifos: list[str] = []
    lines: list[str] = []
    expect_file = case_dir / "expect.txt"
    if expect_file.exists():
        for raw in expect_file.read_text().splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("args:"):
                args = tuple(shlex.split(line.removeprefix("args:")))
            elif line.startswith("fifo:"):
                fifos.append(line.removeprefix("fifo:").strip())
            else:
                lines.append(line)
    return Case(code, case_dir.name, case_dir, args, _expectations(pbtxt, lines), tuple(fifos))


def load_data_file(path: Path) -> list[Case]:
    """The cases listed in a rule's data file `<CODE>.toml`; a mistake in it raises."""
    with path.open("rb") as stream:
        document = tomllib.load(stream)
    entries = document.get("case", [])
    if set(document) - {"case"} or not isinstance(entries, list):
        raise ValueError(f"{path}: only [[case]] tables belong here, not {sorted(document)}")
    return [_data_case(path, entry) for entry in entries]


def _data_case(path: Path, entry: dict[str, Any]) -> Case:
    name = entry.get("name")
    where = f"{path}: case {name!r}"
    if not isinstance(name, str) or not name.startswith(("fail", "pass")):
        raise ValueError(f"{where}: the name must start with 'fail' or 'pass'")
    if unknown := set(entry) - _CASE_KEYS:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    texts = entry.get("files", {})
    if not isinstance(texts, dict) or not all(isinstance(t, str) for t in texts.values()):
        raise ValueError(f"{where}: files maps a relative path to its text")
    stubs, empty, dirs, fifos, expect = (
        _strings(entry, key, where) for key in ("python_stub", "empty", "dirs", "fifos", "expect")
    )
    files = [(relative, text.encode()) for relative, text in texts.items()]
    files += [(relative, PYTHON_STUB.encode()) for relative in stubs]
    files += [(relative, b"") for relative in empty]
    for relative in [*(f for f, _ in files), *dirs, *fifos]:
        parts = PurePosixPath(relative).parts
        if not parts or relative.startswith("/") or ".." in parts or "\\" in relative:
            raise ValueError(f"{where}: {relative!r} is not a relative path inside the case")
    if len({f for f, _ in files}) != len(files):
        raise ValueError(f"{where}: a file is given twice")
    args = entry.get("args", "")
    if not isinstance(args, str):
        raise ValueError(f"{where}: args is one string of flags")
    pbtxt = [(relative, data) for relative, data in files if relative.endswith(".pbtxt")]
    return Case(
        code=path.stem,
        name=name,
        source=path,
        args=tuple(shlex.split(args)),
        expected=_expectations(pbtxt, expect),
        fifos=fifos,
        files=tuple(sorted(files)),
        dirs=dirs,
    )


def _strings(entry: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}: {key} is a list of strings")
    return tuple(value)


def write_case(case: Case, target: Path) -> Path:
    """Write a data case's repository (without its FIFOs) into the new folder `target`."""
    assert case.files is not None, f"{case.id} is a folder case"
    target.mkdir(parents=True)
    for relative in case.dirs:
        (target / relative).mkdir(parents=True, exist_ok=True)
    for relative, data in case.files:
        file = target / relative
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
    return target


def materialize(case: Case, scratch: Path) -> Path:
    """The folder to check: a folder case itself, or a fresh copy below `scratch` (data
    cases, and cases whose FIFOs git cannot store)."""
    if case.files is None and not case.fifos:
        return case.path
    target = scratch / case.name
    if case.files is None:
        shutil.copytree(case.path, target, symlinks=True)
    else:
        write_case(case, target)
    for relative in case.fifos:
        os.mkfifo(target / relative)
    return target


_SHARED: list[Path] = []


def _shared_copy(case: Case) -> Path:
    if not _SHARED:
        root = Path(tempfile.mkdtemp(prefix="pbtxt-lint-cases-"))
        atexit.register(shutil.rmtree, root, ignore_errors=True)
        _SHARED.append(root)
    target = _SHARED[0] / case.code / case.name
    return target if target.is_dir() else write_case(case, target)


def all_cases(root: Path = FIXTURES) -> list[Case]:
    """Every case below `root`, folder and data cases alike, by rule code then name."""
    cases: list[Case] = []
    codes = {p.name for p in root.iterdir() if p.is_dir()}
    codes |= {p.stem for p in root.glob("*.toml") if p.is_file()}
    for code in sorted(codes):
        mine = []
        if (root / code).is_dir():
            mine += [load_case(code, d) for d in (root / code).iterdir() if d.is_dir()]
        if (root / f"{code}.toml").is_file():
            mine += load_data_file(root / f"{code}.toml")
        names = Counter(case.name for case in mine)
        if twice := sorted(name for name, count in names.items() if count > 1):
            raise ValueError(f"{root / code}: cases named twice: {twice}")
        cases += sorted(mine, key=lambda case: case.name)
    return cases


def find_case(code: str, name: str) -> Case:
    """One case by rule code and name, wherever it is written."""
    for case in all_cases():
        if case.code == code and case.name == name:
            return case
    raise LookupError(f"no fixture case {code}/{name}")


def corpus(pattern: str) -> dict[str, Path]:
    """Every file (no symbolic link) matching the glob `pattern` in the examples and in
    every case, by label (`examples/<path>`, `<CODE>/<case>/<path>`): the real configs
    and model files the corpus tests read. In the order of their places in the source
    tree (examples/ before tests/), whichever way a case is written, so that seeded
    random choices from the corpus stay the same."""
    found = [(("examples", *p.relative_to(EXAMPLES).parts), p) for p in EXAMPLES.rglob(pattern)]
    for case in all_cases():
        found += [
            ((case.code, case.name, *p.relative_to(case.path).parts), p)
            for p in case.path.rglob(pattern)
        ]
    in_tree_order = sorted(found, key=lambda item: (item[0][0] != "examples", item[0]))
    return {
        "/".join(parts): path
        for parts, path in in_tree_order
        if path.is_file() and not path.is_symlink()
    }
