"""PL5xx: ensembles (`platform: "ensemble"`).

Triton checks an ensemble's own config at poll (`ValidateModelConfig`,
`ValidateEnsembleSchedulingConfig`), its place in the dependency graph of the repository
(missing models, cycles), and, when it loads, its steps against the completed configs
of the composing models (`ValidateEnsembleConfig`). Triton reports one problem at a
time; these rules report all of them, on the data-flow graph of
`pbtxt_lint.analysis.ensemble`, which `pbtxt-lint graph <ensemble>` draws with the
parts each rule marks broken.
"""

MODULES: tuple[str, ...] = (
    "config",
    "dataflow",
    "repository",
    "composing",
    "types",
    "runtime",
)
"""The topic modules of the family, in code order (names: importing the family imports
none of them, so a run loads only the modules whose rules it calls)."""
