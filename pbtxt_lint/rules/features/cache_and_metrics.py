"""PL701-PL706: the response cache, per-model metrics and the transaction policy.

Triton checks the response cache and `model_metrics` with the rest of
`ValidateModelConfig` (core's src/model_config_utils.cc) when it polls the repository;
`metric_tags` become Prometheus labels when the model's metrics reporter is created at
load (`Model::Init` in core's src/model.cc).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    BACKENDS,
    ERROR,
    INFO,
    FieldPath,
    Finding,
    Key,
    ModelConfig,
    ModelContext,
    Stage,
    model_label,
    rule,
    suggest,
)

CUSTOMIZABLE_METRIC_FAMILY = "nv_inference_first_response_histogram_ms"
_LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


@rule(
    "PL701",
    "decoupled-response-cache",
    ERROR,
    "The response cache enabled on a decoupled model.",
    triton="Response Cache does not currently support model <model> with 'decoupled' "
    "transaction policy. Please disable the response cache.",
    stage=Stage.POLL,
    effective=True,
)
def decoupled_response_cache(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """A decoupled model may send any number of responses per request, which the
    response cache cannot store; Triton refuses the combination.

    Bad:
        model_transaction_policy { decoupled: true }
        response_cache { enable: true }
    Good:
        model_transaction_policy { decoupled: true }
    """
    if config.model_transaction_policy.decoupled and config.response_cache.enable:
        yield Finding(
            f"{model_label(context)} is decoupled and enables the response cache; "
            "Triton's response cache does not support decoupled models and refuses the model",
            at=("response_cache", "enable"),
            hint="delete response_cache (or make the model non-decoupled)",
        )


@rule(
    "PL702",
    "metric-control-incomplete",
    ERROR,
    "A `model_metrics.metric_control` without its identifier, family, histogram options or "
    "buckets.",
    triton="metric control must specify 'metric_identifier' / metric identifier must specify "
    "non-empty 'family' / metric control must specify 'histogram_options' / histogram options "
    "must specify non-empty 'buckets'",
    stage=Stage.POLL,
    effective=True,
)
def metric_control_incomplete(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Each metric control names a metric family and the histogram buckets to use for
    it; Triton refuses a control that lacks any of them. (Triton releases before
    `model_metrics` existed, such as 2.51, reject the field itself.)

    Bad:
        model_metrics { metric_control [ {
          metric_identifier { family: "nv_inference_first_response_histogram_ms" } } ] }
    Good:
        model_metrics { metric_control [ {
          metric_identifier { family: "nv_inference_first_response_histogram_ms" }
          histogram_options { buckets: [ 10, 100, 1000 ] } } ] }
    """
    for index, control in enumerate(config.model_metrics.metric_control):
        at: FieldPath = ("model_metrics", "metric_control", index)
        where = f"metric_control {index} of {model_label(context)}"
        if not control.HasField("metric_identifier"):
            yield Finding(
                f"{where} has no metric_identifier; Triton refuses it",
                at=at,
                hint=f'add metric_identifier {{ family: "{CUSTOMIZABLE_METRIC_FAMILY}" }}',
            )
        elif not control.metric_identifier.family:
            yield Finding(
                f"{where} has an empty metric_identifier.family; Triton refuses it",
                at=(*at, "metric_identifier"),
                hint=f'set family: "{CUSTOMIZABLE_METRIC_FAMILY}"',
            )
        if not control.HasField("histogram_options"):
            yield Finding(
                f"{where} has no histogram_options; Triton refuses it",
                at=at,
                hint="add histogram_options { buckets: [ ... ] } with the bucket bounds",
            )
        elif not control.histogram_options.buckets:
            yield Finding(
                f"{where} has histogram_options without buckets; Triton refuses it",
                at=(*at, "histogram_options"),
                hint="list the bucket upper bounds: buckets: [ 10, 100, 1000 ]",
            )


