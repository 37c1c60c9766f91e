#!/usr/bin/env python3
"""Benchmark: whole-process wall time and peak memory of `pbtxt-lint check`, side by side
with tritonserver validating the same repository (and `onnx.load` for the big model).

Not a timed test: run `make bench` (or `python bench/run.py`) and compare the table with
bench/RESULTS.md. Every measurement is a fresh process, what a user or a pre-commit hook
pays; the figure is the median of several runs. Peak memory is the largest resident set
of the process and of every process it started (pbtxt-lint's workers, tritonserver's
children), read from a small wrapper's RUSAGE_CHILDREN.

Cases: one config file; repositories of 100, 1,000 and 10,000 models, configs only and
with a tiny ONNX model in each; a 100-step ensemble; one ONNX model of 2 GiB (a sparse
file: the weights are holes, so it costs no disk). pbtxt-lint runs with
`--disable-auto-complete-config`, as tritonserver does in tests/oracle.py. tritonserver is
the real 2.51 binary from the nvidia-pytriton wheel (tests/oracle.py fetches it; without
it those columns are empty), started with an empty backend folder: it reads and checks
every config, then fails to find the backends and exits.

Python is run with its bytecode precompiled (`compileall`, as `pip install` does), so the
figures do not include compiling pbtxt-lint's sources, which this machine's
PYTHONDONTWRITEBYTECODE would otherwise make every run pay.

Usage: python bench/run.py [--runs N] [--sizes 100,1000,10000] [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
sys.path.insert(0, str(ROOT))
from pbtxt_lint.engine import PARALLEL_MIN_MODELS  # noqa: E402  (after sys.path)

MiB = 1 << 20

CONFIG = """name: "{name}"
backend: "python"
max_batch_size: 8
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ -1, 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1, 16 ] }} ]
dynamic_batching {{ max_queue_delay_microseconds: 100 }}
instance_group [ {{ kind: KIND_CPU count: 1 }} ]
"""
ONNX_CONFIG = """name: "{name}"
platform: "onnxruntime_onnx"
max_batch_size: 8
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
dynamic_batching {{ max_queue_delay_microseconds: 100 }}
instance_group [ {{ kind: KIND_CPU count: 1 }} ]
"""
BIG_CONFIG = """platform: "onnxruntime_onnx"
max_batch_size: 0
input [ { name: "X" data_type: TYPE_FP32 dims: [ -1, 4096 ] } ]
output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1, 4096 ] } ]
"""
STEP_CONFIG = """backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""
PYTHON_MODEL = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"

