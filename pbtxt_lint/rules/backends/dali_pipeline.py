"""PL890-PL891: the DALI backend's pipeline file and parameters.

DALI loads `<version>/<default_model_filename>` (model.dali), a serialized pipeline, and
falls back to `<version>/dali.py`, which it serializes by running it
(`DaliModel::LoadModel` in dali_backend's src/dali_model.h); it reads `num_threads`
with `std::stoi` and `split_along_outer_axis` as a ':'-separated list of outputs
(src/parameters.h `ModelParameters`).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    Finding,
    Key,
    ModelContext,
    Scope,
    Stage,
    parameter,
    rule,
    suggest,
)
from pbtxt_lint.rules.features.common import INT_HINT, int_problem, is_file

DEFAULT_PIPELINE, FALLBACK_PIPELINE = "model.dali", "dali.py"
SPLIT = "split_along_outer_axis"


@rule(
    "PL890",
    "dali-pipeline-missing",
    ERROR,
    "A DALI model version without its pipeline: neither model.dali (or default_model_filename) "
    "nor dali.py.",
    triton="Failed to load model file. The program looked in the following locations: "
    "<version>/model.dali, <version>/dali.py. Please make sure that the model exists in any of "
    "the locations and is properly serialized or can be properly serialized.",
    stage=Stage.LOAD,
    scope=Scope.FILES,
    backend="dali",
)
def dali_pipeline_missing(context: ModelContext) -> Iterator[Finding]:
    """DALI looks for the serialized pipeline at `<version>/model.dali` (or
    default_model_filename), then for `<version>/dali.py`, a pipeline definition it
    serializes at load; with neither, the model fails to load. A pipeline saved in the
    model folder instead of the version folder is not found.

    Bad:
        dali_preprocess/model.dali
    Good:
        dali_preprocess/1/model.dali
    """
    config = context.effective
    if config is None or config.backend != "dali":
        return
    filename = config.default_model_filename or DEFAULT_PIPELINE
    name = context.model.name
    for version in context.selection.versions:
        folder = context.model.path / str(version)
        if is_file(context, folder / filename) or is_file(context, folder / FALLBACK_PIPELINE):
            continue
        loose = [
            f for f in (filename, FALLBACK_PIPELINE) if is_file(context, context.model.path / f)
        ]
        yield Finding(
            f"version {version} of DALI model '{name}' has neither {version}/{filename} nor "
            f"{version}/{FALLBACK_PIPELINE}, so the model fails to load"
            + (f" ({loose[0]} is in the model folder, not in '{version}/')" if loose else ""),
            file=folder if folder.is_dir() else context.model.path,
            hint=f"move {loose[0]} into {name}/{version}/"
            if loose
            else "serialize the "
            f"pipeline to {name}/{version}/{filename} (pipe.serialize(filename=...)), or put "
            f"its definition in {name}/{version}/{FALLBACK_PIPELINE}",
        )


@rule(
    "PL891",
    "dali-parameter-invalid",
    ERROR,
    "A DALI num_threads that is not a number, or a split_along_outer_axis naming no output.",
    triton="DALI Backend error: stoi",
    stage=Stage.LOAD,
    backend="dali",
)
def dali_parameter_invalid(context: ModelContext) -> Iterator[Finding]:
    """`num_threads` is read with `std::stoi`: a value that is not a number fails the load.
    `split_along_outer_axis` lists outputs separated by ':'; a name that is not an output
    is silently never split (info).

    Bad:
        parameters { key: "num_threads" value: { string_value: "auto" } }
    Good:
        parameters { key: "num_threads" value: { string_value: "4" } }
    """
    config = context.effective
    if config is None or config.backend != "dali":
        return
    name = context.model.name
    threads = parameter(config, "num_threads")
    problem = int_problem(threads) if threads is not None else None
    if problem:
        yield Finding(
            f"parameter num_threads of DALI model '{name}': {problem}; DALI fails the load "
            '("DALI Backend error: stoi")',
            at=("parameters", Key("num_threads"), "value", "string_value"),
            hint=INT_HINT,
        )
    split = parameter(config, SPLIT)
    outputs = [t.name for t in config.output]
    if not split or not outputs:
        return
    for item in split.split(":"):
        if item and item not in outputs:
            guess = suggest(item, outputs)
            separator = " (the list is separated by ':')" if "," in item or ";" in item else ""
            yield Finding(
                f"{SPLIT} of DALI model '{name}' names '{item}', which is not an "
                f"output{separator}: DALI never splits it",
                at=("parameters", Key(SPLIT), "value", "string_value"),
                hint=f"write '{guess}'"
                if guess
                else f"list outputs of the model: {', '.join(outputs)}",
                severity=INFO,
            )
