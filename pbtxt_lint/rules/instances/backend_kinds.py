"""PL409-PL411: the instance kinds a backend supports.

Each backend checks the kind of every instance when it creates it: TensorRT runs on
GPUs only (KIND_MODEL with multi-device), with at most one NVDLA core per instance
(the `ModelInstanceState` constructor in tensorrt_backend's src/instance_state.cc,
the `TensorRTModelInstance` one in src/tensorrt_model_instance.cc); OpenVINO on the
CPU only (the `ModelInstanceState` constructor in openvino_backend's src/openvino.cc).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.analysis.instances import AUTO, CPU, GPU, MODEL, kind_name, resolve_groups
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.triton.parameters import parameter, parse_bool

ERROR, INFO = Severity.ERROR, Severity.INFO


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
    backend="tensorrt",
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
    backend="tensorrt",
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
    backend="openvino",
)
def openvino_kind_not_cpu(context: ModelContext) -> Iterator[Finding]:
    """The OpenVINO backend runs on the CPU only. Without instance_group Triton picks
    KIND_CPU for it, but an explicit group without a kind is KIND_AUTO and becomes
    KIND_GPU on a GPU host, which the backend refuses. Without `--gpus N` that group
    is info: the model then needs a host without GPUs.

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
                "has no kind (KIND_AUTO), which becomes KIND_GPU on a host with GPUs: the "
                "model needs a host without GPUs, since"
                if group.kind is None
                else "has no kind (KIND_AUTO), which becomes KIND_GPU on the target host;"
            )
        else:
            what = f"has kind {kind_name(group.written)};"
        yield Finding(
            f"{group.label} of OpenVINO model '{context.model.name}' {what} the OpenVINO "
            "backend runs only on the CPU",
            at=group.at("kind") or group.at(),
            hint="set kind: KIND_CPU",
            severity=INFO if group.kind is None else None,
        )
