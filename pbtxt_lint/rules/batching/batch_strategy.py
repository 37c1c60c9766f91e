"""PL312-PL313: a custom batching strategy (TRITON_BATCH_STRATEGY_PATH).

The core reads the parameter when it creates the model (`TritonModel::Create` in
core's src/backend_model.cc): it is refused with sequence batching, and the library
must be a file inside the model folder.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    BATCH_STRATEGY_PATH,
    ERROR,
    WARNING,
    FieldPath,
    Finding,
    Key,
    ModelConfig,
    ModelContext,
    Stage,
    is_inside,
    model_label,
    rule,
)


@rule(
    "PL312",
    "batch-strategy-with-sequence",
    ERROR,
    "TRITON_BATCH_STRATEGY_PATH on a model with sequence batching.",
    triton="TRITON_BATCH_STRATEGY_PATH cannot be specified with sequence batcher, using "
    "default batching strategy",
    stage=Stage.LOAD,
    effective=True,
)
def batch_strategy_with_sequence_batching(
    context: ModelContext, config: ModelConfig
) -> Iterator[Finding]:
    """A custom batching strategy plugs into the dynamic batcher only. Despite its
    wording ("using default batching strategy"), Triton's message is an error: the
    model fails to load.

    Bad:
        sequence_batching { }
        parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/m/lib.so" } }
    Good:
        sequence_batching { }
    """
    if not config.HasField("sequence_batching"):
        return
    if BATCH_STRATEGY_PATH in config.parameters:
        yield Finding(
            f"{model_label(context)} uses sequence_batching and sets the "
            f"{BATCH_STRATEGY_PATH} parameter; Triton fails to load it, although its message "
            "says it is 'using default batching strategy'",
            at=("parameters", Key(BATCH_STRATEGY_PATH)),
            hint=f"remove the {BATCH_STRATEGY_PATH} parameter (custom strategies only apply to "
            "dynamic_batching)",
        )


def _strategy_candidates(model: str, value: str) -> list[tuple[str, ...]] | None:
    """Where an absolute strategy path lands relative to the model folder.

    The server's model folder is `<repository>/<model>`, so a path inside it has a
    `<model>` segment; each such segment gives one candidate (the parts after it).
    None: the path has no such segment and is outside the model folder.
    """
    parts = posixpath.normpath(value).split("/")
    candidates = [tuple(parts[i + 1 :]) for i, part in enumerate(parts) if part == model]
    return [c for c in candidates if c] or None


@rule(
    "PL313",
    "batch-strategy-path",
    ERROR,
    "TRITON_BATCH_STRATEGY_PATH outside the model folder or not found.",
    triton="Batching library path escapes model repository. / Batching library path not "
    "found: <path>",
    stage=Stage.LOAD,
    effective=True,
)
def batch_strategy_path(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The custom batching library must be a file inside the model's folder; Triton
    opens the path as given, so a relative path is resolved against the server's
    working directory, not the model folder. pbtxt-lint maps an absolute path onto the
    repository through the model's folder name (`/models/m/lib.so` is `m/lib.so`).

    Bad:
        parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/opt/lib.so" } }
    Good:
        parameters { key: "TRITON_BATCH_STRATEGY_PATH" value { string_value: "/models/m/lib.so" } }
    """
    if config.HasField("sequence_batching"):
        return
    if BATCH_STRATEGY_PATH not in config.parameters:
        return
    value = config.parameters[BATCH_STRATEGY_PATH].string_value
    name = context.folder.name
    at: FieldPath = ("parameters", Key(BATCH_STRATEGY_PATH), "value", "string_value")
    if not value:
        yield Finding(
            f"{BATCH_STRATEGY_PATH} of {model_label(name)} is empty; Triton fails to load "
            "the model with 'Batching library path not found'",
            at=at,
            hint=f"give the absolute path of the library inside the model folder, or remove "
            f"the {BATCH_STRATEGY_PATH} parameter",
        )
        return
    if not value.startswith("/"):
        yield Finding(
            f"{BATCH_STRATEGY_PATH} '{value}' of {model_label(name)} is relative: Triton "
            "resolves it against the server's working directory, not the model folder, so "
            "whether the library is found depends on where tritonserver is started",
            at=at,
            hint=f"use the absolute path the library has on the server, e.g. "
            f"/models/{name}/{posixpath.basename(value)}",
            severity=WARNING,
        )
        return
    candidates = _strategy_candidates(name, value)
    if candidates is None:
        yield Finding(
            f"{BATCH_STRATEGY_PATH} '{value}' of {model_label(name)} is outside the model folder; "
            "current Triton releases refuse a batching library that escapes the model "
            "repository and fail to load the model",
            at=at,
            hint="copy the library into the model folder and give its path there "
            f"(<repository path on the server>/{name}/<library>.so)",
        )
        return
    if context.settings.config_only:
        return  # the library itself is a file beside the config: not read
    model_root = context.folder.path.resolve()
    located = [context.folder.path.joinpath(*parts) for parts in candidates]
    inside = [path for path in located if is_inside(model_root, path)]
    if any(path.is_file() for path in inside):
        return
    if not inside:
        yield Finding(
            f"{BATCH_STRATEGY_PATH} '{value}' of {model_label(name)} leads outside the "
            "model folder (through '..' or a symlink); current Triton releases refuse a batching "
            "library that escapes the model repository and fail to load the model",
            at=at,
            hint="put the library itself (not a link to it) inside the model folder",
        )
        return
    shown = inside[0].relative_to(context.folder.repository)
    yield Finding(
        f"{BATCH_STRATEGY_PATH} '{value}' of {model_label(name)} does not exist ('{shown}' is "
        "missing from the repository); Triton fails to load the model with 'Batching "
        "library path not found'",
        at=at,
        hint=f"copy the library to {shown}, or fix the path",
    )
