"""PL620: an ONNX model newer than the ONNX Runtime of the target release.

ONNX Runtime refuses a model stamped with an IR version or a default-domain opset newer
than the ONNX it was built with (onnxruntime core/graph/model.cc `Model::Model`,
model_load_utils.h `ValidateOpsetForDomain`), which `OnnxLoader::LoadSession`
(onnxruntime_backend src/onnxruntime_loader.cc) returns as the load error. Which ONNX
Runtime a release ships, and what it reads, is data in `pbtxt_lint.triton.onnxruntime`.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import ERROR, Finding, ModelContext, Scope, Stage, rule
from pbtxt_lint.rules.artifacts.common import readable, shown_path
from pbtxt_lint.triton.onnxruntime import first_release_loading, limits_of


@rule(
    "PL620",
    "onnx-newer-than-runtime",
    ERROR,
    "An ONNX model whose IR version or opset the ONNX Runtime of the target release cannot read.",
    triton="Unsupported model IR version: <ir>, max supported IR version: <max> / ONNX Runtime "
    "only *guarantees* support for models stamped with official released onnx opset versions. "
    "Opset <n> is under development ... Current official support for domain ai.onnx is till "
    "opset <max>.",
    stage=Stage.LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="onnxruntime",
)
def onnx_newer_than_runtime(context: ModelContext) -> Iterator[Finding]:
    """Each Triton release ships one ONNX Runtime, which reads models up to the IR version
    and opset of the ONNX it was built with: 22.12 (ONNX Runtime 1.13) stops at IR 8 and
    opset 17, 24.01 (1.16) at IR 9 and opset 19, 24.10 (1.19) at IR 10 and opset 21, 25.03
    (1.21) at opset 22. A model exported
    by a recent PyTorch or onnx package is stamped newer and fails to load on an older
    server. Checked against `--triton-version` (nothing is said without it); the limits
    were measured on the ONNX Runtime wheels of those versions.

    Bad:
        --triton-version 24.01, model.onnx exported with opset_version=20
    Good:
        torch.onnx.export(..., opset_version=17), or --triton-version 24.05
    """
    target = context.settings.target
    known = limits_of(target.container) if target is not None else None
    if target is None or known is None:
        return
    runtime, limits = known
    for artifact in readable(context):
        signature = artifact.signature
        if signature is None or signature.format != "onnx":
            continue
        ir_version = _number(signature.facts.get("ir_version"))
        opset = _number(signature.facts.get("opset:ai.onnx"))
        too_new = []
        if ir_version is not None and ir_version > limits.ir_version:
            too_new.append(f"IR version {ir_version} (it reads up to {limits.ir_version})")
        if opset is not None and opset > limits.opset:
            too_new.append(f"opset {opset} (it reads up to {limits.opset})")
        if not too_new:
            continue
        newer = first_release_loading(ir_version or 0, opset or 0)
        hint = (
            f"re-export with opset_version={limits.opset} or older (and an onnx package "
            f"that writes IR version {limits.ir_version} or older)"
        )
        if newer is not None:
            hint += f", or deploy on Triton {newer} or newer"
        yield Finding(
            f"{shown_path(artifact, context)} is stamped with {' and '.join(too_new)}; "
            f"Triton {target.label} ships ONNX Runtime {runtime}, which refuses it, so "
            f"'{context.model.name}' fails to load",
            file=artifact.opened,
            hint=hint,
        )


def _number(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None
