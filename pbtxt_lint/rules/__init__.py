"""The rules: one package per family of topic modules (see `registry` for the list).

Importing this package loads no rule: `registry` imports every family (for docs,
`explain`, SARIF); the engine plans runs from `catalog` (the generated `index`, checked
against the sources) and imports a topic module only when it calls one of its rules.
"""
