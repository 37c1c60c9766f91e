"""`pbtxt-lint graph`: draw an ensemble's data flow as a tree, Mermaid or Graphviz DOT.

The drawing is the graph the PL5xx rules check (`pbtxt_lint.analysis.ensemble`): steps
in config order, every tensor edge labelled with its name, data type and full shape,
and the steps and edges the rules mark broken, with the reason (red in every format).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

from rich.console import Console
from rich.markup import escape
from rich.text import Text
from rich.tree import Tree

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.analysis.ensemble import Endpoint, EnsembleGraph, Step
from pbtxt_lint.echo import inert
from pbtxt_lint.rules.registry import ALL_RULES

FORMATS = ("tree", "mermaid", "dot")
_CROSS = "✗"


@dataclass
class Drawing:
    """An ensemble's graph and what the ensemble rules find broken in it."""

    graph: EnsembleGraph
    problems: dict[int, list[str]] = field(default_factory=dict)
    """id(step or endpoint) -> short reasons, in rule order."""

    def of(self, element: Step | Endpoint) -> list[str]:
        return self.problems.get(id(element), [])

    def broken(self, element: Step | Endpoint) -> bool:
        return id(element) in self.problems


def drawing(context: ModelContext, graph: EnsembleGraph) -> Drawing:
    """The graph with the marks of every ensemble rule (selected or not: the drawing
    shows what Triton would refuse), in rule order; a step whose model has no usable
    config is marked where Triton's load check gets to it (after the batch sizes)."""
    marked = Drawing(graph)

    def mark(element: Step | Endpoint, reason: str) -> None:
        marked.problems.setdefault(id(element), []).append(reason)

    unusable = [s for s in graph.model_steps() if s.model and s.model.completed is None]
    for candidate in ALL_RULES:
        if candidate.scope is not Scope.ENSEMBLE:
            continue
        if candidate.code > BATCH_SIZE_RULE:
            for step in unusable:
                mark(step, f"`{step.model_name}` has no usable config")
            unusable = []
        for finding in candidate.check(context):
            for element, reason in finding.marks:
                mark(element, reason)
    return marked


BATCH_SIZE_RULE = "PL518"


def render_graph(graph: Drawing, fmt: str) -> Tree | str:
    """The drawing in `fmt`: a rich Tree for `tree`, text for `mermaid` and `dot`."""
    if fmt == "tree":
        return graph_tree(graph)
    if fmt == "mermaid":
        return graph_mermaid(graph)
    if fmt == "dot":
        return graph_dot(graph)
    raise ValueError(f"unknown graph format '{fmt}'; use one of {', '.join(FORMATS)}")


# --------------------------------------------------------------------------- tree


def _type_text(endpoint: Endpoint) -> str:
    if endpoint.type is not None:
        return str(endpoint.type)
    if endpoint.step is not None and not endpoint.step.checked:
        return "(not checked)"
    return "?"


def _marked(text: str, problems: list[str]) -> Text:
    line = Text.from_markup(text)
    if problems:
        line.append(f"  {_CROSS} " + "; ".join(problems), style="bold red")
    return line


def _step_title(step: Step) -> str:
    version = f"version {step.model_version}" if step.version_written else ("version 0 (not set)")
    name = _escape(step.model_name) if step.model_name else "[red](no model_name)[/red]"
    return f"[bold]step {step.number}[/bold]  [cyan]{name}[/cyan]  [dim]{version}[/dim]"


