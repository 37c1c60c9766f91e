"""PL831-PL834: the inflight_batcher_llm pipeline as a whole.

The ensemble's wiring is checked by Triton itself (PL5xx). The BLS model
(tensorrt_llm_bls) is not: it calls `preprocessing` and `postprocessing` by fixed
names and the LLM by the name its `tensorrt_llm_model_name` parameter gives, asks each
for the outputs its lib/triton_decoder.py lists, and forwards whole batches. The
Python models look up their own tensors' configs in `initialize`; the BLS model calls
the LLM without streaming when it is not decoupled itself. A repository that
mixes files of two releases (a new model.py with an old config) fails in these places.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.artifacts.python_initialize import initialize_reads, string_lists
from pbtxt_lint.rules.api import (
    ERROR,
    WARNING,
    Finding,
    ModelContext,
    Scope,
    Stage,
    rule,
)
from pbtxt_lint.rules.artifacts.common import loaded, name_list
from pbtxt_lint.rules.artifacts.python_common import line_span
from pbtxt_lint.rules.backends.tensorrtllm_common import (
    BLS_LIBRARY,
    Pipeline,
    pipeline_model,
    value_path,
)
from pbtxt_lint.triton.tensorrtllm import BLS_CALLEES, is_placeholder

_REQUESTED = {
    "preprocessing": "_preproc_outputs",
    "postprocessing": "_postproc_outputs",
    "llm": "_llm_outputs",
}
"""The TritonDecoder attributes listing the outputs requested from each callee on every
request (the multimodal encoder's and the draft model's only on some)."""


_ROLES = {
    "preprocessing": ("preprocessing",),
    "postprocessing": ("postprocessing",),
    "llm": ("tensorrt_llm", "tensorrt_llm_python"),
}
"""Which pipeline models can answer each call."""
_KINDS = {"preprocessing": "preprocessing model", "postprocessing": "postprocessing model",
          "llm": "TensorRT-LLM model"}  # fmt: skip


def _models_of_role(context: ModelContext, roles: tuple[str, ...]) -> list[str]:
    """The repository's models that are one of `roles` (a renamed callee)."""
    found = []
    for name in sorted(context.repository.models):
        other = context.workspace.model(name)
        member = pipeline_model(other) if other is not None else None
        if member is not None and member.role in roles:
            found.append(name)
    return found


def _callees(found: Pipeline) -> dict[str, str]:
    """Callee role -> model name, as the BLS model's initialize decides them."""
    llm = found.value("tensorrt_llm_model_name") or ""
    named = {callee: callee for callee in BLS_CALLEES}
    named["llm"] = llm if llm and not is_placeholder(llm) else "tensorrt_llm"
    return named


@rule(
    "PL831",
    "tensorrtllm-bls-callee",
    WARNING,
    "tensorrt_llm_bls calls a model the repository lacks, or asks it for outputs it does "
    "not declare.",
    triton="Model <name> - Error when running inference: Failed for execute the inference "
    "request. Model '<name>' is not ready. / Model <model> - Error when running inference: "
    "unexpected inference output '<name>' for model '<model>'",
    scope=Scope.FILES,
    backend="tensorrtllm",
)
def tensorrtllm_bls_callee(context: ModelContext) -> Iterator[Finding]:
    """The published BLS model sends every request to three models: `preprocessing`
    and `postprocessing` (names fixed in its model.py) and the LLM named by its
    `tensorrt_llm_model_name` parameter (default `tensorrt_llm`). It asks each for a
    fixed list of outputs (`_preproc_outputs`, `_llm_outputs`, `_postproc_outputs` in
    lib/triton_decoder.py), which grows between releases: a callee without one of them
    fails the call ("unexpected inference output"), a callee of another name fails it
    too (the model is "not ready"), and either way every request to the BLS model fails
    (HTTP 500, seen with tritonserver 2.51 and scripts/trtllm_live.py). A callee is
    reported missing only when the repository holds a model of that kind under another
    name (a renamed folder); models served from another repository are not seen here.

    Bad:
        tensorrt_llm_bls/1/lib/triton_decoder.py of 0.19 (asks preprocessing for
        IS_VIDEO_INPUT) with the preprocessing config of 0.18
    Good:
        the config.pbtxt files and the model.py folders of one release
    """
    found = pipeline_model(context)
    if found is None or found.role != "tensorrt_llm_bls":
        return
    callees = _callees(found)
    for callee, name in callees.items():
        if name in context.repository.models:
            continue
        present = _models_of_role(context, _ROLES[callee])
        if not present:
            continue  # none in this repository: served from another one, perhaps
        source = (
            "a name fixed in its model.py"
            if callee != "llm"
            else "its tensorrt_llm_model_name parameter"
            if found.usable("tensorrt_llm_model_name")
            else "the default of tensorrt_llm_model_name"
        )
        yield Finding(
            f"{found.label} calls model '{name}' ({source}) on every request, and this "
            f"repository has no such model (its {_KINDS[callee]} is '{present[0]}'): every "
            f'request fails with "Model {name} - Error when running inference: Failed for '
            f"execute the inference request. Model '{name}' is not ready.\"",
            at=value_path("tensorrt_llm_model_name") if callee == "llm" else None,
            hint=f'set tensorrt_llm_model_name to "{present[0]}"'
            if callee == "llm"
            else f"name the folder of '{present[0]}' '{name}'",
        )
    for version in context.selection.versions:
        library = context.model.path / str(version) / BLS_LIBRARY
        lists = string_lists(library)
        if lists is None:
            continue
        shown = library.relative_to(context.model.path.parent).as_posix()
        for callee, attribute in _REQUESTED.items():
            yield from _undeclared(context, found, callees[callee], lists.get(attribute), shown)
        return


