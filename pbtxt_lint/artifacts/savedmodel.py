"""TensorFlow SavedModel reader: the serving signature of `saved_model.pb`, no TensorFlow.

Triton's TensorFlow backend loads the MetaGraph tagged "serve" (or the
`TF_GRAPH_TAG` parameter), takes the signature "serving_default" (or
`TF_SIGNATURE_DEF`; when it is missing, the first other signature) and matches config
names with the signature's map keys, dtypes with `TensorInfo.dtype` and dims with its
shape (tensorflow_backend `ValidateTRITONTFModel`). This module walks the protobuf wire
format over an `mmap` and decodes only that subset, skipping `graph_def` (which can hold
the weights of a frozen graph) by its length, so memory does not grow with the file:

    SavedModel    { meta_graphs = 2 }
    MetaGraphDef  { meta_info_def = 1 { tags = 4; tensorflow_version = 5 };
                    signature_def = 5 (map<string, SignatureDef>) }
    SignatureDef  { inputs = 1, outputs = 2 (map<string, TensorInfo>); method_name = 3 }
    TensorInfo    { name = 1; dtype = 2; tensor_shape = 3 { dim = 2 { size = 1 };
                                                           unknown_rank = 3 } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from pbtxt_lint import storage
from pbtxt_lint.artifacts.signature import (
    ArtifactError,
    ArtifactProblem,
    Dim,
    Signature,
    TensorSpec,
    VarintError,
    decode_varint,
    map_artifact,
    stat_artifact,
)

__all__ = [
    "DEFAULT_SIGNATURE",
    "DEFAULT_TAG",
    "MetaGraph",
    "SavedModelSignature",
    "SignatureDef",
    "read_savedmodel",
]

DEFAULT_TAG = "serve"
DEFAULT_SIGNATURE = "serving_default"
_INTERNAL_SIGNATURES = frozenset({"__saved_model_init_op", "__saved_model_train_op"})
_MAX_STRING = 1 << 20
_MAX_ITEMS = 100_000
"""Signatures, tensors, dims and tags kept at most; real SavedModels have a handful."""
_MAX_FIELDS = 200_000
"""Protobuf fields decoded at most (graph_def and the other skipped fields count one
each): real SavedModels have hundreds outside graph_def, and each costs about a
microsecond, so 4 MB of two-byte fields took 2-4 s."""
_LFS_MAGIC = b"version https://git-lfs.github.com/spec/v1"

# tensorflow DataType -> Triton config type, as the TF backend converts them; DT_BFLOAT16
# and the quantized, complex, resource and variant types have no Triton type.
_DT_NAMES = {
    1: "DT_FLOAT", 2: "DT_DOUBLE", 3: "DT_INT32", 4: "DT_UINT8", 5: "DT_INT16",
    6: "DT_INT8", 7: "DT_STRING", 8: "DT_COMPLEX64", 9: "DT_INT64", 10: "DT_BOOL",
    11: "DT_QINT8", 12: "DT_QUINT8", 13: "DT_QINT32", 14: "DT_BFLOAT16", 15: "DT_QINT16",
    16: "DT_QUINT16", 17: "DT_UINT16", 18: "DT_COMPLEX128", 19: "DT_HALF",
    20: "DT_RESOURCE", 21: "DT_VARIANT", 22: "DT_UINT32", 23: "DT_UINT64",
}  # fmt: skip
_TRITON_TYPES = {
    1: "TYPE_FP32", 2: "TYPE_FP64", 3: "TYPE_INT32", 4: "TYPE_UINT8", 5: "TYPE_INT16",
    6: "TYPE_INT8", 7: "TYPE_STRING", 9: "TYPE_INT64", 10: "TYPE_BOOL", 17: "TYPE_UINT16",
    19: "TYPE_FP16", 22: "TYPE_UINT32", 23: "TYPE_UINT64",
}  # fmt: skip


@dataclass(frozen=True)
class SignatureDef:
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    method_name: str = ""


@dataclass(frozen=True)
class MetaGraph:
    tags: tuple[str, ...]
    signatures: Mapping[str, SignatureDef]
    tensorflow_version: str = ""


@dataclass(frozen=True, eq=False)
class SavedModelSignature(Signature):
    """Every MetaGraph's tags and signatures; inputs/outputs are the default selection."""

    meta_graphs: tuple[MetaGraph, ...] = ()
    chosen: tuple[str, str] | None = None
    """(tag, signature key) the default selection used; None when none applies."""

    def select(self, tag: str, key: str) -> tuple[MetaGraph | None, str | None]:
        """What the backend loads for `tag` and `key`: the MetaGraph and signature key."""
        graph = next((g for g in self.meta_graphs if tag in g.tags), None)
        if graph is None:
            return None, None
        if key in graph.signatures:
            return graph, key
        usable = [k for k in graph.signatures if k not in _INTERNAL_SIGNATURES]
        return graph, (usable[0] if usable else None)