def graph_tree(drawing: Drawing) -> Tree:
    """Steps in config order with their inputs and outputs; broken parts in red."""
    graph = drawing.graph
    batching = f"max_batch_size {graph.max_batch_size}" if graph.max_batch_size else "no batching"
    root = Tree(
        Text.from_markup(f"[bold]{_escape(graph.name)}[/bold]  [dim]ensemble, {batching}[/dim]")
    )
    inputs = root.add("[bold]inputs[/bold]")
    for endpoint in graph.inputs:
        inputs.add(
            _marked(
                f"{_escape(endpoint.tensor)}  [dim]{_type_text(endpoint)}[/dim]",
                drawing.of(endpoint),
            )
        )
    for step in graph.steps:
        branch = root.add(_marked(_step_title(step), drawing.of(step)))
        for read in step.reads:
            branch.add(
                _marked(
                    f"in   {_escape(read.port)} [dim]<-[/dim] [green]{_escape(read.tensor)}[/green]"
                    f"  [dim]{_type_text(read)}[/dim]",
                    drawing.of(read),
                )
            )
        for write in step.writes:
            branch.add(
                _marked(
                    f"out  {_escape(write.port)} [dim]->[/dim] "
                    f"[green]{_escape(write.tensor)}[/green]  [dim]{_type_text(write)}[/dim]",
                    drawing.of(write),
                )
            )
    outputs = root.add("[bold]outputs[/bold]")
    for endpoint in graph.outputs:
        tensor = graph.tensors[endpoint.tensor]
        source = ", ".join(f"step {w.step.number}" for w in tensor.writers if w.step)
        origin = f"  [dim]<- {source}[/dim]" if source else ""
        outputs.add(
            _marked(
                f"{_escape(endpoint.tensor)}  [dim]{_type_text(endpoint)}[/dim]{origin}",
                drawing.of(endpoint),
            )
        )
    return root


