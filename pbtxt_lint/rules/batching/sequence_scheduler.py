"""PL306, PL311, PL323 and PL324: the sequence batcher's own settings.

Triton refuses the response cache on a sequence model and a slot utilization outside
[0, 1] in `ValidateModelConfig` (core's src/model_config_utils.cc); a queue delay that
never applies and an idle time of 0 load silently.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    Finding,
    ModelConfig,
    ModelContext,
    model_label,
    rule,
    written,
)
from pbtxt_lint.rules.batching.common import SEQ


@rule(
    "PL306",
    "sequence-response-cache",
    ERROR,
    "The response cache enabled on a model with sequence batching.",
    triton="Response Cache does not currently support model <model> with sequence batching "
    "scheduler. Please disable the response cache.",
    effective=True,
)
def sequence_batching_response_cache(
    context: ModelContext, config: ModelConfig
) -> Iterator[Finding]:
    """Responses of a stateful model depend on the sequence's earlier requests, so
    Triton cannot cache them and refuses the combination.

    Bad:
        sequence_batching { }
        response_cache { enable: true }
    Good:
        sequence_batching { }
    """
    if not config.HasField("sequence_batching"):
        return
    if config.response_cache.enable:
        yield Finding(
            f"{model_label(context)} uses sequence_batching and enables "
            "response_cache; Triton does not cache sequence models and refuses the model",
            at=("response_cache", "enable"),
            hint="remove response_cache (or set enable: false)",
        )


@rule(
    "PL311",
    "slot-utilization-out-of-range",
    ERROR,
    "sequence_batching.direct.minimum_slot_utilization below 0 or above 1.",
    triton="sequence batching minimum slot utilization must be in range (0.0, 1.0] for <model>",
    effective=True,
)
def slot_utilization_out_of_range(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The minimum slot utilization is a fraction of the sequence slots. Triton's
    message says (0.0, 1.0], but it accepts 0.0 (the default: never wait).

    Bad:
        sequence_batching { direct { minimum_slot_utilization: 50 } }
    Good:
        sequence_batching { direct { minimum_slot_utilization: 0.5 } }
    """
    if not config.sequence_batching.HasField("direct"):
        return
    value = config.sequence_batching.direct.minimum_slot_utilization
    if value < 0.0 or value > 1.0:
        yield Finding(
            f"sequence_batching.direct.minimum_slot_utilization of model "
            f"'{context.folder.name}' is {value:g}, not a fraction between 0 and 1; Triton "
            "refuses the model",
            at=SEQ + ("direct", "minimum_slot_utilization"),
            hint="give a fraction of the slots, e.g. 0.5 for half of them",
        )


@rule(
    "PL323",
    "slot-utilization-delay-ignored",
    INFO,
    "A direct-strategy queue delay that never applies because minimum_slot_utilization is 0.",
    effective=True,
)
def slot_utilization_delay_ignored(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The direct sequence batcher waits up to `max_queue_delay_microseconds` only while
    fewer than `minimum_slot_utilization` of the slots have a request. At 0.0 (also the
    default when it is left out) it never waits, so the delay has no effect.

    Bad:
        sequence_batching { direct { max_queue_delay_microseconds: 5000 } }
    Good:
        sequence_batching { direct { max_queue_delay_microseconds: 5000
                                     minimum_slot_utilization: 0.5 } }
    """
    if not config.sequence_batching.HasField("direct"):
        return
    direct = config.sequence_batching.direct
    if direct.max_queue_delay_microseconds == 0 or direct.minimum_slot_utilization != 0.0:
        return
    yield Finding(
        f"sequence_batching.direct.max_queue_delay_microseconds "
        f"{direct.max_queue_delay_microseconds} of {model_label(context)} never "
        "applies: minimum_slot_utilization is 0.0, so the batcher never waits",
        at=SEQ + ("direct", "max_queue_delay_microseconds"),
        hint="set minimum_slot_utilization (e.g. 0.5) to the fraction of slots worth "
        "waiting for, or remove the delay",
    )


@rule(
    "PL324",
    "sequence-idle-zero",
    INFO,
    "max_sequence_idle_microseconds: 0, which Triton replaces by 1 second.",
)
def sequence_idle_zero(context: ModelContext) -> Iterator[Finding]:
    """0 does not mean "never time out": Triton treats it as unset and frees a sequence's
    slot after 1 000 000 µs (1 s) without a request. A client that pauses longer then
    gets "must specify the START flag on the first request of the sequence".

    Bad:
        sequence_batching { max_sequence_idle_microseconds: 0 }
    Good:
        sequence_batching { max_sequence_idle_microseconds: 60000000 }
    """
    path = SEQ + ("max_sequence_idle_microseconds",)
    config = context.config
    if config is None or config.sequence_batching.max_sequence_idle_microseconds != 0:
        return
    if written(context, path):
        yield Finding(
            f"sequence_batching.max_sequence_idle_microseconds 0 of model "
            f"'{context.folder.name}' means the default, 1 s, not 'no timeout'",
            at=path,
            hint="write the idle time you want in microseconds (e.g. 60000000 for a minute)",
        )
