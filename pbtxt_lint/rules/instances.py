"""PL4xx: instance groups and devices (kind, GPUs, counts, profiles, backend kinds).

Triton normalises the instance groups after it has found the backend library
(`NormalizeInstanceGroup`: default group, KIND_AUTO resolved against the GPUs present,
default counts), validates them (`ValidateInstanceGroup`), then each backend checks the
kinds it supports when it creates the instances. Every one of these is a load-time
failure. Where a GPU is involved the answer depends on the target host: with
`--gpus N` the rules are exact, without it they warn about what fails on a host with
fewer GPUs. Ensembles have no instance groups and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.analysis.instances import AUTO, CPU, GPU, MODEL, Group, kind_name, resolve_groups
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.rules.common import written
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.triton.parameters import INT32_MAX, INT32_MIN, leading_int, parameter, parse_bool

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
TENSORRT_PLATFORM = "tensorrt_plan"
CPU_COUNT_TWO = ("onnxruntime", "tensorflow")
"""Backends whose default KIND_CPU count is 2 (`SetDefaultInstanceCount`)."""
KNOWN_NON_TENSORRT = ("onnxruntime", "pytorch", "python", "openvino", "tensorflow", "dali", "fil")
"""Backends known to ignore `secondary_devices` (custom backends may read it)."""
GPUS_HINT = "pass --gpus N (0 for a CPU-only host) to check against the target host"


# --------------------------------------------------------------------------- kinds and GPUs


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
                f"{group.label} of model '{context.model.name}' has kind KIND_MODEL but lists "
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
    Without `--gpus N` this is a warning.

    Bad:
        instance_group [ { kind: KIND_GPU } ]      (tritonserver on a CPU-only host)
    Good:
        instance_group [ { kind: KIND_CPU } ]
    """
    host = context.settings.gpus
    if host:
        return
    for group in resolve_groups(context):
        if group.written != GPU:
            continue
        if host == 0:
            message = (
                f"{group.label} of model '{context.model.name}' has kind KIND_GPU but "
                "the target host has no GPU; Triton refuses the model"
            )
        else:
            message = (
                f"{group.label} of model '{context.model.name}' has kind KIND_GPU: it "
                "fails to load on a host without GPUs"
            )
        yield Finding(
            message,
            at=group.at("kind"),
            hint="use kind: KIND_CPU (or leave kind out: KIND_AUTO picks the GPU when there is "
            f"one) for CPU-only hosts; {GPUS_HINT}"
            if host is None
            else "use kind: KIND_CPU, or run tritonserver with GPUs (docker run --gpus all)",
            severity=WARNING if host is None else None,
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
    and 1. An id the host lacks fails the model; without `--gpus N` ids above 0 are a
    warning ("fails on a host with fewer GPUs").

    Bad:
        instance_group [ { kind: KIND_GPU gpus: [ 1 ] } ]   (single-GPU host)
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
            if gpu < 0:
                detail = "GPU ids start at 0"
            elif host is None and gpu >= 1:
                detail = f"it fails to load on a host with fewer than {gpu + 1} GPUs"
            elif host is not None and gpu >= host:
                available = ", ".join(str(i) for i in range(host))
                detail = f"the target host has {host} GPU(s): {available}"
            else:
                continue
            yield Finding(
                f"{group.label} of model '{context.model.name}' lists gpu id {gpu}; {detail}",
                at=group.at("gpus", position),
                hint="list ids counted among the GPUs visible to tritonserver (after "
                "CUDA_VISIBLE_DEVICES), or delete gpus to use every GPU"
                + (f"; {GPUS_HINT}" if host is None and gpu >= 0 else ""),
                severity=WARNING if host is None and gpu >= 0 else None,
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
                f"{group.label} of model '{context.model.name}' has kind KIND_CPU but lists "
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
    GPUs". Without `--gpus N` this is a warning.

    Bad:
        instance_group [ { gpus: [ 1 ] } ]     (single-GPU host)
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
                f"{group.label} of model '{context.model.name}' has no kind (KIND_AUTO) "
                f"and lists gpus {list(group.gpus)}, but {why}: Triton makes it "
                "KIND_CPU and refuses it for listing GPUs"
            )
        else:
            message = (
                f"{group.label} of model '{context.model.name}' has no kind (KIND_AUTO) "
                f"and lists gpus {list(group.gpus)}: on a host without GPU "
                f"{max(group.gpus)} Triton makes it KIND_CPU and refuses it for "
                "listing GPUs"
            )
        yield Finding(
            message,
            at=group.at("gpus", position),
            hint="write kind: KIND_GPU with ids the host has (Triton then names the missing "
            "GPU), or delete gpus" + (f"; {GPUS_HINT}" if group.kind is None else ""),
            severity=WARNING if group.kind is None else None,
        )


# --------------------------------------------------------------------------- profiles


@rule(
    "PL406",
    "profile-not-tensorrt",
    ERROR,
    "An instance group sets `profile` on a model that is not a TensorRT plan.",
    triton="instance group <g> of model <model> and platform <p>specifies profile field which "
    "is only supported for TensorRT models",
    stage=Stage.LOAD,
)
def profile_not_tensorrt(context: ModelContext) -> Iterator[Finding]:
    """Optimization profiles belong to TensorRT engines; Triton refuses `profile` for any
    other platform (including ONNX Runtime with the TensorRT execution accelerator).

    Bad:
        backend: "onnxruntime"
        instance_group [ { kind: KIND_GPU profile: [ "0" ] } ]
    Good:
        backend: "onnxruntime"
        instance_group [ { kind: KIND_GPU } ]
    """
    config = context.effective
    if config is None or config.platform == TENSORRT_PLATFORM:
        return
    for group in resolve_groups(context):
        if group.index is None or not config.instance_group[group.index].profile:
            continue
        platform = f"platform '{config.platform}'" if config.platform else "no platform"
        yield Finding(
            f"{group.label} of model '{context.model.name}' sets profile, but the model has "
            f"{platform} (backend '{config.backend}'); Triton accepts profile only for "
            f"platform '{TENSORRT_PLATFORM}'",
            at=group.at("profile", 0),
            hint="delete profile",
        )


def _profiles(context: ModelContext) -> Iterator[tuple[Group, int, str, int | None]]:
    """(group, position, profile string, value std::stoi reads) of TensorRT models."""
    config = context.effective
    if config is None or config.platform != TENSORRT_PLATFORM:
        return
    for group in resolve_groups(context):
        if group.index is None:
            continue
        for position, text in enumerate(config.instance_group[group.index].profile):
            yield group, position, text, leading_int(text)


@rule(
    "PL407",
    "profile-invalid",
    ERROR,
    "A TensorRT `profile` entry that is empty, not a number, negative or out of range.",
    triton="profile name must not be empty / unable to parse '<profile>': stoi / instance "
    "group <g> of model <model> and platform tensorrt_plan specifies invalid profile "
    "<profile>. The field should contain the string representation of a non-negative integer.",
    stage=Stage.LOAD,
)
def profile_invalid(context: ModelContext) -> Iterator[Finding]:
    """`profile` lists optimization profile indexes of the engine as strings ("0", "1").
    Triton reads each with `std::stoi`: an empty string, a non-number and a negative
    number fail the model, and a number beyond 32 bits aborts the whole server.

    Bad:
        instance_group [ { kind: KIND_GPU profile: [ "max" ] } ]
    Good:
        instance_group [ { kind: KIND_GPU profile: [ "0" ] } ]
    """
    for group, position, text, value in _profiles(context):
        where = f"{group.label} of model '{context.model.name}'"
        if not text:
            why = 'is empty; Triton refuses it ("profile name must not be empty")'
        elif value is None:
            why = 'is not a number; Triton refuses it ("unable to parse ... stoi")'
        elif not INT32_MIN <= value <= INT32_MAX:
            why = "does not fit a 32-bit integer; std::stoi throws and tritonserver aborts"
        elif value < 0:
            why = "is negative; profile indexes start at 0"
        else:
            continue
        yield Finding(
            f'profile "{text}" of {where} {why}',
            at=group.at("profile", position),
            hint='write the engine\'s optimization profile index as a string: "0", "1" ...',
        )


@rule(
    "PL408",
    "profile-not-canonical",
    WARNING,
    'A TensorRT `profile` string like "1abc" or " 2" that Triton silently reads as a number.',
)
def profile_not_canonical(context: ModelContext) -> Iterator[Finding]:
    """`std::stoi` stops at the first character that is not a digit, so "1abc" and
    "2_fp16" mean profiles 1 and 2; the rest is ignored. A profile name that is not
    its index is usually a mistake (TensorRT profiles have no names in Triton).

    Bad:
        instance_group [ { kind: KIND_GPU profile: [ "1abc" ] } ]
    Good:
        instance_group [ { kind: KIND_GPU profile: [ "1" ] } ]
    """
    for group, position, text, value in _profiles(context):
        if value is None or value < 0 or value > INT32_MAX or str(value) == text:
            continue
        yield Finding(
            f"profile \"{text}\" of {group.label} of model '{context.model.name}' is read by "
            f"Triton as profile {value}",
            at=group.at("profile", position),
            hint=f'write profile: "{value}"',
        )


# --------------------------------------------------------------------------- backend kinds


def _multi_device(config: ModelConfig) -> bool:
    value = parameter(config, "enable_multi_device")
    return value is not None and parse_bool(value) is True


@rule(
    "PL409",
    "tensorrt-kind-not-gpu",
    ERROR,
    "A TensorRT model with an instance group that is not (or does not resolve to) KIND_GPU.",
    triton="unable to load model '<m>', TensorRT backend supports only GPU device",
    stage=Stage.LOAD,
)
def tensorrt_kind_not_gpu(context: ModelContext) -> Iterator[Finding]:
    """The TensorRT backend runs engines on GPUs only: KIND_CPU, KIND_MODEL, and a
    KIND_AUTO group (or no instance_group) on a host without GPUs all fail. With
    `enable_multi_device` the kind must be KIND_MODEL instead.

    Bad:
        platform: "tensorrt_plan"
        instance_group [ { kind: KIND_CPU } ]
    Good:
        platform: "tensorrt_plan"
        instance_group [ { kind: KIND_GPU } ]
    """
    config = context.effective
    if config is None or config.backend != "tensorrt":
        return
    multi = _multi_device(config)
    wanted = MODEL if multi else GPU
    for group in resolve_groups(context):
        if group.written == AUTO and group.gpus:
            continue  # PL405: the group is refused before the backend sees it
        if group.kind == wanted or group.kind is None:
            continue
        what = (
            f"resolves to {kind_name(group.kind)} on the target host"
            if group.written == AUTO
            else f"has kind {kind_name(group.written)}"
        )
        if multi:
            why = "TensorRT multi-device (enable_multi_device) requires kind KIND_MODEL"
            hint = "set kind: KIND_MODEL"
        else:
            why = "the TensorRT backend runs only on GPUs"
            hint = "set kind: KIND_GPU and deploy on a host with a GPU"
        yield Finding(
            f"{group.label} of TensorRT model '{context.model.name}' {what}; {why}",
            at=group.at("kind") or ("backend",),
            hint=hint,
        )


@rule(
    "PL410",
    "tensorrt-secondary-devices",
    ERROR,
    "A TensorRT instance group with more than one secondary device.",
    triton="<instance> of model <m> must have either zero or or one secondary devices",
    stage=Stage.LOAD,
)
def tensorrt_secondary_devices(context: ModelContext) -> Iterator[Finding]:
    """A TensorRT instance can use at most one NVDLA core (`secondary_devices`).

    Bad:
        instance_group [ { kind: KIND_GPU secondary_devices: [
          { kind: KIND_NVDLA device_id: 0 }, { kind: KIND_NVDLA device_id: 1 } ] } ]
    Good:
        instance_group [ { kind: KIND_GPU secondary_devices: [
          { kind: KIND_NVDLA device_id: 0 } ] } ]
    """
    config = context.effective
    if config is None or config.backend != "tensorrt":
        return
    for group in resolve_groups(context):
        if group.index is None:
            continue
        devices = config.instance_group[group.index].secondary_devices
        if len(devices) > 1:
            yield Finding(
                f"{group.label} of TensorRT model '{context.model.name}' lists "
                f"{len(devices)} secondary devices; each instance can use at most one DLA core",
                at=group.at("secondary_devices", 1),
                hint="keep one secondary device per group; add a group per DLA core",
            )


@rule(
    "PL411",
    "openvino-kind-not-cpu",
    ERROR,
    "An OpenVINO model with an instance group that is not (or does not resolve to) KIND_CPU.",
    triton="unable to load model '<m>', Triton OpenVINO backend supports only Kind CPU and AUTO",
    stage=Stage.LOAD,
)
def openvino_kind_not_cpu(context: ModelContext) -> Iterator[Finding]:
    """The OpenVINO backend runs on the CPU only. Without instance_group Triton picks
    KIND_CPU for it, but an explicit group without a kind is KIND_AUTO and becomes
    KIND_GPU on a GPU host, which the backend refuses.

    Bad:
        backend: "openvino"
        instance_group [ { kind: KIND_GPU } ]
    Good:
        backend: "openvino"
        instance_group [ { kind: KIND_CPU } ]
    """
    config = context.effective
    if config is None or config.backend != "openvino":
        return
    for group in resolve_groups(context):
        if group.kind == CPU:
            continue
        if group.written == AUTO:
            if group.gpus:
                continue  # PL405 reports AUTO groups that list GPUs
            what = (
                "has no kind (KIND_AUTO), which becomes KIND_GPU on a host with GPUs"
                if group.kind is None
                else "has no kind (KIND_AUTO), which becomes KIND_GPU on the target host"
            )
        else:
            what = f"has kind {kind_name(group.written)}"
        yield Finding(
            f"{group.label} of OpenVINO model '{context.model.name}' {what}; the OpenVINO "
            "backend runs only on the CPU",
            at=group.at("kind") or group.at(),
            hint="set kind: KIND_CPU",
            severity=WARNING if group.kind is None else None,
        )


# --------------------------------------------------------------------------- silent settings


@rule(
    "PL412",
    "instance-count-not-positive",
    WARNING,
    "An instance group with `count: 0` or a negative count, which Triton replaces by the default.",
)
def instance_count_not_positive(context: ModelContext) -> Iterator[Finding]:
    """A count below 1 does not disable the group: Triton silently uses the default
    count, 1 per device (2 for KIND_CPU on onnxruntime and tensorflow).

    Bad:
        instance_group [ { kind: KIND_CPU count: 0 } ]
    Good:
        instance_group [ { kind: KIND_CPU count: 1 } ]
    """
    config = context.effective
    if config is None:
        return
    for group in resolve_groups(context):
        if group.index is None or not written(context, ("instance_group", group.index, "count")):
            continue
        count = config.instance_group[group.index].count
        if count >= 1:
            continue
        two = config.backend in CPU_COUNT_TWO
        if group.kind == CPU:
            default = "2" if two else "1"
        elif group.kind is None and two:
            default = "1 per GPU, or 2 if the group ends up on the CPU"
        else:
            default = "1" + (" per GPU" if group.kind == GPU else "")
        yield Finding(
            f"{group.label} of model '{context.model.name}' has count {count}; Triton does "
            f"not disable the group but uses the default count ({default})",
            at=group.at("count"),
            hint="write the number of instances you want (at least 1), or delete the group",
        )


@rule(
    "PL413",
    "secondary-devices-ignored",
    WARNING,
    "`secondary_devices` on a backend other than TensorRT, which ignores them.",
)
def secondary_devices_ignored(context: ModelContext) -> Iterator[Finding]:
    """Secondary devices (NVDLA cores) are read only by the TensorRT backend; every
    other backend silently runs without them.

    Bad:
        backend: "onnxruntime"
        instance_group [ { kind: KIND_GPU secondary_devices: [
          { kind: KIND_NVDLA device_id: 0 } ] } ]
    Good:
        backend: "onnxruntime"
        instance_group [ { kind: KIND_GPU } ]
    """
    config = context.effective
    if config is None or config.backend not in KNOWN_NON_TENSORRT:
        return
    for group in resolve_groups(context):
        if group.index is not None and config.instance_group[group.index].secondary_devices:
            yield Finding(
                f"{group.label} of model '{context.model.name}' lists secondary_devices, which "
                f"the {config.backend} backend ignores (only TensorRT uses DLA cores)",
                at=group.at("secondary_devices", 0),
                hint="delete secondary_devices",
            )


@rule(
    "PL414",
    "passive-instance-group",
    INFO,
    "A passive instance group: its instances are loaded but Triton never sends them requests.",
)
def passive_instance_group(context: ModelContext) -> Iterator[Finding]:
    """Triton loads passive instances (and skips their warmup) but its scheduler never
    dispatches to them; they are for backends that manage their own instances. With
    only passive groups the model accepts requests that are never executed.

    Bad:
        instance_group [ { kind: KIND_GPU passive: true } ]   (expecting it to serve)
    Good:
        instance_group [ { kind: KIND_GPU } ]
    """
    config = context.effective
    if config is None:
        return
    for group in resolve_groups(context):
        if group.index is not None and config.instance_group[group.index].passive:
            yield Finding(
                f"{group.label} of model '{context.model.name}' is passive: Triton loads its "
                "instances but never schedules requests on them",
                at=group.at("passive"),
                hint="delete passive: true unless the backend manages these instances itself",
            )


@rule(
    "PL415",
    "host-policy-needs-server-flag",
    INFO,
    "A `host_policy` name, which has an effect only if tritonserver defines it with --host-policy.",
)
def host_policy_needs_server_flag(context: ModelContext) -> Iterator[Finding]:
    """An instance group's host policy (NUMA node, CPU cores) comes from
    `--host-policy=<name>,<setting>=<value>` on the server command line. A name the
    server does not define is silently an empty policy.

    Bad:
        instance_group [ { kind: KIND_CPU host_policy: "numa0" } ]   (no --host-policy)
    Good:
        tritonserver --host-policy=numa0,numa-node=0 --host-policy=numa0,cpu-cores=0-15
    """
    config = context.effective
    if config is None:
        return
    for group in resolve_groups(context):
        if group.index is None:
            continue
        policy = config.instance_group[group.index].host_policy
        if policy:
            yield Finding(
                f"{group.label} of model '{context.model.name}' uses host_policy '{policy}', "
                f"which is empty unless tritonserver runs with --host-policy={policy},...",
                at=group.at("host_policy"),
                hint=f"start tritonserver with --host-policy={policy},numa-node=<n> (or "
                "cpu-cores=<list>)",
            )


@rule(
    "PL416",
    "rate-limiter-needs-server-flag",
    INFO,
    "An instance group `rate_limiter`, which Triton ignores unless started with "
    "--rate-limit=execution_count.",
)
def rate_limiter_needs_server_flag(context: ModelContext) -> Iterator[Finding]:
    """Rate-limiter resources and priorities are used only when the server runs with
    `--rate-limit=execution_count`; by default (`--rate-limit=off`) they do nothing.

    Bad:
        instance_group [ { kind: KIND_GPU rate_limiter { resources [ { name: "R" count: 1 } ] } } ]
        tritonserver --model-repository=...
    Good:
        tritonserver --model-repository=... --rate-limit=execution_count
    """
    config = context.effective
    if config is None:
        return
    for group in resolve_groups(context):
        if group.index is not None and config.instance_group[group.index].HasField("rate_limiter"):
            yield Finding(
                f"{group.label} of model '{context.model.name}' has a rate_limiter, which "
                "Triton ignores unless started with --rate-limit=execution_count",
                at=group.at("rate_limiter"),
                hint="start tritonserver with --rate-limit=execution_count, or delete rate_limiter",
            )
