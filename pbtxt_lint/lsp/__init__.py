"""`pbtxt-lint lsp`: the linter inside the editor, as a language server (stdio).

Built on pygls, an optional dependency (`pip install 'pbtxt-lint[lsp]'`): nothing
outside this package imports it, and `pbtxt_lint.cli.lsp` says which extra to install
when it is missing.

Modules: `core` (every import from the engine, in one place), `worker` (lints in a
separate process, so the editor never waits for them), `documents` (positions, config
paths), `cursor` (what the cursor is on, by the schema), `features` (hover,
completion, code actions, symbols, definition, formatting), `server` (the protocol).
"""
