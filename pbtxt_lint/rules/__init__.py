"""The rules: one package per family of topic modules (see `registry` for the list).

Importing this package loads no rule: `registry` imports every family (for docs,
`explain` and `--select` by name); the engine plans runs from `index` and imports a
topic module only when it calls one of its rules.
"""
