"""PL3xx: batching and scheduling (max_batch_size, dynamic and sequence batching).

Most errors here are `ValidateModelConfig` checks: Triton runs them on the core-
completed config when it polls the repository, in strict and auto-complete mode alike,
and refuses the model at the first failure. The implicit-state checks run when the
sequence batcher is created (load), the growable-memory ones at the start of each
sequence. The warnings are settings Triton accepts and silently ignores.
"""

MODULES: tuple[str, ...] = (
    "max_batch_size",
    "preferred_sizes",
    "priorities",
    "batch_strategy",
    "sequence_scheduler",
    "sequence_controls",
    "initial_state",
    "sequence_state",
    "timeouts",
    "sequence_use",
)
"""The topic modules of the family, in code order (names: importing the family imports
none of them, so a run loads only the modules whose rules it calls)."""
