"""The engine: discover -> parse -> complete -> rules -> suppress -> diagnostics.

A pure function of paths and settings; the CLI only formats what comes out. The same
engine is the Python API (`pbtxt_lint.lint(...)`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from pbtxt_lint.config import known_rules
from pbtxt_lint.diagnostics import Diagnostic, Severity, Span
from pbtxt_lint.repository.layout import PathProblem, Target, discover
from pbtxt_lint.rules.base import Finding, ModelContext, Rule
from pbtxt_lint.rules.meta import unused_suppression
from pbtxt_lint.settings import Settings
from pbtxt_lint.suppressions import Suppressions, parse


@dataclass
class InternalError:
    """A rule crashed: a bug in pbtxt-lint, reported apart from the user's problems."""

    rule: str
    model: str
    error: str


@dataclass
class LintResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    models: int = 0
    files: int = 0
    path_problems: list[PathProblem] = field(default_factory=list)
    internal_errors: list[InternalError] = field(default_factory=list)
    suppressed: int = 0  # silenced by `# pbtxt-lint: disable` comments
    baselined: int = 0  # left out because the baseline records them

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)

    def merge(self, other: LintResult) -> None:
        """Add another run's results (paths checked under other settings)."""
        self.diagnostics.extend(other.diagnostics)
        self.diagnostics.sort(key=Diagnostic.sort_key)
        self.models += other.models
        self.files += other.files
        self.path_problems.extend(other.path_problems)
        self.internal_errors.extend(other.internal_errors)
        self.suppressed += other.suppressed
        self.baselined += other.baselined


def lint(
    paths: Iterable[Path], settings: Settings, rules: Sequence[Rule] | None = None
) -> LintResult:
    """Check the repositories, models or config files at `paths`."""
    if rules is None:
        rules = known_rules()
    targets, path_problems = discover(paths, settings.model_config_name)
    result = LintResult(path_problems=path_problems)
    active = [r for r in rules if settings.wants(r.code)]
    codes = {r.code: r.name for r in rules}
    for target in targets:
        _lint_target(target, settings, active, codes, result)
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


def _lint_target(
    target: Target,
    settings: Settings,
    rules: list[Rule],
    codes: dict[str, str],
    result: LintResult,
) -> None:
    repository = target.repository
    for name in target.selected:
        folder = repository.models[name]
        context = ModelContext(folder, repository, settings)
        result.models += 1
        if context.config_file is not None:
            result.files += 1
        found: list[Diagnostic] = []
        ran: set[str] = set()
        for rule in rules:
            if rule.stray != folder.is_stray:
                continue
            if rule.needs_config and context.config is None:
                continue
            ran.add(rule.code)
            try:
                findings = list(rule.run(context))
            except Exception as error:  # a bug in a rule must not hide the others
                result.internal_errors.append(InternalError(rule.code, name, repr(error)))
                continue
            found.extend(_to_diagnostic(rule, context, f) for f in findings)
        result.diagnostics.extend(_finish(context, found, ran, codes, result))


def _finish(
    context: ModelContext,
    found: list[Diagnostic],
    ran: set[str],
    codes: dict[str, str],
    result: LintResult,
) -> list[Diagnostic]:
    """Per-path ignores, inline suppressions (and their PL015), severity overrides."""
    settings = context.settings
    kept = [d for d in found if not settings.ignored_at(d.code, d.path)]
    suppressions = _suppressions(context, codes)
    if suppressions is not None:
        folder = context.model.path
        remaining = [d for d in kept if not suppressions.silences(d, folder)]
        result.suppressed += len(kept) - len(remaining)
        kept = remaining
        path = suppressions.path
        if settings.wants(unused_suppression.code) and not settings.ignored_at(
            unused_suppression.code, path
        ):

            def could_report(code: str) -> bool:
                return code in ran and not settings.ignored_at(code, path)

            for problem in suppressions.unused(could_report):
                finding = Finding(problem.message, hint=problem.hint, fix=problem.fix)
                diagnostic = replace(
                    _to_diagnostic(unused_suppression, context, finding),
                    path=path,
                    span=problem.span,
                )
                if not suppressions.silences(diagnostic, folder):
                    kept.append(diagnostic)
    return [replace(d, severity=settings.severity_for(d.code, d.severity)) for d in kept]


def _suppressions(context: ModelContext, codes: dict[str, str]) -> Suppressions | None:
    """The directives of the model's config file, if it has text."""
    config_file = context.config_file
    parsed = context.parsed
    if config_file is None or parsed is None:
        return None
    by_name = {name: code for code, name in codes.items()}

    def resolve(word: str) -> str | None:
        return word.upper() if word.upper() in codes else by_name.get(word)

    return parse(config_file.path, parsed.text, parsed.document, resolve)


def _to_diagnostic(rule: Rule, context: ModelContext, finding: Finding) -> Diagnostic:
    path, span = _locate(context, finding)
    return Diagnostic(
        code=rule.code,
        severity=finding.severity or rule.severity,
        message=finding.message,
        path=path,
        span=span,
        model=context.model.name,
        hint=finding.hint,
        fix=finding.fix,
        stage=(finding.stage or rule.stage).value,
    )


def _locate(context: ModelContext, finding: Finding) -> tuple[Path, Span | None]:
    if finding.file is not None:
        return finding.file, finding.span
    config_file = context.config_file
    if config_file is None:
        return context.model.path, None
    if finding.span is not None:
        return config_file.path, finding.span
    parsed = config_file.parsed
    if parsed is None:
        return config_file.path, None
    if finding.at is not None:
        span = parsed.source_map.span(finding.at)
        if span is not None:
            return config_file.path, span
    first = parsed.document.fields[0].name_span if parsed.document.fields else None
    return config_file.path, first or Span.point(1, 1)
