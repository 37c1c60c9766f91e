"""PL101 and PL115: folders of the repository Triton cannot load as models.

The repository poll (`ModelRepositoryManager::Poll` in core's
src/model_repository_manager/model_repository_manager.cc) takes every sub-folder of a
repository for a model, hidden ones included, and fails a model whose folder it
cannot read.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import ERROR, WARNING, Finding, ModelContext, rule


@rule(
    "PL101",
    "stray-folder",
    ERROR,
    "A hidden or tool folder in the repository, which Triton tries to load as a model.",
    triton="Poll failed for model directory '.ipynb_checkpoints': ...",
    needs_config=False,
    stray=True,
)
def stray_folder(context: ModelContext) -> Iterator[Finding]:
    """Triton treats every sub-folder of a repository as a model, hidden ones included.

    `.ipynb_checkpoints`, `.git`, `__pycache__` or `__MACOSX` fail to load (no config,
    no backend, no version), and with `--exit-on-error` (the default) the server does
    not start.

    Bad:
        models/.ipynb_checkpoints/
        models/resnet/config.pbtxt
    Good:
        models/resnet/config.pbtxt
    """
    yield Finding(
        f"'{context.folder.name}' is a hidden or tool folder inside the model repository; "
        "Triton treats every sub-folder as a model, fails to load this one, and by default "
        "refuses to start",
        hint=f"delete '{context.folder.name}' or move it out of the repository (add it to "
        ".dockerignore / the sync exclude list)",
    )


@rule(
    "PL115",
    "unreadable-model-folder",
    ERROR,
    "A model folder that cannot be listed, or a link pbtxt-lint does not follow.",
    triton="failed to open directory <path>",
    needs_config=False,
)
def unreadable_model_folder(context: ModelContext) -> Iterator[Finding]:
    """Triton fails a model whose folder it cannot read. pbtxt-lint never follows a
    symlink out of the repository, so such a model is not checked (a warning).

    Bad:
        models/resnet/ with mode 000
    Good:
        models/resnet/ readable by the user Triton runs as
    """
    error = context.folder.error
    if error is None:
        return
    yield Finding(
        f"model folder '{context.folder.name}' {error}"
        if context.folder.outside
        else f"model folder '{context.folder.name}': {error}",
        file=context.folder.path,
        hint="make the folder readable"
        if not context.folder.outside
        else "check the linked folder on its own",
        severity=WARNING if context.folder.outside else None,
    )
