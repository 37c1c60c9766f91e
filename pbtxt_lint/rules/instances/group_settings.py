"""PL412-PL416: instance-group settings Triton accepts and then ignores or needs a
server flag for.

`NormalizeInstanceGroup` and `SetDefaultInstanceCount` (core's
src/model_config_utils.cc) replace a count below 1 by the backend's default (read
from `pbtxt_lint.triton.backends`, `default_cpu_count`); `secondary_devices` are
read by TensorRT alone (`reads_secondary_devices`); passive instances get no
requests; host policies and rate-limiter resources need `--host-policy` and
`--rate-limit` on the server.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.instances import CPU, GPU, resolve_groups
from pbtxt_lint.rules.api import (
    BACKENDS,
    INFO,
    Finding,
    ModelConfig,
    ModelContext,
    model_label,
    rule,
    written,
)


@rule(
    "PL412",
    "instance-count-not-positive",
    INFO,
    "An instance group with `count: 0` or a negative count, which Triton replaces by the default.",
    effective=True,
)
def instance_count_not_positive(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """A count below 1 does not disable the group: Triton silently uses the default
    count, 1 per device (2 for KIND_CPU on onnxruntime and tensorflow).

    Bad:
        instance_group [ { kind: KIND_CPU count: 0 } ]
    Good:
        instance_group [ { kind: KIND_CPU count: 1 } ]
    """
    entry = BACKENDS.get(config.backend)
    cpu_count = entry.default_cpu_count if entry is not None else 1
    for group in resolve_groups(context):
        if group.index is None or not written(context, ("instance_group", group.index, "count")):
            continue
        count = config.instance_group[group.index].count
        if count >= 1:
            continue
        if group.kind == CPU:
            default = str(cpu_count)
        elif group.kind is None and cpu_count != 1:
            default = f"1 per GPU, or {cpu_count} if the group ends up on the CPU"
        else:
            default = "1" + (" per GPU" if group.kind == GPU else "")
        yield Finding(
            f"{group.label} of {model_label(context)} has count {count}; Triton does "
            f"not disable the group but uses the default count ({default})",
            at=group.at("count"),
            hint="write the number of instances you want (at least 1), or delete the group",
        )


@rule(
    "PL413",
    "secondary-devices-ignored",
    INFO,
    "`secondary_devices` on a backend other than TensorRT, which ignores them.",
    effective=True,
)
def secondary_devices_ignored(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
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
    entry = BACKENDS.get(config.backend)
    if entry is None or entry.reads_secondary_devices is not False:
        return  # TensorRT reads them; a custom backend may
    for group in resolve_groups(context):
        if group.index is not None and config.instance_group[group.index].secondary_devices:
            yield Finding(
                f"{group.label} of {model_label(context)} lists secondary_devices, which "
                f"the {config.backend} backend ignores (only TensorRT uses DLA cores)",
                at=group.at("secondary_devices", 0),
                hint="delete secondary_devices",
            )


@rule(
    "PL414",
    "passive-instance-group",
    INFO,
    "A passive instance group: its instances are loaded but Triton never sends them requests.",
    effective=True,
)
def passive_instance_group(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton loads passive instances (and skips their warmup) but its scheduler never
    dispatches to them; they are for backends that manage their own instances. With
    only passive groups the model accepts requests that are never executed.

    Bad:
        instance_group [ { kind: KIND_GPU passive: true } ]   (expecting it to serve)
    Good:
        instance_group [ { kind: KIND_GPU } ]
    """
    for group in resolve_groups(context):
        if group.index is not None and config.instance_group[group.index].passive:
            yield Finding(
                f"{group.label} of {model_label(context)} is passive: Triton loads its "
                "instances but never schedules requests on them",
                at=group.at("passive"),
                hint="delete passive: true unless the backend manages these instances itself",
            )


@rule(
    "PL415",
    "host-policy-needs-server-flag",
    INFO,
    "A `host_policy` name, which has an effect only if tritonserver defines it with --host-policy.",
    effective=True,
)
def host_policy_needs_server_flag(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """An instance group's host policy (NUMA node, CPU cores) comes from
    `--host-policy=<name>,<setting>=<value>` on the server command line. A name the
    server does not define is silently an empty policy.

    Bad:
        instance_group [ { kind: KIND_CPU host_policy: "numa0" } ]   (no --host-policy)
    Good:
        tritonserver --host-policy=numa0,numa-node=0 --host-policy=numa0,cpu-cores=0-15
    """
    for group in resolve_groups(context):
        if group.index is None:
            continue
        policy = config.instance_group[group.index].host_policy
        if policy:
            yield Finding(
                f"{group.label} of {model_label(context)} uses host_policy '{policy}', "
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
    effective=True,
)
def rate_limiter_needs_server_flag(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Rate-limiter resources and priorities are used only when the server runs with
    `--rate-limit=execution_count`; by default (`--rate-limit=off`) they do nothing.

    Bad:
        instance_group [ { kind: KIND_GPU rate_limiter { resources [ { name: "R" count: 1 } ] } } ]
        tritonserver --model-repository=...
    Good:
        tritonserver --model-repository=... --rate-limit=execution_count
    """
    for group in resolve_groups(context):
        if group.index is not None and config.instance_group[group.index].HasField("rate_limiter"):
            yield Finding(
                f"{group.label} of {model_label(context)} has a rate_limiter, which "
                "Triton ignores unless started with --rate-limit=execution_count",
                at=group.at("rate_limiter"),
                hint="start tritonserver with --rate-limit=execution_count, or delete rate_limiter",
            )
