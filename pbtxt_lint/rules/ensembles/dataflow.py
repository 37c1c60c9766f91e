"""How tensors flow through the steps, as Triton checks it at poll
(`ValidateEnsembleSchedulingConfig`): one producer per tensor, every input read, every
output written and reachable from the inputs, every tensor used."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import ERROR, Finding, ModelContext, Scope, rule, suggest
from pbtxt_lint.rules.ensembles.common import (
    also,
    did_you_mean,
    ensemble_finding,
    ensemble_graph,
    names,
)

if TYPE_CHECKING:
    from pbtxt_lint.analysis.ensemble import EnsembleGraph


@rule(
    "PL507",
    "tensor-written-twice",
    ERROR,
    "Two output_map entries write the same ensemble tensor.",
    triton="ensemble tensor '<tensor>' can appear in an output map only once for ensemble "
    "'<model>' step <i>",
    scope=Scope.ENSEMBLE,
)
def tensor_written_twice(context: ModelContext) -> Iterator[Finding]:
    """Each ensemble tensor has one producer. Two steps (or two outputs of one step) that
    write the same name usually come from copy-pasting a step.

    Bad:
        step [ { model_name: "a" ... output_map { key: "y" value: "out" } },
               { model_name: "b" ... output_map { key: "y" value: "out" } } ]
    Good:
        step [ { model_name: "a" ... output_map { key: "y" value: "out_a" } },
               { model_name: "b" ... output_map { key: "y" value: "out_b" } } ]
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for t in graph.tensors.values():
        if len(t.writers) < 2:
            continue
        first, again, *more = t.writers
        assert first.step and again.step
        who = "it" if first.step is again.step else first.step.label
        others = [e.step for e in more if e.step and e.step is not again.step]
        yield ensemble_finding(
            context,
            f"{again.step.label} writes `{t.name}` (from its output `{again.port}`), "
            f"but {who} already writes it (from `{first.port}`){also(others)}; an "
            "ensemble tensor can have only one producer",
            again.value_path,
            f"give one of them another name, e.g. `{t.name}_{again.step.number}`",
            marks=[(e, "written twice") for e in (again, *more)],
        )


@rule(
    "PL508",
    "ensemble-input-unused",
    ERROR,
    "An ensemble input that no step reads.",
    triton="ensemble input '<input>' for ensemble <model>' is not used",
    scope=Scope.ENSEMBLE,
)
def ensemble_input_unused(context: ModelContext) -> Iterator[Finding]:
    """Every ensemble input must be the value of some step's input_map. An unused input is
    often a typo in the input_map value that reads it.

    Bad:
        input [ { name: "IMAGE" ... } ]
        step [ { ... input_map { key: "x" value: "IMAGES" } ... } ]
    Good:
        input [ { name: "IMAGE" ... } ]
        step [ { ... input_map { key: "x" value: "IMAGE" } ... } ]
    """
    graph = ensemble_graph(context)
    if graph is None or not graph.steps:
        return  # ensemble-no-steps says it all
    unwritten = [
        n for n, t in graph.tensors.items() if t.readers and not t.writers and t.input is None
    ]
    for endpoint in graph.inputs:
        if graph.tensors[endpoint.tensor].mentioned:
            continue
        guess = suggest(endpoint.tensor, unwritten)
        hint = (
            f"a step reads `{guess}`, which nothing provides: did you mean "
            f"`{endpoint.tensor}` there?"
            if guess
            else f'map it to a step input (input_map {{ key: "<input>" value: '
            f'"{endpoint.tensor}" }}) or remove the input'
        )
        yield ensemble_finding(
            context,
            f"ensemble input `{endpoint.tensor}` is not read by any step; Triton "
            "refuses ensembles with unused inputs",
            endpoint.path + ("name",),
            hint,
            marks=[(endpoint, "not read by any step")],
        )


