"""Score pbtxt-lint on the evaluation set of inference-time mistakes (tests/evaluation/).

    .venv/bin/python scripts/evaluate.py [--verbose] [--json FILE] [CASE ...]

Each case is a model repository that Triton loads, described by its case.toml: a
``mistake`` (a request fails or an answer is wrong; ``request`` says which) or a
``control`` (a correct configuration of the same kind, which must stay clean). The
script lints every case's repository through ``pbtxt_lint.linter.lint`` with default
settings (a case may carry ``args``: ``--config-only``, ``--disable-auto-complete-config``,
``--gpus N``, ``--triton-version V``) and reports per case whether pbtxt-lint said
anything at warning or error level on it (infos do not count; a case marked
``client_half``, whose mistake is in what the client sends, also counts what
``pbtxt-lint request`` says about each of its ``[[live]]`` bodies sent to /infer), the
share of mistakes caught, and every control that got a warning or an error.

A caught mistake is only a first filter: read the messages (``--verbose``) to see that
they name the failing request rather than something unrelated. As a mechanical lower
bound the script also counts the mistakes caught by a rule that fires on no control (a
rule that warns on correct configs says nothing about a mistake when it fires there).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.linter import lint
from pbtxt_lint.settings import Settings
from pbtxt_lint.targets import resolve

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "evaluation"
REPORTED = (Severity.ERROR, Severity.WARNING)


@dataclass
class Outcome:
    name: str
    kind: str
    findings: list[tuple[str, str, str]] = field(default_factory=list)
    """(severity, code, message) at warning or error level."""
    infos: list[tuple[str, str]] = field(default_factory=list)

    @property
    def reported(self) -> bool:
        return bool(self.findings)


def settings_for(args: list[str]) -> Settings:
    """The Settings that these command-line flags select (only the flags cases use)."""
    known = {"--config-only", "--disable-auto-complete-config", "--gpus", "--triton-version"}
    values: dict[str, str] = {}
    flags: set[str] = set()
    index = 0
    while index < len(args):
        arg = args[index]
        if arg not in known:
            raise ValueError(f"unsupported argument in case.toml: {arg}")
        if arg in ("--gpus", "--triton-version"):
            values[arg] = args[index + 1]
            index += 2
        else:
            flags.add(arg)
            index += 1
    version = values.get("--triton-version")
    return Settings(
        auto_complete="--disable-auto-complete-config" not in flags,
        config_only="--config-only" in flags,
        gpus=int(values["--gpus"]) if "--gpus" in values else None,
        target=resolve(version).release if version else None,
    )


def load_case(folder: Path) -> dict[str, Any]:
    with (folder / "case.toml").open("rb") as handle:
        return tomllib.load(handle)


def evaluate(folder: Path, deep: bool = False) -> Outcome:
    spec = load_case(folder)
    outcome = Outcome(folder.name, str(spec["kind"]))
    settings = settings_for(list(spec.get("args", [])))
    if deep:
        settings = replace(settings, deep=True)
    result = lint([folder / "repo"], settings)
    for diagnostic in result.diagnostics:
        if diagnostic.severity in REPORTED:
            outcome.findings.append(
                (diagnostic.severity.value, diagnostic.code, diagnostic.message)
            )
        else:
            outcome.infos.append((diagnostic.code, diagnostic.message))
    for error in result.internal_errors:
        outcome.findings.append(("internal", error.rule, error.error))
    if spec.get("client_half"):
        outcome.findings.extend(client_findings(folder, spec))
    return outcome


def client_findings(folder: Path, spec: dict[str, Any]) -> list[tuple[str, str, str]]:
    """What `pbtxt-lint request` says about each `[[live]]` body the case sends to /infer.

    A case marked `client_half` is a mistake (or a control) in what the client sends to a
    repository that is itself right, so the request check is scored with the lint."""
    from pbtxt_lint.request import check_request, load_model

    found: list[tuple[str, str, str]] = []
    for request in spec.get("live", []):
        if request.get("endpoint", "infer") != "infer":
            continue
        loaded = load_model(folder / "repo" / str(request["model"]))
        for problem in check_request(loaded.config, loaded.name, request["body"], loaded.contract):
            if problem.severity in REPORTED:
                found.append((problem.severity.value, f"request:{problem.code}", problem.message))
    return found


def case_folders(names: list[str], root: Path = CASES) -> list[Path]:
    if names:
        return [root / name for name in names]
    return sorted(p.parent for p in root.rglob("case.toml") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case folder names (default: all)")
    parser.add_argument(
        "--set",
        type=Path,
        default=CASES,
        help="the folder of cases (default tests/evaluation; tests/heldout holds the cases "
        "built from threads no rule was designed from)",
    )
    parser.add_argument("--verbose", action="store_true", help="print every message")
    parser.add_argument("--json", type=Path, help="also write the outcomes as JSON")
    parser.add_argument(
        "--deep", action="store_true", help="lint with --deep (runs ONNX models; onnxruntime)"
    )
    args = parser.parse_args(argv)
    outcomes = [evaluate(folder, args.deep) for folder in case_folders(args.cases, args.set)]
    mistakes = [o for o in outcomes if o.kind == "mistake"]
    controls = [o for o in outcomes if o.kind == "control"]
    for outcome in outcomes:
        verdict = "caught" if outcome.reported else "missed"
        if outcome.kind == "control":
            verdict = "NOISY" if outcome.reported else "clean"
        codes = ",".join(sorted({code for _, code, _ in outcome.findings})) or "-"
        print(f"{verdict:7} {outcome.kind:8} {outcome.name:45} {codes}")
        if args.verbose:
            for severity, code, message in outcome.findings:
                print(f"          {severity} {code}: {message}")
    caught = sum(o.reported for o in mistakes)
    noisy = [o for o in controls if o.reported]
    noisy_codes = {code for o in noisy for _, code, _ in o.findings}
    specific = sum(any(code not in noisy_codes for _, code, _ in o.findings) for o in mistakes)
    print()
    share = f" ({100 * caught / len(mistakes):.0f}%)" if mistakes else ""
    print(f"mistakes caught: {caught} of {len(mistakes)}{share}")
    if noisy_codes:
        print(
            f"mistakes caught by a rule that fires on no control: {specific} of {len(mistakes)}"
            f" (rules firing on controls: {', '.join(sorted(noisy_codes))})"
        )
    print(f"controls with a warning or error: {len(noisy)} of {len(controls)}")
    for outcome in noisy:
        for severity, code, message in outcome.findings:
            print(f"  {outcome.name}: {severity} {code}: {message}")
    if args.json:
        payload = [
            {"case": o.name, "kind": o.kind, "reported": o.reported, "findings": o.findings}
            for o in outcomes
        ]
        args.json.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
