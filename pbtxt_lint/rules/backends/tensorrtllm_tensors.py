"""PL829-PL830: the tensors the tensorrtllm backend reads and writes, by fixed names.

The backend takes every input of a request into a map by name and reads the ones it
knows (`utils.cc` createRequestsFromInputTensors, utils.h `InputFieldsNames`), copying
their bytes as the C++ type it expects whatever the config declares; it writes the
outputs the request asks for (`OutputFieldsNames`), and fails a response without
output_ids or sequence_length. Triton's core checks none of this against the config.
"""

from __future__ import annotations

from collections.abc import Iterator
from math import prod

from pbtxt_lint.rules.api import (
    WARNING,
    Finding,
    ModelContext,
    config_dims,
    rule,
    suggest,
    type_name,
)
from pbtxt_lint.rules.backends.tensorrtllm_common import pipeline_model
from pbtxt_lint.triton.tensorrtllm import (
    LOGITS_OUTPUTS,
    LOGITS_TYPES,
    OTHER_INPUTS,
    OUTPUTS,
    PIPELINE_NAMES,
    REQUIRED_OUTPUTS,
    SCALAR_INPUTS,
    TOKEN_INPUTS,
    UNREAD_TEMPLATE_INPUTS,
)

_READ = {**SCALAR_INPUTS, **TOKEN_INPUTS}
_KNOWN_INPUTS = (*_READ, *OTHER_INPUTS)
_C_TYPES = {"TYPE_INT32": "int32", "TYPE_FP32": "float32", "TYPE_BOOL": "bool",
            "TYPE_UINT64": "uint64"}  # fmt: skip


@rule(
    "PL829",
    "tensorrtllm-input-contract",
    WARNING,
    "A tensorrtllm input or output the backend reads as another type or size, or never "
    "reads or writes.",
    triton="Invalid size for tensor <name> (a wrong type gives no message: the bytes are "
    "read as the expected type)",
    backend="tensorrtllm",
)
def tensorrtllm_input_contract(context: ModelContext) -> Iterator[Finding]:
    """The backend knows its tensors by name and type: `temperature` is read as one
    float32, `runtime_top_k` as one int32, `input_ids` as int32 tokens, `random_seed`
    as one uint64. It copies the request's bytes as that type without looking at the
    declared one, so `temperature` declared TYPE_FP16 or `input_ids` TYPE_INT64 gives
    wrong values (or reads past the buffer), and a scalar declared with more than one
    element fails the request ("Invalid size for tensor"). An input whose name it never
    reads (`top_k` for `runtime_top_k`) is accepted and ignored: clients set it and
    nothing changes. Likewise an output it never writes, and logits outputs of a type
    it cannot produce (only TYPE_FP32 or TYPE_FP16). The three inputs of the published
    config that the backend does not read (prompt_vocab_size, decoder_input_lengths,
    runtime_top_p_min) are not reported.

    Bad:
        input [ { name: "temperature" data_type: TYPE_FP16 dims: [ 1 ] } ]
    Good:
        input [ { name: "temperature" data_type: TYPE_FP32 dims: [ 1 ] } ]
    """
    found = pipeline_model(context)
    if found is None or found.role != "tensorrt_llm":
        return
    for index, tensor in enumerate(found.config.input):
        name, declared = tensor.name, type_name(tensor.data_type)
        expected = _READ.get(name)
        at = ("input", index)
        if expected is not None and declared != expected:
            yield Finding(
                f"input '{name}' of {found.label} is {declared}, but the backend reads it as "
                f"{_C_TYPES[expected]} ({expected}), copying the request's bytes without a "
                "conversion: every request that sets it gets a wrong value, or one read past "
                "the end of its buffer",
                at=(*at, "data_type"),
                hint=f"declare data_type: {expected}",
            )
        shape = list(tensor.reshape.shape) if tensor.HasField("reshape") else list(tensor.dims)
        if name in SCALAR_INPUTS and shape and all(d >= 0 for d in shape) and prod(shape) != 1:
            yield Finding(
                f"input '{name}' of {found.label} has dims {config_dims(shape)}, "
                f"{prod(shape)} values per request, but the backend reads one: every request "
                f'that sets it fails with "Invalid size for tensor {name}"',
                at=(*at, "dims"),
                hint="declare dims: [ 1 ] with reshape: { shape: [ ] }",
            )
        if name not in _KNOWN_INPUTS and name not in UNREAD_TEMPLATE_INPUTS:
            guess = PIPELINE_NAMES.get(name) or suggest(name, _KNOWN_INPUTS, cutoff=0.7)
            yield Finding(
                f"input '{name}' of {found.label} is not a tensor the backend reads: requests "
                "may set it, and it changes nothing"
                + (f"; did you mean '{guess}'?" if guess else ""),
                at=(*at, "name"),
                hint=f"rename it to '{guess}'" if guess else "delete it",
            )
    for index, output in enumerate(found.config.output):
        name, declared = output.name, type_name(output.data_type)
        if name not in OUTPUTS:
            guess = suggest(name, OUTPUTS, cutoff=0.6)
            yield Finding(
                f"output '{name}' of {found.label} is not a tensor the backend writes: no "
                "response carries it" + (f"; did you mean '{guess}'?" if guess else ""),
                at=("output", index, "name"),
                hint=f"rename it to '{guess}'" if guess else "delete it",
            )
        elif name in LOGITS_OUTPUTS and declared not in LOGITS_TYPES:
            yield Finding(
                f"output '{name}' of {found.label} is {declared}, but the backend returns logits "
                "as TYPE_FP32 or TYPE_FP16 and checks that they match the declared type: every "
                f"request that asks for {name} fails",
                at=("output", index, "data_type"),
                hint="declare the engine's logits type: TYPE_FP32 (or TYPE_FP16)",
            )


