"""Paths and views the PL3xx topic modules share."""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import FieldPath, ModelConfig
from pbtxt_lint.schema.model_config_pb2 import ModelSequenceBatching

SEQ: FieldPath = ("sequence_batching",)
DYN: FieldPath = ("dynamic_batching",)


def states(
    config: ModelConfig,
) -> Iterator[tuple[FieldPath, ModelSequenceBatching.State]]:
    """Every implicit state of the sequence batcher, with its path."""
    if config.HasField("sequence_batching"):
        for s, state in enumerate(config.sequence_batching.state):
            yield SEQ + ("state", s), state
