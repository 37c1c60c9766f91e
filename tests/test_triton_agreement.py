"""The promise, checked against the real server: on every fixture case, Triton rejects
exactly the models on which pbtxt-lint reports an error that Triton's own stage would
see.

The `tritonserver` here has no backends (an empty backend folder), so a model that
passes every poll-time check stops at "unable to find backend library": that verdict
says nothing about load-time rules (backend, instance and artifact checks), only that
no poll-time rule may fire. Skips only when the server cannot be fetched, and never
under CI=true (the oracle module fails instead).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixture_cases import Case, all_cases, materialize
from oracle import TritonServer, fetch_error, find_tritonserver

from pbtxt_lint.cli import cli
from pbtxt_lint.rules import RULES_BY_CODE
from pbtxt_lint.rules.base import Stage

POLL_STAGES = {Stage.PARSE, Stage.POLL}
# Cases Triton cannot judge here: a FIFO config blocks its reader; `crash` cases take
# the whole server down (a known tritonserver 2.51 segfault).
CASES = [c for c in all_cases() if not c.fifos and "crash" not in c.name]


@pytest.fixture(scope="module")
def server() -> TritonServer:
    found = find_tritonserver()
    if found is None:
        message = f"tritonserver could not be fetched: {fetch_error()}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def lint_errors(
    folder: Path, args: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> dict[str, list[str]]:
    monkeypatch.chdir(folder)
    result = CliRunner().invoke(cli, ["check", ".", "--format", "json", *args])
    errors: dict[str, list[str]] = {}
    for diagnostic in json.loads(result.stdout)["diagnostics"]:
        if diagnostic["severity"] == "error":
            errors.setdefault(diagnostic["model"], []).append(diagnostic["code"])
    return errors


def _option(args: tuple[str, ...], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_triton_agrees(
    case: Case, server: TritonServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = materialize(case, tmp_path)
    verdicts = server.validate(
        folder,
        auto_complete="--disable-auto-complete-config" not in case.args,
        model_config_name=_option(case.args, "--model-config-name"),
    )
    ours = lint_errors(folder, case.args, monkeypatch)
    problems = []
    for model, verdict in verdicts.items():
        codes = ours.get(model, [])
        poll_codes = [c for c in codes if RULES_BY_CODE[c].stage in POLL_STAGES]
        if verdict.status == "rejected" and not codes:
            problems.append(
                f"Triton rejects '{model}' ({verdict.message} {verdict.detail}) "
                "but pbtxt-lint reports no error"
            )
        elif verdict.status == "backend_missing" and poll_codes:
            problems.append(
                f"Triton passes '{model}' through its poll-time checks but "
                f"pbtxt-lint reports poll-time errors {poll_codes}"
            )
    assert not problems, "\n".join(problems)
