"""PL5xx: ensembles (`platform: "ensemble"`).

Triton checks an ensemble's own config at poll (`ValidateModelConfig`,
`ValidateEnsembleSchedulingConfig`), its place in the dependency graph of the repository
(missing models, cycles), and, when it loads, its steps against the completed configs
of the composing models (`ValidateEnsembleConfig`). Triton reports one problem at a
time; these rules report all of them, on the data-flow graph of
`pbtxt_lint.analysis.ensemble`, which `pbtxt-lint graph <ensemble>` draws with the
parts each rule marks broken.
"""

from types import ModuleType

from pbtxt_lint.rules.ensembles import (
    composing,
    config,
    dataflow,
    repository,
    runtime,
    types,
)

MODULES: tuple[ModuleType, ...] = (
    config,
    dataflow,
    repository,
    composing,
    types,
    runtime,
)
"""The topic modules of the family, in code order."""
