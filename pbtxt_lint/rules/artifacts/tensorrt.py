"""PL630-PL632: TensorRT plans, as far as they can be read without TensorRT and a GPU.

The plan header records the TensorRT version that built the engine and the plan's
size; the engine itself (inputs, outputs, profiles) needs the TensorRT runtime and a
CUDA GPU, and when both are there the engine is compared like the other formats'
models (PL640-PL643).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.analysis.context import ModelContext, Scope
from pbtxt_lint.diagnostics import Severity
from pbtxt_lint.rules.artifacts.common import loaded, shorten_paths, shown_path
from pbtxt_lint.rules.base import Finding, Stage, rule

WARNING, INFO = Severity.WARNING, Severity.INFO
LOAD = Stage.LOAD


def _shipped(known: tuple[tuple[str, str], ...]) -> str:
    """The TensorRT versions of (image, version) pairs, as the message lists them."""
    return ", ".join(f"{version} ({image} image)" for image, version in known)


@rule(
    "PL630",
    "plan-tensorrt-version-mismatch",
    WARNING,
    "A TensorRT plan built with another TensorRT than the target Triton release ships.",
    triton="unable to create TensorRT engine: The engine plan file is not compatible with this "
    "version of TensorRT, expecting library version <A> got <B>, please rebuild.",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="tensorrt",
)
def plan_tensorrt_version_mismatch(context: ModelContext) -> Iterator[Finding]:
    """A plan is a TensorRT engine serialized for one TensorRT version (and one GPU
    architecture): another TensorRT refuses to deserialize it, and Triton reports
    "unable to create TensorRT engine". The plan header records the version that built
    it (bytes 24-27; a plan of TensorRT 8.5 or older has another layout that names no
    release, so it is judged only against releases that ship 8.6 or newer); with
    `--triton-version` pbtxt-lint compares it with the TensorRT
    that release ships, from NVIDIA's release notes (with `--container`, the TensorRT
    of that image only). Plans built with TensorRT >= 8.6 as version-compatible
    (kVERSION_COMPATIBLE) load on later versions when Triton runs with
    `--backend-config=tensorrt,version-compatible=true`; the header does not say
    whether a plan is, so this is a warning. When the only TensorRT pbtxt-lint knows
    for the release is another image's (the TensorRT-LLM one) and `--container` is not
    given, which image the host runs is unknown: the finding is then info.

    Bad:
        pbtxt-lint check --triton-version 25.02   (model.plan built with TensorRT 8.6.1)
    Good:
        pbtxt-lint check --triton-version 25.02   (model.plan rebuilt in the 25.02 container)
    """
    target = context.settings.target
    plans = loaded(context, "plan")
    if target is None or not plans:
        return
    # deferred: the TensorRT reader loads with the first plan (start-up time)
    from pbtxt_lint.artifacts.tensorrt import TENSORRT_OF_RELEASE, releases_shipping, same_release

    known = TENSORRT_OF_RELEASE.get(target.container, ())
    image = context.settings.container
    if image is not None:
        known = tuple((i, version) for i, version in known if i == image)
    if not known:
        return
    images = {i for i, _ in known}
    # Without a declared image, only the main image's TensorRT is a verdict.
    severity = INFO if image is None and "py3" not in images else None
    for artifact, signature in plans:
        version = signature.tensorrt_version
        if signature.before_8_6:
            # Only its layout is known: a verdict where every TensorRT shipped is newer.
            if not all(_release(text) >= (8, 6) for _, text in known):
                continue
            built = "TensorRT 8.5 or older (the plan header has the layout of those releases)"
        elif version is None or any(same_release(version, text) for _, text in known):
            continue
        else:
            built = f"TensorRT {signature.version_text} (read from the plan header)"
        unknown_main = (
            f"; the TensorRT of its main {target.container}-py3 image is not in pbtxt-lint's "
            "table, check the frameworks support matrix if you deploy that image"
            if "py3" not in images and image is None
            else ""
        )
        compatible = (
            " unless the plan was built version-compatible and Triton runs with "
            "--backend-config=tensorrt,version-compatible=true"
            if version is not None and version[:2] >= (8, 6)
            else ""
        )
        others = sorted({tag for tag, _ in releases_shipping(version)}) if version else []
        hint = f"rebuild the plan in the {target.container} container (trtexec --saveEngine)"
        if others:
            hint += f", or deploy it on a release that ships its TensorRT ({', '.join(others)})"
        yield Finding(
            f"{shown_path(artifact, context)} was built with {built}, "
            f"but Triton {target.label} ships TensorRT "
            f"{_shipped(known)}: a plan only deserializes on the TensorRT that "
            f'built it, so loading fails with "unable to create TensorRT engine"{compatible}'
            f"{unknown_main}",
            file=artifact.opened,
            hint=hint,
            severity=severity,
        )


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:2])


@rule(
    "PL631",
    "plan-check-level",
    INFO,
    "How far pbtxt-lint could check a TensorRT plan: header only, or the deserialized engine.",
    needs_config=False,
    scope=Scope.MODEL_FILES,
)
def plan_check_level(context: ModelContext) -> Iterator[Finding]:
    """A plan's inputs, outputs, data types and optimization profiles are inside the
    serialized engine, which only the TensorRT runtime can read, and only with a CUDA
    GPU. Without one pbtxt-lint reads the header (magic, size, TensorRT version) and
    says so, so a clean report is not mistaken for a checked config. With the
    `tensorrt` package and a GPU, the engine is deserialized and compared with the
    config (names, data types, dims, profiles).

    Bad:
        (nothing to fix: this reports what was checked)
    Good:
        pbtxt-lint check on a machine with a GPU and `pip install tensorrt`
    """
    plans = loaded(context, "plan")
    if not plans:
        return
    # deferred: the TensorRT reader loads with the first plan (start-up time)
    from pbtxt_lint.artifacts.tensorrt import releases_shipping

    for artifact, signature in plans:
        shown = shown_path(artifact, context)
        version = signature.version_text
        if signature.deep:
            yield Finding(
                f"{shown} was deserialized with TensorRT on this machine: its inputs, outputs, "
                "data types, dims and optimization profiles were compared with the config",
                file=artifact.opened,
            )
            continue
        if signature.before_8_6:
            built = "built with TensorRT 8.5 or older, whose plan headers do not name the release"
            shipping = ""
        elif signature.tensorrt_version is None:
            built = "its header carries no readable TensorRT version"
            shipping = ""
        else:
            built = f"built with TensorRT {version}"
            tags = sorted({tag for tag, _ in releases_shipping(signature.tensorrt_version)})
            shipping = (
                f"; Triton releases known to ship it: {', '.join(tags)}"
                if tags
                else "; no Triton release in pbtxt-lint's table ships it"
            )
        yield Finding(
            f"{shown}: header-only check ({built}{shipping}); its tensor names, data types, "
            f"dims and optimization profiles were not compared with the config "
            f"({signature.deep_skipped}: reading the engine needs TensorRT and a GPU)",
            file=artifact.opened,
            hint="run pbtxt-lint where `import tensorrt` works and a GPU is visible for a full "
            "check, or load the model in the target Triton container",
        )


@rule(
    "PL632",
    "plan-size-mismatch",
    WARNING,
    "A TensorRT plan whose header declares another size than the file has (truncated?).",
    stage=LOAD,
    needs_config=False,
    scope=Scope.MODEL_FILES,
    backend="tensorrt",
)
def plan_size_mismatch(context: ModelContext) -> Iterator[Finding]:
    """The plan header records the plan's total size. A smaller file is an interrupted
    copy or download, which TensorRT cannot deserialize ("unable to create TensorRT
    engine"); a larger one has bytes appended (a wrapper format). The header layout is
    undocumented, so this is a warning.

    Bad:
        model.plan   (header: 98,566,144 bytes; file: 33,554,432 bytes)
    Good:
        model.plan   (the complete file)
    """
    for artifact, signature in loaded(context, "plan"):
        for problem in signature.problems:
            if problem.kind == "plan-size-mismatch":
                yield Finding(
                    f"{shorten_paths(problem.message, context)}; TensorRT cannot deserialize an "
                    'incomplete plan ("unable to create TensorRT engine")',
                    file=artifact.opened,
                    hint="copy the plan again and compare its size with the file trtexec wrote",
                )
