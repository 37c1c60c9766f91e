"""PL800-PL805: the vLLM backend's `model.json`, as vLLM's engine arguments.

vllm_backend's `initialize` asserts that `<model>/<version>/model.json` exists, reads
it with `json.load` and calls `AsyncEngineArgs(**model_json)`: the keys are the
fields of vLLM's dataclass, so the vLLM release the image installs decides which keys
exist (`pbtxt_lint.triton.vllm`). A key it lacks, a file that does not parse, a value
vLLM's config classes refuse: each fails the model's load, often minutes after the
server started, with a Python traceback in the log. With `enable_lora` the backend
also reads `multi_lora.json` beside it.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    RELEASES,
    WARNING,
    Finding,
    JsonEntry,
    ModelContext,
    Scope,
    Severity,
    Span,
    Stage,
    json_kind,
    model_label,
    rule,
    shorten,
    suggest,
)
from pbtxt_lint.rules.backends.vllm_common import (
    BACKEND,
    behaviour,
    engine_args_files,
    parsed_engine_args,
    target_vllm,
)
from pbtxt_lint.triton.vllm import (
    ENGINE_ARGS,
    ENGINE_ARGS_FILE,
    LORA_FILE,
    VLLM_OF_RELEASE,
    arg_kind,
    default_model,
    uses_pydantic,
    versions_with,
)

DTYPES = ("auto", "half", "float16", "bfloat16", "float", "float32")
"""`dtype` values vLLM knows (`_STR_DTYPE_TO_TORCH_DTYPE` and "auto", 0.2 to 0.19)."""
FALSE_WORDS = frozenset({"false", "0", "no", "off", "n", "f"})
MAX_UNKNOWN_KEYS = 20
"""Unknown keys reported one by one; the rest of a file of them in one finding."""


def _at(entry: JsonEntry | None, length: int = 1) -> Span | None:
    return Span.point(entry.line, entry.column, length) if entry is not None else None


@rule(
    "PL800",
    "vllm-model-json-missing",
    ERROR,
    "A vLLM model version without its model.json (the engine arguments).",
    triton="AssertionError: 'model.json' containing vllm engine args must be provided in "
    "'<model>/<version>'",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend=BACKEND,
)
def vllm_model_json_missing(context: ModelContext) -> Iterator[Finding]:
    """The vLLM backend reads its engine arguments from `model.json` in the version
    folder it loads (`pb_utils.get_model_dir()`), whatever `default_model_filename`
    says, and asserts the file exists before it starts vLLM.

    Observed with tritonserver 2.51 and vllm_backend r24.10 (scripts/vllm_live.py):
    `failed to load 'llama' version 1: Internal: AssertionError: 'model.json' containing
    vllm engine args must be provided in '<repository>/llama/1'`.

    Bad:
        vllm_model/config.pbtxt     backend: "vllm"
        vllm_model/1/engine.json
    Good:
        vllm_model/1/model.json     {"model": "facebook/opt-125m"}
    """
    for version, document in engine_args_files(context):
        if document.problem not in ("missing", "unreadable"):
            continue
        folder = f"{context.folder.name}/{version}"
        names = [n for n in (context.folder.contents(str(version)) or {}) if n.endswith(".json")]
        guess = suggest(ENGINE_ARGS_FILE, [n for n in names if n != LORA_FILE], cutoff=0.0)
        if document.problem == "missing":
            problem = f"'{folder}/{ENGINE_ARGS_FILE}' does not exist"
        else:
            problem = f"'{folder}/{ENGINE_ARGS_FILE}' cannot be read ({document.message})"
        yield Finding(
            f"{model_label(context)}: {problem}; the vLLM backend fails the load with "
            f"\"AssertionError: '{ENGINE_ARGS_FILE}' containing vllm engine args must be "
            f"provided in '<repository>/{folder}'\"",
            file=context.folder.path / str(version),
            hint=f"rename '{guess}' to '{ENGINE_ARGS_FILE}'"
            if guess
            else f'write the engine arguments to {folder}/{ENGINE_ARGS_FILE}: {{"model": '
            '"<Hugging Face name or local path>"}',
        )


@rule(
    "PL801",
    "vllm-model-json-invalid",
    ERROR,
    "A vLLM model.json that Python's json module refuses, or that is not a JSON object.",
    triton="JSONDecodeError: Expecting ',' delimiter: line <l> column <c> (char <n>)",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend=BACKEND,
)
def vllm_model_json_invalid(context: ModelContext) -> Iterator[Finding]:
    """The backend reads model.json with `json.load`: comments, trailing commas,
    single quotes and Python literals (`True`, `None`) are JSON syntax errors, and the
    load fails on them. The file must hold one object: its keys become the keyword
    arguments of `AsyncEngineArgs`.

    Observed with tritonserver 2.51 and vllm_backend r24.10 (scripts/vllm_live.py):
    `Internal: JSONDecodeError: Expecting value: line 3 column 22 (char 57)`; an array:
    `Internal: AttributeError: 'list' object has no attribute 'get'`.

    Bad:
        {"model": "facebook/opt-125m", "enforce_eager": True,}
    Good:
        {"model": "facebook/opt-125m", "enforce_eager": true}
    """
    for version, document in engine_args_files(context):
        if document.problem not in ("syntax", "not-an-object", "too-large"):
            continue
        where = f"{context.folder.name}/{version}/{ENGINE_ARGS_FILE}"
        if document.problem == "too-large":
            yield Finding(
                f"{where} is {document.message}, so its engine arguments are not checked",
                file=document.path,
                severity=INFO,
                hint="model.json holds a few engine arguments, not data",
            )
            continue
        if document.problem == "syntax":
            problem = f"{where} is not valid JSON"
            said = f'"{document.message}"'
        else:
            problem = f"{where} holds {document.message} of engine arguments"
            said = "an AttributeError or TypeError (AsyncEngineArgs takes keyword arguments)"
        yield Finding(
            f"{problem}: the vLLM backend fails to load '{context.folder.name}' with {said}",
            file=document.path,
            span=Span.point(document.line, document.column) if document.line else None,
            hint='write one JSON object, {"model": "...", "gpu_memory_utilization": 0.9}: '
            "double quotes, no comments, no trailing commas, true/false/null in lower case",
        )


@rule(
    "PL802",
    "vllm-engine-arg-unknown",
    ERROR,
    "A model.json key that is not an engine argument of the vLLM the image installs.",
    triton="TypeError: AsyncEngineArgs.__init__() got an unexpected keyword argument '<key>'",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend=BACKEND,
)
def vllm_engine_arg_unknown(context: ModelContext) -> Iterator[Finding]:
    """Every key of model.json is passed to `AsyncEngineArgs(**model_json)`, a
    dataclass: a key that is not one of its fields (a typo, a command-line flag
    spelled with dashes, an argument of another vLLM release) fails the load. vLLM
    adds and removes engine arguments between releases (`disable_log_requests` is gone
    from 0.10.1 on, the 25.09 image), so the key is judged against the vLLM of the
    target release (`--triton-version`); without one, against every release
    pbtxt-lint knows, and a key the newest no longer has is reported as info.

    Observed with tritonserver 2.51 and vllm_backend r24.10, AsyncEngineArgs with the
    fields of vLLM 0.5.5 (scripts/vllm_live.py): `Internal: TypeError:
    AsyncEngineArgs.__init__() got an unexpected keyword argument 'gpu_memory_utilisation'`.

    Bad:
        {"model": "facebook/opt-125m", "gpu_memory_utilisation": 0.5}
    Good:
        {"model": "facebook/opt-125m", "gpu_memory_utilization": 0.5}
    """
    target = target_vllm(context)
    accepted = sorted(name for name in ENGINE_ARGS if target.version in versions_with(name))
    for version, document in parsed_engine_args(context):
        where = f"{context.folder.name}/{version}/{ENGINE_ARGS_FILE}"
        unknown = [e for e in document.entries if target.version not in versions_with(e.key)]
        if len(unknown) > MAX_UNKNOWN_KEYS:  # a file of keys that are no engine arguments
            rest = unknown[MAX_UNKNOWN_KEYS:]
            yield Finding(
                f"{where}: {len(rest):,} more keys are no engine argument of "
                f"{target.label} (the first: '{shorten(rest[0].key)}'); the load fails on the "
                "first of them",
                file=document.path,
                span=_at(rest[0], len(rest[0].key) + 2),
                hint="remove the keys that are no engine arguments",
            )
        for entry in unknown[:MAX_UNKNOWN_KEYS]:
            having = versions_with(entry.key)
            severity = ERROR
            guess = suggest(entry.key.replace("-", "_"), accepted, cutoff=0.6)
            if not having:
                which = "no vLLM release pbtxt-lint knows" if not target.known else target.label
                problem = f"{which} has an engine argument '{entry.key}'"
            else:
                span = _releases(having)
                problem = f"{target.label} has no engine argument '{entry.key}' ({span})"
                severity = ERROR if target.known else INFO
            yield Finding(
                f"{where}: {problem}; the backend passes every "
                'key to AsyncEngineArgs, which fails the load with "TypeError: AsyncEngineArgs.'
                f"__init__() got an unexpected keyword argument '{entry.key}'\"",
                file=document.path,
                span=_at(entry, len(entry.key) + 2),
                hint=f"did you mean '{guess}'?"
                if guess
                else "remove the key, or use an "
                "engine argument of that vLLM release (vllm/engine/arg_utils.py, EngineArgs)",
                severity=severity,
            )


def _releases(versions: tuple[str, ...]) -> str:
    """`vLLM 0.2.0 to 0.9.2 have it, in Triton 23.10 to 25.08`."""
    first, last = versions[0], versions[-1]
    text = f"vLLM {first}" + (f" to {last} have it" if last != first else " has it")
    images = [r.container for r in RELEASES if VLLM_OF_RELEASE.get(r.server) in versions]
    if images:
        text += f", in Triton {images[0]}" + (f" to {images[-1]}" if len(images) > 1 else "")
    return text


@rule(
    "PL803",
    "vllm-engine-arg-type",
    WARNING,
    "A model.json value of another JSON type than the engine argument takes.",
    triton="TypeError: '>' not supported between instances of 'str' and 'float'",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend=BACKEND,
)
def vllm_engine_arg_type(context: ModelContext) -> Iterator[Finding]:
    """`AsyncEngineArgs` keeps whatever JSON gives it. vLLM before 0.10.1 never converts
    a value: `"gpu_memory_utilization": "0.5"` stays a string, and the first
    comparison with it fails the load (`TypeError: '>' not supported between instances
    of 'str' and 'float'`); `"enforce_eager": "false"` is a non-empty string, which
    Python treats as true, so the option is turned on. vLLM 0.10.1 on converts such
    strings (pydantic) and refuses values that are no number at all. The backend itself
    reads `tensor_parallel_size` and `pipeline_parallel_size` with `int()`, so a value
    that is not an integer fails every release that checks the instance kind (24.06 on).

    Observed with tritonserver 2.51 and vllm_backend r24.10 (scripts/vllm_live.py):
    `"tensor_parallel_size": "two"` fails the load with `Internal: ValueError: invalid
    literal for int() with base 10: 'two'`.

    Bad:
        {"model": "facebook/opt-125m", "gpu_memory_utilization": "0.5", "enforce_eager": "false"}
    Good:
        {"model": "facebook/opt-125m", "gpu_memory_utilization": 0.5, "enforce_eager": false}
    """
    target = target_vllm(context)
    old = not uses_pydantic(target.version)
    checks_parallel = bool((found := behaviour(context)) and found.multi_gpu_args)
    for version, document in parsed_engine_args(context):
        where = f"{context.folder.name}/{version}/{ENGINE_ARGS_FILE}"
        for entry in document.entries:
            kind = arg_kind(entry.key)
            if (
                kind is None
                or entry.value is None
                or target.version not in versions_with(entry.key)
            ):
                continue
            problem = _type_problem(entry, kind.rstrip("?"), old, checks_parallel)
            if problem is None:
                continue
            text, severity, hint = problem
            yield Finding(
                f"{where}: '{entry.key}' is {shorten(repr(entry.value))}; {text}",
                file=document.path,
                span=_at(entry, len(entry.key) + 2),
                hint=hint,
                severity=severity,
            )


def _type_problem(
    entry: JsonEntry, kind: str, old: bool, checks_parallel: bool
) -> tuple[str, Severity, str] | None:
    """(why, severity, hint) when `entry.value` does not fit `kind`, else None."""
    value = entry.value
    if kind == "bool" and isinstance(value, str):
        if value.strip().lower() not in FALSE_WORDS:
            return None  # a true-like string reads as true everywhere
        why = "a non-empty string is true to Python, so vLLM before 0.10.1 turns the option on"
        return why, WARNING if old else INFO, f'write "{entry.key}": false (a JSON boolean)'
    if kind in ("int", "float") and not isinstance(value, bool):
        if isinstance(value, int | float) and (kind == "float" or isinstance(value, int)):
            return None
        wanted = "an integer" if kind == "int" else "a number"
        numeric = isinstance(value, str) and _is_number(value, kind)
        parallel = entry.key in ("tensor_parallel_size", "pipeline_parallel_size")
        if (
            parallel
            and checks_parallel
            and not (isinstance(value, str) and _is_number(value, "int"))
        ):
            why = (
                f"the vLLM backend reads it with int() before vLLM starts, and {wanted} is "
                "needed: the load fails with a ValueError or TypeError"
            )
            return why, ERROR, f'write "{entry.key}": 2 (a JSON number)'
        if numeric and not old:
            return None  # pydantic converts "0.5" to 0.5
        why = (
            f"vLLM expects {wanted}; before 0.10.1 it keeps the string and the load fails at "
            "the first comparison with it (TypeError); 0.10.1 on converts it"
            if numeric
            else f"vLLM expects {wanted}, and the load fails when vLLM uses it"
        )
        return why, WARNING, f'write it as a JSON number: "{entry.key}": {_example(value, kind)}'
    if kind == "str" and not isinstance(value, str):
        return (
            f"vLLM expects a string, not a JSON {json_kind(value)}",
            WARNING,
            f'quote it: "{entry.key}": "{value}"',
        )
    if kind in ("list", "dict") and not isinstance(value, list if kind == "list" else dict):
        wanted = "an array" if kind == "list" else "an object"
        return f"vLLM expects {wanted}, not a JSON {json_kind(value)}", WARNING, f"write {wanted}"
    return None


def _is_number(text: str, kind: str) -> bool:
    try:
        int(text) if kind == "int" else float(text)
    except ValueError:
        return False
    return True


def _example(value: object, kind: str) -> str:
    if isinstance(value, str) and _is_number(value, kind):
        return value.strip()
    return "1" if kind == "int" else "0.9"


@rule(
    "PL804",
    "vllm-engine-arg-value",
    ERROR,
    "A model.json value vLLM refuses: gpu_memory_utilization outside (0, 1], a parallel "
    "size below 1, an unknown dtype.",
    triton="ValueError: GPU memory utilization must be less than 1.0. Got <value>.",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend=BACKEND,
)
def vllm_engine_arg_value(context: ModelContext) -> Iterator[Finding]:
    """vLLM checks some engine arguments when it builds its configs, and the load
    fails: `gpu_memory_utilization` is the fraction of each GPU's memory vLLM takes
    (above 1: "GPU memory utilization must be less than 1.0"; 0 or less leaves no
    memory for the KV cache, and vLLM 0.10.1 on refuses it outright);
    `tensor_parallel_size` and `pipeline_parallel_size` count GPUs (at least 1);
    `dtype` is one of auto, half, float16, bfloat16, float, float32 ("Unknown dtype").

    Bad:
        {"model": "facebook/opt-125m", "gpu_memory_utilization": 90}
    Good:
        {"model": "facebook/opt-125m", "gpu_memory_utilization": 0.9}
    """
    for version, document in parsed_engine_args(context):
        for entry in document.entries:
            problem = _value_problem(entry)
            if problem is None:
                continue
            text, hint = problem
            yield Finding(
                f"{context.folder.name}/{version}/{ENGINE_ARGS_FILE}: {text}; the model fails to "
                "load",
                file=document.path,
                span=_at(entry, len(entry.key) + 2),
                hint=hint,
            )


def _value_problem(entry: JsonEntry) -> tuple[str, str] | None:
    value = entry.value
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if entry.key == "gpu_memory_utilization" and number is not None:
        if number > 1:
            return (
                f"gpu_memory_utilization is {number}, a fraction of the GPU's memory above 1 "
                f'(vLLM: "GPU memory utilization must be less than 1.0. Got {number}.")',
                f"write a fraction: {number / 100:g}" if number <= 100 else "write 0.9",
            )
        if number <= 0:
            return (
                f"gpu_memory_utilization is {number}, which leaves vLLM no GPU memory for its "
                "KV cache",
                "write a fraction above 0: 0.9 (the default)",
            )
    if entry.key in ("tensor_parallel_size", "pipeline_parallel_size") and number is not None:
        if number < 1:
            return f"{entry.key} is {number}, but it counts GPUs (at least 1)", "write 1 or more"
    if entry.key == "dtype" and isinstance(value, str) and value not in DTYPES:
        guess = suggest(value.lower(), DTYPES, cutoff=0.5)
        return (
            f'dtype "{shorten(value)}" is not one vLLM knows (vLLM: "Unknown dtype: {value}")',
            f'did you mean "{guess}"?' if guess else f"use one of {', '.join(DTYPES)}",
        )
    return None


@rule(
    "PL805",
    "vllm-model-unnamed",
    WARNING,
    'A model.json without "model": vLLM loads its default model (or, before 0.5.5, fails).',
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend=BACKEND,
)
def vllm_model_unnamed(context: ModelContext) -> Iterator[Finding]:
    """`model` names the Hugging Face model or the local folder vLLM serves. Without it
    vLLM 0.5.5 to 0.9 load facebook/opt-125m and later releases Qwen/Qwen3-0.6B: the
    model loads, and every answer comes from that small default model. Before 0.5.5
    the argument is required, and the load fails ("missing 1 required positional
    argument: 'model'").

    Bad:
        {"gpu_memory_utilization": 0.9, "tensor_parallel_size": 1}
    Good:
        {"model": "meta-llama/Llama-3.1-8B-Instruct", "gpu_memory_utilization": 0.9}
    """
    target = target_vllm(context)
    default = default_model(target.version)
    for version, document in parsed_engine_args(context):
        if document.get("model") is not None:
            continue
        if not default:
            text = (
                f'{target.label} requires it, and the load fails with "TypeError: '
                "AsyncEngineArgs.__init__() missing 1 required positional argument: 'model'\""
            )
            severity = ERROR
        else:
            text = (
                f"{target.label} then serves its default model {default}, so every answer "
                "comes from that model"
            )
            severity = WARNING
        yield Finding(
            f'{context.folder.name}/{version}/{ENGINE_ARGS_FILE} names no "model"; {text}',
            file=document.path,
            span=Span.point(1, 1),
            hint='add "model": "<Hugging Face name or local path>"',
            severity=severity,
        )
