"""Check a KServe v2 inference request body against a model's configuration.

"Why does my request return a shape mismatch?" is the question users ask most after
deploying. Triton answers it one error at a time, at request time; this module reads
the JSON body a client would POST to `/v2/models/<m>/infer` and reports every problem
at once, each with the answer the server will give (the HTTP front end's and the
core's own message text, `infer_request.cc` `Normalize`) and what to send instead.

The checks follow the server's order: the HTTP front end parses each input (name,
datatype, shape, exactly one of data / binary_data_size / shared_memory_region, and
the JSON `data` against the shape), then the core checks requested outputs, the
number of inputs, the batch dimension against max_batch_size, and each input's
datatype and shape against the config (`-1` in the config matches any size).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pbtxt_lint.analysis.batch_axis import Batch
from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.analysis.contract import ModelContract, model_contract
from pbtxt_lint.diagnostics import Severity, Span
from pbtxt_lint.echo import bound_message
from pbtxt_lint.jsonconfig.reader import (
    JsonMember,
    JsonPositions,
    JsonSyntaxError,
    JsonValue,
    read_json,
)
from pbtxt_lint.repository.layout import classify, load_repository
from pbtxt_lint.schema import DATA_TYPE_DESCRIPTOR, ModelConfig
from pbtxt_lint.schema.datatypes import (
    config_type_from_protocol,
    protocol_from_config_type,
    suggest_config_type,
)
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.checks import suggest

_SHAPE_NOTE = (
    "NOTE: Setting a non-zero max_batch_size in the model config requires a batch "
    "dimension to be prepended to each input shape. If you want to specify the full "
    "shape including the batch dim in your input dims config, try setting "
    "max_batch_size to zero. See the model configuration docs for more info on "
    "max_batch_size."
)
_CONTENT_FIELDS = (
    "Input must set only one of the following fields: 'data', 'binary_data_size' in "
    "'parameters', 'shared_memory_region' in 'parameters'. But"
)
_INTEGER_TYPES = {"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"}


@dataclass(frozen=True)
class RequestProblem:
    """One reason the server would refuse the request (or a caveat, as a warning)."""

    code: str
    message: str
    span: Span | None
    triton: str | None = None  # the server's answer, word for word where known
    hint: str | None = None  # what to send instead
    severity: Severity = Severity.ERROR

    def __post_init__(self) -> None:
        # The texts quote the request body (names, values): bounded and inert.
        for name in ("message", "triton", "hint"):
            text = getattr(self, name)
            if text is not None:
                object.__setattr__(self, name, bound_message(text))


@dataclass
class _Input:
    """One entry of `inputs`, as far as the front end could read it."""

    index: int
    node: JsonValue
    name: str | None = None
    datatype: str | None = None
    shape: list[int] | None = None
    data: JsonValue | None = None
    parsed: bool = False  # the front end accepted it (name, datatype, shape, content)


def _dims(dims: Any) -> str:
    """Triton's `DimsListToString`: `[1,8]`, no spaces."""
    return "[" + ",".join(str(d) for d in dims) + "]"


def _shape(dims: Any) -> str:
    """A shape as JSON: `[1, 8]`."""
    return "[" + ", ".join(str(d) for d in dims) + "]"


def _data_type_name(number: int) -> str:
    value = DATA_TYPE_DESCRIPTOR.values_by_number.get(number)
    return value.name if value is not None else str(number)


