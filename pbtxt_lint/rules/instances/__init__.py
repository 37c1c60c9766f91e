"""PL4xx: instance groups and devices (kind, GPUs, counts, profiles, backend kinds).

Triton normalises the instance groups after it has found the backend library
(`NormalizeInstanceGroup`: default group, KIND_AUTO resolved against the GPUs present,
default counts), validates them (`ValidateInstanceGroup`), then each backend checks the
kinds it supports when it creates the instances. Every one of these is a load-time
failure. Where a GPU is involved the answer depends on the target host: with
`--gpus N` (the host profile) the rules are exact, without it they state what the
model needs from its host (info), never a guess about it. Ensembles have no instance
groups and are skipped. The groups as Triton resolves them come from
`pbtxt_lint.analysis.instances`.
"""

MODULES: tuple[str, ...] = (
    "kinds_and_gpus",
    "profiles",
    "backend_kinds",
    "group_settings",
)
"""The topic modules of the family, in code order (names: importing the family imports
none of them, so a run loads only the modules whose rules it calls)."""
