"""PL707-PL713: warmup samples.

Each instance builds the model's warmup samples when it is created and runs them
before it serves (`TritonModelInstance::GenerateWarmupData` and `WarmUp` in core's
src/backend_model_instance.cc); a sample is a real request, checked like a client's,
and any failure fails the model load. Ensembles are not warmed up.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pbtxt_lint.rules.api import (
    BACKENDS,
    ERROR,
    INFO,
    WARNING,
    DataType,
    FieldPath,
    Finding,
    Key,
    ModelConfig,
    ModelContext,
    Scope,
    Stage,
    is_ensemble,
    is_inside,
    model_label,
    rule,
    suggest,
    type_name,
)
from pbtxt_lint.rules.features.common import is_file, version_holding
from pbtxt_lint.schema.datatypes import byte_size

if TYPE_CHECKING:
    from pbtxt_lint.schema.model_config_pb2 import ModelInput, ModelWarmup


WARMUP_FOLDER = "warmup"


def _warmup_inputs(context: ModelContext) -> Sequence[ModelInput] | None:
    """The inputs warmup requests are checked against; None without warmup or while a
    backend's auto-complete may still add inputs."""
    effective = context.effective
    if effective is None or not effective.model_warmup:
        return None
    config = context.completed.config or effective
    if not config.input and context.auto_complete:
        return None
    return list(config.input)


def _samples(context: ModelContext) -> Iterator[tuple[int, ModelWarmup]]:
    """The warmup samples Triton runs (not on ensembles; batch_size 0 is skipped)."""
    config = context.effective
    if config is None or is_ensemble(config):
        return
    for index, sample in enumerate(config.model_warmup):
        if sample.batch_size > 0:
            yield index, sample


def _sample_at(index: int, name: str, *rest: str | int) -> FieldPath:
    return ("model_warmup", index, "inputs", Key(name), "value", *rest)


def _data_file(context: ModelContext, name: str) -> Path:
    return context.folder.path / WARMUP_FOLDER / name


def _shape_problem(value_dims: list[int], model_input: ModelInput) -> str | None:
    """Why Triton's request check refuses these warmup dims for this input, if it does."""
    expected = list(model_input.dims)
    if len(value_dims) == len(expected) and all(
        want in (-1, got) for want, got in zip(expected, value_dims, strict=True)
    ):
        return None
    return f"dims {value_dims} do not match the input's dims {expected}"


@rule(
    "PL707",
    "warmup-variable-dims",
    ERROR,
    "A warmup input with -1 in `dims`.",
    triton="warmup setting expects all variable-size dimensions are specified for input '<input>'",
    stage=Stage.LOAD,
)
def warmup_variable_dims(context: ModelContext) -> Iterator[Finding]:
    """A warmup sample is a real request, so every dimension needs a size, even where
    the model input has -1.

    Bad:
        model_warmup [ { name: "w" batch_size: 1 inputs { key: "x"
          value: { data_type: TYPE_FP32 dims: [ -1 ] zero_data: true } } } ]
    Good:
        model_warmup [ { name: "w" batch_size: 1 inputs { key: "x"
          value: { data_type: TYPE_FP32 dims: [ 16 ] zero_data: true } } } ]
    """
    for index, sample in _samples(context):
        for name, value in sample.inputs.items():
            if -1 in value.dims:
                yield Finding(
                    f"warmup sample '{sample.name}' of {model_label(context)} gives input "
                    f"'{name}' dims {list(value.dims)}; warmup data needs a size for every "
                    "dimension",
                    at=_sample_at(index, name, "dims", list(value.dims).index(-1)),
                    hint="replace -1 by a concrete size the model accepts",
                )


@rule(
    "PL708",
    "warmup-missing-data",
    ERROR,
    "A warmup input without zero_data, random_data or input_data_file.",
    triton="[request id: <id_unknown>] warmup setting expects input '<input>' to have "
    "input_data_type set",
    stage=Stage.LOAD,
)
def warmup_missing_data(context: ModelContext) -> Iterator[Finding]:
    """Each warmup input says where its data comes from: `zero_data: true`,
    `random_data: true` or `input_data_file` (a file in `<model>/warmup/`).

    Bad:
        inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] } }
    Good:
        inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } }
    """
    for index, sample in _samples(context):
        for name, value in sample.inputs.items():
            if value.WhichOneof("input_data_type") is None:
                yield Finding(
                    f"warmup sample '{sample.name}' of {model_label(context)} gives input "
                    f"'{name}' no data: none of zero_data, random_data or input_data_file is set",
                    at=("model_warmup", index, "inputs", Key(name)),
                    hint="add zero_data: true (or random_data: true, or input_data_file)",
                )


