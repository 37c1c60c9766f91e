"""The ensemble in its repository: the models its steps name exist, ensembles do not
contain each other, composing models load, and the versions steps ask for are loaded
(the model repository manager's dependency checks)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Edit, Fix
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.ensembles.common import (
    ERROR,
    INFO,
    did_you_mean,
    ensemble_finding,
    ensemble_graph,
    names,
)
from pbtxt_lint.textproto.sourcemap import FieldPath
from pbtxt_lint.triton.versions import scan_version_folders

LATEST = -1
"""`model_version: -1`: whichever version is loaded."""


@rule(
    "PL513",
    "composing-model-missing",
    ERROR,
    "A step names a model that is not in the repository.",
    triton="ensemble <model> contains models that are not available or ambiguous: <m1>, <m2>",
    scope=Scope.ENSEMBLE,
)
def composing_model_missing(context: ModelContext) -> Iterator[Finding]:
    """The composing model must be a folder of the same repository (Triton looks it up by
    name when it polls).

    Bad:
        model_name: "bert-base"   (the folder is models/bert_base)
    Good:
        model_name: "bert_base"
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    known = sorted(context.repository.models)
    for step in graph.steps:
        if step.model is None or step.model.exists:
            continue
        listed = f"; models in the repository: {names(known)}" if known else ""
        yield ensemble_finding(
            context,
            f"{step.label} names model `{step.model_name}`, which is not in the "
            f"repository{did_you_mean(step.model_name, known)}{listed}",
            step.path + ("model_name",),
            "fix the model name or add the model folder to the repository",
            marks=[(step, "no such model")],
        )


@rule(
    "PL514",
    "ensemble-cycle",
    ERROR,
    "Ensembles that contain each other (or themselves).",
    triton="circular dependency between ensembles: <start> -> ... -> <current> -> <start>",
    scope=Scope.ENSEMBLE,
)
def ensemble_cycle(context: ModelContext) -> Iterator[Finding]:
    """A nested ensemble may not contain, directly or through others, the ensemble that
    uses it. Triton refuses every ensemble of the cycle.

    Bad:
        pipeline: step [ { model_name: "inner" ... } ]
        inner:    step [ { model_name: "pipeline" ... } ]
    Good:
        pipeline: step [ { model_name: "inner" ... } ]
        inner:    step [ { model_name: "encoder" ... } ]
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for step, path in graph.cycle_paths.items():
        what = (
            "names the ensemble itself"
            if step.model_name == graph.name
            else f"closes a cycle of ensembles: {' -> '.join([graph.name] + path)}"
        )
        yield ensemble_finding(
            context,
            f"{step.label} {what}; Triton refuses every ensemble in a cycle "
            "(circular dependency between ensembles)",
            step.path + ("model_name",),
            "an ensemble cannot contain itself, directly or through other ensembles",
            marks=[(step, "cycle of ensembles")],
        )


@rule(
    "PL515",
    "depends-on-ensemble-cycle",
    ERROR,
    "An ensemble that uses a cycle of ensembles it is not part of: tritonserver crashes.",
    triton="(no message: tritonserver 2.51 dies with a segmentation fault while polling)",
    scope=Scope.ENSEMBLE,
)
def depends_on_ensemble_cycle(context: ModelContext) -> Iterator[Finding]:
    """Triton's cycle check recurses from each ensemble into the models it uses and only
    stops when it comes back to where it started. From an ensemble outside the cycle
    it never does: the server overflows its stack and crashes, so no model is served.

    Bad:
        app:  step [ { model_name: "a" ... } ]
        a:    step [ { model_name: "b" ... } ]
        b:    step [ { model_name: "a" ... } ]
    Good:
        app:  step [ { model_name: "a" ... } ]
        a:    step [ { model_name: "b" ... } ]
        b:    step [ { model_name: "encoder" ... } ]
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for step, (cycle, entry) in graph.cycles_reached.items():
        yield ensemble_finding(
            context,
            f"{step.label} leads to the cycle of ensembles "
            f"{' -> '.join(cycle + cycle[:1])} (through "
            f"{' -> '.join([graph.name] + entry)}); tritonserver 2.51 crashes with "
            "a segmentation fault while checking an ensemble that depends on a cycle "
            "it is not part of, taking every model down",
            step.path + ("model_name",),
            "break the cycle between the ensembles it depends on",
            marks=[(step, "leads to a cycle of ensembles")],
        )


