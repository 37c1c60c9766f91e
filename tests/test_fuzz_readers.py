"""Fuzzing the TorchScript, OpenVINO, SavedModel, TensorRT plan and Python model readers.

The ONNX reader has its own fuzz tests (``test_onnx_reader.py``). For each other reader,
on random bytes, every truncation of every seed (each distinct model file of its format
in the fixtures and examples, plus a few built here; large seeds at sampled cut points),
random byte edits of the seeds and format-aware inputs (ZIP archives with odd names,
methods and lying sizes; XML with random elements, attributes, encodings, a DOCTYPE and
a model.bin that is missing, a folder or a link out; protobuf with huge varints and
lengths; plan headers; Python source with odd bytes, coding cookies and
``auto_complete_config`` bodies):

* only ``ArtifactError`` escapes, with a documented kind and its message;
* the result is a well-formed signature of the reader's class: names and types are str
  (UTF-8 encodable), shapes tuples of ints >= -1 or str, facts str -> str, problems of
  the kinds the rules act on, plus each format's own invariants;
* each call makes under CALLS function calls (counted, not timed: tests/work.py) and
  tracemalloc's peak stays under 64 MiB, also for files of a few MB, a 100,000-deep XML
  nesting and ZIP entries claiming gigabytes;
* nothing outside the model folder is opened or stat()ed: an audit hook records every
  open, ``os.stat``/``os.lstat`` are wrapped (Python's own modules, imported on first
  use, are allowed);
* ``lint()`` on a repository holding a fuzzed artifact returns with no internal error.

Regression tests for the bugs this fuzzing found close the file. Hypothesis runs
derandomized (the same examples on every run) with bounded ``max_examples``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import io
import os
import shutil
import struct
import sys
import tempfile
import tracemalloc
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any
from unittest import mock

import pytest
from child_process import run_measured
from fixture_cases import corpus
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from script_modules import load_script
from work import CHILD_PRELUDE, counted_calls

from pbtxt_lint.artifacts.openvino import OpenVinoSignature, read_openvino
from pbtxt_lint.artifacts.python_flow import analyse_flow
from pbtxt_lint.artifacts.python_model import (
    MAX_SOURCE_BYTES,
    Completed,
    PythonSignature,
    Refused,
    Unknown,
    read_python_model,
)
from pbtxt_lint.artifacts.python_values import Arr, Flow, InputFacts
from pbtxt_lint.artifacts.savedmodel import SavedModelSignature, read_savedmodel
from pbtxt_lint.artifacts.signature import ArtifactError, ArtifactProblem, Signature, TensorSpec
from pbtxt_lint.artifacts.tensorrt import PlanSignature, read_plan
from pbtxt_lint.artifacts.torchscript import TorchScriptSignature, read_torchscript
from pbtxt_lint.linter import lint
from pbtxt_lint.schema import DataType, ModelConfig
from pbtxt_lint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
MiB = 1 << 20
CALLS = 4_000_000
"""The most function calls (tests/work.py) one read or emulation may make: about five
times what the costliest input needs on Python 3.11+ (a SavedModel seed, 0.7 M), and
above the 3.1 M that Python 3.10 needs to walk the 100,000 nodes of a 50,000-deep
attribute chain (3.11's parser refuses that source; 3.10's builds the tree). A walk
repeated per node or an expansion that multiplies lands far above it on any machine,
busy or not."""
PEAK = 64 * MiB
ERROR_KINDS = frozenset(
    {"truncated", "corrupt", "lfs-pointer", "not-a-file", "unreadable", "empty"}
)
"""ArtifactError's documented kinds (signature.py)."""
TYPE_NAMES = frozenset(DataType.keys())
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=5)
"""Short text that encodes to UTF-8 (the builders write str)."""
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=120,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _generator() -> ModuleType:
    """scripts/make_fixture_artifacts.py, whose builders wrote the fixture models."""
    return load_script("make_fixture_artifacts")


GEN = _generator()

# --------------------------------------------------------------------------- formats


@dataclass(frozen=True)
class Format:
    name: str
    reader: Callable[[Path, Path], Signature]
    result: type[Signature]
    filename: str
    """What the reader opens, relative to the version folder."""
    config: str
    """The config.pbtxt line that selects the format."""
    problems: frozenset[str]
    """Problem kinds the PL63x-PL69x rules (rules/artifacts/) act on."""
    pieces: tuple[bytes, ...]
    """Byte strings worth inserting into a seed."""


