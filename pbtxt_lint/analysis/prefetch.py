"""Reading a cloud repository's models concurrently before the checks run.

Checks read a model's files lazily and one model after another, which on local disk
costs microseconds and over a network a round trip each. For a repository in a bucket
the engine first does the reading of every selected model, a bounded number of models
at a time (`storage.remote.CONCURRENCY`): each model's objects are listed (one
paginated listing per model), its config read and parsed, and then the model file of
each version it loads is read by its reader (ranged GETs of the bytes that reader
uses). The results land where the checks look for them (the listing cache of the
store, `ModelFolder.config()`, `VersionArtifact.read`), so the checks then run as on a
local repository, in the same order, with the same results.
"""

from __future__ import annotations

from collections.abc import Sequence

from pbtxt_lint.analysis.artifacts import ArtifactState, VersionArtifact
from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.artifacts.signature import ArtifactError, Signature
from pbtxt_lint.storage import is_remote
from pbtxt_lint.storage.remote import run_concurrently
from pbtxt_lint.storage.urls import ObjectPath, store_of


def prefetch(contexts: Sequence[ModelContext]) -> None:
    """Read what the checks of these models will read, concurrently (remote models
    only; local ones are left to the checks)."""
    remote = [c for c in contexts if is_remote(c.folder.path) and not c.folder.outside]
    if not remote:
        return

    def load(context: ModelContext) -> None:
        path = context.folder.path
        if isinstance(path, ObjectPath):
            store_of(path).list_tree(path)
        context.folder.config()

    run_concurrently(load, remote)  # failures are the checks' to report, model by model
    if remote[0].settings.config_only:
        return
    artifacts: list[VersionArtifact] = []
    for context in remote:
        try:
            versions = context.artifacts.versions
        except Exception:  # a bug surfaces where the checks ask, as an internal error
            continue
        artifacts.extend(
            a for a in versions if a.state is ArtifactState.PRESENT and a.reader is not None
        )

    def read(artifact: VersionArtifact) -> Signature | ArtifactError:
        assert artifact.reader is not None
        try:
            return artifact.reader(artifact.opened, artifact.model_dir)
        except ArtifactError as error:
            return error

    for artifact, result in zip(artifacts, run_concurrently(read, artifacts), strict=True):
        if isinstance(result, (Signature, ArtifactError)):
            artifact.__dict__["read"] = result  # what the cached property would compute
