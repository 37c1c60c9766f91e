#!/usr/bin/env python3
"""Write the model files of the PL6xx fixture repositories from one declarative table.

Usage: python scripts/make_fixture_artifacts.py [--check]

The fixture cases under tests/fixtures/rules/PL6xx/ are model repositories whose
config.pbtxt is written by hand and whose tiny ONNX models (and external data files,
Git LFS pointers, links) are generated here, so that a model's content is readable in
this table rather than hidden in a binary. Output is deterministic: running the script
again rewrites identical bytes, and tests/test_fixture_artifacts.py checks that the
committed files are exactly what the table produces. `--check` compares without writing
(exit 1 on a difference).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "rules"
EXAMPLES = ROOT / "examples" / "model_repository"
sys.path.insert(0, str(ROOT / "tests"))

from onnx import TensorProto  # noqa: E402  (dev-only script: onnx builds the models)
from onnx_builders import (  # type: ignore[import-not-found]  # noqa: E402
    build_model,
    set_external_location,
    write_external_data,
    write_initializer_inputs,
    write_model,
    write_sequence_input,
)

FLOAT, INT64, INT32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
BOOL, STRING, UINT64 = TensorProto.BOOL, TensorProto.STRING, TensorProto.UINT64

Shape = list[int | str] | None
IO = tuple[str, int, Shape]


@dataclass(frozen=True)
class Graph:
    """`build_model`: output j is Identity (or Cast) of input j; shapes as declared."""

    inputs: list[IO]
    outputs: list[IO]

    def write(self, path: Path) -> None:
        write_model(build_model(self.inputs, self.outputs), path)


@dataclass(frozen=True)
class Truncated:
    """The first `keep` bytes of a model: an interrupted download."""

    model: Graph
    keep: int

    def write(self, path: Path) -> None:
        self.model.write(path)
        path.write_bytes(path.read_bytes()[: self.keep])


@dataclass(frozen=True)
class LfsPointer:
    """What a checkout without Git LFS holds in place of the model."""

    size: int

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        oid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
        path.write_text(
            f"version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {self.size}\n"
        )


@dataclass(frozen=True)
class ExternalData:
    """`Y = X @ W @ W2` with its weights in an external file named by `location`.

    `data` False leaves the data file out; a `location` outside the model folder is
    written into the model only (the data is never written there).
    """

    location: str = "model.onnx.data"
    data: bool = True

    def write(self, path: Path) -> None:
        inside = not (self.location.startswith("/") or self.location.startswith(".."))
        written = self.location if inside else "model.onnx.data"
        (path.parent / written).unlink(missing_ok=True)  # onnx appends to an existing file
        write_external_data(path, written)
        if not inside:
            (path.parent / written).unlink()
            set_external_location(path, self.location)
        elif not self.data:
            (path.parent / self.location).unlink()
        else:
            (path.parent / self.location).chmod(0o644)  # onnx creates it owner-only


@dataclass(frozen=True)
class Special:
    """A model written by one of the builders' special-purpose writers."""

    writer: Callable[[Path], object]

    def write(self, path: Path) -> None:
        self.writer(path)


@dataclass(frozen=True)
class Link:
    """A symbolic link (relative target), e.g. to a file outside the case repository."""

    target: str

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(self.target)


Spec = Graph | Truncated | LfsPointer | ExternalData | Special | Link

# --- common models --------------------------------------------------------------------------

XY = Graph([("x", FLOAT, ["batch", 4])], [("y", FLOAT, ["batch", 4])])
XY_FIXED = Graph([("x", FLOAT, [1, 4])], [("y", FLOAT, [1, 4])])
BERT = Graph(
    [("input_ids", INT64, ["batch", "seq"]), ("attention_mask", INT64, ["batch", "seq"])],
    [("logits", FLOAT, ["batch", 2])],
)


