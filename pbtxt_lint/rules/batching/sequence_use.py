"""PL329: sequence batching on a model that uses nothing of it.

The sequence batcher exists for stateful models: it routes the requests of one
sequence to one slot and tells the model where a sequence starts, ends and which one
it is (control inputs), or keeps its state (implicit state). Its price is on every
request: one without a correlation ID is refused (`Sequencer::SetupSequenceRequest` in
core's src/sequence_batch_scheduler/sequence_utils.h). A model that declares no
control input and no state, and whose model.py never asks the request for its
correlation ID or flags, cannot tell one sequence from another: the batcher only makes
its plain requests fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    Stage,
    backend_of,
    is_ensemble,
    model_label,
    rule,
)
from pbtxt_lint.rules.batching.common import SEQ

STATELESS_BACKENDS = frozenset({"onnxruntime", "tensorrt", "openvino"})
"""Backends whose model file keeps nothing between requests beyond the tensors the config
declares (a TorchScript module or a TensorFlow graph may keep state in attributes or
variables)."""
MAX_SOURCE = 256 << 10
"""Bytes of model.py searched (the Python reader's own limit)."""
_SEQUENCE_API = re.compile(
    rb"correlation_id|\.flags\s*\(|SEQUENCE_(?:START|END)|REQUEST_FLAG|get_response_sender"
)
"""What a Python model uses to follow sequences without control tensors (the request's
correlation ID and flags), or a decoupled stream that may rely on the batcher's routing."""


def _follows_sequences(context: ModelContext, config: ModelConfig) -> bool | None:
    """Whether model.py asks requests for sequence information, or reads tensors the
    config does not declare (control tensors it forgot: PL663's concern); None when
    model.py was not read."""
    from pbtxt_lint.analysis.artifacts import ArtifactState  # only models with files

    artifact = context.artifacts.version()
    if artifact is None or artifact.state is not ArtifactState.PRESENT:
        return None
    declared = {io.name for io in config.input}
    read = getattr(artifact.signature, "inputs_read", None)
    if read is None:
        return None
    if any(use.name not in declared for use in read):
        return True
    try:
        with open(artifact.opened, "rb") as handle:
            source = handle.read(MAX_SOURCE + 1)
    except OSError:
        return None
    if len(source) > MAX_SOURCE:
        return None
    return _SEQUENCE_API.search(source) is not None


def _in_sequence_pipeline(context: ModelContext) -> bool:
    """Whether an ensemble of the repository runs this model next to a step that uses
    sequence batching: the ensemble's requests then carry sequence IDs anyway."""
    name = context.folder.name
    workspace = context.workspace
    for other in context.repository.models:
        ensemble = workspace.model(other)
        config = ensemble.effective if ensemble is not None else None
        if config is None or not is_ensemble(config):
            continue
        steps = {step.model_name for step in config.ensemble_scheduling.step}
        if name not in steps:
            continue
        for step in steps - {name}:
            composing = workspace.model(step)
            step_config = composing.effective if composing is not None else None
            if step_config is not None and step_config.HasField("sequence_batching"):
                return True
    return False


@rule(
    "PL329",
    "sequence-batching-unused",
    WARNING,
    "sequence_batching on a model with no control input, no state and no use of "
    "correlation IDs: every request without a sequence ID fails.",
    triton="inference request to model '<model>' must specify a non-zero or non-empty "
    "correlation ID",
    stage=Stage.INFERENCE,
)
def sequence_batching_unused(context: ModelContext) -> Iterator[Finding]:
    """With `sequence_batching` every request must carry a correlation (sequence) ID.
    That is the contract of a stateful model; on a model that declares no control
    input, no implicit state and (for a Python model) never reads the request's
    correlation ID or sequence flags, nothing uses the sequences, and plain requests,
    which carry no ID, fail. Remove the block, or use dynamic batching. (A step of an
    ensemble whose other steps use sequence batching is left alone: its requests carry
    the ensemble's sequence IDs. TorchScript and TensorFlow models are left alone too:
    they can keep state in module attributes or variables.)

    Bad:
        sequence_batching { max_sequence_idle_microseconds: 60000000 }
    Good:
        dynamic_batching { }
    """
    completed = context.completed.config or context.effective
    if completed is None or not completed.HasField("sequence_batching"):
        return
    sequence = completed.sequence_batching
    if sequence.iterative_sequence or sequence.control_input or sequence.state:
        return
    backend = backend_of(completed)
    if backend == "python":
        if context.settings.config_only or _follows_sequences(context, completed) is not False:
            return
    elif backend not in STATELESS_BACKENDS:
        return  # a custom backend may follow sequences through the backend API
    if _in_sequence_pipeline(context):
        return
    name = context.folder.name
    what = (
        "model.py never asks a request for its correlation ID or flags"
        if backend == ("python")
        else f"the {backend} model sees only the tensors the config declares"
    )
    yield Finding(
        f"{model_label(name)} uses sequence_batching but declares no control_input and no state, "
        f"and {what}, so nothing follows the sequences; every request without a sequence ID "
        f'fails with "inference request to {model_label(name)} must specify a non-zero or '
        'non-empty correlation ID"',
        at=SEQ,
        hint="replace sequence_batching with dynamic_batching { } (or remove it), unless the "
        "model is stateful: then declare its control inputs or state",
    )
