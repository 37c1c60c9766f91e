"""PL888-PL889: the FIL backend's model file and tensors.

FIL opens `<version>/<default_model_filename>`, or without one the file its model_type
implies (`RapidsModel::model_file` in fil_backend's src/model.h), and loads it with
Treelite's reader for that format (src/tl_utils.h `load_tl_base_model`). Every request
reads the input `input__0` as FP32 and writes `output__0` (and `treeshap_output`) as
FP32 in shapes taken from the config (`RapidsModel::predict`; rapids-triton
api/execute.hpp).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pbtxt_lint.rules.api import (
    ERROR,
    WARNING,
    Finding,
    ModelConfig,
    ModelContext,
    Scope,
    Stage,
    config_dims,
    is_inside,
    model_label,
    parameter,
    rule,
    type_name,
)
from pbtxt_lint.rules.features.common import is_file
from pbtxt_lint.triton.fil import DEFAULT_MODEL_TYPE, MODEL_FILES

INPUT, OUTPUT, SHAP = "input__0", "output__0", "treeshap_output"


_FORMATS = {
    "lightgbm": "a LightGBM text model",
    "xgboost_json": "an XGBoost JSON model",
    "xgboost_ubj": "an XGBoost UBJSON model",
}


def _looks_like(head: bytes) -> str | None:
    """The model_type a file's first bytes show, when they show one clearly."""
    text = head.lstrip()
    if text.startswith(b"tree\n") or text.startswith(b"tree\r\n"):
        return "lightgbm"
    if text[:1] == b"{" and text[1:2] in (b'"', b"\n", b"\r", b" ", b"\t", b"}"):
        return "xgboost_json"
    if head[:1] == b"{" and head[1:2] in (b"i", b"U", b"I", b"l", b"L", b"$", b"#"):
        return "xgboost_ubj"
    return None


