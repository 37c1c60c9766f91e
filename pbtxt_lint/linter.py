"""The engine: discover -> parse -> complete -> rules -> diagnostics.

A pure function of paths and settings; the CLI only formats what comes out. The same
engine is the Python API (`pbtxt_lint.lint(...)`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pbtxt_lint.diagnostics import Diagnostic, Severity, Span
from pbtxt_lint.repository.layout import PathProblem, Target, discover
from pbtxt_lint.rules import ALL_RULES
from pbtxt_lint.rules.base import Finding, ModelContext, Rule
from pbtxt_lint.settings import Settings


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

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.diagnostics if d.severity is severity)


def lint(
    paths: Iterable[Path], settings: Settings, rules: Sequence[Rule] = ALL_RULES
) -> LintResult:
    """Check the repositories, models or config files at `paths`."""
    targets, path_problems = discover(paths, settings.model_config_name)
    result = LintResult(path_problems=path_problems)
    active = [r for r in rules if settings.wants(r.code)]
    for target in targets:
        _lint_target(target, settings, active, result)
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


def _lint_target(target: Target, settings: Settings, rules: list[Rule], result: LintResult) -> None:
    repository = target.repository
    for name in target.selected:
        folder = repository.models[name]
        context = ModelContext(folder, repository, settings)
        result.models += 1
        if context.config_file is not None:
            result.files += 1
        for rule in rules:
            if rule.stray != folder.is_stray:
                continue
            if rule.needs_config and context.config is None:
                continue
            try:
                findings = list(rule.run(context))
            except Exception as error:  # a bug in a rule must not hide the others
                result.internal_errors.append(InternalError(rule.code, name, repr(error)))
                continue
            result.diagnostics.extend(_to_diagnostic(rule, context, f) for f in findings)


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
