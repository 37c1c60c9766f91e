"""PL3xx: batching and scheduling (max_batch_size, dynamic and sequence batching).

Most errors here are `ValidateModelConfig` checks: Triton runs them on the core-
completed config when it polls the repository, in strict and auto-complete mode alike,
and refuses the model at the first failure. The implicit-state checks run when the
sequence batcher is created (load), the growable-memory ones at the start of each
sequence. The warnings are settings Triton accepts and silently ignores.
"""

from types import ModuleType

from pbtxt_lint.rules.batching import (
    batch_strategy,
    initial_state,
    max_batch_size,
    preferred_sizes,
    priorities,
    sequence_controls,
    sequence_scheduler,
    sequence_state,
    sequence_use,
    timeouts,
)

MODULES: tuple[ModuleType, ...] = (
    max_batch_size,
    preferred_sizes,
    priorities,
    batch_strategy,
    sequence_scheduler,
    sequence_controls,
    initial_state,
    sequence_state,
    timeouts,
    sequence_use,
)
"""The topic modules of the family, in code order."""
