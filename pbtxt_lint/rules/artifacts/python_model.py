"""PL660-PL665: a Python model's model.py, read as source and never imported or run.

The Python backend's stub imports model.py, instantiates `TritonPythonModel`, runs its
`auto_complete_config` before the model loads and calls `execute` for every batch of
requests (python_backend `pb_stub.cc`). The reader (`pbtxt_lint.artifacts.python_model`)
parses the file and emulates literal `auto_complete_config` bodies.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from pbtxt_lint.analysis.artifacts import VersionArtifact
from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity, Span
from pbtxt_lint.rules.artifacts.common import loaded, name_list, shown_path
from pbtxt_lint.rules.artifacts.python_common import PythonModel, python_models
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.textproto.binder import suggest

if TYPE_CHECKING:  # the Python model reader loads with the first model.py
    from pbtxt_lint.artifacts.python_model import AutoComplete, Completed, Outcome, PythonSignature

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
LOAD, INFERENCE = Stage.LOAD, Stage.INFERENCE


def _python(context: ModelContext) -> list[tuple[VersionArtifact, PythonSignature]]:
    """The loaded versions' model.py files that were read."""
    return loaded(context, "python")


def _line(line: int) -> Span | None:
    """The start of a model.py line (none when the reader does not know the line)."""
    return Span.point(line, 1) if line > 0 else None