class RequestChecker:
    """Checks one request body against one model configuration."""

    def __init__(
        self,
        config: ModelConfig,
        model_name: str,
        text: str,
        contract: ModelContract | None = None,
    ) -> None:
        self.config = config
        self.contract = contract
        self.model = config.name or model_name
        self.text = text
        self.positions = JsonPositions(text)
        self.problems: list[RequestProblem] = []
        self.config_inputs = {tensor.name: tensor for tensor in config.input}
        self.config_outputs = {tensor.name for tensor in config.output}

    # -- reporting ---------------------------------------------------------------

    def span_of(self, node: JsonValue | JsonMember | None) -> Span | None:
        if node is None:
            return None
        if isinstance(node, JsonMember):
            return self.positions.span(node.key_start, node.key_end)
        return self.positions.span(node.start, node.end)

    def report(
        self,
        code: str,
        message: str,
        at: JsonValue | JsonMember | None,
        triton: str | None = None,
        hint: str | None = None,
        severity: Severity = Severity.ERROR,
    ) -> None:
        self.problems.append(
            RequestProblem(code, message, self.span_of(at), triton, hint, severity)
        )

    def front_end(self, what: str) -> str:
        """The HTTP front end's `Unable to parse '<what>'` answer."""
        return f"Unable to parse '{what}'"

    # -- the checks --------------------------------------------------------------

    def check(self) -> list[RequestProblem]:
        try:
            root = read_json(self.text)
        except JsonSyntaxError as error:
            span = self.positions.span(error.offset, error.offset + 1)
            self.problems.append(
                RequestProblem(
                    "request-not-json",
                    f"the request is not valid JSON: {error.message}",
                    span,
                    f"failed to parse the request JSON buffer: ... at {error.offset}",
                    error.hint,
                )
            )
            return self.problems
        self.check_transaction(root)
        if root.kind != "object":
            self.report(
                "request-not-object",
                'a request body is a JSON object with "inputs"',
                root,
                self.front_end("inputs"),
            )
            return self.problems
        inputs = self.read_inputs(root)
        self.check_outputs(root)
        if not self.config.input:
            self.report(
                "inputs-unknown",
                f"the configuration of model '{self.model}' lists no inputs (its backend fills "
                "them in from the model file at load time), so the inputs cannot be checked",
                root.member("inputs"),
                hint="run `pbtxt-lint check` on the model, or add the inputs to config.pbtxt",
                severity=Severity.WARNING,
            )
            return self.problems
        readable = [i for i in inputs if i.parsed]
        self.check_input_names(root, inputs)
        batch = self.check_batch(readable)
        for entry in readable:
            self.check_input(entry)
        self.check_batch_axis(readable)
        self.check_sequence(root, batch)
        self.check_ensemble_batch(root, batch)
        return sorted(
            self.problems, key=lambda p: (p.span.line, p.span.column) if p.span else (0, 0)
        )

    def read_inputs(self, root: JsonValue) -> list[_Input]:
        member = root.member("inputs")
        if member is None or member.value.kind != "array":
            at = member.value if member else root
            self.report(
                "inputs-missing",
                'the request has no "inputs" list',
                at,
                self.front_end("inputs"),
                'add "inputs": [ {"name": ..., "shape": [...], "datatype": ..., "data": [...]} ]',
            )
            return []
        entries = []
        seen: dict[str, _Input] = {}
        for index, node in enumerate(member.value.items):
            entry = self.read_input(index, node)
            entries.append(entry)
            if entry.name is not None:
                if entry.name in seen:
                    self.report(
                        "duplicate-input",
                        f"input '{entry.name}' is given twice",
                        node,
                        f"input '{entry.name}' already exists in request",
                        "send each input once",
                    )
                    entry.parsed = False
                seen[entry.name] = entry
        return entries

    def read_input(self, index: int, node: JsonValue) -> _Input:
        entry = _Input(index, node)
        if node.kind != "object":
            self.report(
                "bad-input",
                f"inputs[{index}] must be an object "
                f'{{"name": ..., "shape": ..., "datatype": ..., "data": ...}}',
                node,
                self.front_end("inputs"),
            )
            return entry
        ok = self.check_content(node)
        name = node.member("name")
        if name is None or name.value.kind != "string":
            self.report(
                "bad-input",
                f'inputs[{index}] has no "name" string',
                name.value if name else node,
                self.front_end("name"),
                "give the input's name as in config.pbtxt",
            )
            ok = False
        else:
            entry.name = name.value.value
        datatype = node.member("datatype")
        if datatype is None or datatype.value.kind != "string":
            self.report(
                "bad-input",
                f"input '{entry.name or index}' has no \"datatype\" string",
                datatype.value if datatype else node,
                self.front_end("datatype"),
                self.datatype_hint(entry.name),
            )
            ok = False
        else:
            entry.datatype = datatype.value.value
            if config_type_from_protocol(entry.datatype) is None:
                self.unknown_datatype(entry, datatype.value)
                ok = False
        shape = node.member("shape")
        if shape is None or shape.value.kind != "array":
            self.report(
                "bad-input",
                f"input '{entry.name or index}' has no \"shape\" list",
                shape.value if shape else node,
                self.front_end("shape"),
                self.shape_hint(entry.name),
            )
            ok = False
        else:
            entry.shape = self.read_shape(entry, shape.value)
            ok = ok and entry.shape is not None
        data = node.member("data")
        entry.data = data.value if data is not None else None
        if ok and entry.data is not None and entry.shape is not None and entry.datatype is not None:
            ok = self.check_data(entry, entry.data)
        entry.parsed = ok
        return entry

    def check_content(self, node: JsonValue) -> bool:
        parameters = node.member("parameters")
        params = parameters.value if parameters and parameters.value.kind == "object" else None
        present = []
        if node.member("data") is not None:
            present.append("'data'")
        for key in ("binary_data_size", "shared_memory_region"):
            if params is not None and params.member(key) is not None:
                present.append(f"'{key}'")
        if len(present) == 1:
            return True
        answer = _CONTENT_FIELDS + (
            " no field is set" if not present else " set " + " ".join(present)
        )
        message = (
            "the input carries no data"
            if not present
            else f"the input sets {' and '.join(present)}; only one is allowed"
        )
        self.report(
            "input-content",
            message,
            node,
            answer,
            'put the values in "data": [...] (or binary data, or a shared-memory region)',
        )
        return False

    def unknown_datatype(self, entry: _Input, node: JsonValue) -> None:
        written = node.value
        config_type = suggest_config_type(written)
        protocol = protocol_from_config_type(config_type) if config_type else None
        hint = f'write "datatype": "{protocol}"' if protocol else self.datatype_hint(entry.name)
        self.report(
            "unknown-datatype",
            f"'{written}' is not a request datatype (the protocol names are BOOL, UINT8 ... "
            "INT64, FP16, FP32, FP64, BYTES, BF16)",
            node,
            f"invalid datatype for input {entry.name}" if entry.name else None,
            hint,
        )

    def datatype_hint(self, name: str | None) -> str | None:
        tensor = self.config_inputs.get(name or "")
        if tensor is None:
            return None
        protocol = protocol_from_config_type(_data_type_name(tensor.data_type))
        return f'write "datatype": "{protocol}"' if protocol else None

    def shape_hint(self, name: str | None) -> str | None:
        tensor = self.config_inputs.get(name or "")
        if tensor is None:
            return None
        return f'write "shape": {_shape(self.suggested_shape(tensor, None))}'

    def read_shape(self, entry: _Input, node: JsonValue) -> list[int] | None:
        dims = []
        for item in node.items:
            if (
                item.kind != "number"
                or not isinstance(item.value, int)
                or not 0 <= item.value < 1 << 63
            ):
                if item.kind == "number" and item.value == -1:
                    message = (
                        "a request gives every dimension's actual size; -1 is only for the config"
                    )
                else:
                    message = (
                        "shape elements are non-negative 64-bit integers, not "
                        f"{self.text[item.start : item.end]}"
                    )
                self.report(
                    "bad-shape", message, item, self.front_end("shape"), self.shape_hint(entry.name)
                )
                return None
            dims.append(item.value)
        return dims

    def check_data(self, entry: _Input, data: JsonValue) -> bool:
        datatype = entry.datatype
        assert datatype is not None and entry.shape is not None
        if datatype in ("FP16", "BF16"):
            self.report(
                "json-data-unsupported",
                f'{datatype} values cannot be sent as JSON "data"',
                data,
                f"receiving {datatype} data via JSON is not supported. Please use the binary data "
                f"format for input {entry.name}",
                "send the tensor as binary data (tritonclient does this with binary_data=True)",
            )
            return False
        if data.kind != "array":
            self.report("bad-data", '"data" must be a list of values', data, self.front_end("data"))
            return False
        elements = list(self.flatten(data))
        wrong = next((e for e in elements if not self.fits(e, datatype)), None)
        if wrong is not None:
            self.report(
                "bad-data",
                f"{self.text[wrong.start : wrong.end]} is not a {datatype} value",
                wrong,
                self.front_end("data"),
                self.value_hint(datatype),
            )
            return False
        expected = math.prod(entry.shape)
        if len(elements) == expected:
            return True
        counted = (
            f'"data" has {len(elements)} element{"s" if len(elements) != 1 else ""} but shape '
            f"{_shape(entry.shape)} holds {expected}"
        )
        if datatype == "BYTES":
            if len(elements) > expected:
                answer = (
                    f"unexpected number of string elements {expected + 1} for inference input "
                    f"'{entry.name}' for model '{self.model}', expecting {expected}"
                )
            else:
                answer = (
                    f"expected {expected} string elements for inference input '{entry.name}' for "
                    f"model '{self.model}', got {len(elements)}"
                )
        else:
            answer = "Unable to parse 'data': Shape does not match true shape of 'data' field"
        nested = self.nested_shape(data)
        hint = "make the shape and the number of values agree (data may be flat or nested)"
        if nested is not None and len(nested) > 1:
            hint = (
                f'the nesting of "data" is shape {_shape(nested)}: send that shape, or {expected} '
                "values"
            )
        self.report("data-count", counted, data, answer, hint)
        return False

    def nested_shape(self, node: JsonValue) -> list[int] | None:
        """The shape of regularly nested lists (`[[1, 2], [3, 4]]` -> [2, 2]), or None."""
        if node.kind != "array":
            return []
        inner = [self.nested_shape(item) for item in node.items]
        if not inner:
            return [0]
        first = inner[0]
        if first is None or any(shape != first for shape in inner):
            return None
        return [len(node.items), *first]

    def flatten(self, node: JsonValue) -> Iterator[JsonValue]:
        if node.kind == "array":
            for item in node.items:
                yield from self.flatten(item)
        else:
            yield node

    @staticmethod
    def fits(element: JsonValue, datatype: str) -> bool:
        if datatype == "BOOL":
            return element.kind in ("true", "false")
        if datatype == "BYTES":
            return element.kind == "string"
        if element.kind != "number":
            return False
        if datatype in _INTEGER_TYPES:
            return isinstance(element.value, int) and (
                element.value >= 0 or not datatype.startswith("U")
            )
        return True

    @staticmethod
    def value_hint(datatype: str) -> str:
        if datatype == "BOOL":
            return "BOOL values are true or false"
        if datatype == "BYTES":
            return "BYTES values are strings"
        if datatype in _INTEGER_TYPES:
            return f"{datatype} values are integers" + (" >= 0" if datatype.startswith("U") else "")
        return f"{datatype} values are numbers"

    def check_outputs(self, root: JsonValue) -> None:
        member = root.member("outputs")
        if member is None:
            return
        if member.value.kind != "array":
            self.report(
                "bad-output",
                '"outputs" must be a list of {"name": ...}',
                member.value,
                self.front_end("outputs"),
            )
            return
        for index, node in enumerate(member.value.items):
            name = node.member("name") if node.kind == "object" else None
            if name is None or name.value.kind != "string":
                self.report(
                    "bad-output",
                    f'outputs[{index}] has no "name" string',
                    node,
                    self.front_end("name"),
                )
                continue
            wanted = name.value.value
            if wanted in self.config_outputs or not self.config.output:
                continue
            close = suggest(wanted, self.config_outputs)
            known = ", ".join(f"'{n}'" for n in self.config_outputs)
            self.report(
                "unknown-output",
                f"model '{self.model}' has no output '{wanted}'",
                name.value,
                f"unexpected inference output '{wanted}' for model '{self.model}'",
                f"did you mean '{close}'?" if close else f"the model's outputs are {known}",
            )

    def check_input_names(self, root: JsonValue, inputs: list[_Input]) -> None:
        given = [i for i in inputs if i.name is not None]
        names = {i.name for i in given}
        required = [t.name for t in self.config.input if not t.optional]
        missing = [name for name in required if name not in names]
        total = len(self.config.input)
        count_fails = len(inputs) > total or len(inputs) < len(required)
        for entry in given:
            if entry.name in self.config_inputs:
                continue
            close = suggest(entry.name or "", self.config_inputs)
            known = ", ".join(f"'{n}'" for n in self.config_inputs)
            member = entry.node.member("name")
            self.report(
                "unknown-input",
                f"model '{self.model}' has no input '{entry.name}'",
                member.value if member else entry.node,
                f"unexpected inference input '{entry.name}' for model '{self.model}'",
                f"did you mean '{close}'?" if close else f"the model's inputs are {known}",
            )
            entry.parsed = False
        if not missing:
            return
        answer = None
        if count_fails:
            got = "[" + ",".join(f"'{i.name}'" for i in given) + "]"
            lacking = "[" + ",".join(f"'{n}'" for n in missing) + "]"
            expected = (
                f"expected {total} inputs"
                if total == len(required)
                else f"expected number of inputs between {len(required)} and {total}"
            )
            answer = (
                f"{expected} but got {len(inputs)} inputs for model '{self.model}'. Got inputs "
                f"{got}, but missing required inputs {lacking}. Please provide all required "
                "inputs."
            )
        member = root.member("inputs")
        listed = ", ".join(f"'{n}'" for n in missing)
        self.report(
            "missing-input",
            f"the request does not send required input{'s' if len(missing) > 1 else ''} {listed} "
            f"of model '{self.model}'",
            member.value if member else root,
            answer,
            "send every input the config lists (mark an input `optional: true` in config.pbtxt "
            "if the model can do without it)",
        )

    def check_batch(self, inputs: list[_Input]) -> int | None:
        """The request's batch size (None without batching), checked across inputs."""
        max_batch = self.config.max_batch_size
        if max_batch <= 0:
            return None
        batch: int | None = None
        first: _Input | None = None
        for entry in inputs:
            tensor = self.config_inputs.get(entry.name or "")
            if tensor is None or tensor.is_shape_tensor or entry.shape is None:
                continue
            shape_node = self.shape_node(entry)
            if not entry.shape:
                self.report(
                    "no-batch-dimension",
                    f"input '{entry.name}' has an empty shape, but model '{self.model}' batches "
                    f"(max_batch_size {max_batch}): its first dimension is the batch size",
                    shape_node,
                    f"input '{entry.name}' has no shape but model requires batch dimension for "
                    f"'{self.model}'",
                    f'write "shape": {_shape(self.suggested_shape(tensor, None))}',
                )
                entry.parsed = False
                continue
            if batch is None:
                batch, first = entry.shape[0], entry
            elif entry.shape[0] != batch:
                assert first is not None
                self.report(
                    "batch-mismatch",
                    f"input '{entry.name}' has batch size {entry.shape[0]} but input "
                    f"'{first.name}' has {batch}; all inputs share the first (batch) dimension",
                    shape_node,
                    f"input '{entry.name}' batch size does not match other inputs for "
                    f"'{self.model}'",
                    f"use the same first dimension ({batch}) for every input",
                )
        if batch is not None and batch > max_batch:
            assert first is not None
            self.report(
                "batch-too-large",
                f"batch size {batch} (the first dimension of input '{first.name}') is larger than "
                f"max_batch_size {max_batch} of model '{self.model}'",
                self.shape_node(first),
                f"inference request batch-size must be <= {max_batch} for '{self.model}'",
                f"split the request into batches of at most {max_batch}",
            )
        return batch

    def shape_node(self, entry: _Input) -> JsonValue:
        member = entry.node.member("shape")
        return member.value if member is not None else entry.node

    def suggested_shape(self, tensor: Any, written: list[int] | None) -> list[int]:
        """A shape the server accepts: the config's dims with each -1 filled from what
        was written where the ranks line up (else 1), and the batch dimension first
        when batching (as written when there is one, else 1)."""
        dims = list(tensor.dims)
        written = written or []
        prefix: list[int] = []
        if self.config.max_batch_size > 0 and not tensor.is_shape_tensor:
            prefix = [1]
            if len(written) == len(dims) + 1:
                prefix, written = [min(written[0], self.config.max_batch_size) or 1], written[1:]
        same_rank = len(written) == len(dims)
        filled = [(written[i] if same_rank else 1) if d == -1 else d for i, d in enumerate(dims)]
        return prefix + filled

    def check_input(self, entry: _Input) -> None:
        tensor = self.config_inputs.get(entry.name or "")
        if tensor is None or entry.shape is None or entry.datatype is None or not entry.parsed:
            return
        expected_protocol = protocol_from_config_type(_data_type_name(tensor.data_type))
        datatype_node = entry.node.member("datatype")
        if expected_protocol is not None and entry.datatype != expected_protocol:
            self.report(
                "datatype-mismatch",
                f"input '{entry.name}' is sent as {entry.datatype} but model '{self.model}' "
                f"declares it {_data_type_name(tensor.data_type)} ({expected_protocol})",
                datatype_node.value if datatype_node else entry.node,
                f"inference input '{entry.name}' data-type is '{entry.datatype}', but model "
                f"'{self.model}' expects '{expected_protocol}'",
                f'write "datatype": "{expected_protocol}" (and values of that type)',
            )
        batching = self.config.max_batch_size > 0 and not tensor.is_shape_tensor
        if batching and not entry.shape:
            return  # reported by check_batch
        body = entry.shape[1:] if batching else entry.shape
        dims = list(tensor.dims)
        if len(body) == len(dims) and all(
            d == -1 or d == b for d, b in zip(dims, body, strict=True)
        ):
            return
        full = ([-1] if batching else []) + dims
        note = f" {_SHAPE_NOTE}" if self.config.max_batch_size > 0 else ""
        answer = (
            f"unexpected shape for input '{entry.name}' for model '{self.model}'. Expected "
            f"{_dims(full)}, got {_dims(entry.shape)}.{note}"
        )
        explanation = f"config dims {_shape(dims)}"
        if batching:
            explanation = (
                f"the batch dimension (max_batch_size {self.config.max_batch_size}) followed by "
                f"{explanation}"
            )
        if tensor.HasField("reshape"):
            explanation += (
                f" (requests are checked against dims, not reshape {_shape(tensor.reshape.shape)})"
            )
        suggestion = self.suggested_shape(tensor, entry.shape)
        hint = f'send "shape": {_shape(suggestion)}'
        if batching and len(entry.shape) == len(dims):
            hint += " (the batch dimension comes first)"
        self.report(
            "shape-mismatch",
            f"input '{entry.name}' has shape {_shape(entry.shape)} but model '{self.model}' "
            f"expects {_shape(full)}: {explanation}",
            self.shape_node(entry),
            answer,
            hint,
        )

    def check_sequence(self, root: JsonValue, batch: int | None) -> None:
        """Stateful models: the sequence batcher needs a correlation ID and batch 1. An
        ensemble passes its requests' IDs and flags on to a step with sequence batching,
        whose batcher then asks the same (`in ensemble '<e>', ...`)."""
        own = self.config.HasField("sequence_batching")
        steps = self.contract.sequence_models if self.contract is not None else ()
        if not own and not steps:
            return
        sequencer = self.model if own else steps[0]
        where = "" if own else f"in ensemble '{self.model}', "
        uses = (
            f"model '{self.model}' uses the sequence batcher"
            if own
            else f"ensemble '{self.model}' passes each request to its step '{sequencer}', "
            "which uses the sequence batcher"
        )
        parameters = root.member("parameters")
        params = parameters.value if parameters and parameters.value.kind == "object" else None
        sequence_id = params.member("sequence_id") if params else None
        if sequence_id is None or sequence_id.value.value in (0, "", None):
            self.report(
                "missing-sequence-id",
                f"{uses}: every request belongs to a sequence",
                sequence_id.value if sequence_id else root,
                f"{where}inference request to model '{sequencer}' must specify a non-zero or "
                "non-empty correlation ID",
                'add "parameters": {"sequence_id": 1, "sequence_start": true} (and '
                '"sequence_end": true on the last request)',
            )
        elif params is not None and params.member("sequence_start") is None:
            self.report(
                "sequence-start",
                'no "sequence_start": the first request of a sequence must set it',
                sequence_id.value,
                f"{where}inference request for sequence {sequence_id.value.value} to model "
                f"'{sequencer}' must specify the START flag on the first request of the "
                "sequence",
                'add "sequence_start": true to the parameters of the first request',
                Severity.WARNING,
            )
        elif sequence_id is not None and own:
            self.check_correlation_id_type(sequence_id.value)
        if batch is not None and batch > 1 and own:
            self.report(
                "sequence-batch",
                f"batch size {batch}: the sequence batcher takes one request per sequence step",
                root.member("inputs"),
                f"inference request to model '{self.model}' must specify batch-size 1 due to "
                "requirements of sequence batcher",
                "send batch size 1 (the first dimension of every input)",
            )

    def check_transaction(self, root: JsonValue) -> None:
        """A decoupled model (an ensemble with a decoupled step included) takes no plain
        inference: the front ends refuse it before reading the body
        (`HTTPAPIServer::CheckTransactionPolicy`, gRPC `ModelInferHandler`)."""
        contract = self.contract
        if contract is None or not contract.decoupled:
            return
        why = (
            f"ensemble '{self.model}' is decoupled because its step "
            + ", ".join(f"'{m}'" for m in contract.decoupled_models)
            + " is"
            if contract.decoupled_models
            else f"model '{self.model}' is decoupled"
        )
        self.report(
            "decoupled-model",
            f"{why}: POST /v2/models/{self.model}/infer refuses every request to it, whatever "
            "the body (HTTP 501), and so does gRPC ModelInfer ([StatusCode.UNIMPLEMENTED] "
            '"ModelInfer RPC doesn\'t support models with decoupled transaction policy")',
            root,
            "HTTP end point doesn't support models with decoupled transaction policy",
            f"POST the inputs to /v2/models/{self.model}/generate_stream (or /generate), or "
            "stream them with gRPC ModelStreamInfer",
        )

    def check_batch_axis(self, inputs: list[_Input]) -> None:
        """Inputs whose axis 0 the model file says is not the batch Triton reads there."""
        contract = self.contract
        if contract is None or not contract.batching:
            return
        for entry in inputs:
            tensor = contract.inputs.get(entry.name or "")
            if tensor is None or not entry.shape or tensor.batch.kind is Batch.DIM0:
                continue
            fact = tensor.batch
            if fact.kind is Batch.OTHER:
                said = f"dim 0 of '{entry.name}' counts {fact.counts}"
            elif fact.kind is Batch.AXIS:
                said = f"the batch of '{entry.name}' is axis {fact.axis}"
            else:
                continue
            self.report(
                "batch-axis",
                f"{fact.evidence}: {said}, but with max_batch_size {contract.max_batch_size} "
                f"Triton reads {entry.shape[0]} (dim 0 of this request's '{entry.name}') as the "
                "batch size, and dynamic batching concatenates requests along it",
                self.shape_node(entry),
                hint="serve the model with max_batch_size: 0 and its whole shapes in dims "
                "(`pbtxt-lint check` explains: PL900-PL902)",
                severity=Severity.WARNING,
            )

    def check_ensemble_batch(self, root: JsonValue, batch: int | None) -> None:
        """A batch an ensemble accepts but one of its steps without batching does not."""
        contract = self.contract
        if contract is None or batch is None:
            return
        for limit in contract.batch_limits:
            if batch == limit.takes:
                continue
            got = _dims([batch, *limit.item])
            self.report(
                "ensemble-batch",
                f"batch size {batch}: step '{limit.step}' of ensemble '{self.model}' has "
                f"max_batch_size 0 and reads '{limit.port}' as {_shape(limit.wanted)}, which "
                f"takes a batch of {limit.takes} only",
                root.member("inputs"),
                f"in ensemble '{self.model}', [request id: <id_unknown>] unexpected shape for "
                f"input '{limit.port}' for model '{limit.step}'. Expected "
                f"{_dims(limit.wanted)}, got {got}",
                f"send a batch of {limit.takes} per request (`pbtxt-lint check` explains: PL527)",
            )
            return

    def check_correlation_id_type(self, sequence_id: JsonValue) -> None:
        """A string ID for a numeric CORRID control, or a number for a TYPE_STRING one.

        Since 25.01 the core refuses it (`InferenceRequest::ValidateCorrelationId`,
        infer_request.cc). Before, `SequenceBatch::SetControlTensors` copied the ID's
        bytes into the control tensor regardless: a string ID in an 8-byte UINT64
        becomes its 4-byte length and first 4 characters (checked with 2.51), in a
        4-byte INT32 its length alone, so different sequences reach the model as one.
        """
        corrid = _corrid_control(self.config)
        if corrid is None:
            return
        tensor, data_type = corrid
        value = sequence_id.value
        numeric_control = data_type != "TYPE_STRING"
        if isinstance(value, str) and numeric_control:
            sent, bytes_kept = "BYTES", 8 if data_type.endswith("64") else 4
            seen = (
                "the ID's length and its first 4 characters"
                if bytes_kept == 8
                else "the ID's length alone"
            )
            before = (
                f"releases before 25.01 accept it and hand the model {seen} as '{tensor}', "
                "so sequences whose IDs share them are mixed (wrong answers, no error)"
            )
            hint = (
                "send integer sequence IDs, or declare the CORRID control with "
                "data_type: TYPE_STRING if the model can take string IDs"
            )
        elif isinstance(value, int) and not isinstance(value, bool) and not numeric_control:
            sent = "UINT64"
            before = (
                f"releases before 25.01 accept it and fill '{tensor}' with the number's "
                "raw bytes and memory past them, not its digits"
            )
            hint = (
                f'send the ID as a string ("{value}"), or declare the control with an integer type'
            )
        else:
            return
        expected = protocol_from_config_type(data_type) or data_type
        self.report(
            "correlation-id-type",
            f"sequence_id {json.dumps(value)} is {'a string' if sent == 'BYTES' else 'a number'} "
            f"but the CORRID control '{tensor}' of model '{self.model}' is {data_type}: "
            f"Triton 25.01 and later refuse the request; {before}",
            sequence_id,
            f"sequence batching control '{tensor}' data-type is '{sent}', but model "
            f"'{self.model}' expects '{expected}'",
            hint,
        )


