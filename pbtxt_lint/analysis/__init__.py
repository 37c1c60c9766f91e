"""What the checks know about a model, under the rules and above the readers.

`context` (ModelContext, Workspace), `artifacts` (the model files of each loaded
version), `autocomplete` (what the backend's auto-complete adds), `instances` (the
instance groups Triton makes), `ensemble` (an ensemble's data-flow graph). The rules,
the request checker, the reports and the commands all read these; this package imports
none of them.
"""
