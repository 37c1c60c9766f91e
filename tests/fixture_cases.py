"""Fixture repositories and their expectations, shared by the rule and oracle tests.

A case is a folder `tests/fixtures/rules/<CODE>/<case>/` that is a model repository.
Its name starts with `fail` (it must trigger <CODE>) or `pass` (a close variant that
must not). Expectations live next to the data:

- `# expect: PL204` (comma-separated codes) at the end of a line of any `.pbtxt`
  file: a diagnostic with that code on that line of that file;
- `expect.txt` in the case folder: `PL108 <relative path>` for a diagnostic about a
  file or folder without a line, `args: --gpus 0 ...` for extra CLI flags, and
  `fifo: <relative path>` for a FIFO the test creates (git cannot store one).

The expected set must equal the reported set exactly (path, line, code), so a case
also proves that nothing else fires.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "rules"
_EXPECT_COMMENT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")

Expectation = tuple[str, int | None, str]  # (relative path, line or None, code)


@dataclass(frozen=True)
class Case:
    code: str
    name: str
    path: Path
    args: tuple[str, ...]
    expected: Counter[Expectation]
    fifos: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.code}/{self.name}"

    @property
    def should_fail(self) -> bool:
        return self.name.startswith("fail")


def _inline_expectations(case_dir: Path) -> Counter[Expectation]:
    found: Counter[Expectation] = Counter()
    for file in sorted(case_dir.rglob("*.pbtxt")):
        if not file.is_file():
            continue
        text = file.read_bytes().decode("utf-8", errors="replace")
        relative = file.relative_to(case_dir).as_posix()
        for number, line in enumerate(text.splitlines(), start=1):
            match = _EXPECT_COMMENT.search(line)
            if match:
                for code in match.group(1).replace(",", " ").split():
                    found[(relative, number, code)] += 1
    return found


def load_case(code: str, case_dir: Path) -> Case:
    expected = _inline_expectations(case_dir)
    args: tuple[str, ...] = ()
    fifos: list[str] = []
    expect_file = case_dir / "expect.txt"
    if expect_file.exists():
        for raw in expect_file.read_text().splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("args:"):
                args = tuple(shlex.split(line.removeprefix("args:")))
                continue
            if line.startswith("fifo:"):
                fifos.append(line.removeprefix("fifo:").strip())
                continue
            expected_code, _, target = line.partition(" ")
            path, _, number = target.strip().partition(":")
            expected[(path, int(number) if number else None, expected_code)] += 1
    return Case(code, case_dir.name, case_dir, args, expected, tuple(fifos))


def materialize(case: Case, scratch: Path) -> Path:
    """The folder to check: the case itself, or a copy with its FIFOs created."""
    if not case.fifos:
        return case.path
    target = scratch / case.name
    shutil.copytree(case.path, target, symlinks=True)
    for relative in case.fifos:
        os.mkfifo(target / relative)
    return target


def all_cases() -> list[Case]:
    cases = []
    for code_dir in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        for case_dir in sorted(p for p in code_dir.iterdir() if p.is_dir()):
            cases.append(load_case(code_dir.name, case_dir))
    return cases