def _corrid_control(config: ModelConfig) -> tuple[str, str] | None:
    """The CORRID control tensor's name and data type name, if the model has one."""
    for control_input in config.sequence_batching.control_input:
        for control in control_input.control:
            if control.kind == control.CONTROL_SEQUENCE_CORRID:
                return control_input.name, _data_type_name(control.data_type)
    return None


def check_request(
    config: ModelConfig, model_name: str, text: str, contract: ModelContract | None = None
) -> list[RequestProblem]:
    """Every problem the server would find with the request body `text` (what the
    model's contract adds: its decoupled steps, sequence steps and batch axes)."""
    return RequestChecker(config, model_name, text, contract).check()


class RequestSetupError(Exception):
    """The model's configuration cannot be had; the message is for the user."""


@dataclass(frozen=True)
class LoadedModel:
    """What a request is checked against: the config, the model's name, its contract."""

    config: ModelConfig
    name: str
    contract: ModelContract | None


def load_model_config(path: Path) -> tuple[ModelConfig, str]:
    """The configuration the server checks requests against, and the model's name."""
    loaded = load_model(path)
    return loaded.config, loaded.name


def load_model(path: Path) -> LoadedModel:
    """The configuration the server checks requests against, the model's name and its
    contract (an ensemble's steps, its batch limits, the model file's batch axis).

    `path` is a model folder (or its config file). The config is completed the way
    Triton's backend completes it from the model file where pbtxt-lint can emulate that
    (`triton.complete`), else taken as written.
    """
    if not path.exists():
        raise RequestSetupError(f"{path}: no such file or folder")
    root, model, config_file = classify(path.absolute())
    if model is None:
        raise RequestSetupError(f"{path} is a model repository; give the folder of one model")
    repository = load_repository(root, None)
    folder = repository.models.get(model)
    if folder is None:
        raise RequestSetupError(f"{path}: not a model folder")
    if config_file is not None:
        folder.config_path = config_file
    context = ModelContext.standalone(folder, repository, Settings())
    written = context.config_file
    if written is not None and written.read_error is not None:
        raise RequestSetupError(f"{written.path}: {written.read_error}")
    if written is not None and context.config is None:
        raise RequestSetupError(
            f"{written.path} does not parse; `pbtxt-lint check {path}` says why"
        )
    # What the backend fills in from the model file (inputs, outputs, max_batch_size).
    config = context.completed.config or context.effective or context.config
    if config is None or (written is None and not config.input):
        raise RequestSetupError(
            f"{path}: the model has no config.pbtxt (and pbtxt-lint cannot complete one from "
            "its model file) to check the request against"
        )
    return LoadedModel(config, model, model_contract(context))
