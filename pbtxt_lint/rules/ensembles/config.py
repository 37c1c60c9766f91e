"""The ensemble's own config, as Triton checks it at poll (`ValidateModelConfig`,
`ValidateEnsembleSchedulingConfig`): platform, scheduling, forbidden fields, complete
steps; and the decoupled flag Triton recomputes."""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ENSEMBLE_PLATFORM,
    ERROR,
    INFO,
    Edit,
    Finding,
    Fix,
    ModelConfig,
    ModelContext,
    Scope,
    is_ensemble,
    model_label,
    rule,
)
from pbtxt_lint.rules.ensembles.common import ensemble_finding, ensemble_graph


@rule(
    "PL501",
    "scheduling-on-non-ensemble",
    ERROR,
    'ensemble_scheduling on a model whose platform is not "ensemble".',
    triton="ensemble scheduling cannot be set for model '<model>' whose platform is not ensemble",
    scope=Scope.ENSEMBLE,
)
def scheduling_on_non_ensemble(context: ModelContext) -> Iterator[Finding]:
    """An ensemble is declared with `platform: "ensemble"`; `backend: "ensemble"` is a
    custom backend of that name, so Triton refuses the `ensemble_scheduling` block.

    Bad:
        backend: "ensemble"
        ensemble_scheduling { step [ ... ] }
    Good:
        platform: "ensemble"
        ensemble_scheduling { step [ ... ] }
    """
    config = context.effective
    written = context.config
    if config is None or written is None or not config.HasField("ensemble_scheduling"):
        return
    if config.platform == ENSEMBLE_PLATFORM:
        return
    fix = None
    if written.backend == ENSEMBLE_PLATFORM and not written.platform and context.parsed:
        written_fields = context.parsed.document.fields
        name = next((f.name for f in written_fields if f.name.text == "backend"), None)
        if name is not None:
            fix = Fix(
                'write platform: "ensemble" instead of backend',
                (Edit(name.start, name.end, "platform"),),
            )
    what = (
        f"platform '{config.platform}'"
        if config.platform
        else f"backend '{config.backend}' and no platform"
        if config.backend
        else "no platform"
    )
    yield ensemble_finding(
        context,
        f"{model_label(context)} has ensemble_scheduling but {what}; Triton accepts "
        'ensemble scheduling only with platform: "ensemble"',
        ("backend",) if written.backend and not written.platform else ("platform",),
        'declare the ensemble with platform: "ensemble" and no backend',
        fix=fix,
    )


