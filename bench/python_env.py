#!/usr/bin/env python3
"""Benchmark: linting a Python model whose environment archive is a 1 GiB gzip tar.

Not a timed test. Builds (once, in a scratch folder) a model repository whose
EXECUTION_ENV_PATH is a gzip-compressed tar of a conda-pack-like layout: tens of thousands of files
under lib/python3.12/site-packages, half incompressible (like the .so files of a real
environment), half text, 1 GiB compressed (gzip level 4, conda-pack's default). Then measures, as
whole processes (median of the runs after a warm-up, peak RSS of the process tree):

- `pbtxt-lint check` with only the PL68x rules (the archive is listed once per run);
- `tar -tzf` (GNU tar with gzip): the floor of listing a gzip tar, which must inflate
  every byte to find the headers.

- the same check run again over the unchanged repository: the result cache keys the
  model by its config and the identity (name, size, mtime) of the files in its folder,
  the archive included, so a warm run reports the stored result without listing it.

Usage: python bench/python_env.py [--runs N] [--keep DIR] [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import compileall
import gzip
import io
import os
import random
import re
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import ROOT, Measured, lint_command, machine, measure  # noqa: E402

MiB = 1 << 20
START = "<!-- python-env:start (bench/python_env.py) -->"
END = "<!-- python-env:end -->"
CONFIG = """backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
parameters { key: "EXECUTION_ENV_PATH"
             value: { string_value: "$$TRITON_MODEL_DIRECTORY/env.tar.gz" } }
"""
MODEL = """import numpy
import pkg7


class TritonPythonModel:
    def execute(self, requests):
        return []
"""


def build(folder: Path) -> Path:
    """The repository; its archive is written once (it takes a minute) and reused."""
    model = folder / "repo" / "m"
    archive = model / "env.tar.gz"
    if archive.exists():
        return folder / "repo"
    (model / "1").mkdir(parents=True, exist_ok=True)
    (model / "config.pbtxt").write_text(CONFIG)
    (model / "1" / "model.py").write_text(MODEL)
    rng = random.Random(7)
    noise = rng.randbytes(8 * MiB)
    text = (b"def function_%d(value):\n    return value * 2 + 1\n\n" * 200_000)[: 8 * MiB]
    partial = archive.with_suffix(".partial")
    with (
        partial.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=4) as gz,
        tarfile.open(fileobj=gz, mode="w|", format=tarfile.GNU_FORMAT) as tar,
    ):  # conda-pack's default level is 4
        for name, data in _layout():
            _add(tar, name, data)
        index = 0
        while raw.tell() < 1024 * MiB - 2 * MiB:
            size = rng.choice((4_000, 16_000, 40_000, 120_000))
            start = rng.randrange(0, 8 * MiB - size)
            binary = index % 2 == 0
            data = (noise if binary else text)[start : start + size]
            suffix = "cpython-312-x86_64-linux-gnu.so" if binary else "py"
            name = f"lib/python3.12/site-packages/pkg{index % 400}/mod{index}.{suffix}"
            _add(tar, name, data)
            index += 1
    partial.rename(archive)
    return folder / "repo"


def _layout() -> list[tuple[str, bytes]]:
    return [
        ("bin/activate", b"# conda-pack activate\n"),
        ("bin/python3.12", b"stand-in\n"),
        ("conda-meta/python-3.12.7-h0_0.json", b"{}\n"),
        ("lib/python3.12/site-packages/numpy/__init__.py", b""),
    ]


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def entries(archive: Path) -> int:
    from pbtxt_lint.artifacts.python_env import list_environment

    return list_environment(archive).entries


def row(case: str, measured: Measured) -> str:
    return f"| {case} | {measured.seconds:.2f} | {measured.cpu:.2f} | {measured.peak_mib:.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    parser.add_argument("--write", type=Path, help="update this markdown file's section")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "pbtxt_lint", quiet=1)
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="pbtxt-lint-bench-env-"))
    try:
        repository = build(scratch)
        archive = repository / "m" / "env.tar.gz"
        size = archive.stat().st_size
        count = entries(archive)
        before = os.getloadavg()[0]
        check = [*lint_command(), "check", str(repository), "--select", "PL68"]
        lint = measure([*check, "--no-cache"], args.runs)
        # measure() warms up once: that run fills the cache the measured runs read.
        warm = measure([*check, "--cache-dir", str(scratch / "cache")], args.runs)
        tar = measure(["tar", "-tzf", str(archive)], args.runs)
        after = os.getloadavg()[0]
    finally:
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    table = "\n".join(
        [
            "| case | wall s | CPU s | peak MiB |",
            "|---|---:|---:|---:|",
            row("pbtxt-lint check --select PL68 (lists the archive)", lint),
            row("tar -tzf (GNU tar + gzip: listing floor)", tar),
            row("the same check again, result cache warm (no listing)", warm),
        ]
    )
    text = (
        f"{START}\n## A 1 GiB environment archive (PL68x)\n\n"
        f"Measured on {machine()} with `python bench/python_env.py --runs {args.runs}`: "
        f"a gzip tar of {size / MiB:,.0f} MiB and {count:,} entries (half incompressible "
        "data, half text), median of the runs after a warm-up, whole processes. "
        "pbtxt-lint inflates the stream to find the tar headers and skips every member's "
        "data, as `tar -t` does; memory stays flat whatever the size. Run again over "
        "the unchanged repository, the result cache answers without reading the archive "
        "(the model's key covers the size and mtime of every file in its folder). "
        f"Load average {before:.2f} before, {after:.2f} after.\n\n{table}\n{END}\n"
    )
    print(text)
    if args.write:
        current = args.write.read_text() if args.write.exists() else ""
        pattern = re.compile(re.escape(START) + r".*?" + re.escape(END) + r"\n?", re.DOTALL)
        updated = pattern.sub("", current).rstrip("\n") + "\n\n" + text
        args.write.write_text(updated)


if __name__ == "__main__":
    main()