ARTIFACTS: dict[str, Spec] = {
    "PL600/fail_misnamed/m/1/resnet50.onnx": XY,
    "PL600/fail_filename_typo/m/1/model.onnx": XY,
    "PL600/pass_model_directory/m/1/model.onnx/model.onnx": XY,
    "PL601/fail_truncated/m/1/model.onnx": Truncated(XY, 60),
    "PL601/fail_link_outside/m/1/model.onnx": Link("../../../pass_valid/m/1/model.onnx"),
    "PL601/pass_valid/m/1/model.onnx": XY,
    "PL602/fail_lfs_pointer/m/1/model.onnx": LfsPointer(104857600),
    "PL602/pass_pulled/m/1/model.onnx": XY,
    "PL603/fail_data_missing/m/1/model.onnx": ExternalData(data=False),
    "PL603/pass_data_present/m/1/model.onnx": ExternalData(),
    "PL604/fail_absolute_location/m/1/model.onnx": ExternalData("/opt/weights/model.onnx.data"),
    "PL604/pass_subfolder_location/m/1/model.onnx": ExternalData("weights/model.onnx.data"),
    "PL605/fail_sequence_input/m/1/model.onnx": Special(write_sequence_input),
    "PL605/pass_tensors/m/1/model.onnx": XY,
    "PL606/fail_fixed_batch_autofill/m/1/model.onnx": XY_FIXED,
    "PL606/pass_unbatched_autofill/m/1/model.onnx": XY_FIXED,
    "PL607/fail_default_max_batch_size/m/1/model.onnx": XY,
    "PL607/pass_explicit_max_batch_size/m/1/model.onnx": XY,
    "PL608/fail_renamed_tensors/m/1/model.onnx": BERT,
    "PL608/pass_overridable_initializer/m/1/model.onnx": Special(
        lambda path: write_initializer_inputs(path, ir_version=8)
    ),
    "PL609/fail_missing_input/m/1/model.onnx": Graph(
        [*BERT.inputs, ("token_type_ids", INT64, ["batch", "seq"])], BERT.outputs
    ),
    "PL609/pass_inputs_autofilled/m/1/model.onnx": BERT,
    "PL610/fail_int32_ids/m/1/model.onnx": BERT,
    "PL610/pass_matching_types/m/1/model.onnx": Graph(
        [("text", STRING, ["batch"]), ("flag", BOOL, ["batch", 1])],
        [("echo", STRING, ["batch"]), ("mask", BOOL, ["batch", 1])],
    ),
    "PL611/fail_ragged_2d/m/1/model.onnx": Graph(
        [("tokens", FLOAT, ["batch", 4])], [("y", FLOAT, ["batch", 4])]
    ),
    "PL611/pass_ragged_flat/m/1/model.onnx": Graph(
        [("tokens", FLOAT, ["total"])], [("y", FLOAT, ["batch", 4])]
    ),
    "PL612/fail_fixed_batch/m/1/model.onnx": Graph(
        [("images", FLOAT, [1, 3, 8, 8])], [("scores", FLOAT, [1, 10])]
    ),
    "PL612/pass_unbatched_full_shape/m/1/model.onnx": Graph(
        [("images", FLOAT, [1, 3, 8, 8])], [("scores", FLOAT, [1, 10])]
    ),
    "PL613/fail_batch_twice/m/1/model.onnx": BERT,
    "PL613/pass_sample_dims/m/1/model.onnx": BERT,
    "PL614/fail_input_wildcard_output_fixed/m/1/model.onnx": Graph(
        [("x", FLOAT, ["batch", 16])], [("y", FLOAT, ["batch", "n"])]
    ),
    "PL614/fail_missing_batch_dim/m/1/model.onnx": XY,
    "PL614/pass_fixed_where_dynamic/m/1/model.onnx": Graph(
        [("x", FLOAT, ["batch", "seq"])], [("y", FLOAT, ["batch", "seq"])]
    ),
    "PL615/fail_scalar_and_unknown_rank/m/1/model.onnx": Graph(
        [("x", FLOAT, ["n", 4]), ("temperature", FLOAT, []), ("u", FLOAT, None)],
        [("y", FLOAT, ["n", 4])],
    ),
    "PL615/pass_dims_one/m/1/model.onnx": Graph(
        [("x", FLOAT, ["n", 4]), ("temperature", FLOAT, []), ("u", FLOAT, None)],
        [("y", FLOAT, ["n", 4])],
    ),
    "PL616/fail_controls/m/1/model.onnx": Graph(
        [
            ("x", FLOAT, ["batch", 4]),
            ("START_FLAG", INT32, ["batch", 1]),
            ("READY", INT32, ["batch", 2]),
            ("END", BOOL, ["batch", 1]),
        ],
        [("y", FLOAT, ["batch", 4])],
    ),
    "PL616/pass_controls/m/1/model.onnx": Graph(
        [
            ("x", FLOAT, ["batch", 4]),
            ("START", INT32, ["batch", 1]),
            ("CORRID", UINT64, ["batch", 1]),
        ],
        [("y", FLOAT, ["batch", 4])],
    ),
    "PL617/fail_scalar_with_batching/m/1/model.onnx": Graph(
        [("x", FLOAT, ["batch", 4]), ("temperature", FLOAT, [])], [("y", FLOAT, ["batch", 4])]
    ),
    "PL617/pass_scalar_unbatched/m/1/model.onnx": Graph(
        [("x", FLOAT, ["batch", 4]), ("temperature", FLOAT, [])], [("y", FLOAT, ["batch", 4])]
    ),
    "PL618/fail_fixed_vs_dynamic/m/1/model.onnx": BERT,
    "PL618/pass_both_fixed/m/1/model.onnx": BERT,
}
"""Fixture file (relative to tests/fixtures/rules) -> how it is made."""

