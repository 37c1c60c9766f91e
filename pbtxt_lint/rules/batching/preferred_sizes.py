"""PL302, PL303 and PL322: preferred batch sizes (dynamic batching and the sequence
batcher's `oldest` strategy).

Triton checks them against `max_batch_size` in `ValidateModelConfig` (core's
src/model_config_utils.cc) at poll, before any backend auto-completes
`max_batch_size`; repeated sizes or sizes with no queue delay load silently.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    FieldPath,
    Finding,
    ModelConfig,
    ModelContext,
    model_label,
    rule,
    written,
)
from pbtxt_lint.rules.batching.common import DYN, SEQ


def _preferred_sizes(config: ModelConfig) -> Iterator[tuple[FieldPath, str, int, int]]:
    """(path of the list, what it is, index, size) for dynamic and oldest preferred sizes."""
    if config.HasField("dynamic_batching"):
        path = DYN + ("preferred_batch_size",)
        for index, size in enumerate(config.dynamic_batching.preferred_batch_size):
            yield path, "dynamic_batching.preferred_batch_size", index, size
    sequence = config.sequence_batching
    if config.HasField("sequence_batching") and sequence.HasField("oldest"):
        path = SEQ + ("oldest", "preferred_batch_size")
        for index, size in enumerate(sequence.oldest.preferred_batch_size):
            yield path, "sequence_batching.oldest.preferred_batch_size", index, size


@rule(
    "PL302",
    "preferred-size-not-positive",
    ERROR,
    "A preferred batch size of 0 or less.",
    triton="dynamic batching preferred size must be positive for <model> / sequence "
    "batching preferred batch size must be positive for <model>",
    effective=True,
)
def preferred_batch_size_not_positive(
    context: ModelContext, config: ModelConfig
) -> Iterator[Finding]:
    """Preferred batch sizes (`dynamic_batching` and the sequence batcher's `oldest`
    strategy) are batch sizes the batcher tries to form, so each must be at least 1.

    Bad:
        dynamic_batching { preferred_batch_size: [ 0, 4 ] }
    Good:
        dynamic_batching { preferred_batch_size: [ 4 ] }
    """
    for path, what, index, size in _preferred_sizes(config):
        if size <= 0:
            yield Finding(
                f"{what} {size} of {model_label(context)} is not a positive batch "
                "size; Triton refuses the model",
                at=path + (index,),
                hint="remove it; preferred sizes are batch sizes from 1 to max_batch_size",
            )


@rule(
    "PL303",
    "preferred-size-too-large",
    ERROR,
    "A preferred batch size larger than max_batch_size.",
    triton="dynamic batching preferred size must be <= max batch size for <model> / "
    "sequence batching preferred batch size must be <= max batch size for <model>",
    effective=True,
)
def preferred_batch_size_too_large(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """A batch can never exceed `max_batch_size`, so neither can a preferred size. With
    `max_batch_size: 0` (the default when it is left out) every preferred size is too
    large. Triton checks this at poll time, before any backend auto-completes
    `max_batch_size`.

    Bad:
        max_batch_size: 8
        dynamic_batching { preferred_batch_size: [ 4, 16 ] }
    Good:
        max_batch_size: 16
        dynamic_batching { preferred_batch_size: [ 4, 16 ] }
    """
    mbs = config.max_batch_size
    for path, what, index, size in _preferred_sizes(config):
        if size <= 0 or size <= mbs:
            continue
        limit = f"max_batch_size {mbs}" + (" (batching disabled)" if mbs == 0 else "")
        yield Finding(
            f"{what} {size} of {model_label(context)} is larger than {limit}; "
            "Triton refuses the model",
            at=path + (index,),
            hint=f"set max_batch_size to at least {size}, or remove {size} from the list",
        )


def _written_preferred(
    context: ModelContext, config: ModelConfig
) -> Iterator[tuple[FieldPath, str, Sequence[int], int]]:
    """Preferred size lists the user wrote: (path, what, sizes, queue delay)."""
    dynamic = config.dynamic_batching
    if written(context, DYN + ("preferred_batch_size",)):
        yield (
            DYN + ("preferred_batch_size",),
            "dynamic_batching.preferred_batch_size",
            dynamic.preferred_batch_size,
            dynamic.max_queue_delay_microseconds,
        )
    oldest = config.sequence_batching.oldest
    if written(context, SEQ + ("oldest", "preferred_batch_size")):
        yield (
            SEQ + ("oldest", "preferred_batch_size"),
            "sequence_batching.oldest.preferred_batch_size",
            oldest.preferred_batch_size,
            oldest.max_queue_delay_microseconds,
        )


@rule(
    "PL322",
    "preferred-size-ineffective",
    INFO,
    "Preferred batch sizes listed twice, or set with no queue delay to wait for them.",
)
def preferred_batch_size_ineffective(context: ModelContext) -> Iterator[Finding]:
    """Triton keeps preferred sizes as a set, so a repeated size does nothing. And with
    `max_queue_delay_microseconds: 0` (the default) the batcher never waits to reach a
    preferred size: it runs whatever is queued at once, and preferred sizes only shape
    batches when more requests are already waiting (capping them at the largest one).

    Bad:
        dynamic_batching { preferred_batch_size: [ 4, 8, 8 ] }
    Good:
        dynamic_batching { preferred_batch_size: [ 4, 8 ] max_queue_delay_microseconds: 100 }
    """
    config = context.config
    if config is None or config.max_batch_size <= 0:
        return  # no batching at all: PL303 and PL320 speak about that
    name = context.folder.name
    for path, what, sizes, delay in _written_preferred(context, config):
        repeated = sorted(size for size, count in Counter(sizes).items() if count > 1)
        for size in repeated:
            index = [i for i, s in enumerate(sizes) if s == size][1]
            yield Finding(
                f"{what} of {model_label(name)} lists {size} more than once; the repeat has "
                "no effect",
                at=path + (index,),
                hint=f"list {size} once",
            )
        if sizes and delay == 0:
            yield Finding(
                f"{what} of {model_label(name)} is set but max_queue_delay_microseconds is 0, so "
                "the batcher never waits to form a preferred batch size",
                at=path,
                hint="set max_queue_delay_microseconds (e.g. 100) in the same block, or "
                "remove preferred_batch_size",
            )
