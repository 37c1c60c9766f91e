"""PL866: the PyTorch backend's thread counts, which are one setting for the whole server.

INTRA_OP_THREAD_COUNT and INTER_OP_THREAD_COUNT look like model parameters, but the
backend applies them to libtorch's process-wide thread pools (`at::set_num_threads`,
`at::set_num_interop_threads` in `ModelState::ParseParameters`, pytorch_backend
src/libtorch.cc). libtorch allows the inter-op count to be set once: before 25.11 the
backend called it for every model that sets it, and the second call threw an exception
nothing catches (pytorch_backend pull request #158). From 25.11 (#159) the first model's
values are applied once and the others ignored.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    INFO,
    Finding,
    Key,
    ModelConfig,
    ModelContext,
    Stage,
    Version,
    parameter,
    rule,
)
from pbtxt_lint.rules.backends.pytorch_naming import is_torchscript

INTER, INTRA = "INTER_OP_THREAD_COUNT", "INTRA_OP_THREAD_COUNT"
SET_ONCE_FROM: Version = (2, 63)
"""25.11: the backend sets each thread count once (std::call_once), so a second model no
longer terminates tritonserver."""


def thread_count(config: ModelConfig, key: str) -> int | None:
    """The count a model asks for, when the backend applies it (an integer above 0)."""
    value = parameter(config, key)
    try:
        count = int(value.strip()) if value is not None else 0
    except ValueError:
        return None  # PL726 reports it
    return count if count > 0 else None


def _others(context: ModelContext, key: str) -> list[tuple[str, int]]:
    """(model, count) of the other PyTorch models of the repository that set `key`."""
    found = []
    for name in sorted(context.repository.models):
        if name == context.folder.name:
            continue
        other = context.workspace.model(name)
        config = other.effective if other is not None else None
        if config is not None and is_torchscript(config):
            count = thread_count(config, key)
            if count is not None:
                found.append((name, count))
    return found


@rule(
    "PL866",
    "pytorch-thread-count-per-server",
    ERROR,
    "INTER_OP_THREAD_COUNT set by two PyTorch models (tritonserver terminates before 25.11), "
    "or thread counts that differ between models (one applies to all).",
    triton="terminate called after throwing an instance of 'c10::Error' what(): Error: cannot "
    "set number of interop threads after parallel work has started or "
    "set_num_interop_threads called",
    stage=Stage.LOAD,
    backend="pytorch",
    effective=True,
)
def pytorch_thread_count_per_server(
    context: ModelContext, config: ModelConfig
) -> Iterator[Finding]:
    """The PyTorch backend's thread counts are settings of the process, not of a model.
    Before 25.11, when a second PyTorch model that sets INTER_OP_THREAD_COUNT loads,
    libtorch throws and tritonserver terminates while loading the repository. From
    25.11 the first model that loads decides both counts for every PyTorch model, and
    different values elsewhere are ignored (info; which model loads first is not
    fixed).

    Bad:
        a/config.pbtxt: parameters { key: "INTER_OP_THREAD_COUNT" value: { string_value: "2" } }
        b/config.pbtxt: parameters { key: "INTER_OP_THREAD_COUNT" value: { string_value: "4" } }
    Good:
        a/config.pbtxt: parameters { key: "INTER_OP_THREAD_COUNT" value: { string_value: "2" } }
        b/config.pbtxt: (no thread-count parameter)
    """
    if not is_torchscript(config):
        return
    target = context.settings.target
    terminates = target is not None and target.server < SET_ONCE_FROM
    for key in (INTER, INTRA):
        count = thread_count(config, key)
        if count is None:
            continue
        others = _others(context, key)
        listed = ", ".join(f"'{name}' ({value})" for name, value in others[:5])
        if key == INTER and terminates and others:
            yield Finding(
                f"PyTorch model '{config.name}' sets {key} {count}, and so does {listed}: "
                "libtorch sets the inter-op thread pool once per process, so tritonserver "
                "terminates while loading the second of them "
                '("cannot set number of interop threads after parallel work has started or '
                'set_num_interop_threads called")',
                at=("parameters", Key(key)),
                hint=f"set {key} in one PyTorch model only (it applies to all of them), or "
                "serve on 25.11 or newer",
            )
            continue
        different = [(name, value) for name, value in others if value != count]
        if different:
            shown = ", ".join(f"'{name}' ({value})" for name, value in different[:5])
            yield Finding(
                f"PyTorch model '{config.name}' sets {key} {count} but {shown} "
                f"{'sets' if len(different) == 1 else 'set'} another count: the backend keeps "
                "one count for the whole server, "
                + (
                    "that of the model loaded last"
                    if target is not None and target.server < SET_ONCE_FROM
                    else "that of the model loaded first, and ignores the others"
                ),
                at=("parameters", Key(key)),
                hint=f"give {key} the same value in every PyTorch model, or set it in one",
                severity=INFO,
            )
