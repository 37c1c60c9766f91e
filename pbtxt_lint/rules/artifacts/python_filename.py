"""PL654: a Python model's file name, which the stub imports as a module.

The stub imports `<version>.<file name without .py>` (python_backend src/pb_stub.cc,
`ModelContext::StubSetup`), so `default_model_filename` of a Python model must name a
`.py` file.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import (
    ERROR,
    Finding,
    ModelConfig,
    ModelContext,
    Stage,
    backend_of,
    rule,
    shorten,
)


@rule(
    "PL654",
    "python-model-filename",
    ERROR,
    "default_model_filename of a Python model that does not end in .py.",
    triton="Model name must end with '.py'. Model name is \"<name>\".",
    stage=Stage.LOAD,
    backend="python",
    effective=True,
)
def python_model_filename(context: ModelContext, config: ModelConfig) -> Iterator[Finding]:
    """The Python backend's stub imports the model file as a module named after it, and
    refuses a file name that does not end in `.py` before reading it. A
    `default_model_filename` copied from another backend's config (`model.pt`,
    `model.onnx`) or written without the extension fails the load. Confirmed with
    tritonserver 2.51's Python backend.

    Bad:
        backend: "python"
        default_model_filename: "model"
    Good:
        backend: "python"
        default_model_filename: "model.py"
    """
    if backend_of(config) != "python" or config.runtime:
        return
    name = config.default_model_filename
    if not name or name.endswith(".py"):
        return
    # find_last_of(".py") in StubSetup: a name ending in '.', 'p' or 'y' passes that
    # check and fails the import instead.
    says = (
        f"Model name must end with '.py'. Model name is \"{shorten(name)}\"."
        if name[-1] not in ".py"
        else "ModuleNotFoundError"
    )
    yield Finding(
        f"default_model_filename '{shorten(name)}' of Python model '{config.name}' does not end "
        f"in .py: the stub imports the file as a Python module, so the model fails to load "
        f'with "{says}"',
        at=("default_model_filename",),
        hint="name the file model.py (or another name ending in .py) and write that name here",
    )