def read_savedmodel(path: Path, model_dir: Path) -> SavedModelSignature:
    """Read the signatures of `model.savedmodel/saved_model.pb` without TensorFlow.

    Raises `ArtifactError` when the file is not a readable SavedModel.
    """
    label = str(path)
    st = stat_artifact(path, folder=", not saved_model.pb", other="", empty_ok=True)
    if path.name != "saved_model.pb":
        raise ArtifactError(
            "not-a-file",
            f"{label} is a file; a SavedModel is a folder holding saved_model.pb and "
            "variables/ (tf.saved_model.save writes it)",
        )
    if st.st_size == 0:
        raise ArtifactError("empty", f"{label} is empty (0 bytes)")
    buf = map_artifact(path, label)
    with buf:
        if buf[: len(_LFS_MAGIC)] == _LFS_MAGIC:
            raise ArtifactError(
                "lfs-pointer",
                f"{label} is a Git LFS pointer, not the model: run `git lfs pull` "
                "(or clone with Git LFS installed)",
            )
        graphs = _Reader(buf, label).saved_model()
    if not graphs:
        raise ArtifactError("corrupt", f"{label} contains no MetaGraph (not a SavedModel?)")
    problems: list[ArtifactProblem] = []
    signature = SavedModelSignature(
        "savedmodel", path, (), (), {}, tuple(problems), meta_graphs=tuple(graphs)
    )
    graph, key = signature.select(DEFAULT_TAG, DEFAULT_SIGNATURE)
    facts = {"tags": ";".join(",".join(g.tags) for g in graphs)}
    if graph is not None and graph.tensorflow_version:
        facts["tensorflow_version"] = graph.tensorflow_version
    if graph is None or key is None:
        return SavedModelSignature("savedmodel", path, (), (), facts, meta_graphs=tuple(graphs))
    chosen = graph.signatures[key]
    return SavedModelSignature(
        "savedmodel",
        path,
        chosen.inputs,
        chosen.outputs,
        facts,
        meta_graphs=tuple(graphs),
        chosen=(DEFAULT_TAG, key),
    )


