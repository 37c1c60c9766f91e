"""PL218 and PL219: the input and output lists as a whole.

Triton's core checks neither that tensor names are unique nor that a model has inputs
and outputs: the backend decides when it loads the model (TensorRT refuses a name
bound twice, PyTorch a model without inputs), and the request checks
(`InferenceRequest::ValidateRequestInputs` in core's src/infer_request.cc) count every
non-optional input as required.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    BACKENDS,
    ERROR,
    INFO,
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    Severity,
    Stage,
    backend_of,
    model_label,
    rule,
)
from pbtxt_lint.rules.tensors.common import Tensor, fills_empty_lists, tensors
from pbtxt_lint.schema.model_config_pb2 import ModelOutput


def _duplicate_consequence(config: ModelConfig, tensor: Tensor) -> tuple[str, Severity]:
    """What Triton and the backend do with a tensor name used twice."""
    if backend_of(config) == "tensorrt":
        return (
            "TensorRT binds each name once and refuses the model ('has already appeared as "
            "an input or output')",
            ERROR,
        )
    if tensor.kind == "output":
        return (
            "Triton accepts it, keeps the first declaration and ignores the other (its "
            "data_type and dims are dead)",
            WARNING,
        )
    required = sum(1 for i in config.input if not i.optional)
    distinct = len({i.name for i in config.input})
    if required > distinct:
        declared = len(config.input)
        expected = (
            f"{declared} inputs"
            if required == declared
            else f"number of inputs between {required} and {declared}"
        )
        return (
            f"Triton counts {required} required inputs but a request can carry each name "
            f"once, so every request fails ('expected {expected} but got {distinct} inputs')",
            ERROR,
        )
    return (
        "Triton accepts it, keeps the first declaration for request checks and ignores the "
        "other (its data_type and dims are dead)",
        WARNING,
    )


@rule(
    "PL218",
    "duplicate-tensor-name",
    ERROR,
    "Two inputs or two outputs with the same name, or an input and an output sharing one.",
    triton="input '<name>'  has already appeared as an input or output for <instance> / "
    "expected <n> inputs but got <k> inputs for model '<model>'",
    stage=Stage.LOAD,
    effective=True,
)
def duplicate_tensor_name(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton's core does not check tensor names for uniqueness at load: it keeps the
    first declaration and ignores the rest, but still counts every non-optional input
    as required, so with a duplicated required input no request can ever be complete
    and every request fails. TensorRT refuses the model when it binds a name twice
    (an input and an output sharing a name included). Two outputs of one name that both
    have a label_filename are refused too (PL716). Elsewhere a duplicated output loads
    and only confuses clients (warning); an input and an output sharing a name is a
    legitimate pass-through outside TensorRT and is not reported. An exact copy of a
    declaration is only noted (info): Triton keeps one and nothing can tell.

    Bad:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] },
                { name: "x" data_type: TYPE_INT32 dims: [ 4 ] } ]
    Good:
        input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] },
                { name: "x_ids" data_type: TYPE_INT32 dims: [ 4 ] } ]
    """
    input_names = {i.name for i in config.input}
    everything = list(tensors(config))
    counts = Counter((t.kind, t.io.name) for t in everything)
    seen: dict[str, set[str]] = {"input": set(), "output": set()}
    labelled: set[str] = set()  # outputs seen so far with a label_filename
    consequences: dict[str, tuple[str, Severity]] = {}  # by kind: the same for every name
    reported: dict[str, set[str]] = {"input": set(), "output": set()}
    first: dict[tuple[str, str], object] = {}  # the declaration Triton keeps, by name
    for tensor in everything:
        name = tensor.io.name
        duplicate = name in seen[tensor.kind]
        first.setdefault((tensor.kind, name), tensor.io)
        clash = tensor.kind == "output" and name in input_names
        seen[tensor.kind].add(name)
        labelled_twice = False
        if isinstance(tensor.io, ModelOutput) and tensor.io.label_filename:
            labelled_twice = name in labelled
            labelled.add(name)
        if not name or not (duplicate or clash):
            continue  # unnamed tensors are PL201's
        if tensor.kind not in consequences:
            consequences[tensor.kind] = _duplicate_consequence(config, tensor)
        text, severity = consequences[tensor.kind]
        if clash and not duplicate and severity is not ERROR:
            continue  # a pass-through tensor (input and output "LEN") is legitimate
        if duplicate and labelled_twice:
            continue  # PL716: Triton refuses two label files for one output
        if duplicate:
            count = counts[tensor.kind, name]
            if count > 2 and name in reported[tensor.kind]:
                continue  # one finding for a name declared thousands of times
            reported[tensor.kind].add(name)
            times = "twice" if count == 2 else f"{count:,} times"
            problem = f"{tensor.label} is declared {times}; {text}"
            if severity is WARNING and tensor.io == first[tensor.kind, name]:
                # an exact copy (tensorrtllm_backend's ensemble template has one): Triton
                # keeps one declaration and no request or client can tell
                problem = (
                    f"{tensor.label} is declared {times}, the same each time; Triton keeps "
                    "the first and nothing else changes"
                )
                severity = INFO
        else:
            problem = f"{tensor.label} has the same name as an input; {text}"
        yield Finding(
            problem,
            at=(*tensor.path, "name"),
            hint="give every input and output its own name (the tensor name in the model "
            "file), or delete the copy",
            severity=severity,
        )


