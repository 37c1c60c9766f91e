"""Each step against its composing model's completed config, as Triton checks it when
the ensemble loads (`ValidateEnsembleConfig`): batch sizes, map keys, unmapped inputs;
and the steps that cannot be checked because the model's backend completes it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    Finding,
    ModelConfig,
    ModelContext,
    Scope,
    Stage,
    rule,
    suggest,
    type_name,
)
from pbtxt_lint.rules.ensembles.common import did_you_mean, ensemble_finding, ensemble_graph, names

if TYPE_CHECKING:
    from pbtxt_lint.analysis.ensemble import Step


@rule(
    "PL518",
    "batch-size-exceeds-composing",
    ERROR,
    "The ensemble's max_batch_size is larger than a composing model's.",
    triton="ensemble <model> allows maximum batch size <E>, but it contains model <m> which "
    "only allows maximum batch size to be <M>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
)
def batch_size_exceeds_composing(context: ModelContext) -> Iterator[Finding]:
    """A batch sent to the ensemble goes whole to each step, so the ensemble cannot accept
    more than its smallest batching model. Models with max_batch_size 0 are allowed
    when the full shapes line up.

    Bad:
        ensemble: max_batch_size: 64     encoder: max_batch_size: 16
    Good:
        ensemble: max_batch_size: 16     encoder: max_batch_size: 16
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    limit = graph.max_batch_size
    for step in graph.model_steps():
        model = step.model
        assert model is not None
        config = model.config
        if config is None or model.completed is None or not model.completed.batching_known:
            continue
        if 0 < config.max_batch_size < limit:
            yield ensemble_finding(
                context,
                f"the ensemble allows batches of {limit}, but {step.label} allows only "
                f"{config.max_batch_size} (max_batch_size of `{model.name}`)",
                step.path + ("model_name",),
                f"lower the ensemble's max_batch_size to {config.max_batch_size} or "
                f"raise `{model.name}`'s",
                marks=[(step, f"max_batch_size {config.max_batch_size} < {limit}")],
            )


def _checked_steps(context: ModelContext) -> Iterator[tuple[Step, ModelConfig]]:
    """Steps whose composing model's inputs and outputs are known, with its config."""
    graph = ensemble_graph(context)
    if graph is None:
        return
    for step in graph.model_steps():
        config = step.model.config if step.model else None
        if config is not None and step.checked:
            yield step, config


@rule(
    "PL519",
    "unknown-composing-input",
    ERROR,
    "An input_map key that is not an input of the composing model.",
    triton="in ensemble <model>, ensemble tensor <t> is mapping to non-existing input <key> "
    "in model <m>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
)
def unknown_composing_input(context: ModelContext) -> Iterator[Finding]:
    """In input_map the key is the composing model's input and the value the ensemble
    tensor. Swapping them, or a spelling different from the model's config, fails.

    Bad:
        input_map { key: "ids" value: "input_ids" }   (the model's input is input_ids)
    Good:
        input_map { key: "input_ids" value: "ids" }
    """
    for step, config in _checked_steps(context):
        inputs = [i.name for i in config.input]
        for read in step.reads:
            if read.port in inputs:
                continue
            yield ensemble_finding(
                context,
                f"{step.label} maps `{read.tensor}` to input `{read.port}`, but "
                f"`{step.model_name}` has no such input"
                f"{did_you_mean(read.port, inputs)}; its inputs are {names(inputs)}",
                read.path,
                "input_map keys are the composing model's input names, values are ensemble tensors",
                marks=[(read, f"no input `{read.port}`")],
            )