@rule(
    "PL509",
    "ensemble-output-unmapped",
    ERROR,
    "An ensemble output that no step's output_map writes.",
    triton="ensemble output '<output>' for ensemble <model>' is not used",
    scope=Scope.ENSEMBLE,
)
def ensemble_output_unmapped(context: ModelContext) -> Iterator[Finding]:
    """Triton says "not used": no step map mentions the output at all, usually because the
    output_map value is spelt differently.

    Bad:
        output [ { name: "SCORES" ... } ]
        step [ { ... output_map { key: "y" value: "SCORE" } } ]
    Good:
        output [ { name: "SCORES" ... } ]
        step [ { ... output_map { key: "y" value: "SCORES" } } ]
    """
    graph = ensemble_graph(context)
    if graph is None or not graph.steps:
        return
    written = [n for n, t in graph.tensors.items() if t.writers]
    for endpoint in graph.outputs:
        if graph.tensors[endpoint.tensor].mentioned:
            continue
        yield ensemble_finding(
            context,
            f"ensemble output `{endpoint.tensor}` is not written by any step: no "
            f"output_map maps to it{did_you_mean(endpoint.tensor, written)}; the steps "
            f"write {names(written)}",
            endpoint.path + ("name",),
            f'map a step output to it: output_map {{ key: "<output>" value: "{endpoint.tensor}" }}',
            marks=[(endpoint, "no step writes it")],
        )


@rule(
    "PL510",
    "ensemble-output-not-written",
    ERROR,
    "An ensemble output that can never be computed from the ensemble inputs.",
    triton="output '<output>' for ensemble '<model>' is not written: at least one of its "
    "depending tensors, '<tensor>', is not connected",
    scope=Scope.ENSEMBLE,
)
def ensemble_output_not_written(context: ModelContext) -> Iterator[Finding]:
    """The step that writes the output never runs, because something it needs (directly or
    through earlier steps) is neither an ensemble input nor written by any step. The
    message follows the chain to the missing tensor.

    Bad:
        step [ { model_name: "post" input_map { key: "x" value: "mask" }
                 output_map { key: "y" value: "OUT" } } ]   (nothing writes "mask")
    Good:
        step [ { model_name: "seg" ... output_map { key: "m" value: "mask" } },
               { model_name: "post" input_map { key: "x" value: "mask" }
                 output_map { key: "y" value: "OUT" } } ]
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for endpoint in graph.outputs:
        t = graph.tensors[endpoint.tensor]
        if not t.mentioned or t.name in graph.ready:
            continue
        if t.writers:
            step = t.writers[0].step
            assert step is not None
            missing = [r.tensor for r in step.reads if r.tensor not in graph.ready]
            why = f"{step.label} writes it but never runs: it needs " + _blocker(
                graph, missing[0], t.name
            )
        else:
            unused = [
                n
                for n, u in graph.tensors.items()
                if u.writers and not u.readers and u.output is None
            ]
            why = f"steps read it, but no step writes it{did_you_mean(t.name, unused)}"
        yield ensemble_finding(
            context,
            f"ensemble output `{t.name}` is never written: {why}",
            endpoint.path + ("name",),
            "every tensor a step reads must be an ensemble input or the output of another step",
            marks=[(endpoint, "never written")],
        )


def _blocker(graph: EnsembleGraph, name: str, output: str) -> str:
    """Why tensor `name` never becomes available, as the rest of a sentence: the chain
    of steps back to the tensor nothing writes (followed step by step, not recursively:
    a chain of thousands of steps is as long as it is deep)."""
    links = []
    seen = {output}
    while True:
        t = graph.tensors[name]
        if not t.writers:
            candidates = [n for n in graph.tensors if n in graph.ready and n != name]
            links.append(
                f"`{name}`, which is neither an ensemble input nor written by any "
                f"step{did_you_mean(name, candidates)}"
            )
            break
        step = t.writers[0].step
        assert step is not None
        missing = [r.tensor for r in step.reads if r.tensor not in graph.ready]
        seen.add(name)
        after = next((other for other in missing if other not in seen), None)
        if after is None:
            links.append(f"`{name}`, which {step.label} writes from `{missing[0]}`, in a cycle")
            break
        links.append(f"`{name}`, which {step.label} writes from ")
        name = after
    return "".join(links)


@rule(
    "PL511",
    "tensor-not-written",
    ERROR,
    "A step reads a tensor that is neither an ensemble input nor written by a step.",
    triton="ensemble tensor '<tensor>' is unused in ensemble '<model>'",
    scope=Scope.ENSEMBLE,
)
def tensor_not_written(context: ModelContext) -> Iterator[Finding]:
    """Triton calls such a tensor "unused": it never becomes ready, so the step reading it
    never runs. Also reported for steps that wait for each other in a cycle.

    Bad:
        step [ { model_name: "enc" input_map { key: "ids" value: "input_ids" } ... } ]
        (the tokenizer step writes "ids")
    Good:
        step [ { model_name: "enc" input_map { key: "ids" value: "ids" } ... } ]
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    for t in graph.tensors.values():
        if t.name in graph.ready or not t.readers or t.writers or t.input is not None:
            continue
        if t.output is not None:
            continue  # an output nobody writes: ensemble-output-not-written
        first = t.readers[0]
        assert first.step is not None
        available = graph.available_before(first.step)
        readers = ", ".join(r.step.label for r in t.readers if r.step)
        yield ensemble_finding(
            context,
            f"{readers} read{'s' if len(t.readers) == 1 else ''} `{t.name}`, which is "
            f"neither an ensemble input nor written by any step"
            f"{did_you_mean(t.name, available)}; tensors available there: "
            f"{names(available)}",
            first.value_path,
            "read a tensor that exists, or add the step that produces it",
            marks=[(reader, "nothing writes it") for reader in t.readers],
        )
    for cycle in graph.step_cycles:
        links = []
        for step, after in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            tensor = next(r.tensor for r in step.reads if graph.writer_of(r.tensor) is after)
            who = f"{after.label}" if after is not cycle[0] else f"{after.label} itself"
            links.append(f"`{tensor}`, written by {who}")
        head = cycle[0]
        read = next(r for r in head.reads if graph.writer_of(r.tensor) is cycle[1 % len(cycle)])
        yield ensemble_finding(
            context,
            f"{head.label} reads "
            + ", which reads ".join(links)
            + "; these steps wait for each other and never run",
            read.value_path,
            "break the cycle: a step cannot consume what it (indirectly) produces",
            marks=[(step, "waits for itself (cycle)") for step in cycle],
        )