FORMATS = {
    f.name: f
    for f in (
        Format(
            "torchscript", read_torchscript, TorchScriptSignature, "model.pt",
            'platform: "pytorch_libtorch"', frozenset({"not-inspected"}),
            (b"PK\x05\x06", b"PK\x01\x02", b"PK\x03\x04", b"PK\x06\x06", b"\xff\xff\xff\xff",
             b"data.pkl", b"\x80\x02c__torch__\nNet\n", b"\x00"),
        ),
        Format(
            "openvino", read_openvino, OpenVinoSignature, "model.xml", 'backend: "openvino"',
            frozenset({"not-inspected", "weights-missing", "weights-short"}),
            (b"<", b">", b"</layer>", b'"', b"&e;", b"<!DOCTYPE x>", b"\xff", b"\x00", b"\xc3",
             b'<?xml version="1.0" encoding="big5"?>', b'offset="\xc2\xb2"', b"1" * 5000),
        ),
        Format(
            "savedmodel", read_savedmodel, SavedModelSignature, "model.savedmodel/saved_model.pb",
            'platform: "tensorflow_savedmodel"', frozenset(),
            (b"\xff\xff\xff\xff\x0f", b"\x80" * 10, b"\xff" * 9 + b"\x01", b"\x12", b"\x0a\x00",
             b"\x0f", b"\x00"),
        ),
        Format(
            "plan", read_plan, PlanSignature, "model.plan", 'backend: "tensorrt"',
            frozenset({"plan-size-mismatch"}), (b"ftrt", b"\xff" * 8, b"{", b"PK\x03\x04"),
        ),
        Format(
            "python", read_python_model, PythonSignature, "model.py", 'backend: "python"',
            frozenset({"not-inspected"}),
            (b"\n", b"    ", b"(", b")", b":", b"\xff", b"\x00", b"\xef\xbb\xbf", b"\r",
             b"# -*- coding: latin-1 -*-\n", b"# coding: utf-16\n", b"class ", b"def ",
             b"TritonPythonModel", b"@staticmethod\n", b'"""'),
        ),
    )
}  # fmt: skip
IO = (
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


def _fixture_seeds(filename: str) -> list[bytes]:
    """Each distinct non-empty model file of that name in the fixtures and examples."""
    found = {path.read_bytes() for path in corpus(Path(filename).name).values()}
    return sorted(data for data in found if data)


def _zip(entries: list[tuple[str, bytes, int]]) -> bytes:
    """A ZIP archive in memory; duplicate names are allowed (zipfile only warns)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, data, method in entries:
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = method
                archive.writestr(info, data)
    return buffer.getvalue()


PICKLE = b"\x80\x02c__torch__\nNet\nq\x00)\x81q\x01}q\x02b."
STACK_PICKLE = (
    b"\x80\x04\x95\x20\x00\x00\x00\x00\x00\x00\x00\x8c\x09__torch__\x94\x8c\x03Net\x94\x93\x94)"
    b"\x81\x94."
)
CODE = (
    b"class Net(Module):\n  def forward(self: __torch__.Net, x: Tensor, t: List[str],\n"
    b"    d: Dict[str, Tensor]) -> Tuple[Tensor, List[str]]:\n    return (x, t)\n"
)
EXTRA_SEEDS = {
    "torchscript": [
        _zip([("m/data.pkl", PICKLE, zipfile.ZIP_DEFLATED),
              ("m/code/__torch__.py", CODE, zipfile.ZIP_DEFLATED),
              ("m/constants.pkl", b"\x80\x02).", zipfile.ZIP_STORED)]),
        _zip([("m/data.pkl", STACK_PICKLE, zipfile.ZIP_BZIP2),
              ("m/code/__torch__.py", CODE, zipfile.ZIP_LZMA),
              ("m/constants.pkl", b"\x80\x02).", zipfile.ZIP_STORED)]),
    ],
}  # fmt: skip
SEEDS = {
    name: sorted({*_fixture_seeds(fmt.filename), *EXTRA_SEEDS.get(name, [])})
    for name, fmt in FORMATS.items()
}

# --------------------------------------------------------------------------- checks

_TOUCHED: list[tuple[str, str]] | None = None
_HOOKED = False


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _TOUCHED is not None and event == "open" and isinstance(args[0], str | bytes | os.PathLike):
        _TOUCHED.append(("open", os.fsdecode(args[0])))


@contextmanager
def touched_paths() -> Iterator[list[tuple[str, str]]]:
    """Record every path opened (audit hook) or passed to os.stat / os.lstat."""
    global _TOUCHED, _HOOKED
    if not _HOOKED:
        sys.addaudithook(_audit)  # audit hooks cannot be removed: install it once
        _HOOKED = True
    trace: list[tuple[str, str]] = []
    patches = []
    for name in ("stat", "lstat"):
        real: Callable[..., Any] = getattr(os, name)

        def traced(p: Any, *a: Any, _real: Callable[..., Any] = real, _n: str = name,
                   **k: Any) -> Any:  # fmt: skip
            if isinstance(p, str | bytes | os.PathLike):
                trace.append((_n, os.fsdecode(p)))
            return _real(p, *a, **k)

        patches.append(mock.patch.object(os, name, traced))
    _TOUCHED = trace
    try:
        with patches[0], patches[1]:
            yield trace
    finally:
        _TOUCHED = None


INSTALLED = tuple(
    Path(p).resolve() for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}
)  # fmt: skip
MODULE_SUFFIXES = frozenset(importlib.machinery.all_suffixes())


def assert_inside(touched: list[tuple[str, str]], model_dir: Path) -> None:
    """Every path touched resolves inside the model folder (stat and open follow links)."""
    for how, name in touched:
        where = Path(os.path.abspath(name) if how == "lstat" else os.path.realpath(name))
        if where.is_relative_to(model_dir):
            continue
        python_module = where.suffix in MODULE_SUFFIXES and any(
            where.is_relative_to(p) for p in INSTALLED
        )  # a module imported on first use (a codec, bz2, lzma)
        assert how == "open" and python_module, f"{how}({name}) is outside {model_dir}"


@contextmanager
def bounded(what: str) -> Iterator[None]:
    """The block makes at most CALLS function calls and allocates at most PEAK."""
    tracemalloc.start()
    try:
        with counted_calls() as calls:
            yield
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert calls.total < CALLS, f"{what} made {calls.total:,} function calls"
    assert peak < PEAK, f"{what} allocated {peak / MiB:.0f} MiB"


def check_spec(spec: TensorSpec) -> None:
    assert isinstance(spec, TensorSpec)
    assert isinstance(spec.name, str) and isinstance(spec.source_type, str)
    spec.name.encode()  # reports are UTF-8: no lone surrogates
    spec.source_type.encode()
    assert spec.data_type is None or spec.data_type in TYPE_NAMES, spec.data_type
    if spec.shape is not None:
        assert isinstance(spec.shape, tuple)
        for dim in spec.shape:
            assert isinstance(dim, str) or (type(dim) is int and dim >= -1), spec.shape
    assert isinstance(spec.optional, bool) and isinstance(spec.is_tensor, bool)


def check_torchscript(sig: TorchScriptSignature, path: Path) -> None:
    if sig.not_torchscript:
        assert sig.inputs == () and sig.forward is None and not sig.problems
    if sig.forward is not None:
        assert [(a.name, a.annotation) for a in sig.forward] == [
            (s.name, s.source_type) for s in sig.inputs
        ]
        assert all(a.kind in ("tensor", "list", "dict", "other") for a in sig.forward)
        assert sig.facts == {"root_class": sig.root_class}
    else:
        assert sig.inputs == ()
    assert sig.output_count is None or sig.output_count >= 0
    assert isinstance(sig.root_class, str) and isinstance(sig.returns, str)


def check_openvino(sig: OpenVinoSignature, path: Path) -> None:
    for spec in (*sig.inputs, *sig.outputs):
        assert spec.name in sig.aliases.get(spec.name, ()), (spec.name, sig.aliases)
    for names in sig.aliases.values():
        assert isinstance(names, tuple) and all(isinstance(n, str) for n in names)
    if not any(p.kind == "not-inspected" for p in sig.problems):
        assert sig.weights == path.with_suffix(".bin")


def check_savedmodel(sig: SavedModelSignature, path: Path) -> None:
    assert sig.meta_graphs, "a SavedModel without a MetaGraph is an ArtifactError"
    for graph in sig.meta_graphs:
        assert all(isinstance(tag, str) for tag in graph.tags)
        for key, definition in graph.signatures.items():
            assert isinstance(key, str) and isinstance(definition.method_name, str)
            for spec in (*definition.inputs, *definition.outputs):
                check_spec(spec)
    if sig.chosen is None:
        assert sig.inputs == sig.outputs == ()
    else:
        graph, key = sig.select(*sig.chosen)
        assert graph is not None and key == sig.chosen[1]
        chosen = graph.signatures[key]
        assert (sig.inputs, sig.outputs) == (chosen.inputs, chosen.outputs)


def check_plan(sig: PlanSignature, path: Path) -> None:
    assert sig.file_size == path.stat().st_size
    version = sig.tensorrt_version
    assert version is None or (len(version) == 4 and 5 <= version[0] <= 30)
    assert sig.declared_size is None or 0 <= sig.declared_size < 1 << 64
    mismatch = sig.declared_size is not None and sig.declared_size != sig.file_size
    assert [p.kind for p in sig.problems] == (["plan-size-mismatch"] if mismatch else [])
    assert sig.deep or sig.deep_skipped


AUTOFILL_CONFIGS = [
    ModelConfig(name="m", backend="python"),
    ModelConfig(
        name="m", backend="python", max_batch_size=8,
        input=[{"name": "IN", "data_type": DataType.Value("TYPE_FP32"), "dims": [4]}],
    ),
]  # fmt: skip


FLOW_FACTS: list[tuple[dict[str, InputFacts], dict[str, str | None]]] = [
    ({}, {}),
    (
        {
            "X": InputFacts("uint8", 3, 12, True),
            "IN": InputFacts("float32", 1, None, False),
            "TEXT": InputFacts("object", 2, 1, True),
        },
        {"Y": "float32", "OUT": "object"},
    ),
]
"""Configs the value flow of a fuzzed model.py is run under (the rules run it with the
model's own config)."""


def check_python(sig: PythonSignature, path: Path) -> None:
    assert sig.model_class in ("class", "imported", "unknown", "absent")
    assert sig.execute in ("present", "absent", "unknown")
    assert sig.class_line >= 0 and sig.syntax_line >= 0 and sig.dynamic_names >= 0
    uses = (*sig.inputs_read, *sig.outputs_made, *sig.input_configs, *sig.output_configs)
    assert all(isinstance(u.name, str) and u.line >= 1 for u in uses)
    if sig.auto_complete is not None:  # lint() runs it with auto-complete on
        for config in AUTOFILL_CONFIGS:
            with bounded("auto_complete_config emulation"):
                outcome = sig.auto_complete.emulate(config)
            assert isinstance(outcome, Completed | Refused | Unknown)
    check_execute_facts(sig)
    for inputs, outputs in FLOW_FACTS:  # the PL667/PL697-PL699 rules run it per config
        with bounded("value flow"):
            flow = analyse_flow(sig.module, inputs, outputs)
        check_flow(flow)


def check_execute_facts(sig: PythonSignature) -> None:
    facts = sig.execute_facts
    assert facts.line >= 0 and all(r.line >= 1 for r in facts.returns)
    assert all(r.kind in ("none", "list", "value") and r.items >= -1 for r in facts.returns)
    assert all(line >= 1 for line in (*facts.first_request, *facts.sender_lines))
    assert all(send.line >= 1 for send in facts.sends)
    for read in facts.input_reads:
        assert isinstance(read.name, str) and read.line >= 1 and read.deref_line >= 0
        assert read.guard in ("checked", "unchecked", "") and (read.guard == "unchecked") == bool(
            read.error
        )
    for call in facts.bls:
        assert call.model_name is None or isinstance(call.model_name, str)
        assert all(isinstance(n, str) and line >= 1 for n, line in call.inputs)
    for line, column in (*facts.response_tensors, *facts.bls_tensors):
        assert line >= 1 and column >= 0
    if not sig.parsed:
        assert sig.module is None or not sig.problems


def check_flow(flow: Flow) -> None:
    assert isinstance(flow, Flow)
    for out in flow.outputs:
        assert isinstance(out.name, str) and out.line >= 1
        value = out.value
        if value is not None:
            assert isinstance(value, Arr)
            assert value.dtype is None or isinstance(value.dtype, str)
            assert value.rank is None or value.rank >= 0
            assert value.size is None or value.size > 0
            assert value.dims is None or len(value.dims) == value.rank
    for response in flow.responses:
        assert response.line >= 1
        assert response.sent is None or response.sent.must <= response.sent.may
    for reshape in flow.reshapes:
        assert reshape.item_size > 0 and all(d > 0 for d in reshape.shape)


FORMAT_CHECKS: dict[str, Callable[[Any, Path], None]] = {
    "torchscript": check_torchscript,
    "openvino": check_openvino,
    "savedmodel": check_savedmodel,
    "plan": check_plan,
    "python": check_python,
}


def check_signature(fmt: Format, sig: Signature, path: Path) -> None:
    assert type(sig) is fmt.result and sig.format == fmt.name
    assert isinstance(sig.path, Path)
    assert isinstance(sig.inputs, tuple) and isinstance(sig.outputs, tuple)
    for spec in (*sig.inputs, *sig.outputs):
        check_spec(spec)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in sig.facts.items())
    for problem in sig.problems:
        assert isinstance(problem, ArtifactProblem) and problem.kind in fmt.problems, problem
        assert isinstance(problem.message, str) and problem.message
    FORMAT_CHECKS[fmt.name](sig, path)


def read(fmt: Format, path: Path, model_dir: Path) -> Signature | ArtifactError:
    """Run the reader and check every property; any other exception propagates (a bug)."""
    with touched_paths() as touched, bounded(f"read {fmt.name}"):
        try:
            result: Signature | ArtifactError = fmt.reader(path, model_dir)
        except ArtifactError as error:
            result = error
    assert_inside(touched, model_dir)
    if isinstance(result, ArtifactError):
        assert result.kind in ERROR_KINDS and result.message and str(result) == result.message
    else:
        check_signature(fmt, result, path)
    return result


@contextmanager
def model_folder(fmt: Format) -> Iterator[tuple[Path, Path]]:
    """(the artifact path, the model folder), fresh for each example and removed after."""
    root = Path(tempfile.mkdtemp(prefix="fuzz-readers-")).resolve()
    try:
        model_dir = root / "m"
        path = model_dir / "1" / fmt.filename
        path.parent.mkdir(parents=True)
        yield path, model_dir
    finally:
        shutil.rmtree(root)


def read_bytes(fmt: Format, data: bytes) -> Signature | ArtifactError:
    with model_folder(fmt) as (path, model_dir):
        path.write_bytes(data)
        return read(fmt, path, model_dir)


# --------------------------------------------------------------------------- inputs

MAGIC = {
    "torchscript": b"PK\x03\x04",
    "openvino": b"<net",
    "savedmodel": b"\x12",
    "plan": b"ftrt",
    "python": b"class TritonPythonModel:\n",
}


@st.composite
def random_bytes(draw: st.DrawFn, fmt: Format) -> bytes:
    """Random bytes, half of them behind the format's magic so the reader goes deeper."""
    prefix = draw(st.sampled_from([b"", MAGIC[fmt.name]]))
    return prefix + draw(st.binary(max_size=1500))


@st.composite
def mutated(draw: st.DrawFn, fmt: Format) -> bytes:
    """A seed with 1-6 edits: bit flip, overwrite, insert, delete, duplicate."""
    data = bytearray(draw(st.sampled_from(SEEDS[fmt.name])))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, max(0, len(data) - 1)))
        action = draw(st.sampled_from(["flip", "overwrite", "insert", "delete", "duplicate"]))
        length = draw(st.integers(1, 16))
        if action == "flip" and data:
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif action == "overwrite":
            data[at : at + length] = draw(st.binary(min_size=length, max_size=length))
        elif action == "insert":
            data[at:at] = draw(st.sampled_from(fmt.pieces) | st.binary(min_size=1, max_size=8))
        elif action == "delete":
            del data[at : at + length]
        else:
            data[at:at] = data[at : at + length]
    return bytes(data)