@rule(
    "PL520",
    "unknown-composing-output",
    ERROR,
    "An output_map key that is not an output of the composing model.",
    triton="in ensemble <model>, ensemble tensor <t> is mapped from non-existing output "
    "<key> in model <m>",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
)
def unknown_composing_output(context: ModelContext) -> Iterator[Finding]:
    """In output_map the key is the composing model's output and the value the ensemble
    tensor.

    Bad:
        output_map { key: "embedding" value: "EMBEDDING" }   (the output is embeddings)
    Good:
        output_map { key: "embeddings" value: "EMBEDDING" }
    """
    for step, config in _checked_steps(context):
        outputs = [o.name for o in config.output]
        for write in step.writes:
            if write.port in outputs:
                continue
            yield ensemble_finding(
                context,
                f"{step.label} maps output `{write.port}` to `{write.tensor}`, but "
                f"`{step.model_name}` has no such output"
                f"{did_you_mean(write.port, outputs)}; its outputs are "
                f"{names(outputs)}",
                write.path,
                "output_map keys are the composing model's output names, values are "
                "ensemble tensors",
                marks=[(write, f"no output `{write.port}`")],
            )


@rule(
    "PL521",
    "composing-input-unmapped",
    ERROR,
    "A composing model input (not optional) that the step does not map.",
    triton="in ensemble <model>, input <input> in model <m> is not mapped to any ensemble tensors",
    stage=Stage.LOAD,
    scope=Scope.ENSEMBLE,
)
def composing_input_unmapped(context: ModelContext) -> Iterator[Finding]:
    """Every input of the composing model must receive an ensemble tensor, unless it is
    declared `optional: true`. (Unmapped outputs are fine.)

    Bad:
        encoder inputs: input_ids, attention_mask
        step [ { model_name: "encoder" input_map { key: "input_ids" value: "ids" } ... } ]
    Good:
        step [ { model_name: "encoder" input_map { key: "input_ids" value: "ids" }
                 input_map { key: "attention_mask" value: "mask" } ... } ]
    """
    graph = ensemble_graph(context)
    for step, config in _checked_steps(context):
        if not step.reads or graph is None:
            continue  # step-incomplete: it has no input_map at all
        inputs = [i.name for i in config.input]
        mapped = {r.port for r in step.reads}
        unknown_keys = [r.port for r in step.reads if r.port not in inputs]
        for spec in config.input:
            if spec.name in mapped or spec.optional:
                continue
            typo = suggest(spec.name, unknown_keys)
            available = graph.available_before(step)
            hint = (
                f"the input_map key `{typo}` looks like a typo for it"
                if typo
                else f'map it: input_map {{ key: "{spec.name}" value: "<tensor>" }} '
                f"(tensors available there: {names(available)})"
            )
            yield ensemble_finding(
                context,
                f"{step.label} does not map `{step.model_name}`'s input `{spec.name}` "
                f"({type_name(spec.data_type)}); Triton requires every "
                "input that is not optional to be mapped",
                step.path + ("input_map",),
                hint,
                marks=[(step, f"input `{spec.name}` not mapped")],
            )


@rule(
    "PL525",
    "composing-io-unknown",
    INFO,
    "A step not checked because its model's inputs and outputs are completed at load.",
    scope=Scope.ENSEMBLE,
)
def composing_io_unknown(context: ModelContext) -> Iterator[Finding]:
    """When a composing model's config lists no inputs or outputs, its backend fills them
    from the model file when it loads (ONNX Runtime, TensorRT, OpenVINO, ...), and a
    python model with `auto_complete_config` may add some. pbtxt-lint does not guess:
    the tensor checks of that step are skipped. Listing them in the config makes the
    step checkable (and the config self-documenting).

    Bad:
        encoder/config.pbtxt:  backend: "onnxruntime"   (no input, no output)
    Good:
        encoder/config.pbtxt:  backend: "onnxruntime"  input [ ... ]  output [ ... ]
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for step in graph.model_steps():
        model = step.model
        assert model is not None and model.folder is not None
        if model.completed is None or model.completed.io_known:
            continue
        yield ensemble_finding(
            context,
            f"{step.label} is not checked against `{model.name}`'s inputs and outputs: "
            f"{model.completed.reason}",
            step.path + ("model_name",),
            f"list `{model.name}`'s inputs and outputs in its config.pbtxt to have this "
            "step checked",
        )
