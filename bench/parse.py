#!/usr/bin/env python3
"""Micro-benchmark: CPU time of parsing one config.pbtxt, and of each parsing stage.

Not a timed test. Prints milliseconds per config for `parse_config` as a whole and for
its stages: the tokenizer (`scan`), the tree (`parse_tree` minus `scan`) and the binder
(`Binder.bind` on a prebuilt tree). Two inputs: the typical 7-line config of the
repository benchmark (bench/run.py) and the corpus of real configs under
examples/model_repository and tests/fixtures/rules. Each figure is the best of several
repeats, so it is the cost of the code, not of whatever else the machine was doing.

Run `python -m compileall -q pbtxt_lint` first when PYTHONDONTWRITEBYTECODE is set, so
that no figure includes compiling the sources. On a shared or virtual machine the figures
of two runs can differ by tens of percent: compare versions by alternating runs, and read
the tree's figure (the difference of two best times) as rough.

Usage: python bench/parse.py [--repeats N] [--min-time S] [--profile {bench,corpus}]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from fixture_cases import corpus as fixture_corpus  # noqa: E402  (after sys.path)

from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR  # noqa: E402  (after sys.path)
from pbtxt_lint.textproto.binder import Binder  # noqa: E402
from pbtxt_lint.textproto.parse import parse_config  # noqa: E402
from pbtxt_lint.textproto.tokenizer import scan  # noqa: E402
from pbtxt_lint.textproto.tree import parse_tree  # noqa: E402

BENCH_CONFIG = b"""name: "model_00000"
backend: "python"
max_batch_size: 8
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1, 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1, 16 ] } ]
dynamic_batching { max_queue_delay_microseconds: 100 }
instance_group [ { kind: KIND_CPU count: 1 }  ]
"""


def corpus() -> list[bytes]:
    """The real configs: the example repository and every rule fixture."""
    return [path.read_bytes() for path in fixture_corpus("config.pbtxt").values()]


def best_time(run: Callable[[], object], repeats: int, min_time: float) -> float:
    """Best seconds per call of `run` over `repeats` rounds of at least `min_time` each."""
    start = time.process_time()
    run()
    once = max(time.process_time() - start, 1e-6)
    loops = max(1, int(min_time / once))
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(loops):
            run()
        best = min(best, (time.process_time() - start) / loops)
    return best


def stages(configs: list[bytes], repeats: int, min_time: float) -> dict[str, float]:
    """Milliseconds per config: the whole parse and each stage."""
    texts = [data.decode("utf-8", "replace") for data in configs]
    documents = [parse_tree(text) for text in texts]

    def whole() -> None:
        for data in configs:
            parse_config(data)

    def tokenizer() -> None:
        for text in texts:
            scan(text)

    def tree() -> None:
        for text in texts:
            parse_tree(text)

    def binder() -> None:
        for document in documents:
            Binder(MODEL_CONFIG_DESCRIPTOR).bind(document)

    per_config = 1000 / len(configs)
    results = {
        name: best_time(run, repeats, min_time) * per_config
        for name, run in (
            ("parse_config", whole),
            ("tokenizer", tokenizer),
            ("tree+tokenizer", tree),
            ("binder", binder),
        )
    }
    results["tree"] = results.pop("tree+tokenizer") - results["tokenizer"]
    return results


def profile(configs: list[bytes], rounds: int) -> None:
    """cProfile `parse_config` over the configs and print the top functions."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(rounds):
        for data in configs:
            parse_config(data)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="rounds; the best counts")
    parser.add_argument("--min-time", type=float, default=0.05, help="seconds per round")
    parser.add_argument(
        "--profile", choices=("bench", "corpus"), help="print a cProfile of parse_config"
    )
    args = parser.parse_args()
    inputs = {"bench config": [BENCH_CONFIG], "fixture corpus": corpus()}
    if args.profile:
        configs = inputs["bench config" if args.profile == "bench" else "fixture corpus"]
        profile(configs, max(1, 3000 // len(configs)))
        return
    print(f"{'ms per config':<28}{'parse_config':>13}{'tokenizer':>11}{'tree':>8}{'binder':>8}")
    for name, configs in inputs.items():
        times = stages(configs, args.repeats, args.min_time)
        label = f"{name} ({len(configs)})"
        print(
            f"{label:<28}{times['parse_config']:>13.4f}{times['tokenizer']:>11.4f}"
            f"{times['tree']:>8.4f}{times['binder']:>8.4f}"
        )


if __name__ == "__main__":
    main()