def _undeclared(
    context: ModelContext, found: Pipeline, name: str, requested: tuple[str, ...] | None, shown: str
) -> Iterator[Finding]:
    other = context.workspace.model(name)
    config = other.effective if other is not None else None
    if not requested or config is None:
        return
    declared = {tensor.name for tensor in config.output}
    missing = [output for output in requested if output not in declared]
    if not missing:
        return
    yield Finding(
        f"{found.label} asks model '{name}' for {name_list(missing)} on every request "
        f"({shown} lists them), and '{name}' does not declare "
        f'{"it" if len(missing) == 1 else "them"}: every request fails with "Model {name} - '
        f"Error when running inference: unexpected inference output '{missing[0]}' for model "
        f"'{name}'\"",
        hint=f"use the config.pbtxt of '{name}' from the same release as {shown}, or declare "
        f"{name_list(missing)} in it",
    )


@rule(
    "PL832",
    "tensorrtllm-pipeline-batch-size",
    WARNING,
    "tensorrt_llm_bls accepts larger batches than a model it forwards them to.",
    triton="Model <model> - Error when running inference: [request id: <id>] inference "
    "request batch-size must be <= <n> for '<model>'",
    backend="tensorrtllm",
)
def tensorrtllm_pipeline_batch_size(context: ModelContext) -> Iterator[Finding]:
    """The BLS model forwards each request's whole batch to preprocessing, the LLM
    and postprocessing. Unlike an ensemble's, its max_batch_size is not compared with
    theirs when it loads: a request larger than a callee's max_batch_size is accepted
    by the BLS model and then fails inside it. The published configs give all of them
    the same `${triton_max_batch_size}`. Seen with tritonserver 2.51
    (scripts/trtllm_live.py): HTTP 500 "Model preprocessing - Error when running
    inference: ... inference request batch-size must be <= 4 for 'preprocessing'".

    Bad:
        tensorrt_llm_bls: max_batch_size: 64      tensorrt_llm: max_batch_size: 8
    Good:
        tensorrt_llm_bls: max_batch_size: 8       tensorrt_llm: max_batch_size: 8
    """
    found = pipeline_model(context)
    if found is None or found.role != "tensorrt_llm_bls":
        return
    size = found.config.max_batch_size
    for name in _callees(found).values():
        other = context.workspace.model(name)
        config = other.effective if other is not None else None
        if config is None or not 0 < config.max_batch_size < size:
            continue
        yield Finding(
            f"{found.label} accepts batches of up to {size}, and forwards them to '{name}', "
            f"whose max_batch_size is {config.max_batch_size}: requests of "
            f'{config.max_batch_size + 1} to {size} sequences fail with "inference request '
            f"batch-size must be <= {config.max_batch_size} for '{name}'\"",
            at=("max_batch_size",),
            hint=f"set max_batch_size: {config.max_batch_size} (or raise '{name}''s)",
        )