@rule(
    "PL516",
    "composing-model-fails",
    ERROR,
    "A composing model that Triton cannot load, which takes the ensemble down with it.",
    triton="ensemble <model> contains models that are not available or ambiguous: <m> / "
    "ensemble '<model>' depends on '<m>' which has no loaded version. Model '<m>' loading "
    "failed with error: <message>",
    scope=Scope.ENSEMBLE,
)
def composing_model_fails(context: ModelContext) -> Iterator[Finding]:
    """An ensemble loads only after all its composing models have. A composing model
    that Triton refuses while reading the repository (a parse error, a name mismatch, no
    version folder) makes the ensemble fail too: an error here. One that fails later,
    when its backend loads it, is an info (its own diagnostics say why).

    Bad:
        pipeline: step [ { model_name: "tokenizer" ... } ]
        tokenizer/config.pbtxt: name: "tokeniser"   (PL103)
    Good:
        tokenizer/config.pbtxt: name: "tokenizer"
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    loading = context.workspace.loading  # analysis.loading: does a model load?
    with loading.checking(context):
        seen: set[str] = set()
        for step in graph.steps:
            model = step.model
            cyclic = graph.in_dependency_cycle(step)
            if model is None or model.context is None or cyclic or model.name in seen:
                continue
            seen.add(model.name)
            error = loading.first_error(model.context)
            if error is None:
                continue
            at_poll = error.at_poll
            when = (
                "Triton refuses it when it reads the repository, so this ensemble "
                "cannot load either"
                if at_poll
                else "it fails when its backend loads it, and this ensemble with it"
            )
            yield ensemble_finding(
                context,
                f"{step.label}: model `{model.name}` has an error of its own "
                f"({error.code} {error.name}: {error.message}); {when}",
                step.path + ("model_name",),
                f"fix `{model.name}` first (run pbtxt-lint on it)",
                severity=None if at_poll else INFO,
            )


def _version_fix(context: ModelContext, at: FieldPath | None) -> Fix | None:
    """Insert `model_version: -1` after a step's model_name."""
    if context.parsed is None or at is None or at[-1] != "model_name":
        return None
    located = context.parsed.source_map.get(at)
    if located is None:
        return None
    end = located.value_node.last.end
    return Fix(
        "add model_version: -1 (the loaded version)",
        (Edit(end, end, " model_version: -1"),),
        safe=False,
    )


@rule(
    "PL517",
    "composing-version-not-loaded",
    ERROR,
    "A step asks for a version of its model that Triton does not load (model_version "
    "omitted means version 0).",
    triton="ensemble '<model>' depends on '<m>' whose required version <v> is not loaded.",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
)
def composing_version_not_loaded(context: ModelContext) -> Iterator[Finding]:
    """`model_version` is a plain integer, so leaving it out means version 0, which
    almost never exists; only `-1` means "whichever version is loaded". A pinned
    version must also be selected by the composing model's version_policy (by default
    only the highest version folder is loaded).

    Bad:
        step [ { model_name: "bert" input_map { ... } output_map { ... } } ]
    Good:
        step [ { model_name: "bert" model_version: -1 input_map { ... } output_map { ... } } ]
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for step in graph.model_steps():
        model = step.model
        assert model is not None
        if model.completed is None or not model.versions:
            continue  # the model itself fails: composing-model-fails says why
        if step.model_version == LATEST or step.model_version in model.versions:
            continue
        marks = [(step, f"version {step.model_version} is not loaded")]
        loaded = f"`{model.name}` loads only {_versions(model.versions)}"
        if not step.version_written:
            at: FieldPath = step.path + ("model_name",)
            yield ensemble_finding(
                context,
                f"{step.label} does not set model_version, so it requires version 0 "
                f"(the default of the field), and {loaded}; Triton refuses the ensemble "
                "(whose required version 0 is not loaded)",
                at,
                f"add model_version: -1 (the loaded version) or model_version: "
                f"{model.versions[-1]}",
                fix=_version_fix(context, at),
                marks=marks,
            )
            continue
        folder = model.folder
        present = (
            {v.version for v in scan_version_folders(folder.subfolders).versions}
            if folder
            else set()
        )
        why = (
            "its version_policy does not select it"
            if step.model_version in present
            else f"`{model.name}/{step.model_version}/` does not exist"
        )
        yield ensemble_finding(
            context,
            f"{step.label} requires version {step.model_version}, but {loaded}: {why}",
            step.path + ("model_version",),
            f"use model_version: -1 (the loaded version) or one of "
            f"{', '.join(map(str, model.versions))}",
            marks=marks,
        )


def _versions(versions: Sequence[int]) -> str:
    if not versions:
        return "no version"
    return ("version " if len(versions) == 1 else "versions ") + ", ".join(map(str, versions))