# A wrapper process: runs a command, reports its wall time and the peak RSS of the whole
# process tree. Started with -S so that its own memory (which a child's ru_maxrss may
# inherit across fork+exec) stays far below what it measures.
_WRAPPER = textwrap.dedent(
    """
    import json, resource, subprocess, sys, time
    start = time.perf_counter()
    code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    print(json.dumps({"wall": wall, "cpu": cpu, "peak_kib": usage.ru_maxrss, "code": code}))
    """
)
_TINY_ONNX = textwrap.dedent(
    """
    import sys
    from onnx import TensorProto
    from onnx_builders import build_model
    inputs = [("INPUT0", TensorProto.FLOAT, ["batch", 16])]
    outputs = [("OUTPUT0", TensorProto.FLOAT, ["batch", 16])]
    sys.stdout.buffer.write(build_model(inputs, outputs).SerializeToString())
    """
)
_BIG_ONNX = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from onnx_builders import write_big_embedded
    MiB = 1 << 20
    # 2044 MiB: just under protobuf's 2 GiB message limit, so that onnx.load can read it.
    # An MLP: 31 MatMul nodes read 4096x4096 weights, so shape inference walks the graph.
    print(write_big_embedded(Path(sys.argv[1]), [64 * MiB] * 31 + [60 * MiB], layers=True))
    """
)
_ONNX_LOAD = "import sys, onnx; onnx.load(sys.argv[1])"
# The floor of any Python checker built on protobuf: read and parse every config with
# protobuf's own text_format, in one process, and check nothing.
_PARSE_ONLY = textwrap.dedent(
    """
    import os, sys
    from google.protobuf import text_format
    from pbtxt_lint.schema.model_config_pb2 import ModelConfig
    for name in sorted(os.listdir(sys.argv[1])):
        with open(os.path.join(sys.argv[1], name, "config.pbtxt"), encoding="utf-8") as f:
            text_format.Parse(f.read(), ModelConfig())
    """
)


@dataclass(frozen=True)
class Measured:
    seconds: float  # wall time
    cpu: float  # user + system time of the whole process tree
    peak_mib: float


def measure(
    command: Sequence[str],
    runs: int,
    env: dict[str, str] | None = None,
    before: Callable[[], None] | None = None,
) -> Measured:
    """Median wall seconds and largest peak RSS over `runs` fresh runs of `command`,
    after one run that is not counted (it brings files into the page cache, and fills
    the result cache of a warm case); `before` runs, untimed, before each run."""
    walls, cpus, peaks = [], [], []
    for attempt in range(runs + 1):
        if before is not None and attempt:
            before()
        done = subprocess.run(
            [sys.executable, "-S", "-c", _WRAPPER, *command],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=1800,
        )
        result = json.loads(done.stdout)
        if attempt:
            walls.append(result["wall"])
            cpus.append(result["cpu"])
            peaks.append(result["peak_kib"] / 1024)
    return Measured(statistics.median(walls), statistics.median(cpus), max(peaks))


def helper_output(script: str, *args: str) -> bytes:
    """Run a helper that needs onnx in its own process (this one stays small)."""
    env = {**os.environ, "PYTHONPATH": str(TESTS)}
    return subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, env=env, check=True
    ).stdout


# --------------------------------------------------------------------------- repositories


def configs_repository(root: Path, models: int) -> Path:
    """`models` python models, config.pbtxt and 1/model.py each."""
    for index in range(models):
        name = f"model_{index:05d}"
        (root / name / "1").mkdir(parents=True)
        (root / name / "1" / "model.py").write_text(PYTHON_MODEL)
        (root / name / "config.pbtxt").write_text(CONFIG.format(name=name))
    return root


def onnx_repository(root: Path, models: int, onnx_bytes: bytes) -> Path:
    """`models` ONNX Runtime models, each with a tiny model.onnx matching its config."""
    for index in range(models):
        name = f"model_{index:05d}"
        (root / name / "1").mkdir(parents=True)
        (root / name / "1" / "model.onnx").write_bytes(onnx_bytes)
        (root / name / "config.pbtxt").write_text(ONNX_CONFIG.format(name=name))
    return root


def ensemble_repository(root: Path, steps: int) -> Path:
    """An ensemble `pipeline` chaining `steps` python models: t000 -> step_000 -> t001..."""
    step_blocks = []
    for index in range(steps):
        name = f"step_{index:03d}"
        (root / name / "1").mkdir(parents=True)
        (root / name / "1" / "model.py").write_text(PYTHON_MODEL)
        (root / name / "config.pbtxt").write_text(STEP_CONFIG)
        step_blocks.append(
            f'  {{ model_name: "{name}" model_version: -1\n'
            f'    input_map {{ key: "IN" value: "t{index:03d}" }}\n'
            f'    output_map {{ key: "OUT" value: "t{index + 1:03d}" }} }}'
        )
    (root / "pipeline" / "1").mkdir(parents=True)
    (root / "pipeline" / "config.pbtxt").write_text(
        'platform: "ensemble"\nmax_batch_size: 0\n'
        'input [ { name: "t000" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        f'output [ {{ name: "t{steps:03d}" data_type: TYPE_FP32 dims: [ 4 ] }} ]\n'
        "ensemble_scheduling { step [\n" + ",\n".join(step_blocks) + "\n] }\n"
    )
    return root


def big_onnx_repository(root: Path) -> tuple[Path, Path, int]:
    """One model whose model.onnx is a sparse 2044 MiB file; (repo, model file, size)."""
    model = root / "big" / "1" / "model.onnx"
    model.parent.mkdir(parents=True)
    size = int(helper_output(_BIG_ONNX, str(model)))
    (root / "big" / "config.pbtxt").write_text(BIG_CONFIG)
    return root, model, size


# --------------------------------------------------------------------------- measuring


def lint_command() -> list[str]:
    script = Path(sys.executable).with_name("pbtxt-lint")
    return [str(script)] if script.exists() else [sys.executable, "-m", "pbtxt_lint"]


class Triton:
    """tritonserver validating a repository (None when it cannot be fetched)."""

    def __init__(self) -> None:
        sys.path.insert(0, str(TESTS))
        from oracle import _server_env, find_tritonserver

        self.server = find_tritonserver()
        self.env = _server_env(self.server.libs) if self.server else None
        self.backends = Path(tempfile.mkdtemp(prefix="pbtxt-lint-bench-backends-"))

    def measure(self, repository: Path, runs: int) -> Measured | None:
        if self.server is None:
            return None
        command = self.server.command(repository, self.backends)
        return measure(command, runs, env=self.env)

    def close(self) -> None:
        shutil.rmtree(self.backends, ignore_errors=True)


@dataclass(frozen=True)
class Row:
    case: str
    lint: Measured
    triton: Measured | None
    other: tuple[str, Measured] | None = None


def edits(config: Path) -> Callable[[], None]:
    """Change one config between runs (a comment toggled): what a pre-commit run sees."""
    original = config.read_text()
    state = {"edited": False}

    def edit() -> None:
        state["edited"] = not state["edited"]
        config.write_text(original + ("# edited\n" if state["edited"] else ""))

    return edit


def run_cases(scratch: Path, sizes: list[int], runs: int, triton: Triton) -> list[Row]:
    base = [*lint_command(), "check", "--disable-auto-complete-config"]
    lint = [*base, "--no-cache"]
    rows: list[Row] = []

    def add(
        case: str,
        command: list[str],
        repository: Path | None,  # None: nothing tritonserver could do alike
        repeat: int,
        other: tuple[str, Callable[[], Measured]] | None = None,
        before: Callable[[], None] | None = None,
    ) -> None:
        measured = measure(command, repeat, before=before)
        other_result = (other[0], other[1]()) if other else None
        compared = triton.measure(repository, repeat) if repository else None
        row = Row(case, measured, compared, other_result)
        rows.append(row)
        print(format_row(row), flush=True)

    print(header(), flush=True)
    one = configs_repository(scratch / "one", 1)
    config = one / "model_00000" / "config.pbtxt"
    parse_one = [sys.executable, "-c", _PARSE_ONLY, str(one)]
    add(
        "one config.pbtxt",
        [*lint, "--config-only", str(config)],
        one,
        max(runs, 9),
        ("text_format.Parse alone", partial(measure, parse_one, max(runs, 9))),
    )
    tiny_onnx = helper_output(_TINY_ONNX)
    for size in sizes:
        repeat = runs if size <= 1000 else 1
        repository = configs_repository(scratch / f"configs{size}", size)
        parse_only = [sys.executable, "-c", _PARSE_ONLY, str(repository)]
        add(
            f"{size:,} models, configs",
            [*lint, "--config-only", str(repository)],
            repository,
            repeat,
            ("text_format.Parse alone", partial(measure, parse_only, repeat)),
        )
        cached = [*base, "--cache-dir", str(scratch / f"cache{size}"), "--config-only"]
        add(f"{size:,} models, warm", [*cached, str(repository)], repository, max(repeat, 2))
        config = repository / f"model_{min(42, size - 1):05d}" / "config.pbtxt"
        add(
            f"{size:,} models, 1 edited",
            [*cached, str(repository)],
            repository,
            max(repeat, 2),
            before=edits(config),
        )
        if size == max(sizes):  # what a pre-commit hook does in a big repository
            add(f"1 config of {size:,}", [*lint, "--config-only", str(config)], None, runs)
        repository = onnx_repository(scratch / f"onnx{size}", size, tiny_onnx)
        add(f"{size:,} models + ONNX", [*lint, str(repository)], repository, repeat)
    repository = ensemble_repository(scratch / "ensemble", 100)
    add("100-step ensemble", [*lint, "--config-only", str(repository)], repository, runs)
    repository, model, size = big_onnx_repository(scratch / "big")
    onnx_load = [sys.executable, "-c", _ONNX_LOAD, str(model)]
    add(
        f"{size / (1 << 30):.2f} GiB ONNX model",
        [*lint, str(repository)],
        repository,
        runs,
        ("onnx.load", lambda: measure(onnx_load, runs)),
    )
    return rows


def header() -> str:
    return (
        f"| {'case':<24} | {'pbtxt-lint s':>12} | {'CPU s':>6} | {'peak MiB':>8} | "
        f"{'tritonserver s':>14} | {'peak MiB':>8} | {'ratio':>5} | other |\n"
        f"|{'-' * 26}|{'-' * 13}:|{'-' * 7}:|{'-' * 9}:|{'-' * 15}:|{'-' * 9}:|{'-' * 6}:|"
        "-------|"
    )


def format_row(row: Row) -> str:
    triton = row.triton
    t_s = f"{triton.seconds:.3f}" if triton else "-"
    t_m = f"{triton.peak_mib:.0f}" if triton else "-"
    ratio = f"{row.lint.seconds / triton.seconds:.1f}x" if triton else "-"
    other = ""
    if row.other:
        name, measured = row.other
        other = f"{name}: {measured.seconds:.3f} s, {measured.peak_mib:.0f} MiB"
    return (
        f"| {row.case:<24} | {row.lint.seconds:>12.3f} | {row.lint.cpu:>6.2f} | "
        f"{row.lint.peak_mib:>8.0f} | {t_s:>14} | {t_m:>8} | {ratio:>5} | {other} |"
    )


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            cpu = next(line.split(":", 1)[1].strip() for line in info if "model name" in line)
    except (OSError, StopIteration):
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    import google.protobuf

    return (
        f"{cpu}, {cores} cores, {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}, protobuf {google.protobuf.__version__}"
    )


def _other_sections(path: Path) -> str:
    """Sections other benchmarks keep in the file (`<!-- name:start ... -->` to
    `<!-- name:end -->`), so that rewriting this table leaves them in place."""
    if not path.exists():
        return ""
    blocks = re.findall(r"<!-- [\w-]+:start.*?<!-- [\w-]+:end -->\n?", path.read_text(), re.S)
    return "".join("\n" + block.rstrip("\n") + "\n" for block in blocks)


def write_results(path: Path, rows: list[Row], argv: list[str], load: tuple[float, float]) -> None:
    table = "\n".join([header(), *(format_row(row) for row in rows)])
    command = "python bench/run.py " + " ".join(argv)
    kept = _other_sections(path)
    path.write_text(
        f"# Benchmark results\n\n"
        f"Measured on {machine()}, with `{command.strip()}`: median of the runs after one "
        "warm-up (10,000-model rows: one run). Whole-process wall time, CPU time (user + "
        "system) of the process and its workers, and the peak resident memory of the "
        "largest process (pbtxt-lint's workers each hold their share of the models). "
        "tritonserver 2.51 validates the same repository with an empty backend folder: it "
        "parses and checks every config, then fails to find the backends and exits. "
        "pbtxt-lint runs with `--disable-auto-complete-config`, and `--config-only` where "
        "the models have no files to read, without its result cache (`--no-cache`) except "
        "in the warm rows: `warm` repeats a run over an unchanged repository, `1 edited` "
        "changes one config before each run (what a pre-commit hook or CI sees); it uses "
        "both cores from "
        f"{PARALLEL_MIN_MODELS} models up. Ratio: pbtxt-lint time / tritonserver time. "
        "`text_format.Parse alone`: one Python process that imports protobuf and parses "
        "every config with protobuf's own text_format, checking nothing, the floor of "
        "any checker written in Python on protobuf. The machine is shared: load average "
        f"{load[0]:.2f} before the run, {load[1]:.2f} after.\n\n"
        f"{table}\n{kept}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per case (median)")
    parser.add_argument("--sizes", default="100,1000,10000", help="repository sizes")
    parser.add_argument("--write", type=Path, help="write the table to this markdown file")
    parser.add_argument("--keep", type=Path, help="build the repositories here and keep them")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",") if size]
    compileall.compile_dir(ROOT / "pbtxt_lint", quiet=1)
    scratch = args.keep or Path(tempfile.mkdtemp(prefix="pbtxt-lint-bench-"))
    triton = Triton()
    try:
        print(machine())
        before = os.getloadavg()[0]
        rows = run_cases(scratch, sizes, args.runs, triton)
        load = (before, os.getloadavg()[0])
        print(f"load average {load[0]:.2f} before, {load[1]:.2f} after (other work skews it)")
    finally:
        triton.close()
        if args.keep is None:
            shutil.rmtree(scratch, ignore_errors=True)
    if args.write:
        write_results(args.write, rows, sys.argv[1:], load)


if __name__ == "__main__":
    main()
