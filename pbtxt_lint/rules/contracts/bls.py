"""PL910-PL914: BLS requests in model.py against the contract of the model they call.

A `pb_utils.InferenceRequest` is an ordinary inference request: the core checks it
against the called model's config only when it runs (`infer_request.cc` Normalize and
ValidateRequestInputs), and the call then answers with an error instead of outputs,
failing every request of the calling model that reaches it. What the request sends
comes from `artifacts.python_bls_io` (the tensors that reach its `inputs`, the names
the code reads back) and the value flow of `execute` (each array's NumPy dtype and
rank); what the callee takes, from its contract (`analysis.contract`): its config as
Triton completes it, sequence batching included for an ensemble's steps. Tensor names
the callee does not declare are PL696's; a decoupled callee without
`exec(decoupled=True)`, PL655's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pbtxt_lint.analysis.contract import ModelContract, contract_of
from pbtxt_lint.rules.api import WARNING, Finding, ModelContext, Scope, rule, type_name
from pbtxt_lint.rules.artifacts.common import name_list
from pbtxt_lint.rules.artifacts.python_common import PythonModel, line_span, python_models
from pbtxt_lint.schema.datatypes import protocol_from_config_type

if TYPE_CHECKING:
    from pbtxt_lint.rules.api import Arr, BlsRequest, BlsTensor


@dataclass(frozen=True)
class Call:
    """A BLS request of a loaded model.py to another model of the repository."""

    model: PythonModel
    request: BlsRequest
    callee: ModelContract


def _calls(context: ModelContext) -> list[Call]:
    return context.shared(_find_calls)


def _find_calls(context: ModelContext) -> list[Call]:
    # deferred: the BLS reader loads with the first model.py that is checked
    from pbtxt_lint.rules.api import bls_requests

    found = []
    for model in python_models(context):
        for request in bls_requests(model.signature.module):
            name = request.model_name
            if name is None or name == context.folder.name:
                continue
            callee = contract_of(context.workspace, name)
            if callee is not None and callee.known:
                found.append(Call(model, request, callee))
    return found


def _sent(call: Call) -> Iterator[tuple[BlsTensor, Arr]]:
    """Each tensor the request sends to an input of the callee, with the array the flow
    says it holds."""
    from pbtxt_lint.rules.api import Arr

    flow = call.model.flow
    if not flow.complete:
        return
    values = {(o.line, o.column): o.value for o in flow.outputs}
    for tensor in call.request.inputs:
        if tensor.spread:
            continue  # a loop's Tensor call: the flow's array is not this name's
        value = values.get((tensor.line, tensor.column))
        if tensor.name in call.callee.inputs and isinstance(value, Arr):
            yield tensor, value


def _fails(call: Call, said: str) -> str:
    return (
        f'the call answers with an error instead of outputs ("{said}"), so every request '
        f"that reaches line {call.request.line} fails"
    )


@rule(
    "PL910",
    "bls-input-data-type",
    WARNING,
    "A BLS request that sends an input as a NumPy dtype other than the called model's data_type.",
    triton="inference input '<name>' data-type is '<sent>', but model '<model>' expects "
    "'<declared>'",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def bls_input_data_type(context: ModelContext) -> Iterator[Finding]:
    """The python backend sends a `pb_utils.Tensor` with its array's own dtype
    (`numpy_to_triton_type`), and the core refuses a request whose input type differs
    from the called model's config. `np.array(token_ids)` is int64 where a TensorRT-LLM
    or FasterTransformer model takes INT32 (`input_lengths`, `end_id`), and `/ 255.0`
    makes float64 where a vision encoder takes FP32. Observed on tritonserver 2.51:
    the response's `has_error()` is true with "inference input 'end_id' data-type is
    'INT64', but model 'llm' expects 'INT32'", and its outputs are empty.

    Bad:
        pb_utils.Tensor("end_id", np.array([[eos]]))                  (llm: TYPE_INT32)
    Good:
        pb_utils.Tensor("end_id", np.array([[eos]], dtype=np.int32))
    """
    from pbtxt_lint.rules.api import CONFIG_TO_NUMPY, SENT_AS

    for call in _calls(context):
        for tensor, value in _sent(call):
            declared = type_name(call.callee.inputs[tensor.name or ""].data_type)
            sent = SENT_AS.get(value.dtype or "")
            if sent is None or sent == declared or declared == "TYPE_BF16":
                continue
            sent_protocol = protocol_from_config_type(sent) or sent
            wanted = protocol_from_config_type(declared) or declared
            why = f" ({value.why})" if value.why else ""
            numpy = CONFIG_TO_NUMPY.get(declared)
            yield Finding(
                f"{call.model.shown} line {tensor.line} sends input '{tensor.name}' to model "
                f"'{call.callee.name}' as a NumPy {value.dtype} array{why}, which travels as "
                f"{sent_protocol}; '{call.callee.name}' declares it {declared}: "
                + _fails(
                    call,
                    f"inference input '{tensor.name}' data-type is '{sent_protocol}', but model "
                    f"'{call.callee.name}' expects '{wanted}'",
                ),
                file=call.model.artifact.opened,
                span=line_span(tensor.line),
                hint=f"convert it: .astype(np.{numpy})"
                if numpy and numpy != "object"
                else f"send it as {declared}",
            )


@rule(
    "PL911",
    "bls-input-shape",
    WARNING,
    "A BLS request that sends an input with a rank or size the called model's dims refuse.",
    triton="unexpected shape for input '<name>' for model '<model>'. Expected [...], got [...]",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def bls_input_shape(context: ModelContext) -> Iterator[Finding]:
    """A model with max_batch_size > 0 takes every input with the batch axis first, so
    a BLS request to it sends `[1, 16]` for one item, not `[16]`; a model without
    batching takes exactly its dims. The core compares the shape when the call runs,
    and answers "unexpected shape for input ..." instead of outputs. The rank is the
    value flow's (a reshape, `np.expand_dims`, `[None]` or `np.stack` change it).
    Observed on tritonserver 2.51: "Model llm - Error when running inference: [request
    id: <id_unknown>] unexpected shape for input 'end_id' for model 'llm'. Expected
    [-1,1], got [1]. NOTE: Setting a non-zero max_batch_size ...", or "input 'input_ids'
    batch size does not match other inputs for 'llm'" when the first dims disagree.

    Bad:
        pb_utils.Tensor("input_ids", np.array(ids, dtype=np.int64))     (bert: max_batch_size 8)
    Good:
        pb_utils.Tensor("input_ids", np.array([ids], dtype=np.int64))
    """
    for call in _calls(context):
        contract = call.callee
        for tensor, value in _sent(call):
            io = contract.inputs[tensor.name or ""]
            full = io.full_shape(contract.batching)
            got = _shape(value)
            if value.rank is None or not full:
                continue
            if value.rank == len(full) and not _fixed_differs(value, full):
                continue
            expected = "[" + ",".join(str(d) for d in full) + "]"
            got_text = got or f"a shape of rank {value.rank}"
            batch = (
                f" (max_batch_size {contract.max_batch_size}: the batch axis first)"
                if contract.batching
                else " (max_batch_size 0: exactly its dims)"
            )
            yield Finding(
                f"{call.model.shown} line {tensor.line} sends input '{tensor.name}' to model "
                f"'{contract.name}' as an array of rank {value.rank}"
                + (f" {got}" if got else "")
                + f"; '{contract.name}' takes {expected}{batch}: the call fails Triton's shape "
                f'check and answers with an error instead of outputs ("unexpected shape for '
                f"input '{tensor.name}' for model '{contract.name}'. Expected {expected}, got "
                f"{got_text}\", or \"input '{tensor.name}' batch size does not match other "
                f"inputs for '{contract.name}'\" when its first dim differs from the other "
                f"inputs'), so every request that reaches line {call.request.line} fails",
                file=call.model.artifact.opened,
                span=line_span(tensor.line),
                hint="add the batch axis (array[None] or np.expand_dims(array, 0))"
                if contract.batching and value.rank == len(full) - 1
                else f"shape the array as {expected} (-1: any size)",
            )


def _shape(value: Arr) -> str:
    """`[1,16]` when the flow knows every axis of the array as a constant."""
    dims = value.dims
    if dims is None or any(d is None or d.constant is None for d in dims):
        return ""
    return "[" + ",".join(str(d.constant) for d in dims if d is not None) + "]"


def _fixed_differs(value: Arr, full: tuple[int, ...]) -> bool:
    """Some axis the code fixes to a constant where the callee fixes another."""
    dims = value.dims
    if dims is None or len(dims) != len(full):
        return False
    return any(
        d is not None and d.constant is not None and want >= 0 and d.constant != want
        for d, want in zip(dims, full, strict=True)
    )


@rule(
    "PL912",
    "bls-input-missing",
    WARNING,
    "A BLS request that leaves out a required input of the model it calls.",
    triton="expected <n> inputs but got <m> inputs for model '<model>'. Got input(s) [...], "
    "but missing required input(s) [...]. Please provide all required input(s).",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def bls_input_missing(context: ModelContext) -> Iterator[Finding]:
    """The core refuses a request that does not send every input the called model
    declares without `optional: true`. Reported only when every tensor the request can
    hold is known by name (a list written out, appends and helper returns followed).
    Observed on tritonserver 2.51: "Model llm - Error when running inference: [request
    id: <id_unknown>] expected 2 inputs but got 1 inputs for model 'llm'. Got input(s)
    ['input_ids'], but missing required input(s) ['end_id']. Please provide all required
    input(s)."

    Bad:
        inputs=[pb_utils.Tensor("input_ids", ids)]       (bert also takes attention_mask)
    Good:
        inputs=[pb_utils.Tensor("input_ids", ids), pb_utils.Tensor("attention_mask", mask)]
    """
    for call in _calls(context):
        request = call.request
        if not request.complete:
            continue
        sent = [t.name for t in request.inputs if t.name]
        missing = [n for n in call.callee.required_inputs if n not in sent]
        unknown = [n for n in sent if n not in call.callee.inputs]
        if not missing or unknown:
            continue  # an unknown name is PL696's, and Triton names it first
        count = len(call.callee.inputs)
        got = "[" + ",".join(f"'{n}'" for n in dict.fromkeys(sent)) + "]"
        lacking = "[" + ",".join(f"'{n}'" for n in missing) + "]"
        yield Finding(
            f"{call.model.shown} line {request.line} sends a BLS request to model "
            f"'{call.callee.name}' without its input(s) {name_list(missing)}: "
            + _fails(
                call,
                f"expected {count} inputs but got {len(set(sent))} inputs for model "
                f"'{call.callee.name}'. Got input(s) {got}, but missing required input(s) "
                f"{lacking}. Please provide all required input(s).",
            ),
            file=call.model.artifact.opened,
            span=line_span(request.line),
            hint=f"add pb_utils.Tensor({missing[0]!r}, ...) to inputs, or declare it "
            f"optional: true in {call.callee.name}'s config if the model can do without it",
        )


@rule(
    "PL913",
    "bls-output-not-requested",
    WARNING,
    "model.py reads an output from a BLS response that the request did not ask for.",
    triton="AttributeError: 'NoneType' object has no attribute 'as_numpy'",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def bls_output_not_requested(context: ModelContext) -> Iterator[Finding]:
    """A BLS response holds exactly the outputs listed in `requested_output_names`, so
    `pb_utils.get_output_tensor_by_name(response, "x")` returns None for any other
    name, and the `.as_numpy()` that follows raises AttributeError: every request that
    reaches it fails (observed on tritonserver 2.51).

    Bad:
        requested_output_names=["logits"] ... get_output_tensor_by_name(resp, "probs")
    Good:
        requested_output_names=["logits", "probs"]
    """
    for call in _calls(context):
        request = call.request
        if request.requested is None or any(
            n not in call.callee.outputs for n in request.requested
        ):
            continue  # a requested name the callee lacks is PL696's (the call fails first)
        for read in request.reads:
            if read.name in request.requested:
                continue
            declared = read.name in call.callee.outputs
            why = (
                f"which asked only for {name_list(request.requested)}"
                if declared
                else f"and '{call.callee.name}' has no output '{read.name}' (its outputs: "
                f"{name_list(call.callee.outputs)})"
            )
            yield Finding(
                f"{call.model.shown} line {read.line} reads '{read.name}' from the response of "
                f"the BLS request of line {request.line}, {why}: the response has no such "
                "tensor, get_output_tensor_by_name returns None, and reading it fails every "
                "request that reaches it (\"AttributeError: 'NoneType' object has no attribute "
                "'as_numpy'\")",
                file=call.model.artifact.opened,
                span=line_span(read.line),
                hint=f"add '{read.name}' to requested_output_names"
                if declared
                else f"read one of {name_list(call.callee.outputs)}",
            )


@rule(
    "PL914",
    "bls-sequence-without-id",
    WARNING,
    "A BLS request without correlation_id to a model with sequence batching (or an "
    "ensemble with such a step).",
    triton="inference request to model '<model>' must specify a non-zero or non-empty "
    "correlation ID",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def bls_sequence_without_id(context: ModelContext) -> Iterator[Finding]:
    """A model with sequence batching takes only requests that carry a sequence's
    correlation ID (and its START and END flags), and so does an ensemble with such a
    step. `pb_utils.InferenceRequest` sends correlation_id 0 unless told otherwise, so
    the call answers with an error. Pass the caller's own ID and flags on:
    `correlation_id=request.correlation_id(), flags=request.flags()`. Observed on
    tritonserver 2.51: "Model asr - Error when running inference: inference request to
    model 'asr' must specify a non-zero or non-empty correlation ID", and through an
    ensemble "in ensemble 'ens', inference request to model 'asr' must specify ...".

    Bad:
        pb_utils.InferenceRequest(model_name="streaming_asr", inputs=..., ...)
    Good:
        pb_utils.InferenceRequest(model_name="streaming_asr", inputs=..., ...,
                                  correlation_id=request.correlation_id(), flags=request.flags())
    """
    for call in _calls(context):
        models = call.callee.sequence_models
        if call.request.correlation is not False or not models:
            continue
        nested = models[0] != call.callee.name
        via = f" (its step '{models[0]}' uses sequence batching)" if nested else ""
        ensemble = f"in ensemble '{call.callee.name}', " if nested else ""
        yield Finding(
            f"{call.model.shown} line {call.request.line} sends a BLS request to model "
            f"'{call.callee.name}'{via} without a correlation_id: "
            + _fails(
                call,
                f"{ensemble}inference request to model '{models[0]}' must specify a non-zero "
                "or non-empty correlation ID",
            ),
            file=call.model.artifact.opened,
            span=line_span(call.request.line),
            hint="pass correlation_id=request.correlation_id() and flags=request.flags() of "
            "the request being answered (or an ID of the sequence this model drives)",
        )


@rule(
    "PL916",
    "bls-model-name-placeholder",
    WARNING,
    "A BLS request to the model named by a config parameter that is still a template "
    "placeholder (${...}).",
    triton="Failed for execute the inference request. Model '${<name>}' is not ready.",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def bls_model_name_placeholder(context: ModelContext) -> Iterator[Finding]:
    """Templates such as TensorRT-LLM's inflight_batcher_llm name the called model in a
    parameter (`tensorrt_llm_model_name: "${tensorrt_llm_model_name}"`) that
    tools/fill_template.py fills. A model.py that reads it
    (`self.model_config["parameters"]["KEY"]["string_value"]`) from a config that was
    copied without filling it sends every BLS request to a model literally called
    `${KEY}`. Observed on tritonserver 2.51: HTTP 500 "Model ${tensorrt_llm_model_name} -
    Error when running inference: Failed for execute the inference request. Model
    '${tensorrt_llm_model_name}' is not ready."

    Bad:
        parameters { key: "llm_model_name" value { string_value: "${llm_model_name}" } }
    Good:
        parameters { key: "llm_model_name" value { string_value: "tensorrt_llm" } }
    """
    from pbtxt_lint.rules.api import bls_requests
    from pbtxt_lint.triton.tensorrtllm import is_placeholder

    config = context.config
    if config is None:
        return
    for model in python_models(context):
        for request in bls_requests(model.signature.module):
            key = request.model_parameter
            if key is None or key not in config.parameters:
                continue
            value = config.parameters[key].string_value
            if not is_placeholder(value):
                continue
            yield Finding(
                f"{model.shown} line {request.line} sends a BLS request to the model named "
                f'by parameter "{key}", which is still the template placeholder "{value}": '
                f'the call answers with an error instead of outputs ("Failed for execute the '
                f"inference request. Model '{value}' is not ready.\"), so every request that "
                f"reaches line {request.line} fails",
                file=model.artifact.opened,
                span=line_span(request.line),
                hint=f'set parameter "{key}" to the name of the model to call (or run '
                "fill_template.py on this config)",
            )