EXAMPLE_ARTIFACTS: dict[str, Spec] = {
    # A sentence encoder exported with dynamic batch and sequence axes; the config
    # writes the hidden size as 384 where the model says 768.
    "text_encoder/1/model.onnx": Graph(
        [
            ("input_ids", INT64, ["batch", "sequence"]),
            ("attention_mask", INT64, ["batch", "sequence"]),
        ],
        [("last_hidden_state", FLOAT, ["batch", "sequence", 768])],
    ),
    # An image classifier exported with a fixed batch of 1.
    "resnet50/01/model.onnx": Graph(
        [("input", FLOAT, [1, 3, 224, 224])], [("logits", FLOAT, [1, 1000])]
    ),
}
"""Example repository file (relative to examples/model_repository) -> how it is made."""

TABLES: list[tuple[Path, dict[str, Spec], int]] = [
    (FIXTURES, ARTIFACTS, 2),  # a case is <CODE>/<case>
    (EXAMPLES, EXAMPLE_ARTIFACTS, 1),  # a case is <model>
]
"""(base folder, table relative to it, path parts that name one case)."""


def generated_files(root: Path) -> list[Path]:
    """Every file and link below `root` that the table accounts for (data files too)."""
    hand_written = (".pbtxt", ".txt", ".py")
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_symlink() or (p.is_file() and p.suffix not in hand_written)
    )


def write_all(base: Path, table: dict[str, Spec]) -> None:
    """Write every table entry below `base` (the real folder or a scratch copy)."""
    for relative, spec in table.items():
        path = base / relative
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        spec.write(path)


def same(a: Path, b: Path) -> bool:
    if a.is_symlink() or b.is_symlink():
        return a.is_symlink() and b.is_symlink() and os.readlink(a) == os.readlink(b)
    return b.is_file() and filecmp.cmp(a, b, shallow=False)


def differences() -> list[str]:
    """Files a table would write differently (or not at all) in the committed tree."""
    problems = []
    for base, table, depth in TABLES:
        with tempfile.TemporaryDirectory() as scratch:
            fresh = Path(scratch)
            write_all(fresh, table)
            produced = {p.relative_to(fresh) for p in generated_files(fresh)}
            problems += [
                f"{base / rel}: differs from what the table produces"
                for rel in sorted(produced)
                if not same(fresh / rel, base / rel)
            ]
            cases = {Path(*Path(r).parts[:depth]) for r in table}
            for case in sorted(cases):
                for path in generated_files(base / case):
                    rel = path.relative_to(base)
                    if rel not in produced:
                        problems.append(f"{base / rel}: not produced by the table (stale?)")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args()
    if args.check:
        problems = differences()
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    for base, table, _ in TABLES:
        write_all(base, table)
        print(f"wrote {len(table)} artifacts under {base.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