@rule(
    "PL219",
    "no-inputs-or-outputs",
    ERROR,
    "A model that declares no inputs or no outputs (and no backend completes them).",
    triton="model configuration must contain at least one input, none were specified.",
    stage=Stage.LOAD,
    backend="pytorch",
    effective=True,
)
def no_inputs_or_outputs(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Triton's core accepts a config without inputs or outputs; the backend decides.
    PyTorch (TorchScript) refuses it when the model loads. In auto-complete mode ONNX
    Runtime, TensorRT, OpenVINO, TensorFlow and DALI fill the missing list from the
    model file; in strict mode they cannot, and their comparison with the model then
    fails (warning). Python models without inputs exist, and Python's
    `auto_complete_config` may add them; custom backends such as identity load an
    empty config (info). The vLLM backend adds its own inputs and outputs (PL811
    covers it). Ensembles are checked by PL5xx.

    Bad:
        platform: "pytorch_libtorch"
        output [ { name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    Good:
        platform: "pytorch_libtorch"
        input [ { name: "INPUT__0" data_type: TYPE_FP32 dims: [ 4 ] } ]
        output [ { name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 4 ] } ]
    """
    backend = backend_of(config)
    if not backend or fills_empty_lists(context, config):
        return
    entry = BACKENDS.get(backend)
    if entry is not None and entry.completes_itself:
        return  # vLLM adds its own tensors (PL811 names the ones a strict config lacks)
    if entry is not None and entry.completes_in_model_py and context.auto_complete:
        completed = context.completed  # what model.py's auto_complete_config adds
        if completed.error is not None:
            return  # PL664 says why it fails
        if completed.config is not None and completed.io_known:
            config = completed.config
    if backend == "pytorch" and config.platform == "pytorch_libtorch":
        severity = ERROR
        why = "the PyTorch backend requires at least one and refuses the model when it loads"
    elif backend == "pytorch":
        severity = WARNING
        why = (
            "the PyTorch backend refuses TorchScript models without them, and torch_aoti "
            "models most likely fail too"
        )
    elif entry is not None and entry.fills_empty_io:
        severity = WARNING
        reason = (
            "--disable-auto-complete-config"
            if not context.auto_complete
            else "it auto-completes only when the first instance group is KIND_GPU"
        )
        why = (
            f"backend '{backend}' cannot fill them in from the model file ({reason}), and "
            "the load fails unless the model really has none"
        )
    else:
        severity = INFO
        why = (
            f"backend '{backend}' accepts that; clients then send or receive nothing for "
            "it unless the backend adds them (Python: auto_complete_config in model.py)"
        )
    # batch inputs count as inputs for the completing backends, not for PyTorch
    has_inputs = bool(config.input) or (backend != "pytorch" and bool(config.batch_input))
    missing = [
        kind
        for kind, present in (("inputs", has_inputs), ("outputs", bool(config.output)))
        if not present
    ]
    for kind in missing:
        yield Finding(
            f"{model_label(context)} declares no {kind}; {why}",
            at=(kind[:-1],),
            hint=f"declare the model's {kind} (name, data_type, dims)",
            severity=severity,
        )
