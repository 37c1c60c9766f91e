"""PL101 and PL115: folders of the repository Triton cannot load as models.

The repository poll (`ModelRepositoryManager::Poll` in core's
src/model_repository_manager/model_repository_manager.cc) takes every sub-folder of a
repository for a model, hidden ones included, and fails a model whose folder it
cannot read.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.base import Finding, rule

ERROR, WARNING = Severity.ERROR, Severity.WARNING

OLD_CACHE_FOLDER = ".pbtxt_lint_cache"
"""Where pbtxt-lint 0.1 kept its result cache: in the working folder, so a run from inside
a model repository left it there (now it lives in the user's cache folder)."""


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
    not start. So does `.pbtxt_lint_cache`, the result cache pbtxt-lint 0.1 left in the
    folder it ran from; the hint then says it can be deleted.

    Bad:
        models/.ipynb_checkpoints/
        models/resnet/config.pbtxt
    Good:
        models/resnet/config.pbtxt
    """
    name = context.model.name
    hint = (
        f"'{name}' is pbtxt-lint's own result cache, left by an earlier version that kept it "
        "in the working folder; delete it (pbtxt-lint now keeps its cache outside the "
        "repository)"
        if name == OLD_CACHE_FOLDER
        else f"delete '{name}' or move it out of the repository (add it to .dockerignore / "
        "the sync exclude list)"
    )
    yield Finding(
        f"'{name}' is a hidden or tool folder inside the model repository; Triton treats "
        "every sub-folder as a model, fails to load this one, and by default refuses to start",
        hint=hint,
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
    error = context.model.error
    if error is None:
        return
    yield Finding(
        f"model folder '{context.model.name}' {error}"
        if context.model.outside
        else f"model folder '{context.model.name}': {error}",
        file=context.model.path,
        hint="make the folder readable"
        if not context.model.outside
        else "check the linked folder on its own",
        severity=WARNING if context.model.outside else None,
    )
