"""How the TensorRT-LLM backend, its Python runtime and its Python models read a
parameter's value, and the findings of PL826 (what each wrong value becomes).

The C++ backend converts with `ModelState::GetParameter<T>` (std::stoi/stof, the exact
boolean spellings); the Python runtime with `read_parameter_as_type` (int(), float(),
`value.lower() in ["1", "true"]`); the preprocessing, postprocessing and BLS models
each with their own list of spellings. Placeholders (`${...}`) and empty values are
left to PL827/PL828: the code treats them as unset.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import WARNING, Finding, Stage, shorten, suggest
from pbtxt_lint.rules.backends.tensorrtllm_common import Pipeline, value_path
from pbtxt_lint.triton.tensorrtllm import (
    BOOL_FALSE,
    BOOL_TRUE,
    CPP_PARAMETERS,
    PYTHON_PARAMETERS,
    Parameter,
    cpp_parameters,
    is_placeholder,
    read_float,
    read_int,
    read_int_lists,
    read_ints,
)

__all__ = [
    "cpp_value_problems",
    "python_model_value_problems",
    "python_runtime_value_problems",
]

_INT32 = (-(2**31), 2**31 - 1)
_CHOICES_PY = {
    "gpt_model_type": ("v1", "inflight_batching", "inflight_fused_batching"),
    "batch_scheduler_policy": ("max_utilization", "guaranteed_no_evict"),
    "decoding_mode": ("auto", "top_k", "top_p", "top_k_top_p", "beam_search", "medusa",
                      "redrafter", "lookahead", "eagle"),
}  # fmt: skip
"""tensorrt_llm/1/model.py: convert_batching_type and convert_scheduler_policy compare
lower-cased values, convert_decoding_mode the value as written."""
_PY_TYPES = {"int": int, "uint": int, "float": float}


def _values(found: Pipeline) -> Iterator[tuple[str, str]]:
    """(key, value) of the parameters with a real value (not empty, not `${...}`)."""
    for key, entry in found.config.parameters.items():
        value = entry.string_value
        if value and not is_placeholder(value):
            yield key, value


def cpp_value_problems(found: Pipeline) -> Iterator[Finding]:
    read = cpp_parameters(found.version)
    mode = found.value("decoding_mode") or ""
    for key, value in _values(found):
        parameter = read.get(key)
        if parameter is None:
            continue
        if parameter.choices:
            yield from _cpp_choice(found, parameter, value)
            continue
        unreadable, out_of_range, check = _cpp_read(parameter, value)
        if out_of_range:
            yield Finding(
                f"parameter {key} of {found.label} is {value!r}, {out_of_range}: the instance "
                f'fails to load with "[TensorRT-LLM][ERROR] Assertion failed: {check}"',
                at=value_path(key),
                hint=_range_hint(parameter),
            )
        elif unreadable and (parameter.kind != "int_lists" or (mode and key.startswith(mode))):
            yield Finding(
                f"parameter {key} of {found.label} is {shorten(value)!r}, which "
                f"{unreadable}: the backend logs that {key} is not specified and uses the "
                f"default ({parameter.default}), so the value written has no effect",
                at=value_path(key),
                hint=_read_hint(parameter),
                severity=WARNING,
                stage=Stage.NEVER,
            )


def _cpp_read(parameter: Parameter, value: str) -> tuple[str, str, str]:
    """(why the backend cannot read `value`, why the executor refuses it, the check it
    fails); "" where it does not."""
    kind, check = parameter.kind, parameter.check
    if kind == "bool":
        if value in BOOL_TRUE or value in BOOL_FALSE:
            return "", "", ""
        why = f'is not a boolean it reads ("Cannot convert {shorten(value)} to a boolean.")'
        return why, "", ""
    if kind in ("int", "uint"):
        number = read_int(value)
        if number is None or (kind == "int" and not _INT32[0] <= number <= _INT32[1]):
            return "std::stoi cannot read as a whole number", "", ""
        return "", _below_minimum(parameter, number), check
    if kind == "float":
        real = read_float(value)
        if real is None:
            return "std::stof cannot read as a number", "", ""
        if parameter.above is not None and not parameter.above < real:
            return "", f"read as {real:g}, not above {parameter.above:g}", f"{check} > 0.F"
        if parameter.below is not None and not real < parameter.below:
            why = f"read as {real:g}, not below {parameter.below:g} (the bound is excluded)"
            return "", why, f"{check} < 1.F"
        return "", "", ""
    if kind == "ints":
        numbers = read_ints(value)
        if numbers is None:
            return "is not a comma-separated list of whole numbers", "", ""
        return "", _below_minimum(parameter, min(numbers)), check
    if kind == "int_lists" and read_int_lists(value) is None:
        return "is not a list of {a, b} groups of whole numbers", "", ""
    if kind == "devices" and any(read_ints(group) is None for group in value.split(";")):
        return "is not a ;-separated list of comma-separated device ids", "", ""
    return "", "", ""


def _below_minimum(parameter: Parameter, number: int) -> str:
    if parameter.minimum is not None and number < parameter.minimum:
        least = int(parameter.minimum)
        return f"read as {number}, below the least value the executor takes ({least})"
    return ""


def _cpp_choice(found: Pipeline, parameter: Parameter, value: str) -> Iterator[Finding]:
    if value in parameter.choices:
        return
    key = parameter.key
    choices = ", ".join(parameter.choices)
    guess = suggest(value, parameter.choices, cutoff=0.6)
    hint = f'write "{guess}"' if guess else f"write one of: {choices}"
    if key == "gpt_model_type":
        yield Finding(
            f"parameter gpt_model_type of {found.label} is {shorten(value)!r}: the backend "
            'fails the load with "Invalid gpt_model_type. Must be '
            'v1/inflight_batching/inflight_fused_batching." (it takes V1, v1, '
            "inflight_batching or inflight_fused_batching, case-sensitively)",
            at=value_path(key),
            hint=hint,
        )
    elif key == "guided_decoding_backend":
        if found.usable("xgrammar_tokenizer_info_path"):
            yield Finding(
                f"parameter guided_decoding_backend of {found.label} is {shorten(value)!r} "
                "while xgrammar_tokenizer_info_path is set: the backend fails the load with "
                "\"Guided decoding is currently supported with 'xgrammar' backend. Invalid "
                'guided_decoding_backend parameter provided."',
                at=value_path(key),
                hint='write "xgrammar", or leave both guided-decoding parameters empty',
            )
    else:
        later = [p for p in CPP_PARAMETERS if p.key == key and value in p.choices]
        release = f" on {found.release}" if later and found.release else ""
        yield Finding(
            f"parameter {key} of {found.label} is {shorten(value)!r}, which the backend does "
            f"not accept{release} (it takes {choices}): it logs that the value is invalid and "
            f"uses the default ({parameter.default})",
            at=value_path(key),
            hint=hint,
            severity=WARNING,
            stage=Stage.NEVER,
        )


def _range_hint(parameter: Parameter) -> str:
    if parameter.below is not None:
        return f"write a fraction strictly between {parameter.above:g} and {parameter.below:g}"
    return f"write {int(parameter.minimum or 0)} or more, or delete the parameter for the default"


def _read_hint(parameter: Parameter) -> str:
    return {
        "bool": 'write "true" or "false"',
        "float": 'write a decimal number, e.g. "0.9"',
        "ints": 'write comma-separated whole numbers, e.g. "4096"',
        "int_lists": 'write groups of whole numbers, e.g. "{0}, {0, 0}, {1}"',
        "devices": 'write device ids, e.g. "0,1" (";" between instances)',
    }.get(parameter.kind, 'write a whole number, e.g. "4"')


def python_runtime_value_problems(found: Pipeline) -> Iterator[Finding]:
    kinds = {p.key: p for p in CPP_PARAMETERS}
    for key, value in _values(found):
        parameter = kinds.get(key)
        if parameter is None:
            continue
        choices = _CHOICES_PY.get(key)
        compared = value if key == "decoding_mode" else value.lower()
        if choices is not None and compared not in choices:
            yield Finding(
                f"parameter {key} of {found.label} is {shorten(value)!r}: its model.py fails the "
                f"load with \"{key} value of '{value}' is not supported.\" (it takes "
                f"{', '.join(choices)})",
                at=value_path(key),
                hint=f"write one of: {', '.join(choices)}",
            )
        elif key == "enable_trt_overlap" and value.lower() in ("1", "true"):
            yield Finding(
                f"parameter enable_trt_overlap of {found.label} is {value!r}: its model.py fails "
                'the load with "enable_trt_overlap=true is not supported."',
                at=value_path(key),
                hint='delete it, or write "false"',
            )
        elif key == "gpu_device_ids" and not all(_python_reads(i, int) for i in value.split(",")):
            yield Finding(
                f"parameter gpu_device_ids of {found.label} is {shorten(value)!r}: its model.py "
                "reads int() of each comma-separated item and fails the load with ValueError",
                at=value_path(key),
                hint='write comma-separated device ids, e.g. "0,1"',
            )
        elif parameter.kind == "bool" and value.lower() not in ("1", "true", "0", "false"):
            yield Finding(
                f"parameter {key} of {found.label} is {shorten(value)!r}: its model.py reads every "
                "value but 1 or true as false, so this is false",
                at=value_path(key),
                hint='write "true" or "false"',
                severity=WARNING,
                stage=Stage.NEVER,
            )
        elif parameter.kind in _PY_TYPES and not _python_reads(value, _PY_TYPES[parameter.kind]):
            yield Finding(
                f"parameter {key} of {found.label} is {shorten(value)!r}, which "
                f'{_PY_TYPES[parameter.kind].__name__}() cannot read: its model.py logs "Could '
                f"not read parameter '{key}' with value '{shorten(value)}', will use default.\"",
                at=value_path(key),
                hint=_read_hint(parameter),
                severity=WARNING,
                stage=Stage.NEVER,
            )


def _python_reads(value: str, kind: type) -> bool:
    try:
        kind(value)
    except ValueError:
        return False
    return True


def python_model_value_problems(found: Pipeline) -> Iterator[Finding]:
    for parameter in PYTHON_PARAMETERS.get(found.role, ()):
        value = found.value(parameter.key)
        if not value or is_placeholder(value) or not parameter.accepted:
            continue
        if value.lower() in parameter.accepted:
            continue
        yield Finding(
            f"parameter {parameter.key} of {found.label} is {shorten(value)!r}, a spelling its "
            f"model.py does not recognise: it uses {parameter.default} instead",
            at=value_path(parameter.key),
            hint='write "true" or "false"',
            severity=WARNING,
            stage=Stage.NEVER,
        )
