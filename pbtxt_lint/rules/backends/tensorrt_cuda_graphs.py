"""PL880: the CUDA graphs a TensorRT model asks for (`optimization.cuda`).

With `optimization.cuda.graphs: true` each TensorRT instance captures one CUDA graph per
`graph_spec` when it is created, and validates every spec first
(`ModelInstanceState::InitializeCudaGraph`, `ValidateGraphSpec` in tensorrt_backend's
src/instance_state.cc): a spec it refuses fails the load. A spec naming an input the
model does not have, or any spec of a model with a shape tensor input, is never
captured (`TRTv3Interface::BuildCudaGraph` logs it and goes on); without `graphs: true`
the specs are never read.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    FieldPath,
    Finding,
    Key,
    ModelContext,
    Stage,
    rule,
)
from pbtxt_lint.rules.tensors.common import may_complete_batching
from pbtxt_lint.schema.model_config_pb2 import ModelOptimizationPolicy

GraphSpec = ModelOptimizationPolicy.Cuda.GraphSpec


def _spec_problems(spec: GraphSpec, max_batch_size: int | None) -> Iterator[tuple[str, FieldPath]]:
    """Why `ValidateGraphSpec` refuses one spec: (why, path below the spec)."""
    bounded = spec.HasField("graph_lower_bound")
    lower = spec.graph_lower_bound
    lower_batch = lower.batch_size if bounded else spec.batch_size
    if max_batch_size == 0 and (spec.batch_size or lower_batch):
        where: FieldPath = (
            ("batch_size",) if spec.batch_size else ("graph_lower_bound", "batch_size")
        )
        yield "batch_size must be 0 when max_batch_size is 0", where
    elif max_batch_size:
        for value, where in ((spec.batch_size, ("batch_size",)),
                             (lower_batch, ("graph_lower_bound", "batch_size"))):  # fmt: skip
            if not 1 <= value <= max_batch_size:
                yield f"batch_size {value} is outside 1..{max_batch_size} (max_batch_size)", where
                break
    if lower_batch > spec.batch_size:
        yield (
            f"graph_lower_bound batch_size {lower_batch} is larger than the spec's "
            f"{spec.batch_size}",
            ("graph_lower_bound", "batch_size"),
        )
    for name, shape in spec.input.items():
        where = ("input", Key(name), "dim")
        if any(d < 0 for d in shape.dim):
            yield f"input '{name}' has a dim below 0 (a graph is captured for fixed sizes)", where
            continue
        if not bounded:
            continue
        if name not in lower.input:
            yield f"graph_lower_bound lists no shape for input '{name}'", ("graph_lower_bound",)
            continue
        floor = list(lower.input[name].dim)
        bound_at: FieldPath = ("graph_lower_bound", "input", Key(name), "dim")
        if len(floor) != len(shape.dim):
            yield (
                f"graph_lower_bound gives input '{name}' {len(floor)} dims, the spec "
                f"{len(shape.dim)}",
                bound_at,
            )
        elif any(d < 0 for d in floor):
            yield f"graph_lower_bound input '{name}' has a dim below 0", bound_at
        elif any(low > high for low, high in zip(floor, shape.dim, strict=True)):
            yield (
                f"graph_lower_bound input '{name}' {floor} exceeds the spec's {list(shape.dim)}",
                bound_at,
            )


@rule(
    "PL880",
    "tensorrt-cuda-graph-spec-invalid",
    ERROR,
    "A TensorRT CUDA graph_spec the backend refuses (batch size, lower bound, dims), or one "
    "it never captures.",
    triton="graph spec expects 'batch_size' to be >= 1 and <= <max_batch_size> / graph spec "
    "expects 'batch_size' to be 0 if 'max_batch_size' is 0 / graph lower bound spec expects "
    "input '<name>' to have dimension <= <d> / graph spec expects input '<name>' to have "
    "dimension >= 0",
    stage=Stage.LOAD,
    backend="tensorrt",
)
def tensorrt_cuda_graph_spec_invalid(context: ModelContext) -> Iterator[Finding]:
    """Each `graph_spec` is a request shape to capture a CUDA graph for: `batch_size` 1 to
    max_batch_size (0 without batching), every input dim fixed (0 or more), and a
    `graph_lower_bound` no larger than the spec, with a shape for each of its inputs.
    TensorRT validates the specs when an instance is created and refuses the model for
    the first bad one. Specs that name an unknown input, or belong to a model with a
    shape tensor input, load but are never captured (info), and without `graphs: true`
    they are never read (info).

    Bad:
        max_batch_size: 8
        optimization { cuda { graphs: true graph_spec [ { batch_size: 16
          input { key: "x" value: { dim: [ 3, 224, 224 ] } } } ] } }
    Good:
        max_batch_size: 8
        optimization { cuda { graphs: true graph_spec [ { batch_size: 8
          input { key: "x" value: { dim: [ 3, 224, 224 ] } } } ] } }
    """
    config = context.effective
    if config is None or config.backend != "tensorrt" or not config.optimization.HasField("cuda"):
        return
    cuda = config.optimization.cuda
    name = context.model.name
    base: FieldPath = ("optimization", "cuda")
    if cuda.graph_spec and not cuda.graphs:
        yield Finding(
            f"TensorRT model '{name}' lists a CUDA graph_spec but optimization.cuda.graphs is "
            "not true, so the backend never reads the specs",
            at=(*base, "graph_spec"),
            hint="set graphs: true in optimization.cuda, or delete graph_spec",
            severity=INFO,
        )
        return
    if not cuda.graphs:
        return
    shape_inputs = [t.name for t in config.input if t.is_shape_tensor]
    if shape_inputs:
        yield Finding(
            f"TensorRT model '{name}' has the shape tensor input '{shape_inputs[0]}', so the "
            'backend captures no CUDA graph for it ("Detected shape tensor, CUDA graph is not '
            'captured"): graphs: true has no effect',
            at=(*base, "graphs"),
            hint="delete graphs: true (and graph_spec)",
            severity=INFO,
        )
        return
    unknown_batch = config.max_batch_size == 0 and may_complete_batching(context, config)
    max_batch_size = None if unknown_batch else config.max_batch_size
    inputs = {t.name for t in config.input}
    for index, spec in enumerate(cuda.graph_spec):
        at: FieldPath = (*base, "graph_spec", index)
        for why, where in _spec_problems(spec, max_batch_size):
            yield Finding(
                f"CUDA graph_spec {index} of TensorRT model '{name}': {why}; the backend "
                "refuses the model when it creates an instance",
                at=(*at, *where),
                hint="make the spec a request shape the model accepts, or delete it",
            )
        for input_name in spec.input:
            if inputs and input_name not in inputs:
                yield Finding(
                    f"CUDA graph_spec {index} of TensorRT model '{name}' names input "
                    f"'{input_name}', which the config does not list: that graph is never "
                    "captured",
                    at=(*at, "input", Key(input_name)),
                    hint=f"use one of the inputs: {', '.join(sorted(inputs))}",
                    severity=INFO,
                )