@rule(
    "PL709",
    "warmup-data-file-missing",
    ERROR,
    "A warmup `input_data_file` that is not in the model's `warmup/` folder.",
    triton="failed to open text file for read <model>/warmup/<file>: No such file or directory",
    stage=Stage.LOAD,
    scope=Scope.FILES,
)
def warmup_data_file_missing(context: ModelContext) -> Iterator[Finding]:
    """Triton reads `input_data_file` from `<model>/warmup/` (not from the version
    folder) and fails the model when the file is not there.

    Bad:
        resnet/1/input.bin
        input_data_file: "input.bin"
    Good:
        resnet/warmup/input.bin
        input_data_file: "input.bin"
    """
    for index, sample in _samples(context):
        for name, value in sample.inputs.items():
            if value.WhichOneof("input_data_type") != "input_data_file":
                continue
            filename = value.input_data_file
            path = _data_file(context, filename)
            if not is_inside(context.repository.root, path) or path.is_file():
                continue  # present, or outside the repository where we do not look
            version = version_holding(context, filename)
            elsewhere = (
                f"{version}/"
                if version
                else (
                    "the model folder" if is_file(context, context.folder.path / filename) else None
                )
            )
            found = (
                f"; it is in {elsewhere}, but Triton reads warmup data only from the warmup/ folder"
                if elsewhere
                else ""
            )
            yield Finding(
                f"warmup sample '{sample.name}' of {model_label(context)} reads input "
                f"'{name}' from {context.folder.name}/{WARMUP_FOLDER}/{filename}, which does not "
                f"exist{found}",
                at=_sample_at(index, name, "input_data_file"),
                hint=f"put the file at {context.folder.name}/{WARMUP_FOLDER}/{filename}",
            )


@rule(
    "PL710",
    "warmup-data-file-too-small",
    ERROR,
    "A warmup `input_data_file` with fewer bytes than the input it feeds.",
    triton="[request id: <id_unknown>] warmup setting expects <N> bytes, but the data provided "
    "from <file>only has <M> bytes",
    stage=Stage.LOAD,
    scope=Scope.FILES,
)
def warmup_data_file_too_small(context: ModelContext) -> Iterator[Finding]:
    """The file must hold at least dims-product x element-size bytes of raw data (it is
    read as is, with no header); a shorter file fails the model. Strings are exempt.

    Bad:
        inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] input_data_file: "x.bin" } }
        (x.bin holds 8 bytes; 4 x FP32 needs 16)
    Good:
        x.bin holds 16 bytes (numpy: np.zeros(4, np.float32).tofile("x.bin"))
    """
    for index, sample in _samples(context):
        for name, value in sample.inputs.items():
            if (
                value.WhichOneof("input_data_type") != "input_data_file"
                or value.data_type == DataType.TYPE_STRING
                or -1 in value.dims
            ):
                continue
            path = _data_file(context, value.input_data_file)
            if not is_file(context, path):
                continue
            size = byte_size(type_name(value.data_type)) or 4  # Triton's fallback
            needed = math.prod(value.dims) * size if value.dims else 0
            actual = path.stat().st_size
            if actual < needed:
                yield Finding(
                    f"warmup sample '{sample.name}' of {model_label(context)} needs "
                    f"{needed} bytes for input '{name}' ({type_name(value.data_type)} "
                    f"{list(value.dims)}) but {WARMUP_FOLDER}/{value.input_data_file} has "
                    f"{actual}",
                    at=_sample_at(index, name, "input_data_file"),
                    hint="write the raw tensor bytes without a header (np.ndarray.tofile), or "
                    "fix dims/data_type",
                )


