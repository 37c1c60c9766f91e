"""The one module a rule imports for its tools (besides the analysis layer and the schema).

A rule reads a typed `ModelContext` and yields `Finding`s; everything it needs to say
so comes from here, so rules do not reach into the layers below one by one (the
import-linter contract "Rules import only the rule API, the analysis layer and the
schema" in pyproject.toml keeps it so):

- declaring a rule: `rule`, `Finding`, the severities (`ERROR`, `WARNING`, `INFO`) and
  stages (`PARSE`, `POLL`, `LOAD`, `INFERENCE`, `NEVER`), `Scope`, `ModelContext`;
- saying where and what: `FieldPath`, `Key`, `Span`, `Fix`, `Edit`, `written`,
  `suggest` (did you mean), `shorten`, `model_label`, `type_name`, `config_dims`;
- facts about Triton: its backends (`BACKENDS`, `backend_of`, the parameter tables),
  its releases (`RELEASES`, `NEWEST`), parameters (`parameter`, `parse_bool`), version
  folders; files inside the repository (`is_inside`, `read_text_file`, `storage`). What
  only one backend's rules read lives in that backend's module, `pbtxt_lint.triton.<backend>`
  (`vllm`, `tensorrtllm`, `fil`, ...), which rules import directly;
- what the model files' readers found: their `Signature`s, and (loaded on first use, so
  a run that reads no such file never imports its reader) the per-format signatures,
  the model.py value flow and the Python runtime's readers (`DEFERRED`). Import those
  inside the function that uses them, or under `TYPE_CHECKING` for annotations.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pbtxt_lint import storage
from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.artifacts.signature import Dim, Signature, TensorSpec
from pbtxt_lint.diagnostics import Edit, Fix, Severity, Span
from pbtxt_lint.echo import shorten
from pbtxt_lint.repository.fs import FsError, is_inside, read_text_file
from pbtxt_lint.repository.layout import CONFIG_NAME, CONFIGS_FOLDER
from pbtxt_lint.rules.base import Check, EffectiveCheck, Finding, Rule, RuleOptions, Stage, rule
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.targets import NEWEST, RELEASES, Release, Version, introduced, newer_name
from pbtxt_lint.textproto.binder import ProblemKind, is_map, is_repeated
from pbtxt_lint.textproto.checks import suggest
from pbtxt_lint.textproto.integers import integer
from pbtxt_lint.textproto.sourcemap import FieldPath, Key
from pbtxt_lint.textproto.tree import Scalar
from pbtxt_lint.triton.autofill import ENSEMBLE_PLATFORM, backend_of, is_ensemble
from pbtxt_lint.triton.backends import (
    BACKENDS,
    IMAGES,
    OPENVINO_BOOL,
    OPENVINO_DEVICE,
    ORT_BOOL,
    ORT_GPU_CHOICES,
    ORT_INT,
    PLATFORMS,
    PYTHON_ENV,
    PYTHON_FORCE_CPU,
    PYTORCH_BOOL,
    PYTORCH_INT,
    TF_BOOL,
    TF_INIT_OPS,
    TF_INT,
    TRT_ALLOCATION,
    HostBackends,
    backend,
    host_backends,
    images_shipping,
    shipped_backends,
)
from pbtxt_lint.triton.parameters import INT32_MAX, INT32_MIN, leading_int, parameter, parse_bool
from pbtxt_lint.triton.versions import SPECIAL_FOLDERS, scan_version_folders

if TYPE_CHECKING:
    from pbtxt_lint.artifacts.elf import ElfInfo, NotElf, read_elf
    from pbtxt_lint.artifacts.model_json import (
        JsonEntry,
        JsonObjectFile,
        json_kind,
        read_json_object,
    )
    from pbtxt_lint.artifacts.onnx_signature import as_served, inference_note
    from pbtxt_lint.artifacts.openvino import OpenVinoSignature
    from pbtxt_lint.artifacts.python_bls_exec import bls_execs
    from pbtxt_lint.artifacts.python_bls_io import BlsRequest, BlsTensor, bls_requests
    from pbtxt_lint.artifacts.python_dlpack import DlpackUse, dlpack_inputs
    from pbtxt_lint.artifacts.python_env import EnvListing, environment_key, list_environment
    from pbtxt_lint.artifacts.python_flow import analyse_flow
    from pbtxt_lint.artifacts.python_imports import ImportScan, ImportUse, scan_imports
    from pbtxt_lint.artifacts.python_initialize import initialize_reads, string_lists
    from pbtxt_lint.artifacts.python_methods import (
        bad_calls,
        load_time_bls,
        model_class,
        non_list_returns,
    )
    from pbtxt_lint.artifacts.python_model import (
        AutoComplete,
        Completed,
        Outcome,
        PythonSignature,
        Refused,
    )
    from pbtxt_lint.artifacts.python_numpy import CONFIG_TO_NUMPY, SENT_AS
    from pbtxt_lint.artifacts.python_packages import ProfileError, read_host_packages
    from pbtxt_lint.artifacts.python_ranges import scaled_tensors
    from pbtxt_lint.artifacts.python_responses import EMPTY_BATCH
    from pbtxt_lint.artifacts.python_sizes import Dims, Size
    from pbtxt_lint.artifacts.python_stdlib import known_versions, stdlib_modules
    from pbtxt_lint.artifacts.python_values import Arr, Flow, InputFacts, ResponseValue
    from pbtxt_lint.artifacts.savedmodel import (
        DEFAULT_SIGNATURE,
        DEFAULT_TAG,
        SavedModelSignature,
    )
    from pbtxt_lint.artifacts.tensorrt import (
        TENSORRT_OF_RELEASE,
        PlanSignature,
        releases_shipping,
        same_release,
    )
    from pbtxt_lint.artifacts.torchscript import ForwardArg, TorchScriptSignature, TorchType
    from pbtxt_lint.triton.python_stub import (
        SECURE_EXTRACTION_SINCE,
        container_modules,
        default_stub_python,
    )

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
PARSE, POLL, LOAD, INFERENCE, NEVER = (
    Stage.PARSE,
    Stage.POLL,
    Stage.LOAD,
    Stage.INFERENCE,
    Stage.NEVER,
)


def type_name(data_type: int) -> str:
    """TYPE_FP32 for a declared data type; the number for an undeclared one (open enum)."""
    return str(DataType.Name(data_type)) if data_type in DataType.values() else str(data_type)


def config_dims(values: Iterable[int]) -> str:
    """Dims as they are written in config.pbtxt: `[ 3, -1 ]`, `[ ]`."""
    items = ", ".join(str(v) for v in values)
    return f"[ {items} ]" if items else "[ ]"


def model_label(model: ModelContext | str) -> str:
    """How a message names a model (a context, or a model's name): `model 'resnet'`."""
    name = model if isinstance(model, str) else model.folder.name
    return f"model '{name}'"


def written(context: ModelContext, path: FieldPath) -> bool:
    """Whether the user wrote this field (as opposed to a default or Triton's fill): a
    written `count: 0` differs from a missing one."""
    parsed = context.parsed
    return parsed is not None and path in parsed.source_map


BATCH_STRATEGY_PATH = "TRITON_BATCH_STRATEGY_PATH"
"""The `parameters` key the core itself reads, for any backend: the path of a custom
batching library (`TritonModel::Create` in core's src/backend_model.cc)."""


TENSORRT_PLATFORM = "tensorrt_plan"
"""The platform of TensorRT engines, the only one with shape tensors, non-linear IO
formats and instance-group profiles (`ValidateModelInput`, `ValidateNonLinearFormatIO`
and `ValidateInstanceGroup` in core's src/model_config_utils.cc compare with it)."""


DEFERRED: dict[str, str] = {
    "ElfInfo": "elf",
    "NotElf": "elf",
    "read_elf": "elf",
    "JsonEntry": "model_json",
    "JsonObjectFile": "model_json",
    "json_kind": "model_json",
    "read_json_object": "model_json",
    "initialize_reads": "python_initialize",
    "string_lists": "python_initialize",
    "as_served": "onnx_signature",
    "inference_note": "onnx_signature",
    "OpenVinoSignature": "openvino",
    "DlpackUse": "python_dlpack",
    "dlpack_inputs": "python_dlpack",
    "EnvListing": "python_env",
    "environment_key": "python_env",
    "list_environment": "python_env",
    "analyse_flow": "python_flow",
    "bls_execs": "python_bls_exec",
    "BlsRequest": "python_bls_io",
    "BlsTensor": "python_bls_io",
    "bls_requests": "python_bls_io",
    "scaled_tensors": "python_ranges",
    "bad_calls": "python_methods",
    "load_time_bls": "python_methods",
    "model_class": "python_methods",
    "non_list_returns": "python_methods",
    "ImportScan": "python_imports",
    "ImportUse": "python_imports",
    "scan_imports": "python_imports",
    "AutoComplete": "python_model",
    "Completed": "python_model",
    "Outcome": "python_model",
    "PythonSignature": "python_model",
    "Refused": "python_model",
    "CONFIG_TO_NUMPY": "python_numpy",
    "SENT_AS": "python_numpy",
    "ProfileError": "python_packages",
    "read_host_packages": "python_packages",
    "EMPTY_BATCH": "python_responses",
    "Dims": "python_sizes",
    "Size": "python_sizes",
    "known_versions": "python_stdlib",
    "stdlib_modules": "python_stdlib",
    "Arr": "python_values",
    "Flow": "python_values",
    "InputFacts": "python_values",
    "ResponseValue": "python_values",
    "DEFAULT_SIGNATURE": "savedmodel",
    "DEFAULT_TAG": "savedmodel",
    "SavedModelSignature": "savedmodel",
    "TENSORRT_OF_RELEASE": "tensorrt",
    "PlanSignature": "tensorrt",
    "releases_shipping": "tensorrt",
    "same_release": "tensorrt",
    "ForwardArg": "torchscript",
    "TorchScriptSignature": "torchscript",
    "TorchType": "torchscript",
    "SECURE_EXTRACTION_SINCE": "triton.python_stub",
    "container_modules": "triton.python_stub",
    "default_stub_python": "triton.python_stub",
}
"""Tools whose module loads on first use, for start-up time: name -> its module under
`pbtxt_lint.artifacts` (or `pbtxt_lint.` + a dotted path with a layer)."""


def __getattr__(name: str) -> object:
    """A `DEFERRED` tool, its module imported on first use."""
    module = DEFERRED.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    package = "pbtxt_lint" if "." in module else "pbtxt_lint.artifacts"
    value = getattr(importlib.import_module(f"{package}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "BACKENDS",
    "BATCH_STRATEGY_PATH",
    "CONFIGS_FOLDER",
    "CONFIG_NAME",
    "CONFIG_TO_NUMPY",
    "DEFAULT_SIGNATURE",
    "DEFAULT_TAG",
    "EMPTY_BATCH",
    "ENSEMBLE_PLATFORM",
    "ERROR",
    "IMAGES",
    "INFERENCE",
    "INFO",
    "INT32_MAX",
    "INT32_MIN",
    "LOAD",
    "NEVER",
    "NEWEST",
    "OPENVINO_BOOL",
    "OPENVINO_DEVICE",
    "ORT_BOOL",
    "ORT_GPU_CHOICES",
    "ORT_INT",
    "PARSE",
    "PLATFORMS",
    "POLL",
    "PYTHON_ENV",
    "PYTHON_FORCE_CPU",
    "PYTORCH_BOOL",
    "PYTORCH_INT",
    "RELEASES",
    "SECURE_EXTRACTION_SINCE",
    "SENT_AS",
    "SPECIAL_FOLDERS",
    "TENSORRT_OF_RELEASE",
    "TENSORRT_PLATFORM",
    "TF_BOOL",
    "TF_INIT_OPS",
    "TF_INT",
    "TRT_ALLOCATION",
    "WARNING",
    "Arr",
    "AutoComplete",
    "BlsRequest",
    "BlsTensor",
    "Check",
    "Completed",
    "DataType",
    "Dim",
    "Dims",
    "DlpackUse",
    "Edit",
    "EffectiveCheck",
    "ElfInfo",
    "EnvListing",
    "FieldPath",
    "Finding",
    "Fix",
    "Flow",
    "ForwardArg",
    "FsError",
    "HostBackends",
    "ImportScan",
    "ImportUse",
    "InputFacts",
    "JsonEntry",
    "JsonObjectFile",
    "Key",
    "ModelConfig",
    "ModelContext",
    "NotElf",
    "OpenVinoSignature",
    "Outcome",
    "PlanSignature",
    "ProblemKind",
    "ProfileError",
    "PythonSignature",
    "Refused",
    "Release",
    "ResponseValue",
    "Rule",
    "RuleOptions",
    "SavedModelSignature",
    "Scalar",
    "Scope",
    "Severity",
    "Signature",
    "Size",
    "Span",
    "Stage",
    "TensorSpec",
    "TorchScriptSignature",
    "TorchType",
    "Version",
    "analyse_flow",
    "as_served",
    "backend",
    "backend_of",
    "bad_calls",
    "bls_execs",
    "bls_requests",
    "config_dims",
    "container_modules",
    "default_stub_python",
    "dlpack_inputs",
    "environment_key",
    "host_backends",
    "images_shipping",
    "inference_note",
    "initialize_reads",
    "integer",
    "introduced",
    "is_ensemble",
    "is_inside",
    "is_map",
    "is_repeated",
    "json_kind",
    "known_versions",
    "leading_int",
    "list_environment",
    "load_time_bls",
    "model_class",
    "model_label",
    "newer_name",
    "non_list_returns",
    "parameter",
    "parse_bool",
    "read_elf",
    "read_host_packages",
    "read_json_object",
    "read_text_file",
    "releases_shipping",
    "rule",
    "same_release",
    "scaled_tensors",
    "scan_imports",
    "scan_version_folders",
    "shipped_backends",
    "shorten",
    "stdlib_modules",
    "storage",
    "string_lists",
    "suggest",
    "type_name",
    "written",
]
