"""PL326-PL328: timeouts in microseconds that fail requests at run time.

Two clocks end requests that Triton has accepted:

- the sequence batcher's reaper (core's src/sequence_batch_scheduler/
  sequence_batch_scheduler.cc, `ReaperThread`) frees a sequence's slot when no request
  of it arrived for `max_sequence_idle_microseconds`; the next request of that
  sequence is then refused by `SequenceBatchScheduler::Enqueue` ("must specify the
  START flag on the first request of the sequence");
- a dynamic batcher's queue policy with `timeout_action: REJECT` fails every request
  still queued after its timeout (`PriorityQueue::PolicyQueue` in src/scheduler_utils.cc,
  "Request timeout expired" from src/dynamic_batch_scheduler.cc).

The values are microseconds. On 922 public configs Triton accepts, every explicit idle
timeout is 5 s or more and no queue policy is used at all, so the thresholds below sit
far from what working deployments write.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    INFERENCE,
    INFO,
    WARNING,
    FieldPath,
    Finding,
    Key,
    ModelConfig,
    ModelContext,
    model_label,
    rule,
    written,
)
from pbtxt_lint.rules.batching.common import DYN, SEQ
from pbtxt_lint.schema.model_config_pb2 import ModelQueuePolicy

SHORTEST_IDLE_US = 100_000
"""An idle timeout below 100 ms ends sequences between two chunks of any streaming client
(audio clients send a chunk every 100-640 ms, and the clock runs from each request's
arrival, so inference time counts against it)."""
DEFAULT_IDLE_US = 1_000_000
"""Triton's idle timeout when the field is unset or 0."""
SHORTEST_REJECT_US = 1_000
"""A REJECT timeout below 1 ms fails any request that waits behind a running batch."""
START_FLAG = "must specify the START flag on the first request of the sequence"


def duration(microseconds: int) -> str:
    """A microsecond count in the unit a person would use: "5 ms", "1.5 s", "100 µs"."""
    if microseconds >= 1_000_000:
        return f"{microseconds / 1_000_000:g} s"
    if microseconds >= 1_000:
        return f"{microseconds / 1_000:g} ms"
    return f"{microseconds} µs"


def _meant(microseconds: int, floor: int) -> str:
    """ " (if 5000 ms was meant, write 5000000)" when the number read as milliseconds is a
    plausible value (at least `floor` µs, at most an hour)."""
    scaled = microseconds * 1_000
    if floor <= scaled <= 3_600_000_000:
        return f" (if {microseconds} ms was meant, write {scaled})"
    return ""


def _sequence_clients(config: ModelConfig) -> bool:
    """Sequences come from clients (not from Triton's iterative sequencer, which makes
    one sequence of each request and its rescheduled continuations)."""
    return config.HasField("sequence_batching") and not config.sequence_batching.iterative_sequence


