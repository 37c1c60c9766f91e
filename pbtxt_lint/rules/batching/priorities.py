"""PL304, PL305 and PL321: priority levels and queue policies of the dynamic batcher.

Triton checks the levels and `preserve_ordering` in `ValidateModelConfig` (core's
src/model_config_utils.cc); priority settings without `priority_levels` load and do
nothing.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    FieldPath,
    Finding,
    Key,
    ModelConfig,
    ModelContext,
    model_label,
    rule,
)
from pbtxt_lint.rules.batching.common import DYN
from pbtxt_lint.schema.model_config_pb2 import ModelQueuePolicy


@rule(
    "PL304",
    "priority-level-out-of-range",
    ERROR,
    "default_priority_level or a priority_queue_policy key outside [1, priority_levels].",
    triton="default priority level must be in range [1, <priority_levels>] for <model> / "
    "priority queue policy must have priority level in range [1, <priority_levels>] for "
    "<model>",
    effective=True,
)
def priority_level_out_of_range(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """With `priority_levels: N`, priorities are 1 (highest) to N. The default level
    must be one of them (it has no default of its own: leaving it out means 0), and so
    must every `priority_queue_policy` key.

    Bad:
        dynamic_batching { priority_levels: 2 }
    Good:
        dynamic_batching { priority_levels: 2 default_priority_level: 2 }
    """
    if not config.HasField("dynamic_batching"):
        return
    batching = config.dynamic_batching
    levels = batching.priority_levels
    if levels == 0:
        return
    default = batching.default_priority_level
    if default == 0 or default > levels:
        value = "is not set (0)" if default == 0 else f"is {default}"
        yield Finding(
            f"dynamic_batching.default_priority_level of {model_label(context)} "
            f"{value}, outside [1, {levels}] for priority_levels {levels}; Triton refuses "
            "the model",
            at=DYN + ("default_priority_level",),
            hint=f"set default_priority_level to a level from 1 to {levels}",
        )
    for key in sorted(batching.priority_queue_policy):
        if key == 0 or key > levels:
            yield Finding(
                f"dynamic_batching.priority_queue_policy has key {key}, outside [1, "
                f"{levels}] for priority_levels {levels} of {model_label(context)}; "
                "Triton refuses the model",
                at=DYN + ("priority_queue_policy", Key(key)),
                hint=f"use a priority level from 1 to {levels} as the key",
            )


def _delay_policies(config: ModelConfig) -> Iterator[tuple[FieldPath, str]]:
    """Queue policies that delay timed-out requests: (path, description)."""
    batching = config.dynamic_batching
    policies: list[tuple[FieldPath, str, ModelQueuePolicy]] = [
        (DYN + ("default_queue_policy",), "default_queue_policy", batching.default_queue_policy)
    ]
    for key in sorted(batching.priority_queue_policy):
        policies.append(
            (
                DYN + ("priority_queue_policy", Key(key), "value"),
                f"priority_queue_policy {key}",
                batching.priority_queue_policy[key],
            )
        )
    for path, what, policy in policies:
        if policy.timeout_action == ModelQueuePolicy.DELAY and policy.default_timeout_microseconds:
            yield path + ("timeout_action",), what


@rule(
    "PL305",
    "preserve-ordering-conflict",
    ERROR,
    "preserve_ordering with several priority levels or with a DELAY queue policy.",
    triton="Only one priority level is allowed when 'preserve_ordering' is true for <model>"
    " / Queue policy can not have DELAY as timeout action when 'preserve_ordering' is true "
    "for <model>",
    effective=True,
)
def preserve_ordering_conflict(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """`preserve_ordering` returns responses in request order, which priorities and
    delayed (re-queued) timed-out requests would break. Every queue policy counts, even
    one keyed by a level that `priority_levels` does not define.

    Bad:
        dynamic_batching {
          preserve_ordering: true
          default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 1000 }
        }
    Good:
        dynamic_batching {
          preserve_ordering: true
          default_queue_policy { timeout_action: REJECT default_timeout_microseconds: 1000 }
        }
    """
    if not config.HasField("dynamic_batching"):
        return
    batching = config.dynamic_batching
    if not batching.preserve_ordering:
        return
    name = context.folder.name
    if batching.priority_levels > 1:
        yield Finding(
            f"{model_label(name)} sets dynamic_batching.preserve_ordering with priority_levels "
            f"{batching.priority_levels}; Triton allows only one priority level with "
            "preserve_ordering and refuses the model",
            at=DYN + ("priority_levels",),
            hint="drop priority_levels (or set it to 1), or drop preserve_ordering",
        )
    for path, what in _delay_policies(config):
        yield Finding(
            f"dynamic_batching.{what} of {model_label(name)} delays timed-out requests "
            "(timeout_action: DELAY) while preserve_ordering is true; Triton refuses the "
            "model",
            at=path,
            hint="use timeout_action: REJECT, or drop preserve_ordering",
        )


@rule(
    "PL321",
    "priority-settings-ignored",
    INFO,
    "default_priority_level or priority_queue_policy without priority_levels.",
    effective=True,
)
def priority_settings_ignored(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Priorities exist only when `priority_levels` is set; without it Triton ignores
    `default_priority_level` and the per-level queue policies without a word (and maps
    every request priority to the default queue).

    Bad:
        dynamic_batching { default_priority_level: 1
                           priority_queue_policy { key: 1 value { max_queue_size: 8 } } }
    Good:
        dynamic_batching { priority_levels: 2 default_priority_level: 1
                           priority_queue_policy { key: 1 value { max_queue_size: 8 } } }
    """
    if not config.HasField("dynamic_batching"):
        return
    batching = config.dynamic_batching
    if batching.priority_levels != 0:
        return
    name = context.folder.name
    if batching.default_priority_level:
        yield Finding(
            f"dynamic_batching.default_priority_level {batching.default_priority_level} of "
            f"{model_label(name)} is ignored because priority_levels is not set",
            at=DYN + ("default_priority_level",),
            hint="set priority_levels, or remove default_priority_level",
        )
    for key in sorted(batching.priority_queue_policy):
        yield Finding(
            f"dynamic_batching.priority_queue_policy {key} of {model_label(name)} is ignored "
            "because priority_levels is not set",
            at=DYN + ("priority_queue_policy", Key(key)),
            hint="set priority_levels, or move the settings to default_queue_policy",
        )
