"""What the ensemble rules share: the graph of the model, and how findings read."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    FieldPath,
    Finding,
    Fix,
    ModelContext,
    Severity,
    suggest,
)

if TYPE_CHECKING:  # the graph module loads with the first ensemble checked
    from pbtxt_lint.analysis.ensemble import Endpoint, EnsembleGraph, Mark, Step


def ensemble_graph(context: ModelContext) -> EnsembleGraph | None:
    """The data-flow graph of this model if it declares ensemble scheduling (built once
    per model, for all the rules that read it)."""
    from pbtxt_lint.analysis.ensemble import build_graph  # deferred: loads with an ensemble

    return context.shared(build_graph)


def endpoint_phrase(endpoint: Endpoint, first: bool, what: str) -> str:
    """`step 2 (`tok`) writes `ids` as <what>`; `it` instead of the name if not first."""
    from pbtxt_lint.analysis.ensemble import Role  # deferred: loads with an ensemble

    name = f"`{endpoint.tensor}`" if first else "it"
    if endpoint.role is Role.INPUT:
        return (
            f"ensemble input `{endpoint.tensor}` is {what}"
            if first
            else f"the ensemble input declares it as {what}"
        )
    if endpoint.role is Role.OUTPUT:
        return (
            f"ensemble output `{endpoint.tensor}` is {what}"
            if first
            else f"the ensemble output declares it as {what}"
        )
    assert endpoint.step is not None
    if endpoint.role is Role.READ:
        return f"{endpoint.step.label} reads {name} as `{endpoint.port}` {what}"
    via = f" (its output `{endpoint.port}`)" if endpoint.port != endpoint.tensor else ""
    return f"{endpoint.step.label} writes {name} as {what}{via}"


def ensemble_finding(
    context: ModelContext,
    message: str,
    at: FieldPath | None,
    hint: str,
    *,
    fix: Fix | None = None,
    severity: Severity | None = None,
    marks: Sequence[Mark] = (),
) -> Finding:
    """A finding whose hint ends with the pointer to the graph command."""
    return Finding(
        message,
        at=at,
        hint=f"{hint}; see `pbtxt-lint graph {context.folder.name}`",
        fix=fix,
        severity=severity,
        marks=tuple(marks),
    )


def names(listed: Iterable[str], limit: int = 12) -> str:
    """`a`, `b` and 3 more; "none" for an empty list."""
    quoted = [f"`{n}`" for n in listed]
    if not quoted:
        return "none"
    more = f" and {len(quoted) - limit} more" if len(quoted) > limit else ""
    return ", ".join(quoted[:limit]) + more


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """` (did you mean `x`?)` or nothing."""
    guess = suggest(word, [c for c in candidates if c != word])
    return f" (did you mean `{guess}`?)" if guess else ""


def also(steps: Sequence[Step], limit: int = 12) -> str:
    """`, and so do steps 3, 4 and 15,995 more` after the first of several steps with
    the same problem, which is then reported once; nothing when there are no others."""
    if not steps:
        return ""
    numbers = [str(step.number) for step in steps[:limit]]
    more = f" and {len(steps) - limit:,} more" if len(steps) > limit else ""
    return f", and so do step{'s' if len(steps) > 1 else ''} {', '.join(numbers)}{more}"


def by_model(steps: Iterable[Step]) -> dict[str, list[Step]]:
    """Steps grouped by the model they name, in the order written: the steps that name
    one model share its problem, reported once (16,000 steps naming the ensemble
    itself are one cycle, not 16,000 findings)."""
    grouped: dict[str, list[Step]] = {}
    for step in steps:
        grouped.setdefault(step.model_name, []).append(step)
    return grouped