@rule(
    "PL502",
    "ensemble-without-scheduling",
    ERROR,
    'platform: "ensemble" without an ensemble_scheduling block.',
    triton="ensemble scheduling must be set for ensemble <model> whose platform is ensemble",
    scope=Scope.ENSEMBLE,
    effective=True,
)
def ensemble_without_scheduling(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """An ensemble is its steps: without `ensemble_scheduling` there is nothing to run.
    `dynamic_batching` and `sequence_batching` take its place in the same oneof, so an
    ensemble cannot have them.

    Bad:
        platform: "ensemble"
        dynamic_batching { }
    Good:
        platform: "ensemble"
        ensemble_scheduling { step [ { model_name: "m" model_version: -1 ... } ] }
    """
    if config.platform != ENSEMBLE_PLATFORM:
        return
    if config.HasField("ensemble_scheduling"):
        return
    other = config.WhichOneof("scheduling_choice")
    detail = (
        f"; {other} cannot be used on an ensemble (it takes the place of ensemble_scheduling)"
        if other
        else ""
    )
    yield ensemble_finding(
        context,
        f"ensemble '{context.folder.name}' has no ensemble_scheduling block{detail}",
        (other,) if other else ("platform",),
        "add ensemble_scheduling { step [ ... ] } with the steps to run",
    )


@rule(
    "PL503",
    "ensemble-with-backend",
    ERROR,
    "An ensemble that also names a backend.",
    triton="Ensemble model '<model>' must have platform type 'ensemble' and empty backend type",
    scope=Scope.ENSEMBLE,
    effective=True,
)
def ensemble_with_backend(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The ensemble scheduler runs ensembles; a `backend` (often copied from a composing
    model) makes Triton refuse the config.

    Bad:
        platform: "ensemble"
        backend: "python"
    Good:
        platform: "ensemble"
    """
    if config.platform != ENSEMBLE_PLATFORM or not config.backend:
        return
    yield ensemble_finding(
        context,
        f"ensemble '{context.folder.name}' sets backend '{config.backend}'; an ensemble must "
        "have no backend",
        ("backend",),
        "delete the backend line",
    )


_FORBIDDEN = (
    ("instance_group", "instance groups", "instance group should not be specified"),
    ("optimization", "optimization settings", "optimization should not be specified"),
    ("model_warmup", "warmup samples", "model_warmup can not be specified"),
)


@rule(
    "PL504",
    "ensemble-forbidden-field",
    ERROR,
    "instance_group, optimization or model_warmup on an ensemble.",
    triton="instance group should not be specified for ensemble '<model>' / optimization "
    "should not be specified for ensemble '<model>' / model_warmup can not be specified for "
    "ensemble '<model>'",
    scope=Scope.ENSEMBLE,
    effective=True,
)
def ensemble_forbidden_field(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """An ensemble has no instances of its own and runs no model code: instances,
    optimization and warmup belong to the composing models.

    Bad:
        platform: "ensemble"
        instance_group [ { kind: KIND_GPU count: 2 } ]
    Good:
        platform: "ensemble"
        (instance_group in the composing models' configs)
    """
    if not is_ensemble(config):
        return
    for field_name, what, _ in _FORBIDDEN:
        present = (
            config.HasField(field_name)
            if field_name == "optimization"
            else bool(getattr(config, field_name))
        )
        if present:
            yield ensemble_finding(
                context,
                f"ensemble '{context.folder.name}' sets {field_name}; Triton refuses "
                f"{what} on an ensemble",
                (field_name,),
                f"move {field_name} to the composing models that need it",
            )


@rule(
    "PL505",
    "ensemble-no-steps",
    ERROR,
    "ensemble_scheduling without any step.",
    triton="must specify 'step' for ensemble '<model>'",
    scope=Scope.ENSEMBLE,
    effective=True,
)
def ensemble_no_steps(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """An ensemble needs at least one step.

    Bad:
        ensemble_scheduling { }
    Good:
        ensemble_scheduling { step [ { model_name: "m" model_version: -1 ... } ] }
    """
    if not config.HasField("ensemble_scheduling"):
        return
    if config.ensemble_scheduling.step:
        return
    yield ensemble_finding(
        context,
        f"ensemble '{context.folder.name}' has no step",
        ("ensemble_scheduling",),
        'add step [ { model_name: "<model>" model_version: -1 input_map { ... } '
        "output_map { ... } } ]",
    )


@rule(
    "PL506",
    "step-incomplete",
    ERROR,
    "A step without model_name, input_map or output_map.",
    triton="must specify 'model_name' in step <i> of ensemble '<model>' / must specify "
    "'input_map' in step <i> ... / must specify 'output_map' in step <i> ... (<i> from 0)",
    scope=Scope.ENSEMBLE,
    effective=True,
)
def step_incomplete(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Every step names the model it runs and maps at least one input and one output
    (input_map: model input <- ensemble tensor; output_map: model output -> ensemble
    tensor). Steps are numbered from 1 here; Triton's message counts from 0.

    Bad:
        step [ { model_name: "m" output_map { key: "y" value: "y" } } ]
    Good:
        step [ { model_name: "m" model_version: -1
                 input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ]
    """
    if not config.HasField("ensemble_scheduling"):
        return
    for index, step in enumerate(config.ensemble_scheduling.step):
        path = ("ensemble_scheduling", "step", index)
        label = f"step {index + 1}" + (f" (`{step.model_name}`)" if step.model_name else "")
        if not step.model_name:
            yield ensemble_finding(
                context,
                f"{label} has no model_name",
                path + ("model_name",),
                'name the model the step runs: model_name: "<model>"',
            )
        if not step.input_map:
            yield ensemble_finding(
                context,
                f"{label} has no input_map: the model would get no input",
                path + ("input_map",),
                'map the model\'s inputs: input_map { key: "<model input>" value: '
                '"<ensemble tensor>" }',
            )
        if not step.output_map:
            yield ensemble_finding(
                context,
                f"{label} has no output_map: nothing it computes is used",
                path + ("output_map",),
                'map the model\'s outputs: output_map { key: "<model output>" value: '
                '"<ensemble tensor>" }',
            )


@rule(
    "PL526",
    "ensemble-decoupled-ignored",
    INFO,
    "model_transaction_policy.decoupled on an ensemble, which Triton recomputes.",
    scope=Scope.ENSEMBLE,
)
def ensemble_decoupled_ignored(context: ModelContext) -> Iterator[Finding]:
    """Triton overwrites an ensemble's `decoupled` flag: it is true exactly when a
    decoupled step runs in it. A written value that differs has no effect (and clients
    must use the streaming API whenever the ensemble is decoupled).

    Bad:
        model_transaction_policy { decoupled: true }   (no step is decoupled)
    Good:
        (no model_transaction_policy on the ensemble)
    """
    graph = ensemble_graph(context)
    written = context.config
    if graph is None or written is None or graph.decoupled is None:
        return
    if not written.HasField("model_transaction_policy"):
        return
    wanted = written.model_transaction_policy.decoupled
    if wanted == graph.decoupled:
        return
    why = (
        "no step is decoupled, so the ensemble is not"
        if not graph.decoupled
        else "a decoupled step runs in it, so the ensemble is decoupled"
    )
    yield ensemble_finding(
        context,
        f"the ensemble sets decoupled: {str(wanted).lower()}, but Triton sets it itself: {why}",
        ("model_transaction_policy", "decoupled"),
        "remove model_transaction_policy from the ensemble",
    )