@rule(
    "PL512",
    "tensor-unused",
    ERROR,
    "A step output mapped to a tensor that nothing reads.",
    triton="ensemble tensor '<tensor>' is unused in ensemble '<model>'",
    scope=Scope.ENSEMBLE,
)
def tensor_unused(context: ModelContext) -> Iterator[Finding]:
    """A mapped step output must be read by another step or be an ensemble output. Leave
    an output you do not need out of output_map instead.

    Bad:
        output_map { key: "logits" value: "logits" }   (no step reads "logits")
    Good:
        (no output_map entry for "logits")
    """
    graph = ensemble_graph(context)
    if graph is None:
        return
    outputs_missing = [e.tensor for e in graph.outputs if not graph.tensors[e.tensor].writers]
    for t in graph.tensors.values():
        if t.output is not None or t.readers or not t.writers:
            continue
        writer = t.writers[0]
        assert writer.step is not None
        guess = suggest(t.name, outputs_missing)
        hint = (
            f"did you mean the ensemble output `{guess}`?"
            if guess
            else "remove this output_map entry (a step output may stay unmapped), or "
            "read the tensor in a step or declare it as an ensemble output"
        )
        yield ensemble_finding(
            context,
            f"{writer.step.label} writes `{t.name}` (its output `{writer.port}`), but no "
            "step reads it and it is not an ensemble output; Triton refuses ensembles "
            "with unused tensors",
            writer.value_path,
            hint,
            marks=[(writer, "nothing reads it")],
        )