@rule(
    "PL830",
    "tensorrtllm-required-tensors",
    WARNING,
    "A tensorrtllm config without the tensors every request needs, or with input_ids of "
    "the wrong rank.",
    triton="request_output_len is not present in the request / output_ids tensor must be "
    "present in list of output tensors / Expected inputTokens tensors to have 2 dimensions",
    backend="tensorrtllm",
)
def tensorrtllm_required_tensors(context: ModelContext) -> Iterator[Finding]:
    """Every request needs tokens (`input_ids`, or `encoder_input_features` for an
    encoder) and `request_output_len`, and every response is built with `output_ids`
    and `sequence_length`; a config that does not declare them loads, and then fails
    every request. `input_ids` must reach the backend with two dimensions (batch,
    tokens): `dims: [ -1 ]` with batching (max_batch_size > 0), `[ 1, -1 ]` without.

    Bad:
        max_batch_size: 0
        input [ { name: "input_ids" data_type: TYPE_INT32 dims: [ -1 ] } ]
    Good:
        max_batch_size: 8
        input [ { name: "input_ids" data_type: TYPE_INT32 dims: [ -1 ] } ]
    """
    found = pipeline_model(context)
    if found is None or found.role != "tensorrt_llm":
        return
    config = found.config
    inputs = {tensor.name: index for index, tensor in enumerate(config.input)}
    outputs = {tensor.name for tensor in config.output}
    fails = "so every request fails with"
    if "input_ids" not in inputs and "encoder_input_features" not in inputs:
        yield Finding(
            f"{found.label} declares neither input_ids nor encoder_input_features, {fails} "
            '"inputTokens or encoderInputFeatures tensor not provided"',
            at=("input",),
            hint='declare input_ids: { name: "input_ids" data_type: TYPE_INT32 dims: [ -1 ] }',
        )
    if "request_output_len" not in inputs:
        yield Finding(
            f"{found.label} declares no request_output_len input, {fails} "
            '"request_output_len is not present in the request"',
            at=("input",),
            hint='declare { name: "request_output_len" data_type: TYPE_INT32 dims: [ 1 ] '
            "reshape: { shape: [ ] } }",
        )
    for name in REQUIRED_OUTPUTS:
        if name not in outputs:
            yield Finding(
                f'{found.label} declares no {name} output, {fails} "Error encountered while '
                f'populating response: {name} tensor must be present in list of output tensors"',
                at=("output",),
                hint=f'declare {{ name: "{name}" data_type: TYPE_INT32 dims: [ -1 ] }}',
            )
    index = inputs.get("input_ids")
    if index is None:
        return
    tensor = config.input[index]
    shape = list(tensor.reshape.shape) if tensor.HasField("reshape") else list(tensor.dims)
    rank = len(shape) + (config.max_batch_size > 0)
    if rank != 2:
        expected = "[ -1 ]" if config.max_batch_size > 0 else "[ 1, -1 ]"
        yield Finding(
            f"input_ids of {found.label} reaches the backend with {rank} dimension"
            f"{'s' if rank != 1 else ''} (max_batch_size {config.max_batch_size}, dims "
            f"{config_dims(shape)}), but it needs two, batch and tokens: every request fails "
            'with "Expected inputTokens tensors to have 2 dimensions"',
            at=("input", index, "dims"),
            hint=f"declare dims: {expected}",
        )