@rule(
    "PL711",
    "warmup-batch-size-zero",
    INFO,
    "A warmup sample with batch_size 0, which Triton skips.",
    effective=True,
)
def warmup_batch_size_zero(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton skips a sample with `batch_size: 0` (the default when it is left out)
    without a word, so the model is not warmed up by it.

    Bad:
        model_warmup [ { name: "w" inputs { ... } } ]
    Good:
        model_warmup [ { name: "w" batch_size: 1 inputs { ... } } ]
    """
    if is_ensemble(config):
        return
    for index, sample in enumerate(config.model_warmup):
        if sample.batch_size == 0:
            yield Finding(
                f"warmup sample '{sample.name}' of {model_label(context)} has batch_size 0 "
                "(the default), so Triton skips it",
                at=("model_warmup", index, "batch_size"),
                hint="set batch_size: 1 (the number of requests the sample sends)",
            )


@rule(
    "PL712",
    "warmup-request-invalid",
    ERROR,
    "A warmup sample that Triton's request checks refuse: a missing input, or a data type, "
    "shape or batch size the model does not accept.",
    triton="[request id: <id_unknown>] expected <n> inputs but got <k> inputs for model '<m>' "
    "... / inference input '<i>' data-type is '<T>', but model '<m>' expects '<C>' / unexpected "
    "shape for input '<i>' for model '<m>' ... / failed to run warmup sample '<w>': batch size "
    "<n> for '<instance>', max allowed is <mbs>",
    stage=Stage.LOAD,
)
def warmup_request_invalid(context: ModelContext) -> Iterator[Finding]:
    """Each warmup sample goes through the same checks as a client request: every
    required model input must be given, with the input's data type and dims (without the
    batch dimension; Triton adds batch 1). `batch_size` requests run together, so on
    backends that check the batch (python, pytorch, openvino) it may not exceed
    max_batch_size (1 without batching). Any failure fails the model load.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
        model_warmup [ { name: "w" batch_size: 1 inputs { key: "x"
          value: { data_type: TYPE_FP32 dims: [ 1, 4 ] zero_data: true } } } ]
    Good:
        model_warmup [ { name: "w" batch_size: 1 inputs { key: "x"
          value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]
    """
    config = context.effective
    inputs = _warmup_inputs(context)
    if config is None or inputs is None:
        return
    by_name = {i.name: i for i in inputs}
    entry = BACKENDS.get(config.backend)
    checks_batch = entry is not None and entry.checks_batch_size
    for index, sample in _samples(context):
        where = f"warmup sample '{sample.name}' of {model_label(context)}"
        missing = [i.name for i in inputs if not i.optional and i.name not in sample.inputs]
        if missing:
            yield Finding(
                f"{where} does not give input(s) {', '.join(repr(m) for m in missing)}; Triton "
                "runs the sample as a request and refuses it for the missing input",
                at=("model_warmup", index),
                hint=f'add inputs {{ key: "{missing[0]}" value: {{ ... }} }} to the sample',
            )
        for name, value in sample.inputs.items():
            model_input = by_name.get(name)
            if model_input is None:
                continue
            if value.data_type != model_input.data_type:
                expected = type_name(model_input.data_type)
                yield Finding(
                    f"{where} gives input '{name}' data_type {type_name(value.data_type)}, "
                    f"but the model input is {expected}",
                    at=_sample_at(index, name, "data_type"),
                    hint=f"write data_type: {expected}",
                )
            skip = model_input.is_shape_tensor or model_input.allow_ragged_batch
            problem = (
                None if skip or -1 in value.dims else _shape_problem(list(value.dims), model_input)
            )
            if problem:
                batched = config.max_batch_size > 0
                yield Finding(
                    f"{where}: input '{name}' {problem}"
                    + ("; leave the batch dimension out, Triton adds batch 1" if batched else ""),
                    at=_sample_at(index, name, "dims"),
                    hint=f"write dims: {list(model_input.dims)}"
                    + (" with each -1 replaced by a size" if -1 in model_input.dims else ""),
                )
        limit = max(config.max_batch_size, 1)
        if checks_batch and sample.batch_size > limit:
            yield Finding(
                f"{where} has batch_size {sample.batch_size}: its requests run as one batch and "
                f"the {config.backend} backend refuses a batch larger than {limit}",
                at=("model_warmup", index, "batch_size"),
                hint=f"set batch_size to at most {limit}",
            )


@rule(
    "PL713",
    "warmup-unknown-input",
    WARNING,
    "A warmup input that is not a model input (nor a sequence control or state).",
)
def warmup_unknown_input(context: ModelContext) -> Iterator[Finding]:
    """Triton sends a warmup input that the model does not declare as an "override"
    input instead of refusing it; usually the key is misspelt and the real input is
    then missing from the sample.

    Bad:
        input [ { name: "image" ... } ]
        model_warmup [ { ... inputs { key: "images" value: { ... } } } ]
    Good:
        model_warmup [ { ... inputs { key: "image" value: { ... } } } ]
    """
    config = context.effective
    inputs = _warmup_inputs(context)
    if config is None or inputs is None:
        return
    sequence = config.sequence_batching
    known = {i.name for i in inputs}
    extra = {c.name for c in sequence.control_input} | {s.input_name for s in sequence.state}
    for index, sample in _samples(context):
        for name in sample.inputs:
            if name in known or name in extra:
                continue
            guess = suggest(name, known)
            yield Finding(
                f"warmup sample '{sample.name}' of {model_label(context)} gives input "
                f"'{name}', which is not an input of the model; Triton passes it on as an extra "
                "tensor",
                at=("model_warmup", index, "inputs", Key(name)),
                hint=f"did you mean '{guess}'?"
                if guess
                else f"use one of the model inputs: {', '.join(sorted(known)) or '(none)'}",
            )
