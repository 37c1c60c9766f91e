"""PL666: implicit state on a backend that does not keep it (the Python backend).

Implicit state needs the backend: Triton's core adds each `sequence_batching.state`
input to the requests of a sequence (`infer_request.cc` LoadInputStates), but only a
backend that calls TRITONBACKEND_StateNew / TRITONBACKEND_StateUpdate hands the
model's output back as the next request's state. Triton's docs
(`implicit_state_management.md`): "Currently, only onnxruntime_backend,
tensorrt_backend, and pytorch_backend support implicit state"; python_backend has no
such call. Sequence control tensors (START, END, READY, CORRID) do work there: the
core fills them in for every backend.

This rule reads the config, and model.py to tell a state the code uses (a warning)
from one it ignores (info); with `--config-only`, or when model.py names its tensors at
run time, it says what happens if the code uses the state (info).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    INFO,
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    backend,
    rule,
)


@rule(
    "PL666",
    "implicit-state-unsupported",
    WARNING,
    "Implicit state (sequence_batching.state) on a backend that does not keep it.",
    triton="(no message: the state input never holds the previous output)",
    backend="python",
    effective=True,
)
def implicit_state_unsupported(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """A `state` block asks Triton to feed a model's output (`output_name`) back as its
    input (`input_name`) on the next request of the sequence. The Python backend does
    not implement implicit state: the model loads and answers, but from the second
    request of a sequence the state input holds an uninitialised buffer (or
    `initial_state`, every time), never the state the model returned, and the state
    output is dropped. Observed on tritonserver 2.51: a running sum answers 3, then
    -219742203 instead of 7. Control tensors (START, CORRID, ...) are fine: keep the
    state in the model instance, keyed by the CORRID control tensor (or
    `request.correlation_id()`), and drop it on END.

    Bad:
        backend: "python"
        sequence_batching { state [ { input_name: "state_in" output_name: "state_out"
                                      data_type: TYPE_INT32 dims: [ 1 ] } ] }
    Good:
        backend: "python"
        sequence_batching { control_input [ { name: "CORRID" control [ {
            kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] } ] }
        (model.py: self.totals[corrid] += x)
    """
    if not config.sequence_batching.state:
        return
    entry = backend(config.backend)
    if entry is None or entry.implicit_state is not False:
        return
    # deferred: the model.py views load only for a model with state (start-up time)
    from pbtxt_lint.rules.artifacts.python_common import python_models

    states = config.sequence_batching.state
    names = {s.input_name for s in states} | {s.output_name for s in states}
    pairs = ", ".join(f"{s.input_name} <- {s.output_name}" for s in states)
    used: bool | None = None
    for model in python_models(context):
        signature = model.signature
        mentioned = {u.name for u in (*signature.inputs_read, *signature.outputs_made)}
        if mentioned & names:
            used = True
        elif used is None and not signature.dynamic_names:
            used = False
    if used is False:
        yield Finding(
            f"model '{config.name}' declares implicit state ({pairs}) that model.py never "
            f"reads or returns; the {config.backend} backend does not keep implicit state "
            "anyway, so the block only costs memory",
            at=("sequence_batching", "state", 0),
            hint="remove the state block",
            severity=INFO,
        )
        return
    effect = (
        "so the answers are wrong (HTTP 200, no error)"
        if used
        else "so if model.py reads it, its answers are wrong"
    )
    yield Finding(
        f"model '{config.name}' declares implicit state ({pairs}), but the {config.backend} "
        "backend does not implement implicit state: from the second request of a sequence "
        "the state input holds an uninitialised value (or initial_state, every time), never "
        f"the state the model returned, {effect}",
        at=("sequence_batching", "state", 0),
        hint="remove the state block and keep the state in the model instance, keyed by the "
        "CORRID control tensor (or request.correlation_id()); control tensors work as they are",
        severity=None if used else INFO,
    )
