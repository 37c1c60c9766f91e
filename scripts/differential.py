"""Long differential run: random and mutated configs judged by tritonserver and pbtxt-lint.

    .venv/bin/python scripts/differential.py --count 5000 --seed 7

generates ``--count`` random model groups (about 1.2 models each: single models and
ensembles with their composing models) from seed ``--seed``, plus ``--mutations`` mutated
copies of every fixture case and of the example repository, writes them as
repositories of about ``--batch-size`` models, and judges each with the real
``tritonserver`` 2.51 (``--disable-auto-complete-config``, empty backend folder, see
``tests/oracle.py``) and with ``pbtxt-lint --disable-auto-complete-config``.
Every disagreement is printed with both verdicts and the configs, then a summary that
groups them by kind. See ``tests/differential.py`` for the rule applied and for what
counts as skipped (Triton undecided, or a feature tritonserver 2.51 predates).

The same seed gives the same configs; ``--limit N`` prints only the first N
disagreements of each kind; ``--json FILE`` also writes every disagreement as JSON.
Exit code: 0 when no root disagreement is found (those that follow from another are
listed but do not count), 1 otherwise, 2 when tritonserver cannot be fetched.
The first run downloads tritonserver (about 55 MB, from the nvidia-pytriton wheel) into
``.cache/tritonserver``. 5,000 groups (about 8,600 models) take about a minute on two
cores.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=5000, help="random groups (default 5000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of every choice (default 0)")
    parser.add_argument(
        "--mutations", type=int, default=3, help="mutated copies per fixture config (default 3)"
    )
    parser.add_argument("--batch-size", type=int, default=100, help="models per repository")
    parser.add_argument("--limit", type=int, default=None, help="disagreements shown per kind")
    parser.add_argument("--json", type=Path, default=None, help="also write them to this file")
    args = parser.parse_args(argv)

    sys.path.insert(0, str(TESTS))
    differential = importlib.import_module("differential")
    oracle = importlib.import_module("oracle")
    server = oracle.find_tritonserver()
    if server is None:
        print(f"tritonserver could not be fetched: {oracle.fetch_error()}", file=sys.stderr)
        return 2
    start = time.monotonic()
    groups = differential.random_groups(args.seed, args.count)
    groups += differential.mutation_groups(args.seed, args.mutations)
    report = differential.run_differential(server, groups, batch_size=args.batch_size)
    print(differential.full_report(report, limit=args.limit))
    print(f"seed {args.seed}, {len(groups)} groups, {time.monotonic() - start:.0f}s in all")
    if args.json is not None:
        args.json.write_text(json.dumps([_as_json(o) for o in report.disagreements], indent=1))
    failed = report.root_disagreements or report.new_crashes or report.lint_crashes
    return 1 if failed else 0


def _as_json(outcome: Any) -> dict[str, object]:
    verdict = outcome.verdict
    return {
        "model": outcome.model,
        "kind": outcome.kind,
        "cause": outcome.cause,
        "origin": outcome.group.origin,
        "triton": {"status": verdict.status, "stage": verdict.stage, "message": verdict.message,
                   "detail": verdict.detail},
        "pbtxt_lint": [
            {"code": d.code, "severity": d.severity.value, "message": d.message,
             "line": d.span.line if d.span else None}
            for d in outcome.diagnostics
        ],
        "configs": {name: outcome.group.config_text(name) for name in outcome.group.models},
    }  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
