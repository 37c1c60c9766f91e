"""How noisy is pbtxt-lint on real model repositories that Triton accepts?

    .venv/bin/python scripts/realworld.py /work/corpus/realworld --sample 30 --seed 1

The corpus folder holds model repositories, one per folder (``<corpus>/<repository>/
<model>/config.pbtxt`` plus whatever model files the source had); every model in it is
one that the real tritonserver 2.51 accepts at its poll stage (the corpus is built and
filtered outside this repository, see ``tests/realworld/MANIFEST.tsv`` for where each
config comes from). Every diagnostic on such a model is a claim about a model that loads;
warnings there must be about requests that really fail or answers that are really wrong.

The script lints the corpus through ``pbtxt_lint.linter.lint`` twice: with default
settings, and with ``config_only`` (``--config-only``: only the config file is read). For
each run it prints the number of models, the share with at least one warning and with at
least one error, and per rule the number of models that get it. ``--sample N --seed S``
then prints N warnings of the default run drawn at random (same seed, same draw), each
with the lines of its file around the place it points at, for a manual review.
``--json FILE`` writes the figures as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pbtxt_lint.diagnostics import Diagnostic, Severity
from pbtxt_lint.linter import lint
from pbtxt_lint.settings import Settings


@dataclass
class Figures:
    """One run's counts, per model (a model counts once per rule however often it fires)."""

    label: str
    models: int = 0
    with_warning: int = 0
    with_error: int = 0
    with_info: int = 0
    per_rule: dict[str, Counter[str]] = field(default_factory=dict)  # severity -> code -> models
    internal_errors: int = 0

    def as_json(self) -> dict[str, object]:
        return {
            "label": self.label,
            "models": self.models,
            "with_warning": self.with_warning,
            "with_error": self.with_error,
            "with_info": self.with_info,
            "per_rule": {s: dict(c.most_common()) for s, c in self.per_rule.items()},
            "internal_errors": self.internal_errors,
        }


def model_folders(corpus: Path) -> list[Path]:
    """Every ``<repository>/<model>`` folder that holds a config.pbtxt."""
    return sorted(p.parent for p in corpus.glob("*/*/config.pbtxt"))


def model_of(path: Path, corpus: Path) -> Path | None:
    """The ``<repository>/<model>`` folder a diagnostic's file belongs to."""
    try:
        parts = path.resolve().relative_to(corpus.resolve()).parts
    except ValueError:
        return None
    return corpus.joinpath(*parts[:2]) if len(parts) >= 2 else None


def run(corpus: Path, label: str, settings: Settings) -> tuple[Figures, list[Diagnostic]]:
    models = model_folders(corpus)
    repositories = sorted({m.parent for m in models})
    result = lint(repositories, settings)
    figures = Figures(label, models=len(models), internal_errors=len(result.internal_errors))
    seen: dict[Severity, set[Path]] = {s: set() for s in Severity}
    rule_models: dict[tuple[Severity, str], set[Path]] = {}
    for diagnostic in result.diagnostics:
        model = model_of(diagnostic.path, corpus)
        if model is None:
            continue
        seen[diagnostic.severity].add(model)
        rule_models.setdefault((diagnostic.severity, diagnostic.code), set()).add(model)
    figures.with_warning = len(seen[Severity.WARNING])
    figures.with_error = len(seen[Severity.ERROR])
    figures.with_info = len(seen[Severity.INFO])
    for (severity, code), members in rule_models.items():
        figures.per_rule.setdefault(severity.value, Counter())[code] = len(members)
    return figures, result.diagnostics


def share(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.1f}%)" if whole else "0"


def report(figures: Figures) -> None:
    print(f"== {figures.label}")
    print(f"models: {figures.models}")
    print(f"models with at least one error:   {share(figures.with_error, figures.models)}")
    print(f"models with at least one warning: {share(figures.with_warning, figures.models)}")
    print(f"models with at least one info:    {share(figures.with_info, figures.models)}")
    if figures.internal_errors:
        print(f"internal errors (rule crashes): {figures.internal_errors}")
    for severity in ("error", "warning", "info"):
        counts = figures.per_rule.get(severity)
        if not counts:
            continue
        print(f"  {severity}s, models per rule:")
        for code, n in counts.most_common():
            print(f"    {code:8} {n}")
    print()


def context(diagnostic: Diagnostic, radius: int = 6) -> str:
    """The lines of the diagnostic's file around its place, the place marked with ``>``."""
    try:
        lines = diagnostic.path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "    (file not readable)"
    at = diagnostic.span.line if diagnostic.span else 1
    low, high = max(1, at - radius), min(len(lines), at + radius)
    return "\n".join(
        f"  {'>' if n == at else ' '}{n:4} | {lines[n - 1]}" for n in range(low, high + 1)
    )


def sample(diagnostics: list[Diagnostic], corpus: Path, count: int, seed: int) -> None:
    warnings = [d for d in diagnostics if d.severity is Severity.WARNING]
    warnings.sort(key=Diagnostic.sort_key)
    chosen = random.Random(seed).sample(warnings, min(count, len(warnings)))
    print(f"== {len(chosen)} random warnings of {len(warnings)} (seed {seed})")
    for index, d in enumerate(chosen, 1):
        where = d.path.relative_to(corpus) if d.path.is_relative_to(corpus) else d.path
        line = f":{d.span.line}:{d.span.column}" if d.span else ""
        print(f"\n[{index}] {d.code} {where}{line}")
        print(f"  {d.message}")
        if d.hint:
            print(f"  hint: {d.hint}")
        print(context(d))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="folder of model repositories")
    parser.add_argument("--sample", type=int, default=0, help="random warnings to print")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    corpus: Path = args.corpus.resolve()
    if not corpus.is_dir():
        print(f"not a folder: {corpus}", file=sys.stderr)
        return 2
    default, diagnostics = run(corpus, "default settings", Settings())
    config_only, _ = run(corpus, "--config-only", Settings(config_only=True))
    report(default)
    report(config_only)
    if args.sample:
        sample(diagnostics, corpus, args.sample, args.seed)
    if args.json:
        text = json.dumps([default.as_json(), config_only.as_json()], indent=2)
        args.json.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