@st.composite
def truncated(draw: st.DrawFn, fmt: Format) -> bytes:
    data = draw(st.sampled_from(SEEDS[fmt.name]))
    return data[: draw(st.integers(0, len(data)))]


def fuzzed(fmt: Format) -> st.SearchStrategy[bytes]:
    return st.one_of(random_bytes(fmt), mutated(fmt), truncated(fmt))


CUTS_PER_FORMAT = 1500
"""Truncations read per format, shared by its seeds (a few ms each, for the runtime)."""


def cut_points(size: int, limit: int) -> range | list[int]:
    """Every cut of a small file; for a large one, evenly spaced cuts and the last bytes."""
    if size <= limit:
        return range(size + 1)
    step = size // limit + 1
    return sorted({*range(0, size, step), *range(max(0, size - 32), size + 1)})


# --------------------------------------------------------------------------- every format

FORMAT_NAMES = sorted(FORMATS)


def test_every_format_has_seeds() -> None:
    """The seeds are found (a renamed fixture folder would silently weaken the fuzzing)."""
    assert all(len(SEEDS[name]) >= 2 for name in FORMAT_NAMES), {n: len(SEEDS[n]) for n in SEEDS}
    for name in FORMAT_NAMES:  # and at least one seed is a valid, fully read model
        fmt = FORMATS[name]
        assert any(isinstance(read_bytes(fmt, seed), fmt.result) for seed in SEEDS[name])


@pytest.mark.parametrize("name", FORMAT_NAMES)
@FUZZ
@given(data=st.data())
def test_random_bytes(name: str, data: st.DataObject) -> None:
    fmt = FORMATS[name]
    read_bytes(fmt, data.draw(random_bytes(fmt)))


@pytest.mark.parametrize("name", FORMAT_NAMES)
@FUZZ
@given(data=st.data())
def test_mutated_seeds(name: str, data: st.DataObject) -> None:
    fmt = FORMATS[name]
    read_bytes(fmt, data.draw(mutated(fmt)))


@pytest.mark.parametrize("name", FORMAT_NAMES)
def test_every_truncation_of_every_seed(name: str) -> None:
    """Cut every seed at every offset (at sampled ones when the seeds are many or large)."""
    fmt = FORMATS[name]
    limit = CUTS_PER_FORMAT // len(SEEDS[name])
    with model_folder(fmt) as (path, model_dir):
        for seed in SEEDS[name]:
            for cut in cut_points(len(seed), limit):
                path.write_bytes(seed[:cut])
                read(fmt, path, model_dir)


