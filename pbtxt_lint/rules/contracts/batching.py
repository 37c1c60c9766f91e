"""PL921: what dynamic batching does with requests whose shapes differ.

The dynamic batcher puts requests in one batch only when every input with a variable
dim has the same shape in all of them, unless the input allows ragged batches (core
`backend_model.cc` builds `enforce_equal_shape_tensors` from the inputs whose dims
hold a -1 and that lack `allow_ragged_batch`; `RequiredEqualInputs::HasEqualInputs` in
scheduler_utils.cc refuses the rest). Nothing fails: requests of other shapes run in
batches of their own, which users report as "dynamic batching does not work".
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.contract import model_contract
from pbtxt_lint.rules.api import BACKENDS, INFO, Finding, ModelContext, Stage, backend_of, rule


@rule(
    "PL921",
    "batching-needs-equal-shapes",
    INFO,
    "A queue delay for dynamic batching on a Python or DALI model with a variable-size "
    "input that does not allow ragged batches: only requests of equal shapes are batched.",
    triton="(no message: requests of different shapes run in separate batches)",
    stage=Stage.INFERENCE,
)
def batching_needs_equal_shapes(context: ModelContext) -> Iterator[Finding]:
    """A text or audio model with `dims: [ -1 ]` and dynamic batching batches two
    requests only if they have the same length. Clients that send each text at its own
    length (a tokenizer without padding to a fixed length) get one batch per length,
    so the batcher waits `max_queue_delay_microseconds` and then runs nearly every
    request alone: the throughput of no batching, plus the delay. A Python model gets
    each request's tensors separately anyway, and the DALI backend takes ragged
    batches, so for them `allow_ragged_batch: true` lets the batcher group requests
    with nothing else to change. Other backends concatenate the batch into one tensor:
    there the clients pad to one length, or the model takes a ragged batch through
    `batch_input`, which no config setting alone decides, so they are not reported.
    Observed on tritonserver 2.51 with a Python model and a 300 ms queue delay: four
    concurrent requests of 3 to 6 tokens reached `execute` one at a time; with
    `allow_ragged_batch: true`, in one call.

    Bad:
        backend: "python"   dynamic_batching { max_queue_delay_microseconds: 5000 }
        input [ { name: "text" ... dims: [ -1 ] } ]
    Good:
        input [ { name: "text" ... dims: [ -1 ] allow_ragged_batch: true } ]
    """
    contract = model_contract(context)
    if contract is None or not contract.known:
        return
    config = contract.config
    if config.max_batch_size <= 1 or not config.HasField("dynamic_batching"):
        return
    delay = config.dynamic_batching.max_queue_delay_microseconds
    if delay <= 0:
        return  # without a delay the batcher only groups what is already queued
    variable = [
        (index, io)
        for index, io in enumerate(config.input)
        if -1 in io.dims and not io.allow_ragged_batch and not io.is_shape_tensor
    ]
    if not variable:
        return
    backend = backend_of(config)
    entry = BACKENDS.get(backend)
    if entry is None or not (entry.ragged_inputs or entry.python_based):
        return  # the fix would be the clients' padding or the model's: not this config's
    index, first = variable[0]
    listed = [f"'{io.name}'" for _, io in variable]
    names = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
    axis = list(first.dims).index(-1) + 1
    hint = (
        f"set allow_ragged_batch: true on {names}: the {backend} backend takes each request "
        "with its own shape"
    )
    written = context.effective is not None and any(
        io.name == first.name for io in context.effective.input
    )
    yield Finding(
        f"model '{contract.name}' batches requests dynamically, but {_inputs(listed)} {names} "
        f"{'has' if len(listed) == 1 else 'have'} a variable dim ({_dims(list(first.dims))}) "
        "without allow_ragged_batch: Triton "
        f"puts requests in one batch only when their shapes are equal, so requests whose "
        f"'{first.name}' differs at axis {axis} each wait up to {delay} µs and then run in a "
        "batch of their own (no error; the latency of the delay with the throughput of no "
        "batching)",
        at=("input", index, "dims") if written else ("dynamic_batching",),
        hint=hint,
    )


def _inputs(listed: list[str]) -> str:
    return "input" if len(listed) == 1 else "inputs"


def _dims(dims: list[int]) -> str:
    return "dims [ " + ", ".join(str(d) for d in dims) + " ]"
