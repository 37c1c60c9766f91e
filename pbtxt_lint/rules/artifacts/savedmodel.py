"""PL650-PL651: a TensorFlow SavedModel's MetaGraph tags and serving signatures.

The TensorFlow backend loads the MetaGraph tagged "serve" (or `TF_GRAPH_TAG`) and
serves the signature "serving_default" (or `TF_SIGNATURE_DEF`, else the first other
one), whose keys are the config's tensor names (tensorflow_backend `tensorflow.cc`;
the reader is `pbtxt_lint.artifacts.savedmodel`). The tensors of the served signature
are compared with the config by PL640-PL643.
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import (
    TF_GRAPH_TAG,
    TF_SIGNATURE_DEF,
    loaded,
    shown_path,
)
from pbtxt_lint.rules.base import Finding, Stage, rule
from pbtxt_lint.triton.parameters import parameter

ERROR, WARNING = Severity.ERROR, Severity.WARNING
LOAD = Stage.LOAD


@rule(
    "PL650",
    "savedmodel-tag-missing",
    ERROR,
    'A SavedModel without a MetaGraph tagged "serve" (or TF_GRAPH_TAG).',
    triton="unable to load model '<model>', expected 'serve' tag",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="tensorflow",
)
def savedmodel_tag_missing(context: ModelContext) -> Iterator[Finding]:
    """Triton's TensorFlow backend loads the MetaGraph tagged "serve", or the tag named
    by the `TF_GRAPH_TAG` parameter. A SavedModel exported only for training (tag
    "train") or with a custom tag does not load.

    Bad:
        saved_model.pb tags: train
    Good:
        saved_model.pb tags: serve   (tf.saved_model.save writes it)
    """
    config = context.effective
    found = loaded(context, "savedmodel")
    if config is None or not found:
        return
    # deferred: the SavedModel reader loads with the first SavedModel (start-up time)
    from pbtxt_lint.artifacts.savedmodel import DEFAULT_TAG

    tag = parameter(config, TF_GRAPH_TAG) or DEFAULT_TAG
    for artifact, signature in found:
        if any(tag in graph.tags for graph in signature.meta_graphs):
            continue
        tags = sorted({t for graph in signature.meta_graphs for t in graph.tags})
        yield Finding(
            f'{shown_path(artifact, context)} has no MetaGraph tagged "{tag}" (its tags: '
            f'{", ".join(tags) or "none"}); Triton fails with "unable to load model '
            f"'{context.model.name}', expected '{tag}' tag\"",
            file=artifact.opened,
            hint="export with tags=['serve'], or set parameters { key: \"TF_GRAPH_TAG\" "
            f'value {{ string_value: "{tags[0]}" }} }}'
            if tags
            else "export the model with tf.saved_model.save",
        )


@rule(
    "PL651",
    "savedmodel-signature-missing",
    ERROR,
    "A SavedModel without the serving signature Triton uses.",
    triton="unable to load model '<model>': the SavedModel has no signature to serve "
    "(no 'serving_default' and no other signature)",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="tensorflow",
)
def savedmodel_signature_missing(context: ModelContext) -> Iterator[Finding]:
    """The backend serves the signature "serving_default" (or `TF_SIGNATURE_DEF`), and
    config names are that signature's keys. When it is missing Triton falls back to the
    first other signature (a warning: the names may not be the ones meant); with no
    signature at all the model cannot be served.

    Bad:
        saved_model.pb signatures: predict      (no serving_default)
    Good:
        saved_model.pb signatures: serving_default
    """
    config = context.effective
    found = loaded(context, "savedmodel")
    if config is None or not found:
        return
    # deferred: the SavedModel reader loads with the first SavedModel (start-up time)
    from pbtxt_lint.artifacts.savedmodel import DEFAULT_SIGNATURE, DEFAULT_TAG

    tag = parameter(config, TF_GRAPH_TAG) or DEFAULT_TAG
    key = parameter(config, TF_SIGNATURE_DEF) or DEFAULT_SIGNATURE
    for artifact, signature in found:
        graph, chosen = signature.select(tag, key)
        if graph is None or chosen == key:
            continue
        listed = ", ".join(sorted(graph.signatures)) or "none"
        if chosen is None:
            yield Finding(
                f"{shown_path(artifact, context)} has no serving signature (its signatures: "
                f"{listed}), so Triton cannot map config tensors to the graph and fails to "
                f"load '{context.model.name}'",
                file=artifact.opened,
                hint="export with tf.saved_model.save(model, path, "
                "signatures={'serving_default': ...})",
            )
            continue
        yield Finding(
            f'{shown_path(artifact, context)} has no signature "{key}" (its signatures: '
            f'{listed}); Triton falls back to "{chosen}", whose keys become the model\'s '
            "input and output names",
            file=artifact.opened,
            hint='set parameters { key: "TF_SIGNATURE_DEF" value { string_value: '
            f'"{chosen}" }} }} to make the choice explicit, or export a serving_default signature',
            severity=WARNING,
        )
