"""What an ONNX model's signature says beyond the declarations: ONNX Runtime's shapes.

ONNX Runtime reports a graph output's shape as the file declares it merged with its own
shape inference (onnxruntime `Graph::InferAndVerifyTypeMatch` with onnx's
`mergeInShapeInfo`): a size the graph fixes replaces a declared `dim_param` or unknown
dim, a declared name is kept over an inferred one, and a declared shape gives its rank
to an output the graph leaves open. Graph inputs are reported exactly as declared.
`read_onnx` puts the merged shape in `TensorSpec.shape` and says where each difference
comes from in `TensorSpec.inferred`; this module holds those types and the wording the
rules use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from pbtxt_lint.artifacts.signature import Dim, Signature, TensorSpec

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.onnx_axes import AxisTrace

DISABLE_ALL = 2
"""`optimization { graph { level: 2 } }`: the backend creates sessions with
ORT_DISABLE_ALL (onnxruntime.cc ModelState), so no constant folding runs."""


@dataclass(frozen=True)
class DimSource:
    """Why ONNX Runtime reports a size for a dim the file declares dynamic or unknown."""

    node: str
    """The node whose inferred output fixes the dim: its name, or "<op> #<index>"."""
    op: str
    """Its op type ("" when the size comes from a declaration, see `declared_by`)."""
    declared_by: str = ""
    """When the size is declared elsewhere and flows here: "input 'x'" or "value_info 't'"."""
    optimized: bool = False
    """Only with graph optimizations on (constant folding of shape computations)."""

    def phrase(self) -> str:
        """`node '/Reshape' (Reshape) fixes it` and the like."""
        where = f"node '{self.node}' ({self.op})" if self.op else self.node
        if self.declared_by:
            return f"{self.declared_by} declares it and {where} passes it on"
        if self.optimized:
            return f"{where} fixes it once constant folding has run"
        return f"{where} fixes it"


@dataclass(frozen=True)
class Inference:
    """How the reported shape of one graph output differs from its declaration."""

    declared: tuple[Dim, ...] | None
    """The shape the file declares (None: no shape, unknown rank)."""
    dims: tuple[DimSource | None, ...]
    """Per dim of the reported shape: why it differs, None where it is as declared."""
    rank: DimSource | None = None
    """Set when the file declares no shape and ONNX Runtime infers one: the node that
    produces it."""


@dataclass(frozen=True)
class InferenceReport:
    """Whether pbtxt-lint ran ONNX Runtime's shape inference on the graph, and how it went."""

    status: str
    """"skipped" (nothing to infer), "inferred", or "declared" (gave up: see `reason`)."""
    reason: str = ""
    nodes: int = 0
    seconds: float = 0.0
    kept: tuple[str, ...] = ()
    """Outputs whose declaration contradicts the graph: ONNX Runtime then reports the
    conflicting dims as unknown or as inferred depending on which graph transformations
    touch the node, so their declared shapes are kept."""


@dataclass(frozen=True)
class OnnxSignature(Signature):
    """An ONNX model's signature; output shapes are those ONNX Runtime reports."""

    inference: InferenceReport = InferenceReport("skipped")
    unoptimized_outputs: tuple[TensorSpec, ...] | None = None
    """The outputs as a session with graph optimizations disabled reports them, when they
    differ from `outputs` (a size only constant folding fixes)."""
    axes: AxisTrace | None = None
    """Where each axis of the outputs comes from (None: the graph was not read, because
    every output is declared with fixed sizes, or it is too large)."""


def as_served(signature: Signature, graph_level: int) -> Signature:
    """The signature ONNX Runtime reports for a session created with the config's
    `optimization { graph { level } }` (2 disables graph optimizations)."""
    if (
        isinstance(signature, OnnxSignature)
        and signature.unoptimized_outputs is not None
        and graph_level == DISABLE_ALL
    ):
        return replace(signature, outputs=signature.unoptimized_outputs, unoptimized_outputs=None)
    return signature


def declared_shape(spec: TensorSpec) -> tuple[Dim, ...] | None:
    """The shape the file declares (`spec.shape` is what ONNX Runtime reports)."""
    return spec.inferred.declared if spec.inferred is not None else spec.shape


def _dims(shape: Sequence[Dim] | None) -> str:
    return "unknown rank" if shape is None else "[" + ", ".join(str(d) for d in shape) + "]"


def inference_note(spec: TensorSpec, dims: Sequence[int] | None = None) -> str:
    """Why ONNX Runtime's shape of `spec` differs from the file, for the given dims (all
    differing dims when None); "" when it does not differ there. For example:

    "ONNX Runtime infers dim 0 of 'logits' as 1 (node '/Reshape' (Reshape) fixes it) although
    the file declares [batch, 10]".
    """
    inferred = spec.inferred
    if inferred is None:
        return ""
    if inferred.rank is not None:
        rank = inferred.rank
        where = f"node '{rank.node}' ({rank.op})" if rank.op else rank.node
        declared = "no shape" if inferred.declared is None else _dims(inferred.declared)
        return (
            f"ONNX Runtime reports '{spec.name}' as {_dims(spec.shape)} ({where} gives it that "
            f"shape) although the file declares {declared}"
        )
    wanted = range(len(inferred.dims)) if dims is None else dims
    parts: list[str] = []
    for k in wanted:
        source = inferred.dims[k] if 0 <= k < len(inferred.dims) else None
        if source is None or spec.shape is None:
            continue
        what = f"dim {k} of '{spec.name}'" if not parts else f"dim {k}"
        parts.append(f"{what} as {spec.shape[k]} ({source.phrase()})")
    if not parts:
        return ""
    return (
        f"ONNX Runtime infers {' and '.join(parts)} although the file declares "
        f"{_dims(inferred.declared)}"
    )
