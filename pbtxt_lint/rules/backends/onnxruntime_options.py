"""PL892: a graph optimization level the ONNX Runtime backend does not read.

The backend maps `optimization.graph.level` to a session option in
`ModelState::ModelState` (onnxruntime_backend src/onnxruntime.cc): -1 is
ORT_ENABLE_BASIC, 1 ORT_ENABLE_EXTENDED, 2 ORT_DISABLE_ALL, and every other value, 0
included, leaves the default ORT_ENABLE_ALL. Nothing is printed either way.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import INFO, Finding, ModelConfig, ModelContext, model_label, rule

LEVELS = {
    -1: "ORT_ENABLE_BASIC",
    0: "ORT_ENABLE_ALL",
    1: "ORT_ENABLE_EXTENDED",
    2: "ORT_DISABLE_ALL",
}
"""The levels the backend reads, and the session option each one sets."""


@rule(
    "PL892",
    "onnx-graph-level-unknown",
    INFO,
    "An ONNX Runtime model whose optimization.graph.level is not -1, 0, 1 or 2: the backend "
    "silently runs it with every graph optimization on.",
    triton="(no message: the level is read as ORT_ENABLE_ALL)",
    backend="onnxruntime",
    effective=True,
)
def onnx_graph_level_unknown(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The backend knows four levels: -1 (basic), 1 (extended), 2 (disable all) and 0,
    the default, which enables all. Any other value, such as 3 or 99 written for "all"
    after ONNX Runtime's own enum (ORT_ENABLE_ALL is 99 there), is taken as 0 without a
    word: harmless when every optimization was meant, but a level chosen to turn some
    optimizations off (a model whose fused kernels answer differently) is ignored.

    Bad:
        optimization { graph { level: 99 } }
    Good:
        optimization { graph { level: 0 } }
    """
    if config.backend != "onnxruntime" and config.platform != "onnxruntime_onnx":
        return
    if not config.optimization.HasField("graph"):
        return
    level = config.optimization.graph.level
    if level in LEVELS:
        return
    yield Finding(
        f"optimization.graph.level {level} of {model_label(context)} is not a level the ONNX "
        "Runtime backend reads (-1 basic, 1 extended, 2 none; any other value, 0 included, "
        "enables every graph optimization): the session runs with ORT_ENABLE_ALL",
        at=("optimization", "graph", "level"),
        hint="write 0 (all optimizations, the default), 1 (extended), -1 (basic) or 2 (none)",
    )