@rule(
    "PL703",
    "metric-family-not-customizable",
    INFO,
    "A `model_metrics` family other than the one Triton lets a model customize.",
    effective=True,
)
def metric_family_not_customizable(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Only `nv_inference_first_response_histogram_ms` can be customized per model;
    Triton logs `Metric family '<family>' in 'metric_identifier' is not a customizable
    metric in Triton core.` and ignores the control.

    Bad:
        metric_identifier { family: "nv_inference_request_duration_us" }
    Good:
        metric_identifier { family: "nv_inference_first_response_histogram_ms" }
    """
    for index, control in enumerate(config.model_metrics.metric_control):
        family = control.metric_identifier.family
        if family and family != CUSTOMIZABLE_METRIC_FAMILY:
            guess = suggest(family, (CUSTOMIZABLE_METRIC_FAMILY,), cutoff=0.8)
            yield Finding(
                f"metric family '{family}' of {model_label(context)} cannot be "
                f"customized; Triton ignores this metric_control (only "
                f"'{CUSTOMIZABLE_METRIC_FAMILY}' can)",
                at=("model_metrics", "metric_control", index, "metric_identifier", "family"),
                hint=f'did you mean family: "{guess}"?' if guess else "delete this metric_control",
            )


@rule(
    "PL704",
    "metric-tag-invalid",
    ERROR,
    "A `metric_tags` key that is not a valid Prometheus label name, which aborts tritonserver.",
    triton="terminate called after throwing an instance of 'std::invalid_argument' what(): "
    "Invalid label name",
    stage=Stage.LOAD,
    effective=True,
)
def metric_tag_invalid(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton adds each tag to the model's metrics as the label `_<key>`. Prometheus
    label names are letters, digits and `_`, and must not start with `__`; otherwise the
    metrics library throws while the model loads and tritonserver aborts (with or
    without the metrics endpoint).

    Bad:
        metric_tags { key: "team-name" value: "search" }
    Good:
        metric_tags { key: "team_name" value: "search" }
    """
    for key in config.metric_tags:
        label = f"_{key}"
        if _LABEL_NAME.fullmatch(label) and not label.startswith("__"):
            continue
        fixed = re.sub(r"[^a-zA-Z0-9_]", "_", key).lstrip("_") or "tag"
        yield Finding(
            f"metric tag '{key}' of {model_label(context)} becomes the Prometheus label "
            f"'{label}', which is not a valid label name; tritonserver aborts while loading "
            "the model",
            at=("metric_tags", Key(key)),
            hint=f"use letters, digits and '_' only, not starting with '_': key: \"{fixed}\"",
        )


@rule(
    "PL705",
    "response-cache-server-flag",
    INFO,
    "The response cache is enabled; it works only if tritonserver is started with a cache.",
    effective=True,
)
def response_cache_server_flag(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """`response_cache { enable: true }` opts the model in, but nothing is cached unless
    the server has a cache (`--cache-config local,size=<bytes>` or a Redis cache).

    Bad:
        response_cache { enable: true }    (tritonserver without --cache-config)
    Good:
        tritonserver --cache-config local,size=1048576 ...
    """
    if not config.response_cache.enable:
        return
    if config.model_transaction_policy.decoupled or config.HasField("sequence_batching"):
        return  # refused outright: PL701 and the sequence-batching rule say so
    yield Finding(
        f"{model_label(context)} enables the response cache, which caches nothing "
        "unless tritonserver runs with --cache-config",
        at=("response_cache", "enable"),
        hint="start tritonserver with --cache-config local,size=<bytes>",
    )


@rule(
    "PL706",
    "decoupled-single-response",
    INFO,
    "A decoupled model on a backend that always sends one response per request.",
    effective=True,
)
def decoupled_single_response(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """ONNX Runtime, TensorRT, PyTorch, OpenVINO, TensorFlow and FIL answer every
    request with exactly one response. Triton accepts `decoupled: true` for them, but it
    only restricts clients to streaming gRPC (HTTP /infer refuses decoupled models).

    Bad:
        backend: "onnxruntime"
        model_transaction_policy { decoupled: true }
    Good:
        backend: "onnxruntime"
    """
    if not config.model_transaction_policy.decoupled:
        return
    entry = BACKENDS.get(config.backend)
    if entry is not None and entry.single_response:
        yield Finding(
            f"{model_label(context)} is decoupled, but the {config.backend} backend sends "
            "exactly one response per request; decoupled only forces clients onto streaming "
            "gRPC",
            at=("model_transaction_policy", "decoupled"),
            hint="delete model_transaction_policy unless a client needs the streaming API",
        )