class _Reader:
    """Bounds-checked protobuf wire walker over the mapped file."""

    def __init__(self, buf: storage.Buffer, label: str) -> None:
        self.buf = buf
        self.label = label
        self.items = 0
        self.decoded = 0

    def corrupt(self, at: int, what: str) -> ArtifactError:
        kind = "truncated" if at >= len(self.buf) else "corrupt"
        state = "truncated" if kind == "truncated" else "corrupt"
        return ArtifactError(kind, f"{self.label} is {state}: {what} at byte {at:,}")

    def varint(self, i: int, end: int) -> tuple[int, int]:
        try:
            return decode_varint(self.buf, i, end)
        except VarintError as error:
            if error.overlong:
                raise self.corrupt(i, "a varint longer than 10 bytes") from None
            at = max(end, i)
            raise self.corrupt(at, "a number runs past the end of its message") from None

    def fields(self, start: int, end: int) -> Iterator[tuple[int, int, int, int]]:
        """(field, wire type, a, b): a varint value, or the payload [a, b)."""
        i = start
        while i < end:
            at = i
            self.decoded += 1
            if self.decoded > _MAX_FIELDS:
                raise self.corrupt(at, f"more than {_MAX_FIELDS:,} protobuf fields to decode")
            tag, i = self.varint(i, end)
            number, wire = tag >> 3, tag & 7
            if number == 0:
                raise self.corrupt(at, "an invalid field number")
            if wire == 0:
                value, i = self.varint(i, end)
                yield number, 0, value, i
            elif wire == 2:
                length, payload = self.varint(i, end)
                i = payload + length
                if i > end:
                    raise self.corrupt(min(i, len(self.buf)), "a field runs past its message")
                yield number, 2, payload, i
            elif wire in (1, 5):
                payload = i
                i += 8 if wire == 1 else 4
                if i > end:
                    raise self.corrupt(i, "a fixed-size field runs past its message")
                yield number, wire, payload, i
            else:
                raise self.corrupt(at, f"an invalid wire type {wire}")

    def string(self, start: int, end: int) -> str:
        if end - start > _MAX_STRING:
            raise self.corrupt(start, f"an implausibly long string ({end - start:,} bytes)")
        return self.buf[start:end].decode("utf-8", "replace")

    def count(self, at: int) -> None:
        self.items += 1
        if self.items > _MAX_ITEMS:
            raise self.corrupt(at, f"more than {_MAX_ITEMS:,} tags or signature entries")

    def saved_model(self) -> list[MetaGraph]:
        graphs = []
        for number, wire, a, b in self.fields(0, len(self.buf)):
            if number == 2 and wire == 2:
                self.count(a)
                graphs.append(self.meta_graph(a, b))
        return graphs

    def meta_graph(self, start: int, end: int) -> MetaGraph:
        tags: list[str] = []
        version = ""
        signatures: dict[str, SignatureDef] = {}
        for number, wire, a, b in self.fields(start, end):
            if wire != 2:
                continue
            if number == 1:  # meta_info_def
                for n, w, c, d in self.fields(a, b):
                    if n == 4 and w == 2:
                        self.count(c)
                        tags.append(self.string(c, d))
                    elif n == 5 and w == 2:
                        version = self.string(c, d)
            elif number == 5:  # signature_def map entry
                key, value = "", None
                for n, w, c, d in self.fields(a, b):
                    if n == 1 and w == 2:
                        key = self.string(c, d)
                    elif n == 2 and w == 2:
                        value = self.signature(c, d)
                self.count(a)
                signatures[key] = value or SignatureDef((), ())
        return MetaGraph(tuple(tags), signatures, version)

    def signature(self, start: int, end: int) -> SignatureDef:
        inputs: dict[str, TensorSpec] = {}
        outputs: dict[str, TensorSpec] = {}
        method = ""
        for number, wire, a, b in self.fields(start, end):
            if number in (1, 2) and wire == 2:
                key, spec = "", TensorSpec("", None, "DT_INVALID", None)
                for n, w, c, d in self.fields(a, b):
                    if n == 1 and w == 2:
                        key = self.string(c, d)
                    elif n == 2 and w == 2:
                        spec = self.tensor_info(c, d)
                self.count(a)
                (inputs if number == 1 else outputs)[key] = TensorSpec(
                    key, spec.data_type, spec.source_type, spec.shape
                )
            elif number == 3 and wire == 2:
                method = self.string(a, b)
        return SignatureDef(tuple(inputs.values()), tuple(outputs.values()), method)

    def tensor_info(self, start: int, end: int) -> TensorSpec:
        dtype = 0
        shape: tuple[Dim, ...] | None = None
        for number, wire, a, b in self.fields(start, end):
            if number == 2 and wire == 0:
                dtype = a & 0x7FFFFFFF
            elif number == 3 and wire == 2:
                shape = self.shape(a, b)
        name = _DT_NAMES.get(dtype, f"DT_{dtype}")
        return TensorSpec("", _TRITON_TYPES.get(dtype), name, shape)

    def shape(self, start: int, end: int) -> tuple[Dim, ...] | None:
        dims: list[Dim] = []
        unknown_rank = False
        for number, wire, a, b in self.fields(start, end):
            if number == 2 and wire == 2:
                self.count(a)
                size = -1
                for n, w, c, _ in self.fields(a, b):
                    if n == 1 and w == 0:
                        size = c - (1 << 64) if c >= 1 << 63 else c
                dims.append(size if size >= 0 else -1)
            elif number == 3 and wire == 0:
                unknown_rank = bool(a)
        return None if unknown_rank else tuple(dims)