@rule(
    "PL834",
    "tensorrtllm-bls-decoupled",
    WARNING,
    "tensorrt_llm_bls is not decoupled but the LLM it calls is: its one-prompt requests fail.",
    triton="Model tensorrt_llm is using the decoupled. The current BLS request call doesn't "
    "support models using the decoupled transaction policy. Please use 'decoupled=True' "
    "argument to the 'exec' or 'async_exec' calls for decoupled models.",
    backend="tensorrtllm",
)
def tensorrtllm_bls_decoupled(context: ModelContext) -> Iterator[Finding]:
    """The published BLS model streams (calls the LLM with `exec(decoupled=True)`) only
    when it is decoupled itself or a request carries several prompts; a request of one
    prompt to a BLS model that is not decoupled goes through `exec(decoupled=False)`,
    which the python backend refuses for a decoupled model (python_backend
    request_executor.cc). The README fills both configs from one DECOUPLED_MODE; filling
    them apart (decoupled_mode:True for tensorrt_llm only, to stream from the ensemble)
    breaks the BLS model's ordinary requests. Seen with tritonserver 2.51
    (scripts/trtllm_live.py).

    Bad:
        tensorrt_llm_bls: model_transaction_policy { decoupled: false }
        tensorrt_llm:     model_transaction_policy { decoupled: true }
    Good:
        both decoupled (streaming), or neither
    """
    found = pipeline_model(context)
    if (
        found is None
        or found.role != "tensorrt_llm_bls"
        or found.config.model_transaction_policy.decoupled
    ):
        return
    name = _callees(found)["llm"]
    other = context.workspace.model(name)
    config = other.effective if other is not None else None
    if config is None or not config.model_transaction_policy.decoupled:
        return
    yield Finding(
        f"{found.label} is not decoupled, and the LLM it calls, '{name}', is: a request of one "
        f"prompt calls '{name}' with exec(decoupled=False) and fails with \"Model {name} - Error "
        f"when running inference: Model {name} is "
        "using the decoupled. The current BLS request call doesn't support models using the "
        'decoupled transaction policy..." (requests of several prompts stream and work)',
        at=("model_transaction_policy", "decoupled"),
        hint=f"set model_transaction_policy {{ decoupled: true }} here too (fill_template.py "
        f"decoupled_mode:True), or make '{name}' not decoupled",
    )


@rule(
    "PL833",
    "tensorrtllm-python-tensor-lookup",
    ERROR,
    "A TensorRT-LLM Python model's initialize looks up a tensor its config does not declare.",
    triton="TypeError: 'NoneType' object is not subscriptable",
    stage=Stage.LOAD,
    scope=Scope.MODEL_FILES,
    backend="tensorrtllm",
)
def tensorrtllm_python_tensor_lookup(context: ModelContext) -> Iterator[Finding]:
    """preprocessing's initialize walks a list of its output names (and two input
    names) and reads `get_output_config_by_name(model_config, name)['data_type']` for
    each; for a name the config does not declare the lookup returns None, the
    subscript raises TypeError and the model fails to load. The list grows between
    releases (OUT_PROMPT_TABLE_EXTRA_IDS, PIXEL_VALUES, IMAGE_SIZES, ...), so a config
    kept from an older release breaks a newer model.py ("failed to load 'preprocessing'
    version 1: Internal: TypeError: 'NoneType' object is not subscriptable", tritonserver
    2.51 with v0.19.0's model.py, scripts/trtllm_live.py).

    Bad:
        preprocessing/1/model.py of 0.19 with a config.pbtxt that has no PIXEL_VALUES output
    Good:
        the config.pbtxt of the same release as model.py
    """
    found = pipeline_model(context)
    if found is None or found.role not in ("preprocessing", "postprocessing", "tensorrt_llm_bls"):
        return
    declared = {
        "input": {tensor.name for tensor in found.config.input},
        "output": {tensor.name for tensor in found.config.output},
    }
    for artifact, signature in loaded(context, "python"):
        shown = artifact.opened.relative_to(context.model.path.parent).as_posix()
        reads = initialize_reads(signature.module)
        missing = [look for look in reads.lookups if look.name not in declared[look.kind]]
        for kind in ("input", "output"):
            names = [look.name for look in missing if look.kind == kind]
            if not names:
                continue
            line = next(look.line for look in missing if look.kind == kind)
            yield Finding(
                f"{shown} line {line} looks up the config of {kind}"
                f"{'s' if len(names) > 1 else ''} {name_list(names)} in initialize, which the "
                f"config of {found.label} does not declare: get_{kind}_config_by_name returns "
                "None, and ['data_type'] raises \"TypeError: 'NoneType' object is not "
                'subscriptable", so the model fails to load',
                file=artifact.opened,
                span=line_span(line),
                hint=f"declare the {kind}{'s' if len(names) > 1 else ''} (from the "
                "config.pbtxt of the same release as this model.py)",
            )
        return