# --------------------------------------------------------------------------- TorchScript

ZIP_NAMES = [
    "m/data.pkl", "m/constants.pkl", "m/code/__torch__.py", "m/code/__torch__/a.py",
    "data.pkl", "constants.pkl", "code/__torch__.py", "m/version", "m/archive_format",
    "m/data/aotinductor/x", "../../etc/passwd", "/etc/data.pkl", "m/", "é/data.pkl",
    "m/code/", "a" * 300 + "/data.pkl", "m/code/__torch__/../../x.py",
]  # fmt: skip
ZIP_CONTENTS = [
    PICKLE, STACK_PICKLE, CODE, b"\x80\x02).", b"", b"\x80\x02cos\nsystem\n",
    b"\x80\x02c__torch__.a\nNet\n.", b"\x80\x02c__torch__..\n/\n.", b"\x80\x04\x95",
    b"class Net:\n  async def forward(*, x): ...\n", b"\xff\xfe\x00", b"(" * 300,
    b"class Net:\n def forward(x: " + b"List[" * 120 + b"Tensor" + b"]" * 120 + b"): pass\n",
]  # fmt: skip
METHODS = [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]
CENTRAL_FIELDS = {"flags": (8, "<H"), "method": (10, "<H"), "crc": (16, "<I"),
                  "compressed": (20, "<I"), "size": (24, "<I"), "offset": (42, "<I")}  # fmt: skip
END_FIELDS = {"entries": (10, "<H"), "directory": (12, "<I"), "start": (16, "<I")}
ODD_VALUES = [0, 1, 99, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFE, 0xFFFFFFFF]


def central_entries(data: bytes) -> list[int]:
    """Offsets of the central directory headers of an archive zipfile wrote."""
    end = data.rfind(b"PK\x05\x06")
    count, _, start = struct.unpack_from("<HII", data, end + 10)
    offsets, at = [], start
    for _ in range(count):
        offsets.append(at)
        lengths = struct.unpack_from("<HHH", data, at + 28)
        at += 46 + sum(lengths)
    return offsets


def patch(data: bytearray, at: int, layout: str, value: int) -> None:
    struct.pack_into(layout, data, at, value & (0xFFFF if layout == "<H" else 0xFFFFFFFF))


@st.composite
def odd_archives(draw: st.DrawFn) -> bytes:
    """Archives with odd member names, contents and methods, and lying directory fields."""
    entries = draw(
        st.lists(
            st.tuples(
                st.sampled_from(ZIP_NAMES) | TEXT,
                st.sampled_from(ZIP_CONTENTS) | st.binary(max_size=64),
                st.sampled_from(METHODS),
            ),
            max_size=6,
        )
    )
    data = bytearray(_zip([(n.replace("\x00", ""), c, m) for n, c, m in entries]))
    offsets = central_entries(bytes(data))
    for _ in range(draw(st.integers(0, 3))):
        value = draw(st.sampled_from(ODD_VALUES) | st.integers(0, 0xFFFFFFFF))
        if offsets and draw(st.booleans()):
            at, layout = CENTRAL_FIELDS[draw(st.sampled_from(sorted(CENTRAL_FIELDS)))]
            patch(data, draw(st.sampled_from(offsets)) + at, layout, value)
        else:
            at, layout = END_FIELDS[draw(st.sampled_from(sorted(END_FIELDS)))]
            patch(data, data.rfind(b"PK\x05\x06") + at, layout, value)
    return bytes(data)


@FUZZ
@given(data=odd_archives())
def test_torchscript_odd_archives(data: bytes) -> None:
    read_bytes(FORMATS["torchscript"], data)


