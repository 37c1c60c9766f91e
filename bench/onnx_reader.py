"""Benchmark: header-only ``read_onnx`` versus ``onnx.load(load_external_data=False)``.

Builds big ONNX models cheaply (sparse files: the weights are holes, so no disk space is used),
then times each reader in a fresh subprocess with a cold page cache and reads its peak RSS. The
call itself is timed inside the child, so interpreter start-up and imports are excluded from
"call s" but included in "peak RSS" (``import onnx`` alone is about 40 MiB).

Peak RSS is the child's ``VmHWM`` (Linux ``/proc/self/status``), not ``ru_maxrss``: Linux carries
the parent's high-water mark across fork+exec into the child's ``ru_maxrss``, so every child of
this (large) process would report at least the parent's RSS. ``VmHWM`` belongs to the new address
space. ``ru_maxrss`` is used only where ``/proc`` is missing.

Usage: ``python bench/onnx_reader.py [--reps N] [--workdir DIR] [--keep]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import numpy as np  # noqa: E402  (after the sys.path entries above)
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx_builders import write_big_embedded, write_big_external, write_model  # noqa: E402

MiB = 1 << 20
WEIGHT = 64 * MiB  # one 4096x4096 float32 matrix

_CHILD = textwrap.dedent(
    """
    import json, os, resource, sys, time
    from pathlib import Path
    method, path = sys.argv[1], Path(sys.argv[2])
    for f in path.parent.iterdir():  # drop cached pages: measure a cold read
        fd = os.open(f, os.O_RDONLY)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.close(fd)
    if method == "read_onnx":
        from pbtxt_lint.artifacts.onnx import read_onnx
        call = lambda: len(read_onnx(path, path.parent.parent).inputs)
    else:
        import onnx
        call = lambda: len(onnx.load(path, load_external_data=False).graph.input)
    def peak_kib():
        try:
            with open("/proc/self/status") as status:
                return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:"))
        except OSError:
            return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    before = peak_kib()
    start = time.perf_counter()
    try:
        n_inputs, error = call(), None
    except Exception as exc:
        n_inputs, error = None, f"{type(exc).__name__}: {exc}"[:120]
    seconds = time.perf_counter() - start
    peak = peak_kib()
    print(json.dumps({"seconds": seconds, "peak_kib": peak, "growth_kib": peak - before,
                      "inputs": n_inputs, "error": error}))
    """
)


def build_models(workdir: Path) -> dict[str, Path]:
    """The benchmark models; the big ones are sparse, so they cost no disk and no build time."""
    models = {
        "embedded 1.5 GiB": workdir / "embedded_1_5g" / "1" / "model.onnx",
        "embedded 2.5 GiB": workdir / "embedded_2_5g" / "1" / "model.onnx",
        "external 1.5 GiB": workdir / "external_1_5g" / "1" / "model.onnx",
        "20k initializers": workdir / "many_20k" / "1" / "model.onnx",
    }
    # MLPs: the graph reads every weight, so shape inference walks 24 (40) MatMul nodes.
    write_big_embedded(models["embedded 1.5 GiB"], [WEIGHT] * 24, layers=True)
    write_big_embedded(models["embedded 2.5 GiB"], [WEIGHT] * 40, layers=True)
    write_big_external(models["external 1.5 GiB"], [WEIGHT] * 24)
    write_model(_many_small(20_000), models["20k initializers"])
    return models


def _many_small(n: int) -> onnx.ModelProto:
    """A chain of ``n`` Add nodes each with its own initializer: stresses per-field cost."""
    nodes = []
    inits = []
    prev = "X"
    for i in range(n):
        inits.append(numpy_helper.from_array(np.full([4], i, dtype=np.float32), f"c{i}"))
        out = "Y" if i == n - 1 else f"t{i}"
        nodes.append(helper.make_node("Add", [prev, f"c{i}"], [out]))
        prev = out
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 4])],
        initializer=inits,
    )
    return helper.make_model(graph, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])


@dataclass(frozen=True)
class Run:
    call_s: float
    process_s: float
    peak_mib: float
    growth_mib: float
    outcome: str


def run(method: str, path: Path) -> Run:
    """One measurement in a fresh interpreter; a failing reader is a result, not a crash."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, method, str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=600,
        check=False,
    )
    process_s = time.perf_counter() - start
    if proc.returncode != 0:
        nan = float("nan")
        return Run(nan, process_s, nan, nan, f"child died: {proc.stderr.strip()[-200:]}")
    r = json.loads(proc.stdout)
    outcome = f"FAILED: {r['error']}" if r["error"] else f"{r['inputs']} input(s)"
    return Run(r["seconds"], process_s, r["peak_kib"] / 1024, r["growth_kib"] / 1024, outcome)


def _median(runs: list[Run], attr: str) -> float:
    return float(statistics.median(getattr(r, attr) for r in runs))


def _size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.parent.iterdir())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--workdir", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the generated models")
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="pbtxt-lint-bench-"))
    try:
        models = build_models(workdir)
        print(f"{args.reps} run(s) each, medians; cold page cache; sizes include external data")
        print(
            f"{'model':<17} {'bytes':>14} {'reader':<10} {'call s':>8} {'process s':>10} "
            f"{'peak RSS MiB':>13} {'growth MiB':>11}  result"
        )
        medians: dict[tuple[str, str], tuple[float, float]] = {}
        for label, path in models.items():
            for method in ("read_onnx", "onnx.load"):
                runs = [run(method, path) for _ in range(args.reps)]
                call_s, peak = _median(runs, "call_s"), _median(runs, "peak_mib")
                print(
                    f"{label:<17} {_size(path):>14,} {method:<10} {call_s:>8.4f} "
                    f"{_median(runs, 'process_s'):>10.3f} {peak:>13.1f} "
                    f"{_median(runs, 'growth_mib'):>11.1f}  {runs[0].outcome}"
                )
                if not runs[0].outcome.startswith("FAILED"):
                    medians[label, method] = (call_s, peak)
        print()
        for label in models:
            if (label, "read_onnx") in medians and (label, "onnx.load") in medians:
                ours, our_peak = medians[label, "read_onnx"]
                theirs, their_peak = medians[label, "onnx.load"]
                print(
                    f"{label}: call time onnx.load/read_onnx = {theirs / ours:,.2f}x, "
                    f"peak RSS onnx.load/read_onnx = {their_peak / our_peak:,.1f}x"
                )
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
