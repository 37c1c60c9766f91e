"""PL113 and PL114: the backend library Triton loads for the model.

Triton loads `libtriton_<backend>.so` (or a Python-based backend's model.py) from its
backends folder, or the library `runtime` names, which must stay inside that folder
(`TritonModel::GetBackendLibraryProperties` and
`TritonModel::GetBackendRuntimeLibraryName` in core's src/backend_model.cc).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.layout.common import KNOWN_BACKENDS
from pbtxt_lint.textproto.binder import suggest

ERROR, WARNING = Severity.ERROR, Severity.WARNING


@rule(
    "PL113",
    "unknown-backend",
    WARNING,
    "A backend name that is not one of Triton's backends (a typo or a custom backend).",
)
def unknown_backend(context: ModelContext) -> Iterator[Finding]:
    """Triton loads `libtriton_<backend>.so` from its backends folder; a misspelt name
    fails with `unable to find backend library for backend '<backend>'`. Custom
    backends are fine where they are installed.

    Bad:
        backend: "onnx"
    Good:
        backend: "onnxruntime"
    """
    config = context.config
    if config is None or not config.backend or config.runtime:
        return
    backend = config.backend
    if backend in KNOWN_BACKENDS:
        return
    aliases = {
        "onnx": "onnxruntime",
        "ort": "onnxruntime",
        "trt": "tensorrt",
        "torch": "pytorch",
        "libtorch": "pytorch",
        "tf": "tensorflow",
        "ov": "openvino",
        "py": "python",
        "tensorrt_llm": "tensorrtllm",
        "trtllm": "tensorrtllm",
    }
    guess = aliases.get(backend.lower()) or suggest(backend, KNOWN_BACKENDS, cutoff=0.7)
    yield Finding(
        f"backend '{backend}' is not a Triton backend; unless it is installed (as "
        f"backends/{backend}/libtriton_{backend}.so, or backends/{backend}/model.py for a "
        'Python-based backend), Triton fails with "unable to find backend library"',
        at=("backend",),
        hint=f'did you mean backend: "{guess}"?'
        if guess
        else "check the name against the backends installed in your Triton image",
    )


@rule(
    "PL114",
    "runtime-escapes",
    ERROR,
    "runtime names a library outside the backend folder.",
    triton="backend library name '<runtime>' escapes backend directory '<dir>', for model "
    "'<model>', check model config runtime field",
    stage=Stage.LOAD,
)
def runtime_escapes(context: ModelContext) -> Iterator[Finding]:
    """`runtime` is a file name looked up in the model, version and backend folders; a
    path with `..` or an absolute path is refused.

    Bad:
        runtime: "../libtriton_custom.so"
    Good:
        runtime: "libtriton_custom.so"
    """
    config = context.config
    if config is None or not config.runtime:
        return
    runtime = config.runtime
    if runtime.startswith("/") or ".." in runtime.split("/"):
        yield Finding(
            f"runtime '{runtime}' points outside the backend folder; Triton refuses it",
            at=("runtime",),
            hint="give a file name only and install the library in the backend folder",
        )