@rule(
    "PL888",
    "fil-model-file-missing",
    ERROR,
    "The model file FIL opens for model_type is missing, or holds another format.",
    triton="<Treelite's error: the model file cannot be opened or parsed>",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend="fil",
    effective=True,
)
def fil_model_file_missing(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """Without default_model_filename FIL opens the file its model_type names in the
    version folder: xgboost.model (model_type xgboost, the default: XGBoost's legacy
    binary), xgboost.json, xgboost.ubj, model.txt (lightgbm) or checkpoint.tl. An XGBoost
    model saved as JSON but served with the default model_type is not found, and one
    whose contents are another format than model_type says does not parse.

    Bad:
        parameters { key: "model_type" value: { string_value: "xgboost" } }
        1/xgboost.json
    Good:
        parameters { key: "model_type" value: { string_value: "xgboost_json" } }
        1/xgboost.json
    """
    if config.backend != "fil":
        return
    model_type = parameter(config, "model_type") or DEFAULT_MODEL_TYPE
    if model_type not in MODEL_FILES:
        return  # PL887
    expected = MODEL_FILES[model_type]
    name = context.folder.name
    for version in context.selection.versions:
        folder = context.folder.path / str(version)
        path = folder / config.default_model_filename if config.default_model_filename else folder
        if is_inside(context.repository.root, path) and path.is_dir():  # never stat outside
            path = path / expected
        try:
            shown = path.relative_to(context.folder.path).as_posix()
        except ValueError:  # an absolute default_model_filename
            shown = path.as_posix()
        if not is_file(context, path):
            present = [t for t, f in MODEL_FILES.items() if is_file(context, folder / f)]
            hint = (
                f'set model_type "{present[0]}" (the folder has {MODEL_FILES[present[0]]})'
                if present
                else f"put the model at {name}/{shown}"
            )
            yield Finding(
                f"FIL opens {shown} for model_type '{model_type}' of '{name}', which does not "
                "exist, so the model fails to load",
                file=folder if folder.is_dir() else context.folder.path,
                hint=hint,
            )
            continue
        shown_type = _looks_like(_head(path))
        if (
            shown_type is not None
            and shown_type != model_type
            and not (model_type == "xgboost_ubj" and shown_type == "xgboost_json")
        ):
            yield Finding(
                f"{name}/{shown} looks like {_FORMATS[shown_type]}, but model_type is "
                f"'{model_type}', whose reader cannot parse it: '{name}' fails to load",
                file=path,
                hint=f'set model_type "{shown_type}"',
            )


def _head(path: Path) -> bytes:
    from pbtxt_lint.rules.api import storage

    try:
        return storage.read_head(path, 16)
    except OSError:
        return b""


@rule(
    "PL889",
    "fil-tensor-contract",
    WARNING,
    "A FIL input or output that is not input__0 / output__0 in FP32, or an output dim of -1: "
    "every request fails or answers FP32.",
    triton="incorrect type <TYPE> for input with required type FP32 / No output with name "
    "output__0 in configuration. / Backends with variable-shape outputs must request desired "
    "output shape",
    backend="fil",
    effective=True,
)
def fil_tensor_contract(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """FIL reads the features from the input named `input__0` as FP32 and writes its
    predictions to `output__0` (and SHAP values to `treeshap_output`) as FP32, sized from
    the config's dims (a -1 is allowed only as the first, batch, dim). Other names or types
    load fine and then fail every request, or answer FP32 where the config promises
    another type.

    Bad:
        input [ { name: "features" data_type: TYPE_FP64 dims: [ 32 ] } ]
    Good:
        input [ { name: "input__0" data_type: TYPE_FP32 dims: [ 32 ] } ]
    """
    if config.backend != "fil":
        return
    name = context.folder.name
    inputs = {t.name: i for i, t in enumerate(config.input)}
    if config.input and INPUT not in inputs:
        yield Finding(
            f"FIL {model_label(name)} has no input named {INPUT}; FIL reads its features from "
            f"{INPUT}, so every request fails",
            at=("input", 0, "name"),
            hint=f'name the input "{INPUT}"',
        )
    elif INPUT in inputs and type_name(config.input[inputs[INPUT]].data_type) != "TYPE_FP32":
        written = type_name(config.input[inputs[INPUT]].data_type)
        yield Finding(
            f"input {INPUT} of FIL {model_label(name)} is {written}; FIL reads it as FP32 and "
            "fails "
            f'every request ("incorrect type {written.removeprefix("TYPE_")} for input with '
            'required type FP32")',
            at=("input", inputs[INPUT], "data_type"),
            hint="data_type: TYPE_FP32 (convert the features before sending them)",
        )
    outputs = {t.name for t in config.output}
    if config.output and OUTPUT not in outputs:
        yield Finding(
            f'FIL {model_label(name)} has no output named {OUTPUT}; every request fails ("No '
            f'output with name {OUTPUT} in configuration.")',
            at=("output", 0, "name"),
            hint=f'name the output "{OUTPUT}"',
        )
    for index, tensor in enumerate(config.output):
        if tensor.name not in (OUTPUT, SHAP):
            continue
        written = type_name(tensor.data_type)
        if tensor.data_type and written != "TYPE_FP32":
            yield Finding(
                f"output {tensor.name} of FIL {model_label(name)} is {written}, but FIL always "
                "answers FP32: clients get FP32 data",
                at=("output", index, "data_type"),
                hint="data_type: TYPE_FP32",
            )
        dims = list(tensor.reshape.shape if tensor.HasField("reshape") else tensor.dims)
        if -1 in dims[1:]:
            yield Finding(
                f"output {tensor.name} of FIL {model_label(name)} has dims "
                f"{config_dims(dims)}; FIL "
                'sizes outputs from the config and fails every request on a -1 ("Backends '
                'with variable-shape outputs must request desired output shape")',
                at=("output", index, "dims"),
                hint="write the number of values per sample (1, or the number of classes with "
                "predict_proba)",
            )
