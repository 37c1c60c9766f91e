"""PL809: the LoRA adapters file of a vLLM model.

With `enable_lora` in model.json, vllm_backend's `setup_lora` reads `multi_lora.json`
from the same version folder (LoRA name -> local path of the adapter), which requests
then name in their sampling parameters (`lora_name`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.artifacts.model_json import read_json_object
from pbtxt_lint.diagnostics import Span
from pbtxt_lint.rules.api import ERROR, Finding, ModelContext, Scope, Stage, rule
from pbtxt_lint.rules.backends.vllm_common import BACKEND, parsed_engine_args
from pbtxt_lint.triton.vllm import ENGINE_ARGS_FILE, LORA_FILE


@rule(
    "PL809",
    "vllm-lora-file",
    ERROR,
    "enable_lora in model.json without a readable multi_lora.json beside it.",
    triton="FileNotFoundError: Triton backend cannot find <model>/<version>/multi_lora.json.",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend=BACKEND,
)
def vllm_lora_file(context: ModelContext) -> Iterator[Finding]:
    """When model.json sets `enable_lora` to true (or "true"), the backend reads the
    LoRA adapters it may serve from `multi_lora.json` in the same folder (name ->
    local path) and fails the load when the file is missing or is not a JSON object.

    Observed with tritonserver 2.51 and vllm_backend r24.10 (scripts/vllm_live.py):
    `Internal: FileNotFoundError: Triton backend cannot find
    <repository>/llama/1/multi_lora.json.`

    Bad:
        vllm_model/1/model.json    {"model": "...", "enable_lora": true}
        (no vllm_model/1/multi_lora.json)
    Good:
        vllm_model/1/multi_lora.json    {"alpaca": "/weights/loras/alpaca-lora-7b"}
    """
    for version, document in parsed_engine_args(context):
        entry = document.get("enable_lora")
        if entry is None or str(entry.value).lower() != "true":
            continue
        lora = read_json_object(document.path.parent / LORA_FILE)
        where = f"{context.model.name}/{version}/{LORA_FILE}"
        if lora.problem in ("missing", "unreadable"):
            yield Finding(
                f"{context.model.name}/{version}/{ENGINE_ARGS_FILE} enables LoRA, but {where} "
                + (
                    "does not exist"
                    if lora.problem == "missing"
                    else f"cannot be read ({lora.message})"
                )
                + f': the backend fails the load with "FileNotFoundError: Triton backend cannot '
                f'find <repository>/{where}."',
                file=document.path,
                span=Span.point(entry.line, entry.column, len("enable_lora") + 2),
                hint=f'write {where}: {{"<LoRA name>": "<local path of the adapter>"}} (or '
                "remove enable_lora)",
            )
        elif lora.problem in ("syntax", "not-an-object"):
            yield Finding(
                f"{where} is not a JSON object of LoRA names and paths: the backend fails the "
                f'load with "{lora.message}"',
                file=lora.path,
                span=Span.point(lora.line, lora.column) if lora.line else None,
                hint='write one JSON object: {"<LoRA name>": "<local path of the adapter>"}',
            )