def tree_text(graph: Drawing, *, color: bool = False, width: int = 120) -> str:
    """The tree as text (ANSI colours only when `color`)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        soft_wrap=False,
    )
    console.print(graph_tree(graph))
    return buffer.getvalue()


# --------------------------------------------------------------------------- diagrams


@dataclass(frozen=True)
class _Node:
    id: str
    label: str
    kind: str  # input, output, step, missing, unused
    broken: bool


@dataclass(frozen=True)
class _Edge:
    source: str
    target: str
    label: str
    reason: str  # empty when the edge is fine


def _edge_label(name: str, *endpoints: Endpoint) -> str:
    known = next((e.type for e in endpoints if e.type is not None), None)
    return f"{name}: {known}" if known is not None else name


def _diagram(drawing: Drawing) -> tuple[list[_Node], list[_Edge]]:
    """Nodes (ensemble I/O, steps, dangling tensors) and one edge per producer->consumer."""
    graph = drawing.graph
    nodes: list[_Node] = []
    edges: list[_Edge] = []
    input_ids = {e.tensor: f"in_{i}" for i, e in enumerate(graph.inputs)}
    output_ids = {e.tensor: f"out_{i}" for i, e in enumerate(graph.outputs)}
    for endpoint in graph.inputs:
        nodes.append(
            _Node(input_ids[endpoint.tensor], endpoint.tensor, "input", drawing.broken(endpoint))
        )
    for step in graph.steps:
        title = f"step {step.number}: {step.model_name or '(no model_name)'}"
        if drawing.broken(step):
            title += f"\n{_CROSS} " + "; ".join(drawing.of(step))
        nodes.append(_Node(f"s{step.number}", title, "step", drawing.broken(step)))
    for endpoint in graph.outputs:
        nodes.append(
            _Node(output_ids[endpoint.tensor], endpoint.tensor, "output", drawing.broken(endpoint))
        )
    for number, tensor in enumerate(graph.tensors.values()):
        sources: list[tuple[str, Endpoint]] = []
        if tensor.input is not None:
            sources.append((input_ids[tensor.name], tensor.input))
        sources += [(f"s{w.step.number}", w) for w in tensor.writers if w.step]
        targets: list[tuple[str, Endpoint]] = [
            (f"s{r.step.number}", r) for r in tensor.readers if r.step
        ]
        if tensor.output is not None and tensor.name not in input_ids:
            targets.append((output_ids[tensor.name], tensor.output))
        if not sources and tensor.readers:
            missing = f"missing_{number}"
            nodes.append(_Node(missing, f"{tensor.name} (never written)", "missing", True))
            sources.append((missing, tensor.readers[0]))
        if not targets and tensor.writers:
            unused = f"unused_{number}"
            nodes.append(_Node(unused, f"{tensor.name} (never read)", "unused", True))
            targets.append((unused, tensor.writers[0]))
        for source, produced in sources:
            for target, consumed in targets:
                if source == target:
                    continue
                reasons = list(dict.fromkeys(drawing.of(produced) + drawing.of(consumed)))
                edges.append(
                    _Edge(
                        source,
                        target,
                        _edge_label(tensor.name, produced, consumed),
                        "; ".join(reasons),
                    )
                )
    return nodes, edges


def _escape(text: str) -> str:
    """A name for the tree: inert (a folder or tensor name can hold ESC) and free of rich
    markup."""
    return escape(inert(text))


def _inert_lines(text: str) -> str:
    """`text` inert, line by line (the line breaks of a label are the drawing's own)."""
    return "\n".join(inert(line) for line in text.split("\n"))


def _mermaid_text(text: str) -> str:
    return _inert_lines(text).replace('"', "#quot;").replace("\n", "<br/>")


def graph_mermaid(graph: Drawing) -> str:
    """A Mermaid `flowchart LR`; broken steps and edges red, broken edges dashed."""
    nodes, edges = _diagram(graph)
    shapes = {
        "input": ('(["', '"])'),
        "output": ('(["', '"])'),
        "step": ('["', '"]'),
        "missing": ('{{"', '"}}'),
        "unused": ('{{"', '"}}'),
    }
    lines = ["flowchart LR"]
    for node in nodes:
        opening, closing = shapes[node.kind]
        lines.append(f"  {node.id}{opening}{_mermaid_text(node.label)}{closing}")
    broken_edges = []
    for index, edge in enumerate(edges):
        label = edge.label + (f" {_CROSS} {edge.reason}" if edge.reason else "")
        lines.append(f'  {edge.source} -->|"{_mermaid_text(label)}"| {edge.target}')
        if edge.reason:
            broken_edges.append(str(index))
    lines.append("  classDef broken stroke:#d00,stroke-width:2px,color:#d00")
    broken_nodes = [node.id for node in nodes if node.broken]
    if broken_nodes:
        lines.append(f"  class {','.join(broken_nodes)} broken")
    if broken_edges:
        lines.append(
            f"  linkStyle {','.join(broken_edges)} "
            "stroke:#d00,stroke-width:2px,stroke-dasharray:5 5"
        )
    return "\n".join(lines) + "\n"


def _dot_text(text: str) -> str:
    text = _inert_lines(text)
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def graph_dot(graph: Drawing) -> str:
    """A Graphviz digraph with the same content as the Mermaid drawing."""
    shapes = {
        "input": "ellipse",
        "output": "ellipse",
        "step": "box",
        "missing": "octagon",
        "unused": "octagon",
    }
    nodes, edges = _diagram(graph)
    lines = [
        f"digraph {_dot_text(graph.graph.name)} {{",
        "  rankdir=LR;",
        '  node [fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for node in nodes:
        style = ', color="red", fontcolor="red"' if node.broken else ""
        lines.append(
            f"  {_dot_text(node.id)} [label={_dot_text(node.label)}, "
            f"shape={shapes[node.kind]}{style}];"
        )
    for edge in edges:
        label = edge.label + (f"\n{_CROSS} {edge.reason}" if edge.reason else "")
        style = ', color="red", fontcolor="red", style="dashed"' if edge.reason else ""
        lines.append(
            f"  {_dot_text(edge.source)} -> {_dot_text(edge.target)} "
            f"[label={_dot_text(label)}{style}];"
        )
    lines.append("}")
    return "\n".join(lines) + "\n"