def test_torchscript_entries_claiming_gigabytes() -> None:
    """data.pkl inflates to 64 MiB and claims 4 GiB; the code file claims 4 GiB: both capped."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = compressor.compress(PICKLE)  # the root class is found, then 64 MiB of zeros
    bomb += b"".join(compressor.compress(bytes(MiB)) for _ in range(64)) + compressor.flush()
    data = bytearray(
        _zip([("m/data.pkl", PICKLE, zipfile.ZIP_DEFLATED),
              ("m/code/__torch__.py", CODE, zipfile.ZIP_STORED),
              ("m/constants.pkl", b"\x80\x02).", zipfile.ZIP_STORED)])
    )  # fmt: skip
    # Swap in the bomb as data.pkl's deflated payload: local header, then central directory.
    assert data[:4] == b"PK\x03\x04"
    name_length, extra_length = struct.unpack_from("<HH", data, 26)
    payload = 30 + name_length + extra_length
    (old_size,) = struct.unpack_from("<I", data, 18)
    data[payload : payload + old_size] = bomb
    struct.pack_into("<III", data, 14, 0, len(bomb), 0xFFFFFFFE)
    shift = len(bomb) - old_size
    end = data.rfind(b"PK\x05\x06")
    struct.pack_into("<I", data, end + 16, struct.unpack_from("<I", data, end + 16)[0] + shift)
    first, code, constants = central_entries(bytes(data))
    struct.pack_into("<III", data, first + 16, 0, len(bomb), 0xFFFFFFFE)
    struct.pack_into("<I", data, code + 24, 0xFFFFFFFE)
    for entry in (code, constants):
        struct.pack_into(
            "<I", data, entry + 42, struct.unpack_from("<I", data, entry + 42)[0] + shift
        )
    sig = read_bytes(FORMATS["torchscript"], bytes(data))
    assert isinstance(sig, TorchScriptSignature) and sig.forward is None
    assert [p.kind for p in sig.problems] == ["not-inspected"]


# --------------------------------------------------------------------------- OpenVINO

XML_TAGS = ["net", "layers", "layer", "data", "input", "output", "port", "dim", "edges",
            "edge", "rt_info", "x"]  # fmt: skip
XML_ATTRIBUTES = {
    "id": ["0", "1", "2", ""], "name": ["p", "r/sink_port_0", "", "a,b"],
    "type": ["Parameter", "Result", "Const", "Relu"], "version": ["11", "opset1"],
    "element_type": ["f32", "i64", "boolean", "bf16", "?", ""],
    "shape": ["?,4", "1..10,3", "[1,3]", "...", "", "-5", "1" * 5000, "..", "٣"],
    "precision": ["FP32", "U8", "xx", ""], "names": ["a", "a\\,b,c", "\\", ",,", ""],
    "output_names": ["out", ""], "offset": ["0", "16", "²", "1" * 5000, "-1"],
    "size": ["4", "1" * 30, "²"], "from-layer": ["0", "1"], "from-port": ["0", "1"],
    "to-layer": ["1", "2"], "to-port": ["0"],
}  # fmt: skip
XML_TEXTS = ["", "4", "-1", "?", "1..5", " 7 ", "&amp;", "&#x41;", "&e;", "<![CDATA[3]]>", "x"]
ENCODINGS = ["utf-8", "UTF-16", "latin-1", "ascii", "cp037", "shift_jis", "big5", "rot13",
             "base64", "idna", "undefined", "nonexistent", ""]  # fmt: skip
PROLOGS = [
    "", "\ufeff", '<?xml version="1.0"?>', "<!-- comment -->", "<?pi data?>",
    '<!DOCTYPE net [<!ENTITY e "x">]>', '<!DOCTYPE net SYSTEM "file:///etc/passwd">',
    '<!DOCTYPE net [<!ENTITY % p SYSTEM "/etc/passwd"> %p;]>',
]  # fmt: skip


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


@st.composite
def xml_element(draw: st.DrawFn, depth: int) -> str:
    tag = draw(st.sampled_from(XML_TAGS))
    keys = draw(st.lists(st.sampled_from(sorted(XML_ATTRIBUTES)), max_size=4, unique=True))
    attrs = "".join(
        f' {k}="{escape(draw(st.sampled_from(XML_ATTRIBUTES[k]) | st.text(max_size=6)))}"'
        for k in keys
    )
    children = []
    if depth > 0:
        for _ in range(draw(st.integers(0, 3))):
            children.append(draw(xml_element(depth - 1)))
    text = draw(st.sampled_from(XML_TEXTS))
    return f"<{tag}{attrs}>{text}{''.join(children)}</{tag}>"


@st.composite
def ir_documents(draw: st.DrawFn) -> bytes:
    """An XML document of IR-like elements with a random prolog and declared encoding."""
    encoding = draw(st.sampled_from(ENCODINGS))
    declaration = f'<?xml version="1.0" encoding="{encoding}"?>' if encoding else ""
    body = "".join(draw(st.lists(xml_element(3), min_size=1, max_size=3)))
    root = f'<net name="n" version="11">{body}</net>' if draw(st.booleans()) else body
    document = declaration + draw(st.sampled_from(PROLOGS)) + root
    if encoding.lower() == "utf-16" and draw(st.booleans()):
        return document.encode("utf-16")
    return document.encode("utf-8", "surrogatepass")


@st.composite
def ir_models(draw: st.DrawFn) -> tuple[Any, str]:
    """A well-formed IR from the fixture builder with random ports, and a model.bin variant."""
    port = st.tuples(
        st.sampled_from(["x", "a,b", "a\\,b", "", "ids,input_ids"]) | TEXT,
        st.sampled_from(["f32", "i64", "boolean", "FP16", "U8", "x"]),
        st.sampled_from(["?,4", "1..10,3", "", "-1,8", "4"])
        | st.text("0123456789,?.-", max_size=8),
    )  # fmt: skip
    model = GEN.OpenVino(
        tuple(draw(st.lists(port, min_size=1, max_size=3))),
        tuple(draw(st.lists(port, max_size=3))),
        needed=draw(st.sampled_from([0, 16, 1 << 40])),
        weights=None,
    )
    return model, draw(st.sampled_from(WEIGHTS))


WEIGHTS = ["none", "short", "long", "folder", "fifo", "link-out", "link-up", "link-in"]


def place_weights(xml: Path, how: str) -> None:
    """model.bin beside the XML: missing, a file, a folder, a FIFO or a link in or out."""
    weights = xml.with_suffix(".bin")
    outside = xml.parents[2] / "outside.bin"  # next to the model folder
    outside.write_bytes(bytes(64))
    if how == "short":
        weights.write_bytes(bytes(8))
    elif how == "long":
        weights.write_bytes(bytes(64))
    elif how == "folder":
        weights.mkdir()
    elif how == "fifo":
        os.mkfifo(weights)
    elif how == "link-out":
        weights.symlink_to(outside)
    elif how == "link-up":
        weights.symlink_to("../../outside.bin")
    elif how == "link-in":
        (xml.parent / "real.bin").write_bytes(bytes(64))
        weights.symlink_to("real.bin")


@settings(FUZZ, max_examples=80)
@given(data=ir_documents(), weights=st.sampled_from(WEIGHTS))
def test_openvino_random_xml(data: bytes, weights: str) -> None:
    fmt = FORMATS["openvino"]
    with model_folder(fmt) as (path, model_dir):
        path.write_bytes(data)
        place_weights(path, weights)
        read(fmt, path, model_dir)


@settings(FUZZ, max_examples=80)
@given(model=ir_models())
def test_openvino_builder_models_with_random_ports(model: tuple[Any, str]) -> None:
    fmt = FORMATS["openvino"]
    ir, weights = model
    with model_folder(fmt) as (path, model_dir):
        ir.write(path)
        place_weights(path, weights)
        read(fmt, path, model_dir)


@pytest.mark.parametrize(
    "document",
    [
        b"<net>" + b"<a>" * 100_000 + b"</a>" * 100_000 + b"</net>",
        b'<net><layers><layer type="Parameter">' + b"<port><dim>1</dim>" * 50_000 + b"</net>",
        b'<net version="' + b"1" * (3 * MiB) + b'"/>',
        b'<?xml version="1.0"?><!DOCTYPE net [' + b'<!ENTITY a "aaaa">' * 50_000 + b"]><net/>",
    ],
    ids=["100k-deep", "unclosed-ports", "3-MB-attribute", "50k-entities"],
)
def test_openvino_large_and_deep_documents(document: bytes) -> None:
    read_bytes(FORMATS["openvino"], document)


# --------------------------------------------------------------------------- SavedModel


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


HUGE = [1 << 31, 1 << 32, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 70]
STRINGS = [b"serve", b"serving_default", b"x", b"", b"\xff\xfe", b"__saved_model_init_op"]


@st.composite
def protobuf(draw: st.DrawFn, depth: int) -> bytes:
    """A message of fields numbered 1-5 (the SavedModel subset's numbers) nested `depth`
    deep, with wrong wire types and lengths that lie, some of them huge."""
    out = bytearray()
    for _ in range(draw(st.integers(0, 4))):
        number = draw(st.integers(1, 5) | st.sampled_from([0, 15, 1 << 28]))
        wire = draw(st.sampled_from([2, 2, 2, 0, 0, 1, 5, 3, 4, 6, 7]))
        out += varint(number << 3 | wire)
        if wire == 0:
            out += varint(draw(st.integers(0, 1 << 64) | st.sampled_from(HUGE)))
        elif wire in (1, 5):
            out += draw(st.binary(min_size=0, max_size=8 if wire == 1 else 4))
        elif wire == 2:
            payload = draw(protobuf(depth - 1)) if depth > 0 and draw(st.booleans()) else (
                draw(st.sampled_from(STRINGS) | st.binary(max_size=8))
            )  # fmt: skip
            length = len(payload)
            if draw(st.integers(0, 9)) == 0:
                length = draw(st.sampled_from(HUGE) | st.integers(0, len(payload) + 2))
            out += varint(length) + payload
    return bytes(out)


@st.composite
def saved_models(draw: st.DrawFn) -> bytes:
    """The fixture builder's SavedModel with random tensors, tags and signature keys."""
    tensor = st.tuples(
        st.sampled_from(["x", "", "é"]) | TEXT,
        st.integers(-1, 30) | st.sampled_from([1 << 31, (1 << 64) - 1]),
        st.none() | st.lists(st.integers(-(1 << 63), (1 << 64) - 1), max_size=4).map(tuple),
    )
    model = GEN.SavedModel(
        tuple(draw(st.lists(tensor, max_size=3))),
        tuple(draw(st.lists(tensor, max_size=3))),
        tags=tuple(draw(st.lists(st.sampled_from(["serve", "gpu", "train"]), max_size=3))),
        signature=draw(st.sampled_from(["serving_default", "predict", ""])),
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "saved_model.pb"
        model.write(path)
        return path.read_bytes()


@FUZZ
@given(data=st.builds(lambda m: b"\x12" + varint(len(m)) + m, protobuf(5)) | protobuf(6))
def test_savedmodel_random_protobuf(data: bytes) -> None:
    read_bytes(FORMATS["savedmodel"], data)


@settings(FUZZ, max_examples=80)
@given(data=saved_models(), edits=st.lists(st.tuples(st.integers(0, 400), st.sampled_from(HUGE)),
                                          max_size=2))  # fmt: skip
def test_savedmodel_builder_models_with_huge_varints(
    data: bytes, edits: list[tuple[int, int]]
) -> None:
    """Builder models, with a varint (a tag, a length or a value) replaced by a huge one."""
    model = bytearray(data)
    for at, value in edits:
        at %= len(model)
        end = at
        while end < len(model) and model[end] & 0x80:
            end += 1
        model[at : end + 1] = varint(value)
    read_bytes(FORMATS["savedmodel"], bytes(model))


def test_savedmodel_large_graph_def_is_skipped() -> None:
    """A few MB of graph_def (a frozen graph's weights) cost nothing: skipped by length."""
    graph_def = b"\x12" + varint(3 * MiB) + bytes(3 * MiB)
    meta_info = b"\x0a\x07\x22\x05serve"
    meta_graph = meta_info + graph_def
    data = b"\x12" + varint(len(meta_graph)) + meta_graph
    assert isinstance(read_bytes(FORMATS["savedmodel"], data), SavedModelSignature)


# --------------------------------------------------------------------------- TensorRT plans


@st.composite
def plan_headers(draw: st.DrawFn) -> bytes:
    declared = draw(st.sampled_from([0, 32, 96, (1 << 64) - 1]) | st.integers(0, (1 << 64) - 1))
    version = draw(st.binary(min_size=4, max_size=4) | st.sampled_from([bytes([10, 8, 0, 43])]))
    head = b"ftrt" + draw(st.binary(min_size=12, max_size=12)) + struct.pack("<Q", declared)
    head += version + draw(st.binary(max_size=64))
    wrapped = draw(st.sampled_from(["", "json", "zip", "protobuf"]))
    if wrapped == "json":
        meta = b'{"x": 1}'
        head = struct.pack("<I", draw(st.sampled_from([len(meta), 0xFFFFFFFF]))) + meta + head
    elif wrapped == "zip":
        head = b"PK\x03\x04" + head
    elif wrapped == "protobuf":
        head = b"\x08\x08" + head
    return head[: draw(st.integers(1, len(head)))]


@FUZZ
@given(data=plan_headers())
def test_plan_headers(data: bytes) -> None:
    read_bytes(FORMATS["plan"], data)


def test_large_plan_reads_only_the_header() -> None:
    data = b"ftrt" + bytes(12) + struct.pack("<Q", 4 * MiB) + bytes([10, 8, 0, 43])
    sig = read_bytes(FORMATS["plan"], data.ljust(4 * MiB, b"\xab"))
    assert isinstance(sig, PlanSignature) and sig.problems == ()


# --------------------------------------------------------------------------- Python models

PY_PIECES = [
    "class TritonPythonModel", "(object)", "(Base)", "(metaclass=M)", ":", "\n", "    ", "\t",
    "def ", "async def ", "execute", "initialize", "auto_complete_config", "(self, requests)",
    "(config)", "(*args)", "@staticmethod\n", "return ", "config", "pb_utils", "pass",
    "import triton_python_backend_utils as pb_utils\n", "from triton_python_backend_utils "
    "import *\n", 'pb_utils.get_input_tensor_by_name(r, "X")', 'pb_utils.Tensor("Y", x)',
    "pb_utils.Tensor(name, x)", "pb_utils.InferenceRequest(inputs=[t])", "(", ")", "[", "]",
    "{", "}", ",", "=", "x", " ", "for ", " in ", "if ", "else", "lambda", "*", "**", "#",
    "'", '"', '"""', "\\", "\x00", "é", "\u2028", "\r", "globals()", "exec(", "1" * 5000,
]  # fmt: skip
PY_BYTES = [b"\xff", b"\xc3", b"\xef\xbb\xbf", b"# -*- coding: latin-1 -*-\n",
            b"# coding: utf-16\n", b"# coding: nope\n", b"\xfe\xff"]  # fmt: skip
AUTOFILL_STATEMENTS = [
    'config.add_input({"name": "IN", "data_type": "TYPE_FP32", "dims": [4]})',
    'config.add_input({"name": "IN", "data_type": "TYPE_INT8", "dims": [2]})',
    'config.add_output({"name": "OUT", "data_type": "TYPE_FP32", "dims": [-1]})',
    'config.add_output({"name": "OUT", "dims": [1]})', 'config.add_input({"nam": "x"})',
    "config.set_max_batch_size(8)", "config.set_max_batch_size(0)",
    "config.set_max_batch_size('8')",
    "config.set_dynamic_batching()", 'config.set_model_transaction_policy({"decoupled": True})',
    'config.set_model_transaction_policy({"other": 1})', "d = config.as_dict()",
    "names = [t['name'] for t in d['input']]", "a = [1, 2]", "a.extend(a)", "a.append(a)",
    "b = list(range(20000))", "b = list(range(10**9))", "c = dict(x=1)", "c.update(c)",
    "c = {}", "c['k'] = a", "x = d['missing']", "x = d['input'][5]", "if len(a) > 3:\n        pass",
    "for t in d['input']:\n        if t['name'] not in ['IN']:\n            pass",
    "for i in range(40):\n        a.extend(a)", "for i in range(9):\n        c = dict(c)",
    "while True:\n        pass", "return config", "return None", "return", "x = -a", "break",
    "import os", "print(a)", "x = a == a",
]  # fmt: skip


@st.composite
def python_sources(draw: st.DrawFn) -> bytes:
    """Random source text from Python-ish pieces, with a few bytes that are not UTF-8."""
    parts = draw(st.lists(st.sampled_from(PY_PIECES) | st.text(max_size=4), max_size=60))
    data = "".join(parts).encode("utf-8", "surrogatepass")
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from(PY_BYTES)) + data[at:]
    return data


@st.composite
def autofill_models(draw: st.DrawFn) -> bytes:
    """A model.py whose auto_complete_config is a random program over the emulated API."""
    body = draw(st.lists(st.sampled_from(AUTOFILL_STATEMENTS), min_size=1, max_size=8))
    decorator = draw(st.sampled_from(["    @staticmethod\n", ""]))
    source = (
        "import triton_python_backend_utils as pb_utils\n\n\nclass TritonPythonModel:\n"
        f"{decorator}    def auto_complete_config(config):\n"
        + "".join(f"        {line}\n".replace("\n    ", "\n        ") for line in body)
        + "\n    def execute(self, requests):\n        return []\n"
    )
    return source.encode()


EXECUTE_STATEMENTS = [
    'x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()',
    'x = pb_utils.get_input_tensor_by_name(request, "IN")', "x = x.as_numpy()",
    'x = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()',
    "x = x[0]", "x = x[:, None]", "x = x[..., 0, None]", "x = x[x]", "x = x[-1:]",
    "x = x.reshape(3, 2, 2)", "x = x.reshape(x.shape[0], -1)", "x = x.reshape((2, -1))",
    "x = x.reshape(*x.shape)", "x = np.reshape(x, (4, 3))", "x = x.transpose(2, 0, 1)",
    "x = x.T", "x = np.argmax(x, axis=1)", "x = x / 255.0", "x = x @ x", "x = -x",
    "x = x.sum(axis=(0, 1), keepdims=True)", "x = x.mean()", "x = np.exp(x).astype('float16')",
    "x = np.zeros((2, 3), np.int32)", "x = np.full((2,), 1.5)", "x = np.array([[1, 2]])",
    "x = np.array(['a'])", "x = np.array([x, x])", "x = np.stack([r for r in x])",
    "x = np.concatenate([x, x], axis=1)", "x = np.expand_dims(x, 0)", "x = np.squeeze(x)",
    "l = []", "l.append(x)", "l.extend(l)", "l += [x]", "x = np.array(l)", "x = helper(x)",
    "x = self.helper(x)", "x = self.w", "self.w = x", "x = len(x)", "x = x.shape[0]",
    "x = (y := x[1:])", "x = x if x is None else x + 1", "x = [[s] for s in x]",
    "x = np.where(x > 0, x, 0.0)", "x = np.float32(x)", "x = float(x)", "x = str(x).encode()",
    "if x:\n    x = x.T", "for r in x:\n    x = r", "while x:\n    x = x + 1",
    "try:\n    x = x[0]\nexcept Exception:\n    x = None", "with x as y:\n    x = y",
    "sender = request.get_response_sender()",
    'sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)]))',
    "sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)",
    'responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)]))',
    'responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", x), *l]))',
    'x = pb_utils.InferenceRequest(model_name="m", inputs=[pb_utils.Tensor("T", x)], '
    'requested_output_names=["O"]).exec()',
    "return responses", "return [pb_utils.InferenceResponse([])]", "return self.helper(requests)",
    "return None", "raise ValueError(x)", "request = requests[0]", "del x", "pass",
]  # fmt: skip


@st.composite
def execute_models(draw: st.DrawFn) -> bytes:
    """A model.py whose execute (and helpers) are random programs over arrays, senders,
    responses and BLS requests, as the value flow and the execute facts read them."""

    def block(indent: str) -> str:
        lines = draw(st.lists(st.sampled_from(EXECUTE_STATEMENTS), min_size=1, max_size=10))
        return "".join(indent + line.replace("\n", "\n" + indent) + "\n" for line in lines)

    source = (
        "import numpy as np\nimport triton_python_backend_utils as pb_utils\n\n\n"
        f"def helper(x):\n{block('    ')}    return helper(x)\n\n\n"
        "class TritonPythonModel:\n"
        f"    def helper(self, x):\n{block('        ')}        return self.helper(x)\n\n"
        "    def execute(self, requests):\n        responses = []\n        x = None\n"
        f"        for request in requests:\n{block('            ')}"
        f"{block('        ')}"
    )
    return source.encode()


@FUZZ
@given(data=python_sources())
def test_python_random_source(data: bytes) -> None:
    read_bytes(FORMATS["python"], data)


@settings(FUZZ, max_examples=150)
@given(data=execute_models())
def test_python_random_execute(data: bytes) -> None:
    sig = read_bytes(FORMATS["python"], data)
    assert isinstance(sig, PythonSignature) and (sig.parsed or sig.syntax_error)


@settings(FUZZ, max_examples=60)
@given(data=autofill_models())
def test_python_random_auto_complete_config(data: bytes) -> None:
    sig = read_bytes(FORMATS["python"], data)
    assert isinstance(sig, PythonSignature)
    assert sig.auto_complete is not None or sig.syntax_error  # emulated in check_python


@pytest.mark.parametrize(
    "source",
    [
        b"x = " + b"-" * 100_000 + b"1\n",
        b"x = " + b"(" * 5_000 + b")" * 5_000 + b"\n",
        b"x = " + b"[" * 5_000 + b"]" * 5_000 + b"\n",
        b"x = " + b"not " * 50_000 + b"y\n",
        b"x = a" + b".b" * 50_000 + b"\n",
        b"".join(b" " * i + b"if x:\n" for i in range(120)) + b" " * 120 + b"pass\n",
        b"x = 1 + " + b"1 + " * 20_000 + b"1\n",
        b'x = "' + b"a" * (MAX_SOURCE_BYTES - 8) + b'"\n',
        b"#" * (MAX_SOURCE_BYTES + 1),
        b"#" * (4 * MiB + 1),
    ],
    ids=[
        "unary",
        "parens",
        "lists",
        "not",
        "attributes",
        "indent",
        "sum",
        "string",
        "cap",
        "4-MB",
    ],
)
def test_python_deep_and_large_sources(source: bytes) -> None:
    read_bytes(FORMATS["python"], source)


# --------------------------------------------------------------------------- lint()


@pytest.mark.parametrize("name", FORMAT_NAMES)
@settings(FUZZ, max_examples=20)
@given(data=st.data())
def test_lint_survives_fuzzed_artifacts(name: str, data: st.DataObject) -> None:
    """A repository whose model file is fuzzed: lint() reports, it does not crash."""
    fmt = FORMATS[name]
    artifact = data.draw(fuzzed(fmt))
    with model_folder(fmt) as (path, model_dir):
        path.write_bytes(artifact)
        (model_dir / "config.pbtxt").write_text(f"{fmt.config}\nmax_batch_size: 8\n{IO}")
        for lint_settings in (Settings(), Settings(auto_complete=False)):
            result = lint([model_dir.parent], lint_settings)
            assert result.internal_errors == [], result.internal_errors


# --------------------------------------------------------------------------- regressions


@pytest.mark.parametrize("value", ["²", "1" * 5000])
def test_regression_openvino_const_offset_that_int_refuses(value: str) -> None:
    """str.isdigit() accepts "²", and int() refuses 5,000 digits: both raised ValueError."""
    data = (
        '<net version="11"><layers><layer id="1" type="Const">'
        f'<data offset="{value}" size="4"/></layer></layers></net>'
    ).encode()
    sig = read_bytes(FORMATS["openvino"], data)
    assert isinstance(sig, OpenVinoSignature)
    assert [p.kind for p in sig.problems] == ["weights-missing"]  # the Const still counts


@pytest.mark.parametrize("encoding", ["shift_jis", "big5", "rot13", "nonexistent", "idna"])
def test_regression_openvino_encoding_python_cannot_hand_to_expat(encoding: str) -> None:
    """pyexpat asks Python's codecs for unknown encodings: LookupError/ValueError escaped."""
    data = f'<?xml version="1.0" encoding="{encoding}"?><net version="11"/>'.encode()
    sig = read_bytes(FORMATS["openvino"], data)
    assert isinstance(sig, OpenVinoSignature) and sig.inputs == ()
    assert [p.kind for p in sig.problems] == ["not-inspected"]
    assert "encoding" in sig.problems[0].message


@pytest.mark.parametrize(
    "body",
    [
        "a = [1]\n        for i in range(60):\n            a.extend(a)",
        "a = list(range(20000))\n        b = []\n        for i in range(2000):\n"
        "            b.append(list(a))",
    ],
    ids=["doubling", "copies"],
)
def test_regression_auto_complete_emulation_memory_is_bounded(body: str) -> None:
    """`a.extend(a)` doubles a list per step: 60 steps asked for 2**60 items (MemoryError
    at best, the OOM killer at worst); copies in a loop grew without bound too."""
    source = (
        "class TritonPythonModel:\n    @staticmethod\n    def auto_complete_config(config):\n"
        f"        {body}\n        return config\n"
    )
    sig = read_bytes(FORMATS["python"], source.encode())
    assert isinstance(sig, PythonSignature) and sig.auto_complete is not None
    with bounded("auto_complete_config emulation"):
        outcome = sig.auto_complete.emulate(AUTOFILL_CONFIGS[0])
    assert isinstance(outcome, Unknown) and "items" in outcome.reason


@pytest.mark.parametrize("statement", ["break", "continue"])
def test_regression_break_outside_a_loop_in_auto_complete_config(statement: str) -> None:
    """ast.parse accepts `break` outside a loop (the compiler refuses it): the emulation let
    its internal _Break escape, an internal error in lint()."""
    source = (
        "class TritonPythonModel:\n    @staticmethod\n    def auto_complete_config(config):\n"
        f"        {statement}\n"
    )
    sig = read_bytes(FORMATS["python"], source.encode())
    assert isinstance(sig, PythonSignature) and sig.auto_complete is not None
    outcome = sig.auto_complete.emulate(AUTOFILL_CONFIGS[0])
    assert isinstance(outcome, Unknown) and statement in outcome.reason


def test_regression_python_syntax_error_line_is_not_read_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ast.parse(filename="model.py") reads a syntax error's line back from ./model.py: a
    file outside the model folder (a FIFO there would hang), and the wrong line."""
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    (elsewhere / "model.py").write_text("type Alias = int\n")  # newer syntax, other file
    monkeypatch.chdir(elsewhere)
    sig = read_bytes(FORMATS["python"], b"x = (\n")  # read() checks where it looked
    assert isinstance(sig, PythonSignature) and sig.syntax_line == 1
    assert not sig.syntax_maybe_newer


def test_regression_torchscript_code_syntax_error_opens_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ast.parse's default filename "<unknown>" was opened in the working directory."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "<unknown>").write_text("class Net:\n  def forward(self, x): pass\n")
    data = _zip([("m/data.pkl", PICKLE, zipfile.ZIP_STORED),
                 ("m/code/__torch__.py", b"class Net(\n", zipfile.ZIP_STORED),
                 ("m/constants.pkl", b"\x80\x02).", zipfile.ZIP_STORED)])  # fmt: skip
    sig = read_bytes(FORMATS["torchscript"], data)  # read() checks where it looked
    assert isinstance(sig, TorchScriptSignature) and sig.forward is None


def test_regression_savedmodel_many_tiny_fields_are_capped() -> None:
    """4 MB of two-byte fields (empty tags, unknown varints) were all decoded: 2.5-3.6 s,
    and two million empty tags were kept."""

    def wrap(number: int, payload: bytes) -> bytes:
        return varint(number << 3 | 2) + varint(len(payload)) + payload

    serve = wrap(1, b"\x22\x05serve")  # meta_info_def { tags: "serve" }
    for data in (
        wrap(2, wrap(1, b"\x22\x00" * (2 * MiB))),  # empty tags
        wrap(2, serve + b"\x18\x00" * (2 * MiB)),  # unknown MetaGraphDef varints
        wrap(2, serve) + b"\x08\x00" * (2 * MiB),  # unknown SavedModel varints
    ):
        error = read_bytes(FORMATS["savedmodel"], data)
        assert isinstance(error, ArtifactError) and error.kind == "corrupt"
        assert "more than" in error.message


def _python_shared_values(tail: str) -> bytes:
    """auto_complete_config building x, y (lists) and z (a tuple) of depth 40 whose
    items are shared: Python walks 2**40 items to compare, hash or format them."""
    return (
        "class TritonPythonModel:\n    @staticmethod\n    def auto_complete_config(config):\n"
        "        x = []\n        y = []\n        z = ()\n"
        "        for i in range(40):\n            x = [x, x]\n            y = [y, y]\n"
        f"            z = (z, z)\n        {tail}\n        return config\n"
        "\n    def execute(self, requests):\n        return []\n"
    ).encode()


EMULATE_IN_CHILD = (
    CHILD_PRELUDE
    + """
import json
from pathlib import Path
from pbtxt_lint.artifacts.python_model import read_python_model
from pbtxt_lint.schema import ModelConfig
path = Path(sys.argv[1])
signature = read_python_model(path, path.parent)
config = ModelConfig(name="m", backend="python")
outcome, calls = count_calls(signature.auto_complete.emulate, config)
print(json.dumps({"calls": calls, "outcome": type(outcome).__name__,
                  "reason": getattr(outcome, "reason", "")}))
"""
)


def _in_child(code: str, source: bytes, tmp_path: Path) -> dict[str, Any]:
    """Run `code` on model.py holding `source` in a child process."""
    path = tmp_path / "m" / "1" / "model.py"
    path.parent.mkdir(parents=True)
    path.write_bytes(source)
    return run_measured(code, path, "the child")


@pytest.mark.parametrize(
    "tail",
    [
        "if x == y:\n            pass",
        "q = x in [y]",
        "q = [y].index(x)",
        "q = {z: 1}",
        "q = {}.get(z)",
        "q = dict([(z, 1)])",
        'config.add_input({"name": "IN", "data_type": x, "dims": [4]})',
    ],
    ids=["compare", "in", "index", "dict-key", "get", "dict", "format"],
)
def test_regression_auto_complete_shared_values_are_bounded(tail: str, tmp_path: Path) -> None:
    """Comparing, hashing or formatting `x = [x, x]` after 40 steps never returned (depth
    20 took 30 ms, doubling per level): the items Python walks count against MAX_ITEMS."""
    measured = _in_child(EMULATE_IN_CHILD, _python_shared_values(tail), tmp_path)
    assert measured["calls"] < CALLS, measured
    assert measured["outcome"] == "Unknown" and "items" in measured["reason"], measured


@pytest.mark.parametrize(
    "body",
    [
        "x = 1\n        for i in range(4000):\n            x = [x]\n        q = x == [x]",
        "x = 1\n        for i in range(4000):\n            x = [x]\n"
        '        config.add_output({"name": "OUT", "data_type": "TYPE_FP32", "dims": x})',
        "a = []\n        a.append(a)\n        q = a == [a]",
    ],
    ids=["compare", "format", "cycle"],
)
def test_regression_auto_complete_deep_values_are_refused(body: str) -> None:
    """Values nested thousands deep: Python's recursion in comparing or formatting them
    raised RecursionError in _apply, outside the emulated code's error handling."""
    source = (
        "class TritonPythonModel:\n    @staticmethod\n    def auto_complete_config(config):\n"
        f"        {body}\n        return config\n"
    )
    sig = read_bytes(FORMATS["python"], source.encode())
    assert isinstance(sig, PythonSignature) and sig.auto_complete is not None
    with bounded("auto_complete_config emulation"):
        outcome = sig.auto_complete.emulate(AUTOFILL_CONFIGS[0])
    assert isinstance(outcome, Unknown) and "deep" in outcome.reason, outcome


def test_regression_auto_complete_non_dict_tensor_in_as_dict() -> None:
    """`as_dict()["input"].append(1)` let AttributeError escape from _apply."""
    source = (
        "class TritonPythonModel:\n    @staticmethod\n    def auto_complete_config(config):\n"
        "        config.as_dict()['input'].append(1)\n        return config\n"
    )
    sig = read_bytes(FORMATS["python"], source.encode())
    assert isinstance(sig, PythonSignature) and sig.auto_complete is not None
    outcome = sig.auto_complete.emulate(AUTOFILL_CONFIGS[0])
    assert isinstance(outcome, Unknown) and "not a dict" in outcome.reason


READ_IN_CHILD = (
    CHILD_PRELUDE
    + """
import json
from pathlib import Path
from pbtxt_lint.artifacts.python_model import read_python_model
path = Path(sys.argv[1])
signature, calls = count_calls(read_python_model, path, path.parent)
print(json.dumps({
    "calls": calls,
    # VmHWM, not ru_maxrss: the latter starts at the spawning pytest worker's peak.
    "mb": int(next(line for line in open("/proc/self/status")
                   if line.startswith("VmHWM")).split()[1]) / 1024,
    "problems": [p.message for p in signature.problems],
    "statements": signature.facts.get("statements"),
}))
"""
)


@pytest.mark.parametrize(
    ("piece", "size"),
    [(b"x\n", MAX_SOURCE_BYTES), (b"f(a, b)\n", MAX_SOURCE_BYTES), (b"x = 1\n", MiB)],
    ids=["names-at-cap", "calls-at-cap", "1-MB"],
)
def test_regression_large_python_source_is_bounded(piece: bytes, size: int, tmp_path: Path) -> None:
    """1 MB of `x = 1` lines took 5-10 s and 400 MiB (five ast.walk passes over the
    tree); 4 MB took 35 s. Now one walk, and files over MAX_SOURCE_BYTES are not parsed:
    the densest accepted source costs work linear in its size (under 80 function calls a
    byte; 47 for `x` lines today) and a few hundred MiB; a refused one is not read."""
    source = piece * (size // len(piece))
    measured = _in_child(READ_IN_CHILD, source, tmp_path)
    assert measured["mb"] < 400, measured
    if size > MAX_SOURCE_BYTES:
        assert len(measured["problems"]) == 1 and "KiB" in measured["problems"][0], measured
        assert measured["calls"] < 1_000, measured
    else:
        assert measured["calls"] < 80 * size, measured
        assert measured["problems"] == [] and measured["statements"] == str(size // len(piece)), (
            measured
        )
