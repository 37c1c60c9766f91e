#!/usr/bin/env python3
"""Benchmark: whole-process wall time and peak memory of `pbtxt-lint check`.

Not a timed test: run `make bench` (or `python bench/run.py`) and compare the printed
table with the figures in README.md. Each measurement is a fresh process (what a user
or a pre-commit hook pays), median of several runs; peak RSS comes from wait4().
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONFIG = """name: "{name}"
backend: "python"
max_batch_size: 8
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ -1, 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1, 16 ] }} ]
dynamic_batching {{ max_queue_delay_microseconds: 100 }}
instance_group [ {{ kind: KIND_CPU count: 1 }} ]
"""


def make_repository(root: Path, models: int) -> Path:
    for index in range(models):
        name = f"model_{index:05d}"
        folder = root / name / "1"
        folder.mkdir(parents=True)
        (folder / "model.py").write_text("class TritonPythonModel:\n    pass\n")
        (root / name / "config.pbtxt").write_text(CONFIG.format(name=name))
    return root


def measure(command: list[str], runs: int) -> tuple[float, float]:
    """(median wall seconds, max peak RSS MiB) over `runs` fresh processes."""
    walls, peaks = [], []
    for _ in range(runs):
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, _, usage = os.wait4(process.pid, 0)
        walls.append(time.perf_counter() - start)
        peaks.append(usage.ru_maxrss / 1024)
    return statistics.median(walls), max(peaks)


def tritonserver_seconds(repository: Path) -> float | None:
    """Triton's own validation of the same repository, when the oracle is available."""
    sys.path.insert(0, str(ROOT / "tests"))
    try:
        from oracle import find_tritonserver
    except ImportError:
        return None
    server = find_tritonserver()
    if server is None:
        return None
    times = []
    for _ in range(3):
        start = time.perf_counter()
        server.validate(repository, auto_complete=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    lint = [sys.executable, "-m", "pbtxt_lint", "check", "--config-only"]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        one = make_repository(Path(scratch) / "one", 1)
        wall, peak = measure([*lint, str(one / "model_00000" / "config.pbtxt")], args.runs)
        rows.append(("one config.pbtxt", wall, peak, None))
        for size in (100, 1000):
            repository = make_repository(Path(scratch) / f"r{size}", size)
            wall, peak = measure([*lint, str(repository)], max(3, args.runs // 2))
            triton = tritonserver_seconds(repository) if size == 1000 else None
            rows.append((f"{size}-model repository", wall, peak, triton))
    print(f"{'case':<24} {'wall s':>8} {'peak MiB':>9} {'tritonserver s':>15}")
    for case, wall, peak, triton in rows:
        other = f"{triton:.2f}" if triton is not None else "-"
        print(f"{case:<24} {wall:>8.3f} {peak:>9.1f} {other:>15}")


if __name__ == "__main__":
    main()