@rule(
    "PL326",
    "sequence-idle-timeout-short",
    WARNING,
    "A max_sequence_idle_microseconds below 100 ms: sequences end between two requests.",
    triton="inference request for sequence <id> to model '<model>' must specify the START "
    "flag on the first request of the sequence",
    stage=INFERENCE,
    effective=True,
)
def sequence_idle_timeout_short(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The sequence batcher frees a sequence when no request of it arrived for
    `max_sequence_idle_microseconds`, counted from the previous request's arrival, so
    the model's own run time counts against it. A few milliseconds (often milliseconds
    written where microseconds are meant) end every sequence before its second
    request arrives, which Triton then refuses.

    Bad:
        sequence_batching { max_sequence_idle_microseconds: 5000 }      (5 ms)
    Good:
        sequence_batching { max_sequence_idle_microseconds: 5000000 }   (5 s)
    """
    if not _sequence_clients(config):
        return
    idle = config.sequence_batching.max_sequence_idle_microseconds
    path = SEQ + ("max_sequence_idle_microseconds",)
    if not written(context, path) or idle <= 0 or idle >= SHORTEST_IDLE_US:
        return
    name = context.folder.name
    yield Finding(
        f"sequence_batching.max_sequence_idle_microseconds {idle} of {model_label(name)} is "
        f"{duration(idle)}: Triton frees a sequence {duration(idle)} after its last request "
        "arrived, so the next request of any client that waits for an answer, or streams "
        f'chunks further apart, fails with "inference request for sequence <id> to model '
        f"'{name}' {START_FLAG}\"{_meant(idle, DEFAULT_IDLE_US)}",
        at=path,
        hint="give the longest pause between two requests of a sequence, in microseconds "
        "(60000000 is a minute)",
    )


@rule(
    "PL327",
    "sequence-idle-default",
    INFO,
    "Sequence batching without max_sequence_idle_microseconds: sequences end after 1 s "
    "without a request.",
    triton="inference request for sequence <id> to model '<model>' must specify the START "
    "flag on the first request of the sequence",
    stage=INFERENCE,
)
def sequence_idle_default(context: ModelContext) -> Iterator[Finding]:
    """Without `max_sequence_idle_microseconds` Triton frees a sequence one second after
    its last request. Streaming audio sends chunks faster than that, but a chat turn,
    a push-to-talk pause or a client that waits for a slow answer easily takes longer,
    and its next request is refused. Whether your clients pause that long only you know.

    Bad:
        sequence_batching { control_input [ ... ] }
    Good:
        sequence_batching { max_sequence_idle_microseconds: 60000000 control_input [ ... ] }
    """
    config = context.effective
    path = SEQ + ("max_sequence_idle_microseconds",)
    if config is None or not _sequence_clients(config) or written(context, path):
        return
    name = context.folder.name
    yield Finding(
        f"{model_label(name)} uses sequence batching without max_sequence_idle_microseconds, so "
        f"Triton frees a sequence {duration(DEFAULT_IDLE_US)} after its last request: a "
        f'client that pauses longer gets "inference request for sequence <id> to model '
        f"'{name}' {START_FLAG}\"",
        at=SEQ,
        hint="set max_sequence_idle_microseconds to the longest pause your clients make "
        "(60000000 is a minute)",
    )


def _policies(config: ModelConfig) -> Iterator[tuple[FieldPath, str, ModelQueuePolicy]]:
    """The queue policies the dynamic batcher applies: the default one, and the per-level
    ones when priority levels exist (without them Triton ignores those, see PL321)."""
    batching = config.dynamic_batching
    if batching.HasField("default_queue_policy"):
        yield DYN + ("default_queue_policy",), "default_queue_policy", batching.default_queue_policy
    if batching.priority_levels == 0:
        return
    for key in sorted(batching.priority_queue_policy):
        if 1 <= key <= batching.priority_levels:
            yield (
                DYN + ("priority_queue_policy", Key(key), "value"),
                f"priority_queue_policy {key}",
                batching.priority_queue_policy[key],
            )


def _first_batch_waits(config: ModelConfig) -> int:
    """How many requests a batch waits for before the queue delay runs out: the
    smallest preferred batch size, else max_batch_size (1 never waits)."""
    preferred = [size for size in config.dynamic_batching.preferred_batch_size if size > 0]
    return min(preferred) if preferred else max(config.max_batch_size, 1)


@rule(
    "PL328",
    "queue-timeout-rejects",
    WARNING,
    "A REJECT queue policy whose timeout is below 1 ms or shorter than the batcher's own "
    "queue delay: queued requests fail.",
    triton="Request timeout expired",
    stage=INFERENCE,
    effective=True,
)
def queue_timeout_rejects(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """A queue policy with `timeout_action: REJECT` fails every request still waiting
    in the queue after `default_timeout_microseconds`. Below a millisecond that is any
    request that arrives while the model runs another batch. And when the timeout is
    shorter than `max_queue_delay_microseconds`, a request that arrives while traffic
    is light, and waits for the batch to fill, is rejected before the delay ends.

    Bad:
        dynamic_batching { default_queue_policy { timeout_action: REJECT
                                                  default_timeout_microseconds: 100 } }
    Good:
        dynamic_batching { default_queue_policy { timeout_action: REJECT
                                                  default_timeout_microseconds: 100000 } }
    """
    if not config.HasField("dynamic_batching"):
        return
    name = context.folder.name
    delay = config.dynamic_batching.max_queue_delay_microseconds
    waits = _first_batch_waits(config)
    for path, what, policy in _policies(config):
        timeout = policy.default_timeout_microseconds
        if policy.timeout_action != ModelQueuePolicy.REJECT or timeout == 0:
            continue
        rejected = 'fails with HTTP 503 "Request timeout expired"'
        meant = _meant(timeout, SHORTEST_REJECT_US)
        if delay > timeout and waits > 1:
            yield Finding(
                f"dynamic_batching.{what} of {model_label(name)} rejects requests queued longer "
                f"than {duration(timeout)}, but the batcher holds a request up to "
                f"max_queue_delay_microseconds {delay} ({duration(delay)}) waiting for a batch "
                f"of {waits}: a request that arrives with fewer than {waits} queued {rejected}",
                at=path + ("default_timeout_microseconds",),
                hint=f"make the timeout longer than the queue delay ({delay} µs), or shorten "
                "the delay",
            )
        elif timeout < SHORTEST_REJECT_US:
            yield Finding(
                f"dynamic_batching.{what} of {model_label(name)} rejects requests queued longer "
                f"than {duration(timeout)}: a request that arrives while the model runs "
                f"another batch waits longer than that and {rejected}{meant}",
                at=path + ("default_timeout_microseconds",),
                hint="give the longest time a request may wait in the queue, in microseconds "
                "(100000 is 100 ms)",
            )
