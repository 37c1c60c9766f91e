"""`pbtxt-lint graph`: the three drawings of an ensemble, on the realistic fixtures."""

from __future__ import annotations

import re

import pytest
from fixture_cases import find_case
from rich.tree import Tree

from pbtxt_lint.cli.graph import EnsembleNotFound, graph_command, load_graph
from pbtxt_lint.report.graph import graph_dot, graph_mermaid, render_graph

TEXT_OK = find_case("PL522", "pass_text_embedding_pipeline").path
TEXT_BROKEN = find_case("PL522", "fail_tokenizer_writes_int32").path
DANGLING = find_case("PL510", "fail_missing_upstream_tensor").path
IMAGE_BROKEN = find_case("PL523", "fail_resize_to_wrong_size").path

_MERMAID_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_MERMAID_NODE = re.compile(rf"^  ({_MERMAID_ID})(\(\[|\[|\{{\{{)\"[^\"]*\"(\]\)|\]|\}}\}})$")
_MERMAID_EDGE = re.compile(rf"^  ({_MERMAID_ID}) -->\|\"[^\"]*\"\| ({_MERMAID_ID})$")
_DOT_STRING = r'"(?:[^"\\]|\\.)*"'
_DOT_ATTRS = rf"\[(?:\w+=(?:{_DOT_STRING}|\w+)(?:, )?)+\]"
_DOT_NODE = re.compile(rf"^  ({_DOT_STRING}) {_DOT_ATTRS};$")
_DOT_EDGE = re.compile(rf"^  ({_DOT_STRING}) -> ({_DOT_STRING}) {_DOT_ATTRS};$")


def mermaid_structure(text: str) -> tuple[set[str], list[tuple[str, str]], list[str]]:
    """Nodes, edges and the other statements; fails on any line that is not sane."""
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    nodes: set[str] = set()
    edges: list[tuple[str, str]] = []
    other = []
    for line in lines[1:]:
        if node := _MERMAID_NODE.match(line):
            assert node.group(1) not in nodes, f"node defined twice: {line}"
            nodes.add(node.group(1))
        elif edge := _MERMAID_EDGE.match(line):
            edges.append((edge.group(1), edge.group(2)))
        else:
            assert re.match(r"^  (classDef|class|linkStyle) \S", line), f"unexpected: {line}"
            other.append(line)
    for source, target in edges:
        assert source in nodes and target in nodes, (source, target)
    for line in other:
        if line.startswith("  linkStyle"):
            indexes = [int(i) for i in line.split()[1].split(",")]
            assert all(0 <= i < len(edges) for i in indexes)
        if line.startswith("  class "):
            assert set(line.split()[1].split(",")) <= nodes
    return nodes, edges, other


def dot_structure(text: str) -> tuple[set[str], list[tuple[str, str]]]:
    lines = text.splitlines()
    assert re.match(rf"^digraph {_DOT_STRING} \{{$", lines[0])
    assert lines[-1] == "}"
    nodes: set[str] = set()
    edges: list[tuple[str, str]] = []
    for line in lines[1:-1]:
        if edge := _DOT_EDGE.match(line):
            edges.append((edge.group(1), edge.group(2)))
        elif node := _DOT_NODE.match(line):
            nodes.add(node.group(1))
        else:
            assert re.match(r"^  (rankdir=LR|node \[.*\]|edge \[.*\]);$", line), line
    for source, target in edges:
        assert source in nodes and target in nodes
    return nodes, edges


def test_tree_shows_steps_in_order_with_types() -> None:
    text = graph_command(TEXT_OK, "text_embedding", "tree")
    assert text.index("step 1") < text.index("step 2") < text.index("step 3")
    assert "tokenizer" in text and "encoder" in text and "postprocess" in text
    assert "input_ids <- ids  TYPE_INT64 [-1,-1]" in text
    assert "last_hidden_state -> hidden  TYPE_FP32 [-1,-1,384]" in text
    assert "EMBEDDING  TYPE_FP32 [-1,384]" in text
    assert "✗" not in text
    assert "\x1b[" not in text


def test_tree_marks_a_broken_edge_with_its_reason() -> None:
    text = graph_command(TEXT_BROKEN, "text_embedding", "tree")
    broken = [line for line in text.splitlines() if "✗" in line]
    assert broken == [next(line for line in text.splitlines() if "input_ids <- ids" in line)]
    assert "TYPE_INT64 vs TYPE_INT32" in broken[0]
    assert "\x1b[" in graph_command(TEXT_BROKEN, "text_embedding", "tree", color=True)


def test_render_graph_gives_a_rich_tree_for_the_terminal() -> None:
    graph = load_graph(TEXT_OK, "text_embedding")
    assert isinstance(render_graph(graph, "tree"), Tree)
    assert render_graph(graph, "mermaid") == graph_mermaid(graph)
    assert render_graph(graph, "dot") == graph_dot(graph)


def test_mermaid_is_a_sane_flowchart() -> None:
    text = graph_command(TEXT_OK, "text_embedding", "mermaid")
    nodes, edges, other = mermaid_structure(text)
    assert {"in_0", "s1", "s2", "s3", "out_0"} == nodes
    assert ("s1", "s2") in edges and ("s2", "s3") in edges and ("s3", "out_0") in edges
    assert '|"ids: TYPE_INT64 [-1,-1]"|' in text
    assert not any(line.startswith("  linkStyle") for line in other)


def test_mermaid_styles_broken_edges_and_dangling_tensors() -> None:
    text = graph_command(DANGLING, "pipeline", "mermaid")
    nodes, _, other = mermaid_structure(text)
    assert any(node.startswith("missing_") for node in nodes)
    assert any(node.startswith("unused_") for node in nodes)
    styled = next(line for line in other if line.startswith("  linkStyle"))
    assert "stroke-dasharray" in styled and "stroke:#d00" in styled
    assert "frist" in text and "never written" in text


def test_dot_is_a_sane_digraph_with_the_same_content() -> None:
    graph = load_graph(IMAGE_BROKEN, "classify")
    dot_nodes, dot_edges = dot_structure(graph_dot(graph))
    mermaid_nodes, mermaid_edges, _ = mermaid_structure(graph_mermaid(graph))
    assert {n.strip('"') for n in dot_nodes} == mermaid_nodes
    assert [(a.strip('"'), b.strip('"')) for a, b in dot_edges] == mermaid_edges
    text = graph_dot(graph)
    broken = [line for line in text.splitlines() if 'style="dashed"' in line]
    assert len(broken) == 1 and "pixels" in broken[0] and 'color="red"' in broken[0]


def test_unknown_ensemble_is_a_clear_error() -> None:
    with pytest.raises(EnsembleNotFound, match="did you mean 'text_embedding'"):
        graph_command(TEXT_OK, "text_embeding", "tree")
    with pytest.raises(EnsembleNotFound, match="is not an ensemble"):
        graph_command(TEXT_OK, "encoder", "dot")
    with pytest.raises(ValueError, match="unknown graph format"):
        graph_command(TEXT_OK, "text_embedding", "svg")


def test_a_model_folder_path_finds_its_repository() -> None:
    text = graph_command(TEXT_OK / "text_embedding", "text_embedding", "mermaid")
    assert text.startswith("flowchart LR")
