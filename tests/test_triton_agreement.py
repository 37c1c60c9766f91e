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

from pathlib import Path

import pytest
from fixture_cases import Case, all_cases, materialize
from oracle import TritonServer, require_tritonserver

from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.linter import lint
from pbtxt_lint.rules.base import Stage
from pbtxt_lint.rules.layout.common import ARTIFACT_NAMES
from pbtxt_lint.settings import Settings
from pbtxt_lint.targets import resolve

# The oracle is tritonserver 2.51: lint for that release, so fields it does not know
# yet (model_metrics, ...) are errors on both sides.
ORACLE_RELEASE = resolve("2.51").release
POLL_STAGES = {Stage.PARSE.value, Stage.POLL.value}
# Cases Triton cannot judge here: a FIFO config blocks its reader; `crash` cases take
# the whole server down (a known tritonserver 2.51 segfault).
CASES = [c for c in all_cases() if not c.fifos and "crash" not in c.name]


@pytest.fixture(scope="module")
def server() -> TritonServer:
    return require_tritonserver()


def lint_errors(folder: Path, args: tuple[str, ...]) -> dict[str, list[tuple[str, str]]]:
    """Per model, our errors as (code, stage)."""
    settings = Settings(
        auto_complete="--disable-auto-complete-config" not in args,
        model_config_name=_option(args, "--model-config-name"),
        config_only="--config-only" in args,
        gpus=int(gpus) if (gpus := _option(args, "--gpus")) is not None else None,
        target=ORACLE_RELEASE,
    )
    errors: dict[str, list[tuple[str, str]]] = {}
    for diagnostic in lint([folder], settings).diagnostics:
        if diagnostic.severity is Severity.ERROR and diagnostic.model is not None:
            errors.setdefault(diagnostic.model, []).append(
                (diagnostic.code, diagnostic.stage or "")
            )
    return errors


def _kept_apart(repository: Path) -> set[str]:
    """Models whose folder holds no version folder and no model file: with --config-only
    their versions live elsewhere (rules/layout/common.py, versions_elsewhere), so what
    Triton says of the folder here (no version, no backend) is not a verdict on them."""
    return {
        folder.name
        for folder in repository.iterdir()
        if folder.is_dir()
        and not any(p.is_dir() and p.name.isdigit() for p in folder.iterdir())
        and not any(p.name in ARTIFACT_NAMES for p in folder.iterdir())
    }


def _option(args: tuple[str, ...], name: str) -> str | None:
    return args[args.index(name) + 1] if name in args else None


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_triton_agrees(case: Case, server: TritonServer, tmp_path: Path) -> None:
    folder = materialize(case, tmp_path)
    verdicts = server.validate(
        folder,
        auto_complete="--disable-auto-complete-config" not in case.args,
        model_config_name=_option(case.args, "--model-config-name"),
    )
    ours = lint_errors(folder, case.args)
    apart = _kept_apart(folder) if "--config-only" in case.args else set()
    problems = []
    for model, verdict in verdicts.items():
        codes = ours.get(model, [])
        poll_codes = [code for code, stage in codes if stage in POLL_STAGES]
        if model in apart or verdict.upstream in apart:
            continue  # its version folders are elsewhere, by --config-only's premise
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
