"""PL5xx: ensembles (`platform: "ensemble"`).

Triton checks an ensemble's own config at poll (`ValidateModelConfig`,
`ValidateEnsembleSchedulingConfig`), its place in the dependency graph of the repository
(missing models, cycles), and, when it loads, its steps against the completed configs
of the composing models (`ValidateEnsembleConfig`). Triton reports one problem at a
time; these rules report all of them, on the data-flow graph of `pbtxt_lint.ensemble`,
which `pbtxt-lint graph <ensemble>` draws.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Edit, Fix, Severity
from pbtxt_lint.rules.base import Check, Finding, Stage, rule
from pbtxt_lint.textproto.sourcemap import FieldPath
from pbtxt_lint.triton.autofill import ENSEMBLE_PLATFORM, is_ensemble

if TYPE_CHECKING:  # the graph module loads with the first ensemble checked
    from pbtxt_lint.analysis.ensemble import EnsembleGraph

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def ensemble_graph(context: ModelContext) -> EnsembleGraph | None:
    """The data-flow graph of this model if it declares ensemble scheduling (built once
    per model, for all the rules that read it)."""
    from pbtxt_lint.analysis.ensemble import build_graph  # loads with the first ensemble

    return context.shared(build_graph)


def _pointer(context: ModelContext) -> str:
    return f"see `pbtxt-lint graph {context.model.name}`"


def _finding(
    context: ModelContext,
    message: str,
    at: FieldPath | None,
    hint: str,
    *,
    fix: Fix | None = None,
    severity: Severity | None = None,
) -> Finding:
    """A finding whose hint ends with the pointer to the graph command."""
    return Finding(message, at=at, hint=f"{hint}; {_pointer(context)}", fix=fix, severity=severity)


def _graph_issues(kind: str) -> Check:
    """A check that reports the graph's issues of one kind (the rule's name)."""

    def check(context: ModelContext) -> Iterator[Finding]:
        graph = ensemble_graph(context)
        if graph is None:
            return
        for issue in graph.issues_of(kind):
            yield Finding(issue.message, at=issue.at, hint=issue.hint, severity=issue.severity)

    return check


# --------------------------------------------------------------------------- the config


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
    yield _finding(
        context,
        f"model '{context.model.name}' has ensemble_scheduling but {what}; Triton accepts "
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
)
def ensemble_without_scheduling(context: ModelContext) -> Iterator[Finding]:
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
    config = context.effective
    if config is None or config.platform != ENSEMBLE_PLATFORM:
        return
    if config.HasField("ensemble_scheduling"):
        return
    other = config.WhichOneof("scheduling_choice")
    detail = (
        f"; {other} cannot be used on an ensemble (it takes the place of ensemble_scheduling)"
        if other
        else ""
    )
    yield _finding(
        context,
        f"ensemble '{context.model.name}' has no ensemble_scheduling block{detail}",
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
)
def ensemble_with_backend(context: ModelContext) -> Iterator[Finding]:
    """The ensemble scheduler runs ensembles; a `backend` (often copied from a composing
    model) makes Triton refuse the config.

    Bad:
        platform: "ensemble"
        backend: "python"
    Good:
        platform: "ensemble"
    """
    config = context.effective
    if config is None or config.platform != ENSEMBLE_PLATFORM or not config.backend:
        return
    yield _finding(
        context,
        f"ensemble '{context.model.name}' sets backend '{config.backend}'; an ensemble must "
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
)
def ensemble_forbidden_field(context: ModelContext) -> Iterator[Finding]:
    """An ensemble has no instances of its own and runs no model code: instances,
    optimization and warmup belong to the composing models.

    Bad:
        platform: "ensemble"
        instance_group [ { kind: KIND_GPU count: 2 } ]
    Good:
        platform: "ensemble"
        (instance_group in the composing models' configs)
    """
    config = context.effective
    if config is None or not is_ensemble(config):
        return
    for field_name, what, _ in _FORBIDDEN:
        present = (
            config.HasField(field_name)
            if field_name == "optimization"
            else bool(getattr(config, field_name))
        )
        if present:
            yield _finding(
                context,
                f"ensemble '{context.model.name}' sets {field_name}; Triton refuses "
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
)
def ensemble_no_steps(context: ModelContext) -> Iterator[Finding]:
    """An ensemble needs at least one step.

    Bad:
        ensemble_scheduling { }
    Good:
        ensemble_scheduling { step [ { model_name: "m" model_version: -1 ... } ] }
    """
    config = context.effective
    if config is None or not config.HasField("ensemble_scheduling"):
        return
    if config.ensemble_scheduling.step:
        return
    yield _finding(
        context,
        f"ensemble '{context.model.name}' has no step",
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
)
def step_incomplete(context: ModelContext) -> Iterator[Finding]:
    """Every step names the model it runs and maps at least one input and one output
    (input_map: model input <- ensemble tensor; output_map: model output -> ensemble
    tensor). Steps are numbered from 1 here; Triton's message counts from 0.

    Bad:
        step [ { model_name: "m" output_map { key: "y" value: "y" } } ]
    Good:
        step [ { model_name: "m" model_version: -1
                 input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ]
    """
    config = context.effective
    if config is None or not config.HasField("ensemble_scheduling"):
        return
    for index, step in enumerate(config.ensemble_scheduling.step):
        path = ("ensemble_scheduling", "step", index)
        label = f"step {index + 1}" + (f" (`{step.model_name}`)" if step.model_name else "")
        if not step.model_name:
            yield _finding(
                context,
                f"{label} has no model_name",
                path + ("model_name",),
                'name the model the step runs: model_name: "<model>"',
            )
        if not step.input_map:
            yield _finding(
                context,
                f"{label} has no input_map: the model would get no input",
                path + ("input_map",),
                'map the model\'s inputs: input_map { key: "<model input>" value: '
                '"<ensemble tensor>" }',
            )
        if not step.output_map:
            yield _finding(
                context,
                f"{label} has no output_map: nothing it computes is used",
                path + ("output_map",),
                'map the model\'s outputs: output_map { key: "<model output>" value: '
                '"<ensemble tensor>" }',
            )


# --------------------------------------------------------------------------- data flow

tensor_written_twice = rule(
    "PL507",
    "tensor-written-twice",
    ERROR,
    "Two output_map entries write the same ensemble tensor.",
    triton="ensemble tensor '<tensor>' can appear in an output map only once for ensemble "
    "'<model>' step <i>",
    scope=Scope.ENSEMBLE,
    doc="""
    Each ensemble tensor has one producer. Two steps (or two outputs of one step) that
    write the same name usually come from copy-pasting a step.

    Bad:
        step [ { model_name: "a" ... output_map { key: "y" value: "out" } },
               { model_name: "b" ... output_map { key: "y" value: "out" } } ]
    Good:
        step [ { model_name: "a" ... output_map { key: "y" value: "out_a" } },
               { model_name: "b" ... output_map { key: "y" value: "out_b" } } ]
    """,
)(_graph_issues("tensor-written-twice"))

ensemble_input_unused = rule(
    "PL508",
    "ensemble-input-unused",
    ERROR,
    "An ensemble input that no step reads.",
    triton="ensemble input '<input>' for ensemble <model>' is not used",
    scope=Scope.ENSEMBLE,
    doc="""
    Every ensemble input must be the value of some step's input_map. An unused input is
    often a typo in the input_map value that reads it.

    Bad:
        input [ { name: "IMAGE" ... } ]
        step [ { ... input_map { key: "x" value: "IMAGES" } ... } ]
    Good:
        input [ { name: "IMAGE" ... } ]
        step [ { ... input_map { key: "x" value: "IMAGE" } ... } ]
    """,
)(_graph_issues("ensemble-input-unused"))

ensemble_output_unmapped = rule(
    "PL509",
    "ensemble-output-unmapped",
    ERROR,
    "An ensemble output that no step's output_map writes.",
    triton="ensemble output '<output>' for ensemble <model>' is not used",
    scope=Scope.ENSEMBLE,
    doc="""
    Triton says "not used": no step map mentions the output at all, usually because the
    output_map value is spelt differently.

    Bad:
        output [ { name: "SCORES" ... } ]
        step [ { ... output_map { key: "y" value: "SCORE" } } ]
    Good:
        output [ { name: "SCORES" ... } ]
        step [ { ... output_map { key: "y" value: "SCORES" } } ]
    """,
)(_graph_issues("ensemble-output-unmapped"))

ensemble_output_not_written = rule(
    "PL510",
    "ensemble-output-not-written",
    ERROR,
    "An ensemble output that can never be computed from the ensemble inputs.",
    triton="output '<output>' for ensemble '<model>' is not written: at least one of its "
    "depending tensors, '<tensor>', is not connected",
    scope=Scope.ENSEMBLE,
    doc="""
    The step that writes the output never runs, because something it needs (directly or
    through earlier steps) is neither an ensemble input nor written by any step. The
    message follows the chain to the missing tensor.

    Bad:
        step [ { model_name: "post" input_map { key: "x" value: "mask" }
                 output_map { key: "y" value: "OUT" } } ]   (nothing writes "mask")
    Good:
        step [ { model_name: "seg" ... output_map { key: "m" value: "mask" } },
               { model_name: "post" input_map { key: "x" value: "mask" }
                 output_map { key: "y" value: "OUT" } } ]
    """,
)(_graph_issues("ensemble-output-not-written"))

tensor_not_written = rule(
    "PL511",
    "tensor-not-written",
    ERROR,
    "A step reads a tensor that is neither an ensemble input nor written by a step.",
    triton="ensemble tensor '<tensor>' is unused in ensemble '<model>'",
    scope=Scope.ENSEMBLE,
    doc="""
    Triton calls such a tensor "unused": it never becomes ready, so the step reading it
    never runs. Also reported for steps that wait for each other in a cycle.

    Bad:
        step [ { model_name: "enc" input_map { key: "ids" value: "input_ids" } ... } ]
        (the tokenizer step writes "ids")
    Good:
        step [ { model_name: "enc" input_map { key: "ids" value: "ids" } ... } ]
    """,
)(_graph_issues("tensor-not-written"))

tensor_unused = rule(
    "PL512",
    "tensor-unused",
    ERROR,
    "A step output mapped to a tensor that nothing reads.",
    triton="ensemble tensor '<tensor>' is unused in ensemble '<model>'",
    scope=Scope.ENSEMBLE,
    doc="""
    A mapped step output must be read by another step or be an ensemble output. Leave
    an output you do not need out of output_map instead.

    Bad:
        output_map { key: "logits" value: "logits" }   (no step reads "logits")
    Good:
        (no output_map entry for "logits")
    """,
)(_graph_issues("tensor-unused"))


# --------------------------------------------------------------------------- repository

composing_model_missing = rule(
    "PL513",
    "composing-model-missing",
    ERROR,
    "A step names a model that is not in the repository.",
    triton="ensemble <model> contains models that are not available or ambiguous: <m1>, <m2>",
    scope=Scope.ENSEMBLE,
    doc="""
    The composing model must be a folder of the same repository (Triton looks it up by
    name when it polls).

    Bad:
        model_name: "bert-base"   (the folder is models/bert_base)
    Good:
        model_name: "bert_base"
    """,
)(_graph_issues("composing-model-missing"))

ensemble_cycle = rule(
    "PL514",
    "ensemble-cycle",
    ERROR,
    "Ensembles that contain each other (or themselves).",
    triton="circular dependency between ensembles: <start> -> ... -> <current> -> <start>",
    scope=Scope.ENSEMBLE,
    doc="""
    A nested ensemble may not contain, directly or through others, the ensemble that
    uses it. Triton refuses every ensemble of the cycle.

    Bad:
        pipeline: step [ { model_name: "inner" ... } ]
        inner:    step [ { model_name: "pipeline" ... } ]
    Good:
        pipeline: step [ { model_name: "inner" ... } ]
        inner:    step [ { model_name: "encoder" ... } ]
    """,
)(_graph_issues("ensemble-cycle"))

depends_on_ensemble_cycle = rule(
    "PL515",
    "depends-on-ensemble-cycle",
    ERROR,
    "An ensemble that uses a cycle of ensembles it is not part of: tritonserver crashes.",
    triton="(no message: tritonserver 2.51 dies with a segmentation fault while polling)",
    scope=Scope.ENSEMBLE,
    doc="""
    Triton's cycle check recurses from each ensemble into the models it uses and only
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
    """,
)(_graph_issues("depends-on-ensemble-cycle"))


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
    workspace = context.workspace
    with workspace.checking(context):
        seen: set[str] = set()
        for step in graph.steps:
            model = step.model
            cyclic = any("cycle" in problem for problem in step.problems)
            if model is None or model.context is None or cyclic or model.name in seen:
                continue
            seen.add(model.name)
            error = workspace.first_error(model.context)
            if error is None:
                continue
            at_poll = error.at_poll
            when = (
                "Triton refuses it when it reads the repository, so this ensemble "
                "cannot load either"
                if at_poll
                else "it fails when its backend loads it, and this ensemble with it"
            )
            yield _finding(
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
    for issue in graph.issues_of("composing-version-not-loaded"):
        yield Finding(
            issue.message, at=issue.at, hint=issue.hint, fix=_version_fix(context, issue.at)
        )


batch_size_exceeds_composing = rule(
    "PL518",
    "batch-size-exceeds-composing",
    ERROR,
    "The ensemble's max_batch_size is larger than a composing model's.",
    triton="ensemble <model> allows maximum batch size <E>, but it contains model <m> which "
    "only allows maximum batch size to be <M>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
    doc="""
    A batch sent to the ensemble goes whole to each step, so the ensemble cannot accept
    more than its smallest batching model. Models with max_batch_size 0 are allowed
    when the full shapes line up.

    Bad:
        ensemble: max_batch_size: 64     encoder: max_batch_size: 16
    Good:
        ensemble: max_batch_size: 16     encoder: max_batch_size: 16
    """,
)(_graph_issues("batch-size-exceeds-composing"))

unknown_composing_input = rule(
    "PL519",
    "unknown-composing-input",
    ERROR,
    "An input_map key that is not an input of the composing model.",
    triton="in ensemble <model>, ensemble tensor <t> is mapping to non-existing input <key> "
    "in model <m>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
    doc="""
    In input_map the key is the composing model's input and the value the ensemble
    tensor. Swapping them, or a spelling different from the model's config, fails.

    Bad:
        input_map { key: "ids" value: "input_ids" }   (the model's input is input_ids)
    Good:
        input_map { key: "input_ids" value: "ids" }
    """,
)(_graph_issues("unknown-composing-input"))

unknown_composing_output = rule(
    "PL520",
    "unknown-composing-output",
    ERROR,
    "An output_map key that is not an output of the composing model.",
    triton="in ensemble <model>, ensemble tensor <t> is mapped from non-existing output "
    "<key> in model <m>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
    doc="""
    In output_map the key is the composing model's output and the value the ensemble
    tensor.

    Bad:
        output_map { key: "embedding" value: "EMBEDDING" }   (the output is embeddings)
    Good:
        output_map { key: "embeddings" value: "EMBEDDING" }
    """,
)(_graph_issues("unknown-composing-output"))

composing_input_unmapped = rule(
    "PL521",
    "composing-input-unmapped",
    ERROR,
    "A composing model input (not optional) that the step does not map.",
    triton="in ensemble <model>, input <input> in model <m> is not mapped to any ensemble tensors",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
    doc="""
    Every input of the composing model must receive an ensemble tensor, unless it is
    declared `optional: true`. (Unmapped outputs are fine.)

    Bad:
        encoder inputs: input_ids, attention_mask
        step [ { model_name: "encoder" input_map { key: "input_ids" value: "ids" } ... } ]
    Good:
        step [ { model_name: "encoder" input_map { key: "input_ids" value: "ids" }
                 input_map { key: "attention_mask" value: "mask" } ... } ]
    """,
)(_graph_issues("composing-input-unmapped"))

tensor_dtype_mismatch = rule(
    "PL522",
    "tensor-dtype-mismatch",
    ERROR,
    "An ensemble tensor with different data types where it is written, read or declared.",
    triton="in ensemble <model>, ensemble tensor <t>: inconsistent data type: <A> is "
    "inferred from model <a> while <B> is inferred from model <b>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
    doc="""
    Triton does not convert between steps: the producing output, every consuming input
    and the ensemble's own declaration must have the same data type (INT32 vs INT64 from
    a tokenizer is the classic).

    Bad:
        tokenizer output input_ids: TYPE_INT32     encoder input input_ids: TYPE_INT64
    Good:
        tokenizer output input_ids: TYPE_INT64     encoder input input_ids: TYPE_INT64
    """,
)(_graph_issues("tensor-dtype-mismatch"))

tensor_shape_mismatch = rule(
    "PL523",
    "tensor-shape-mismatch",
    ERROR,
    "An ensemble tensor whose shapes cannot match where it is written, read or declared.",
    triton="in ensemble <model>, ensemble tensor <t>: inconsistent shape: <[..]> is inferred "
    "from model <a> while <[..]> is inferred from model <b>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
    doc="""
    Triton compares shapes with -1 as a wildcard, first without and then with the batch
    dimension that max_batch_size > 0 adds in front (so `[-1,16]` of a non-batching
    model meets `[16]` of a batching one). Where Triton's check passes only thanks to a
    -1 elsewhere but producer and consumer still disagree, requests fail at run time: a
    warning.

    Bad:
        preprocess output: dims [ 3, 224, 224 ]    classifier input: dims [ 3, 256, 256 ]
    Good:
        preprocess output: dims [ 3, 224, 224 ]    classifier input: dims [ 3, 224, 224 ]
    """,
)(_graph_issues("tensor-shape-mismatch"))

decoupled_fan_in = rule(
    "PL524",
    "decoupled-fan-in",
    ERROR,
    "A step (or the ensemble's outputs) combining tensors from different decoupled steps.",
    triton="in ensemble <model>, step of model '<m>' receives inputs originated from "
    "different decoupled models",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
    doc="""
    A decoupled model may send any number of responses, so its outputs cannot be lined
    up with tensors from another branch. Every step's inputs (and all ensemble outputs)
    must come through the same decoupled step, or through none.

    Bad:
        step 1 (decoupled `generate`) writes "tokens";
        step 2 reads "tokens" and the ensemble input "prompt"
    Good:
        step 2 reads "tokens" and "prompt_copy", which step 1 also writes
    """,
)(_graph_issues("decoupled-fan-in"))

composing_io_unknown = rule(
    "PL525",
    "composing-io-unknown",
    INFO,
    "A step not checked because its model's inputs and outputs are completed at load.",
    scope=Scope.ENSEMBLE,
    doc="""
    When a composing model's config lists no inputs or outputs, its backend fills them
    from the model file when it loads (ONNX Runtime, TensorRT, OpenVINO, ...), and a
    python model with `auto_complete_config` may add some. pbtxt-lint does not guess:
    the tensor checks of that step are skipped. Listing them in the config makes the
    step checkable (and the config self-documenting).

    Bad:
        encoder/config.pbtxt:  backend: "onnxruntime"   (no input, no output)
    Good:
        encoder/config.pbtxt:  backend: "onnxruntime"  input [ ... ]  output [ ... ]
    """,
)(_graph_issues("composing-io-unknown"))


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
    yield _finding(
        context,
        f"the ensemble sets decoupled: {str(wanted).lower()}, but Triton sets it itself: {why}",
        ("model_transaction_policy", "decoupled"),
        "remove model_transaction_policy from the ensemble",
    )