@rule(
    "PL660",
    "python-syntax-error",
    ERROR,
    "A Python model file that does not parse.",
    triton="Failed to initialize Python stub for auto-complete: SyntaxError: <message>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_syntax_error(context: ModelContext) -> Iterator[Finding]:
    """The Python backend imports `model.py` in its stub process; a syntax error fails
    the import, so the model never loads. pbtxt-lint parses the file with the Python it
    runs on: a line that uses syntax added in Python 3.12 (the stub's Python in recent
    containers) is only info when pbtxt-lint runs on an older Python.

    Bad:
        def execute(self, requests)
    Good:
        def execute(self, requests):
    """
    version = "{}.{}.{}".format(*sys.version_info[:3])
    for artifact, signature in _python(context):
        if not signature.syntax_error:
            continue
        newer = signature.syntax_maybe_newer
        message = (
            f"{shown_path(artifact, context)} does not parse ({signature.syntax_error}, Python "
            f"{version}); the stub fails to import it, so Triton fails to load "
            f"'{context.model.name}'"
        )
        if newer:
            message += (
                "; the line uses syntax that Python 3.12 accepts, so it may parse in the "
                "Triton container"
            )
        yield Finding(
            message,
            file=artifact.opened,
            span=_line(signature.syntax_line),
            hint="fix the syntax; check with `python -m py_compile model.py` using the Python "
            "of the Triton container",
            severity=INFO if newer else None,
        )


@rule(
    "PL661",
    "python-model-class-missing",
    ERROR,
    "A Python model file without a TritonPythonModel class.",
    triton="Failed to initialize Python stub: AttributeError: module 'model' has no attribute "
    "'TritonPythonModel'",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_model_class_missing(context: ModelContext) -> Iterator[Finding]:
    """The stub imports `model.py` and instantiates the class named exactly
    `TritonPythonModel`. Another name (`TritonModel`, `TritonPythonmodel`) fails the
    load. A class bound by an import (`from impl import TritonPythonModel`) is fine;
    star imports and dynamic definitions are not judged.

    Bad:
        class TritonModel:
    Good:
        class TritonPythonModel:
    """
    for artifact, signature in _python(context):
        if signature.syntax_error or signature.model_class != "absent":
            continue
        classes = signature.facts.get("classes", "")
        near = suggest("TritonPythonModel", classes.split(",") if classes else [], cutoff=0.6)
        found = f" (it defines {classes.replace(',', ', ')})" if classes else ""
        if signature.facts.get("statements") == "0":
            found = " (the file is empty)"
        yield Finding(
            f"{shown_path(artifact, context)} defines no TritonPythonModel class{found}; the stub "
            f"looks that class up after importing the file, so Triton fails to load "
            f"'{context.model.name}'",
            file=artifact.opened,
            hint=f"rename class {near} to TritonPythonModel"
            if near
            else "define class TritonPythonModel with initialize() and execute()",
        )


@rule(
    "PL662",
    "python-execute-missing",
    WARNING,
    "A TritonPythonModel without an execute method: every request fails.",
    triton="Python model <path> does not implement `execute` method.",
    stage=INFERENCE,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_execute_missing(context: ModelContext) -> Iterator[Finding]:
    """The model loads, but the stub calls `execute(requests)` for every batch of
    requests; without it each request fails. Classes with base classes, decorators or
    a metaclass may get `execute` elsewhere and are not judged.

    Bad:
        class TritonPythonModel:
            def run(self, requests): ...
    Good:
        class TritonPythonModel:
            def execute(self, requests): ...
    """
    for artifact, signature in _python(context):
        if signature.model_class != "class" or signature.execute != "absent":
            continue
        methods = [m for m in signature.facts.get("methods", "").split(",") if m]
        near = suggest("execute", methods, cutoff=0.6)
        yield Finding(
            f"class TritonPythonModel in {shown_path(artifact, context)} has no execute method; "
            f"'{context.model.name}' loads but every request fails with \"Python model "
            f'{artifact.opened.name} does not implement `execute` method."',
            file=artifact.opened,
            span=_line(signature.class_line),
            hint=f"rename {near}() to execute()"
            if near
            else "add def execute(self, requests): returning one response per request",
        )


@rule(
    "PL663",
    "python-tensor-name-unknown",
    WARNING,
    "A literal tensor name in model.py that Triton never hands the model or never returns.",
    triton="AttributeError: 'NoneType' object has no attribute 'as_numpy'",
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend=("python", "tensorrtllm"),  # and TensorRT-LLM's postprocessing model.py
)
def python_tensor_name_unknown(context: ModelContext) -> Iterator[Finding]:
    """The Python backend never compares the code with the config, so a renamed tensor
    surfaces only at run time. Execute receives the request's inputs (the config's
    inputs) plus the sequence batcher's control tensors and implicit-state inputs;
    any other name makes `get_input_tensor_by_name` return None, and the following
    `.as_numpy()` fails every request. An output the config does not declare is
    silently dropped from the answer, and `get_output_config_by_name` returns None
    (usually a TypeError in `initialize`; a lookup whose result is never used, or is
    tested for None, breaks nothing and is not reported). In a model.py that serves
    both transaction policies (`if self.decoupled: ... else: ...`), code of the policy
    the config does not use never runs and is not judged. Only string literals are checked; tensors
    built as `inputs=` of a BLS `pb_utils.InferenceRequest` (another model's inputs)
    and reads followed by a None check (an optional input) are not judged.

    Bad:
        pb_utils.Tensor("OUTPUT", out)      (config output: "OUTPUT0")
    Good:
        pb_utils.Tensor("OUTPUT0", out)
    """
    for model in python_models(context):
        signature, tensors = model.signature, model.tensors
        config_inputs = {io.name for io in model.config.input}
        config_outputs = {io.name for io in model.config.output}
        facts = signature.execute_facts
        seen: set[tuple[str, str]] = set()
        for use in signature.inputs_read:
            read = facts.read(use.name, use.line)
            if read is not None and read.decoupled not in (None, model.decoupled):
                continue  # code for the other transaction policy never runs
            checked = read is not None and read.guard == "checked"
            if use.name in tensors.handed or checked or ("in", use.name) in seen:
                continue
            seen.add(("in", use.name))
            yield _unknown_input(model, use.name, use.line, read.error if read else "")
        lookups = (
            (signature.input_configs, config_inputs, "input", "get_input_config_by_name"),
            (signature.output_configs, config_outputs, "output", "get_output_config_by_name"),
        )
        for uses, declared, kind, function in lookups:
            for use in uses:
                if use.name in declared or (function, use.name) in seen:
                    continue
                lookup = facts.config_read(use.name, use.line)
                if lookup is None or lookup.guard != "unchecked":
                    continue  # a result never used, or tested for None, breaks nothing
                seen.add((function, use.name))
                yield Finding(
                    f'{model.shown} line {use.line} looks up the config of {kind} "{use.name}", '
                    f"which the config does not declare (its {kind}s: {name_list(declared)}); "
                    f'{function} returns None for it, so line {lookup.deref_line} raises "'
                    f'{lookup.error}": in initialize the model then fails to load, in execute '
                    "every request fails with HTTP 500",
                    file=model.artifact.opened,
                    span=_line(use.line),
                    hint=_name_hint(model, use.name, kind),
                )
        for use in signature.outputs_made:
            if use.name in tensors.returned or ("out", use.name) in seen:
                continue
            seen.add(("out", use.name))
            yield Finding(
                f'{model.shown} line {use.line} answers with output "{use.name}", which the '
                f"config does not declare (its outputs: {name_list(config_outputs)}); Triton "
                f'drops it, so every answer comes back without "{use.name}" (HTTP 200, no '
                "error)",
                file=model.artifact.opened,
                span=_line(use.line),
                hint=_name_hint(model, use.name, "output"),
            )


def _unknown_input(model: PythonModel, name: str, line: int, error: str) -> Finding:
    tensors = model.tensors
    absent = tensors.not_handed.get(name)
    if absent is not None:
        why = (
            f'"{name}" is a {absent.described}, which the Python backend never computes, so '
            "get_input_tensor_by_name returns None for it"
        )
    else:
        listed = name_list(t.name for t in tensors.handed.values())
        why = (
            f"Triton hands this model no tensor of that name (it gets: {listed}), so "
            "get_input_tensor_by_name returns None for it"
        )
    if error:
        effect = f'; every request then fails with HTTP 500 "{error}"'
    else:
        effect = f"; a client that sends it gets HTTP 400 \"unexpected inference input '{name}'\""
    return Finding(
        f'{model.shown} line {line} reads input "{name}": {why}{effect}',
        file=model.artifact.opened,
        span=_line(line),
        hint=_name_hint(model, name, "input"),
    )


def _containing(name: str, candidates: list[str]) -> str | None:
    """The one candidate that contains `name` or is contained in it (any case)."""
    lowered = name.lower()
    found = [c for c in candidates if lowered in c.lower() or c.lower() in lowered]
    return found[0] if len(found) == 1 else None


_CONTROL_NAME = re.compile(
    r"(seq(uence)?_?)?(start|end|ready|corr_?id|correlation(_?id)?)(_flag)?", re.IGNORECASE
)
"""Names that read like a sequence control tensor (START, SEQUENCE_END, CORRID, ...)."""
_STATE_NAME = re.compile(r"(\w+_)?state(_?(in|out|input|output))?", re.IGNORECASE)
"""Names that read like an implicit state tensor (state_in, ENERGY_STATE_OUT, ...)."""


def _name_hint(model: PythonModel, name: str, kind: str) -> str:
    """Did you mean a tensor Triton has? Otherwise how to declare the name, never
    as a regular input or output when it reads like a control or state tensor."""
    tensors = model.tensors
    if kind == "input":
        known = dict(tensors.handed)
    elif kind == "output":
        known = dict(tensors.returned)
    else:
        known = {}
    config_names = model.config.input if kind == "input" else model.config.output
    candidates = sorted(known) if known else sorted(io.name for io in config_names)
    guess = suggest(name, candidates, cutoff=0.6) or _containing(name, candidates)
    if guess is not None:
        tensor = known.get(guess)
        if tensor is not None and tensor.role not in ("input", "output"):
            return f'did you mean "{guess}" (the {tensor.described})?'
        return f'did you mean "{guess}"?'
    if kind == "input" and _CONTROL_NAME.fullmatch(name):
        return (
            f'if "{name}" is a sequence control, name it in a sequence_batching control_input '
            "(Triton fills it in on every request of a sequence); otherwise read a tensor the "
            "config declares"
        )
    if _STATE_NAME.fullmatch(name):
        return (
            "the Python backend keeps no implicit state: keep the state in the model "
            "instance, keyed by the CORRID control tensor or request.correlation_id()"
        )
    if kind == "input":
        return (
            f'declare input "{name}" in config.pbtxt (clients then send it), or read a '
            "declared name"
        )
    return f'declare {kind} "{name}" in config.pbtxt, or use a declared name'


def _auto_complete_outcomes(
    context: ModelContext,
) -> Iterator[tuple[VersionArtifact, AutoComplete, Outcome]]:
    """Each model.py's literal auto_complete_config, emulated on the config (not strict)."""
    config = context.effective
    if context.strict or config is None:
        return
    for artifact, signature in _python(context):
        function = signature.auto_complete
        if function is not None and signature.parsed:
            yield artifact, function, function.emulate(config)


@rule(
    "PL664",
    "python-auto-complete-fails",
    ERROR,
    "model.py's auto_complete_config raises against this config.",
    triton="configuration specified max_batch_size <n>, but in auto-complete-config function "
    "for model '<model>' specified max_batch_size <k>",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_auto_complete_fails(context: ModelContext) -> Iterator[Finding]:
    """With auto-complete on, the stub runs `TritonPythonModel.auto_complete_config`
    before the model loads. `pb_utils.ModelConfig` refuses to lower max_batch_size,
    to set dynamic batching on a sequence model, to add a tensor whose data_type or
    dims contradict config.pbtxt, unknown keys, and a changed decoupled policy; the
    function must also return the config. Any of these fails the load. pbtxt-lint runs
    literal auto_complete_config bodies in an emulator (never the code itself).

    Bad:
        max_batch_size: 16     (auto_complete_config: set_max_batch_size(8))
    Good:
        max_batch_size: 8
    """
    outcomes = list(_auto_complete_outcomes(context))
    if not outcomes:
        return
    # deferred: the Python model reader loads with the first model.py (start-up time)
    from pbtxt_lint.artifacts.python_model import Refused

    for artifact, _, outcome in outcomes:
        if not isinstance(outcome, Refused):
            continue
        yield Finding(
            f"auto_complete_config in {shown_path(artifact, context)} fails against this config: "
            f"Triton fails to load '{context.model.name}' with \"{outcome.message}\"",
            file=artifact.opened,
            span=_line(outcome.line),
            hint="make config.pbtxt agree with what auto_complete_config sets (or remove the "
            "conflicting call)",
        )


@rule(
    "PL665",
    "python-auto-complete-overrides",
    INFO,
    "model.py's auto_complete_config changes what config.pbtxt says, or makes the model decoupled.",
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def python_auto_complete_overrides(context: ModelContext) -> Iterator[Finding]:
    """The config Triton serves is config.pbtxt plus what `auto_complete_config` does.
    Filling an empty config is what the function is for; this reports the changes a
    reader of config.pbtxt would not expect: a written max_batch_size raised by
    `set_max_batch_size`, tensors added next to the ones config.pbtxt lists, data types
    or dims filled in for listed tensors, and a decoupled transaction policy (clients
    must then stream).

    Bad:
        max_batch_size: 4      (auto_complete_config: set_max_batch_size(16))
    Good:
        max_batch_size: 16
    """
    config = context.effective
    outcomes = list(_auto_complete_outcomes(context))
    if config is None or not outcomes:
        return
    # deferred: the Python model reader loads with the first model.py (start-up time)
    from pbtxt_lint.artifacts.python_model import Completed

    for artifact, function, outcome in outcomes:
        if not isinstance(outcome, Completed):
            continue
        changes = _overrides(config, outcome)
        if not changes:
            continue
        yield Finding(
            f"auto_complete_config in {shown_path(artifact, context)} {'; '.join(changes)}; "
            f"Triton serves that completed config (see `pbtxt-lint complete "
            f"{context.model.name}`)",
            file=artifact.opened,
            span=_line(function.line),
            hint="write these fields in config.pbtxt so that it shows what Triton serves",
        )


def _overrides(before: ModelConfig, outcome: Completed) -> list[str]:
    """The changes to a written config that its reader would not expect."""
    after = outcome.config
    changes = []
    if "max_batch_size" in outcome.filled and before.max_batch_size > 0:
        changes.append(
            f"raises max_batch_size from {before.max_batch_size} (config.pbtxt) to "
            f"{after.max_batch_size}"
        )
    for kind, old, new in (
        ("input", before.input, after.input),
        ("output", before.output, after.output),
    ):
        if kind not in outcome.filled or not old:
            continue
        listed = {io.name: io for io in old}
        added = [io.name for io in new if io.name not in listed]
        if added:
            changes.append(
                f"adds {kind}{'s' if len(added) > 1 else ''} {', '.join(added)} to the "
                f"{kind}s config.pbtxt lists"
            )
        filled = [
            io.name
            for io in new
            if io.name in listed and io.SerializeToString() != listed[io.name].SerializeToString()
        ]
        if filled:
            changes.append(f"sets data_type/dims of {kind} {', '.join(filled)}")
    if "model_transaction_policy" in outcome.filled and after.model_transaction_policy.decoupled:
        changes.append(
            "makes the model decoupled (clients must use streaming requests, and ensembles "
            "that use it become decoupled)"
        )
    return changes
