"""PL401-PL405: instance kinds and the GPUs they list.

`ValidateInstanceGroup` (core's src/model_config_utils.cc) refuses GPUs on a
KIND_MODEL or KIND_CPU group and a KIND_GPU group without usable GPUs, after
`NormalizeInstanceGroup` has resolved KIND_AUTO against the GPUs present. Whether a
GPU exists depends on the target host: with `--gpus N` (the host profile) the rules
are exact verdicts; without it they only state what the model needs from its host
(info), since most configs are written for the GPU host they run on.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.instances import AUTO, CPU, GPU, MODEL, resolve_groups
from pbtxt_lint.rules.api import ERROR, INFO, Finding, ModelContext, Stage, model_label, rule

GPUS_HINT = (
    "declare the target host with --gpus N (gpus = N in .pbtxt-lint.toml; 0 for a "
    "CPU-only host) to check it"
)


@rule(
    "PL401",
    "model-kind-with-gpus",
    ERROR,
    "A KIND_MODEL instance group that lists GPUs.",
    triton="instance group <g> of model <model> has kind KIND_MODEL but specifies one or more GPUs",
    stage=Stage.LOAD,
)
def model_kind_with_gpus(context: ModelContext) -> Iterator[Finding]:
    """KIND_MODEL leaves device placement to the backend, so `gpus` must be empty.

    Bad:
        instance_group [ { kind: KIND_MODEL gpus: [ 0 ] } ]
    Good:
        instance_group [ { kind: KIND_MODEL } ]
    """
    for group in resolve_groups(context):
        if group.written == MODEL and group.gpus:
            yield Finding(
                f"{group.label} of {model_label(context)} has kind KIND_MODEL but lists "
                f"gpus {list(group.gpus)}; Triton refuses a KIND_MODEL group with GPUs",
                at=group.at("gpus", 0),
                hint="delete gpus (the backend places KIND_MODEL instances itself), or use "
                "kind: KIND_GPU to pin instances to those GPUs",
            )


@rule(
    "PL402",
    "gpu-kind-without-gpu",
    ERROR,
    "A KIND_GPU instance group on a host without GPUs.",
    triton="instance group <g> of model <model> has kind KIND_GPU but no GPUs are available",
    stage=Stage.LOAD,
)
def gpu_kind_without_gpu(context: ModelContext) -> Iterator[Finding]:
    """KIND_GPU needs a GPU Triton can use (CUDA visible, compute capability high
    enough). On a CPU-only host or container (no `--gpus`), the model fails to load.
    Reported only for a declared CPU-only host (`--gpus 0`): without one, KIND_GPU says
    no more than what its author wrote (the model wants a GPU), on every GPU model of a
    repository.

    Bad:
        instance_group [ { kind: KIND_GPU } ]      (pbtxt-lint check --gpus 0)
    Good:
        instance_group [ { kind: KIND_CPU } ]
    """
    if context.settings.gpus != 0:
        return
    for group in resolve_groups(context):
        if group.written == GPU:
            yield Finding(
                f"{group.label} of {model_label(context)} has kind KIND_GPU but "
                "the target host has no GPU; Triton refuses the model",
                at=group.at("kind"),
                hint="use kind: KIND_CPU, or run tritonserver with GPUs (docker run --gpus all)",
            )


@rule(
    "PL403",
    "gpu-id-unavailable",
    ERROR,
    "A KIND_GPU instance group lists a GPU id the host does not have.",
    triton="instance group <g> of model <model> specifies invalid or unsupported gpu id <id>. "
    "GPUs with at least the minimum required CUDA compute compatibility of <cc> are: <ids>",
    stage=Stage.LOAD,
)
def gpu_id_unavailable(context: ModelContext) -> Iterator[Finding]:
    """GPU ids count from 0 among the GPUs visible to Triton: with
    `CUDA_VISIBLE_DEVICES=6,7` (or `docker run --gpus '"device=6,7"'`) the ids are 0
    and 1. An id the host lacks fails the model; a negative id fails everywhere.
    Without `--gpus N` an id above 0 is info: the model needs a host with that many
    GPUs.

    Bad:
        instance_group [ { kind: KIND_GPU gpus: [ 1 ] } ]   (pbtxt-lint check --gpus 1)
    Good:
        instance_group [ { kind: KIND_GPU gpus: [ 0 ] } ]
    """
    host = context.settings.gpus
    if host == 0:
        return  # PL402 reports the group: no id exists on a CPU-only host
    for group in resolve_groups(context):
        if group.written != GPU:
            continue
        for position, gpu in enumerate(group.gpus):
            unknown = host is None and gpu >= 1
            if gpu < 0:
                detail = "GPU ids start at 0; Triton refuses the model"
            elif unknown:
                detail = (
                    f"the model needs a host where Triton sees at least {gpu + 1} GPUs "
                    "(it refuses an id it does not see)"
                )
            elif host is not None and gpu >= host:
                available = ", ".join(str(i) for i in range(host))
                detail = f"the target host has {host} GPU(s): {available}; Triton refuses the model"
            else:
                continue
            yield Finding(
                f"{group.label} of {model_label(context)} lists gpu id {gpu}; {detail}",
                at=group.at("gpus", position),
                hint="list ids counted among the GPUs visible to tritonserver (after "
                "CUDA_VISIBLE_DEVICES), or delete gpus to use every GPU"
                + (f"; {GPUS_HINT}" if unknown else ""),
                severity=INFO if unknown else None,
            )


@rule(
    "PL404",
    "cpu-kind-with-gpus",
    ERROR,
    "A KIND_CPU instance group that lists GPUs.",
    triton="instance group <g> of model <model> has kind KIND_CPU but specifies one or more GPUs",
    stage=Stage.LOAD,
)
def cpu_kind_with_gpus(context: ModelContext) -> Iterator[Finding]:
    """CPU instances have no device, so `gpus` must be empty.

    Bad:
        instance_group [ { kind: KIND_CPU gpus: [ 0 ] } ]
    Good:
        instance_group [ { kind: KIND_CPU } ]
    """
    for group in resolve_groups(context):
        if group.written == CPU and group.gpus:
            yield Finding(
                f"{group.label} of {model_label(context)} has kind KIND_CPU but lists "
                f"gpus {list(group.gpus)}; Triton refuses it",
                at=group.at("gpus", 0),
                hint="delete gpus, or use kind: KIND_GPU to run on those GPUs",
            )


@rule(
    "PL405",
    "auto-kind-with-absent-gpu",
    ERROR,
    "A group without a kind lists a GPU the host lacks, so Triton makes it KIND_CPU and "
    "refuses it.",
    triton="instance group <g> of model <model> has kind KIND_CPU but specifies one or more GPUs",
    stage=Stage.LOAD,
)
def auto_kind_with_absent_gpu(context: ModelContext) -> Iterator[Finding]:
    """Without `kind` a group is KIND_AUTO. Triton turns it into KIND_CPU when the host
    has no GPU or lacks any GPU listed in `gpus`, keeps the `gpus` list, and then
    refuses the group with the confusing "has kind KIND_CPU but specifies one or more
    GPUs". Without `--gpus N` this is info: the model needs a host with those GPUs.

    Bad:
        instance_group [ { gpus: [ 1 ] } ]     (pbtxt-lint check --gpus 1)
    Good:
        instance_group [ { kind: KIND_GPU gpus: [ 0 ] } ]
    """
    host = context.settings.gpus
    for group in resolve_groups(context):
        if group.written != AUTO or not group.gpus or group.kind == GPU:
            continue
        absent = [gpu for gpu in group.gpus if gpu < 0 or host is None or gpu >= host]
        position = group.gpus.index(absent[0]) if absent else 0
        if group.kind == CPU:
            why = (
                "the target host has no GPU"
                if host == 0
                else f"gpu id {absent[0]} does not exist on the target host"
            )
            message = (
                f"{group.label} of {model_label(context)} has no kind (KIND_AUTO) "
                f"and lists gpus {list(group.gpus)}, but {why}: Triton makes it "
                "KIND_CPU and refuses it for listing GPUs"
            )
        else:
            message = (
                f"{group.label} of {model_label(context)} has no kind (KIND_AUTO) "
                f"and lists gpus {list(group.gpus)}: the model needs a host with GPU "
                f"{max(group.gpus)} (on a host without it Triton makes the group KIND_CPU "
                "and refuses it for listing GPUs)"
            )
        yield Finding(
            message,
            at=group.at("gpus", position),
            hint="write kind: KIND_GPU with ids the host has (Triton then names the missing "
            "GPU), or delete gpus" + (f"; {GPUS_HINT}" if group.kind is None else ""),
            severity=INFO if group.kind is None else None,
        )
