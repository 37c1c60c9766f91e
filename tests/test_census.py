"""The backends' censuses: well-formed, current in the docs, and tied to the rules.

Every row names rules that exist and say they report on that backend; every rule that
says it reports on a backend is cited by a row of that backend's census.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pbtxt_lint.docs import census_reference
from pbtxt_lint.rules.registry import ALL_RULES, RULES_BY_CODE
from pbtxt_lint.triton.backends import BACKENDS
from pbtxt_lint.triton.census import CensusError, census_names, load

ROOT = Path(__file__).resolve().parent.parent
NAMES = census_names()


def test_census_rows_cite_existing_rules_of_their_backend() -> None:
    problems = []
    for name in NAMES:
        census = load(name)
        if name not in BACKENDS:
            problems.append(f"{name}.toml: not a backend of triton/backends.py")
        ids = [row.id for row in census.rows]
        if len(ids) != len(set(ids)):
            problems.append(f"{name}.toml: row ids repeat")
        for row in census.rows:
            for code in row.rules:
                if code not in RULES_BY_CODE:
                    problems.append(f"{name}.toml row {row.id}: no rule {code}")
                elif name not in RULES_BY_CODE[code].backends:
                    problems.append(f"{name}.toml row {row.id}: {code} lacks backend={name!r}")
    assert not problems, problems


def test_every_backend_rule_is_cited_by_its_census() -> None:
    cited = {(name, code) for name in NAMES for row in load(name).rows for code in row.rules}
    missing = [
        f"{rule.code} ({backend})"
        for rule in ALL_RULES
        for backend in rule.backends
        if (backend, rule.code) not in cited
    ]
    assert not missing, f"rules that no census row cites: {missing}"


def test_backends_doc_is_current() -> None:
    stale = "docs/backends.md is stale: run python scripts/gen_docs.py"
    assert (ROOT / "docs" / "backends.md").read_text() == census_reference(), stale


def test_malformed_census_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pbtxt_lint.triton.census as module

    (tmp_path / "python.toml").write_text(
        'backend = "python"\nrepository = "r"\nrelease = "r24.10"\n'
        '[[row]]\nid = "x"\nwhere = "w"\nmessage = "m"\nstage = "load"\n'
        'trigger = "t"\ndecidable = false\n'
    )
    monkeypatch.setattr(module, "CENSUS_DIR", tmp_path)
    with pytest.raises(CensusError, match="needs a reason"):
        load("python")
