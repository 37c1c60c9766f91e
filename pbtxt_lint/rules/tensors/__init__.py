"""PL2xx: inputs, outputs, reshape and batch inputs/outputs.

Most of these are Triton's `ValidateModelIOConfig` (core's src/model_config_utils.cc,
with `ValidateModelInput`, `ValidateModelOutput`, `ValidateIOShape` and
`ValidateBatchIO`). It runs at the repository poll with
`--disable-auto-complete-config` (strict mode) and, in the default auto-complete mode,
after the backend has completed the config, when the model is loaded. Either way the
model is refused; only the moment differs. Ensembles go through the same checks for
their own inputs and outputs.

The rest are backend facts that the config alone decides (optional inputs, data types
a backend cannot take, what a backend auto-completes), read from
`pbtxt_lint.triton.backends`, and the known gaps Triton accepts silently (duplicate
names, ragged batching that cannot happen, ...).
"""

MODULES: tuple[str, ...] = (
    "required_fields",
    "dims",
    "formats",
    "batch_io",
    "input_flags",
    "tensor_lists",
    "data_types",
    "batch_axis",
    "reshape_order",
)
"""The topic modules of the family, in code order (names: importing the family imports
none of them, so a run loads only the modules whose rules it calls)."""
