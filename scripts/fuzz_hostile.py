#!/usr/bin/env python3
"""A long run of hostile inputs against every command: the fuzzing counterpart of
tests/test_hostile*.py (issue 24), too slow for `make test`.

Each iteration builds a small repository in a temporary folder from a seeded random
choice of hostile pieces (configs mutated from the fixture corpus: byte flips, cut
files, integers thousands of digits long, deep nesting, repeated fields, control and
bidi characters, bytes that are not UTF-8; folder names with ESC, CR, newlines or such
bytes; symlinks out of the repository and to themselves; ensembles that nest or name
themselves; vLLM model.json files, BLS models calling themselves or each other, ONNX
graphs with cycles, shape tensors that double at each node and absurd dims; request
bodies), then runs one command on it in a child with a wall-clock
timeout and an address-space limit. A run fails when the child:

- prints a traceback, an internal error, or a raw ESC or CR to the terminal;
- exits with anything but 0, 1 or 2, or is killed (the memory limit, a signal);
- outlives the timeout.

Each failure is kept under --out (the repository, the command line, stdout and stderr),
so that `pbtxt-lint <command>` run in that folder reproduces it.

Usage: python scripts/fuzz_hostile.py [--iterations N] [--seed S] [--timeout SECONDS]
       [--memory-mb MB] [--out FOLDER]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "tests").rglob("config.pbtxt"))
IO = (
    b'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    b'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
)
MODEL_PY = b"class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"
HOSTILE_NAMES = [b"m\x1b]0;t\x07", b"n\rx", b"o\nx", b"bad\xff\xfe", b"\xe2\x80\xaeevil", b"-rf"]
SPLICES = [
    b"9" * 5000,
    b"0x" + b"f" * 5000,
    b"{" * 5000,
    b"[" * 5000,
    b"\x00",
    b"\xff\xfe",
    b"\x1b[2J",
    b'"' + b"\\" * 999,
    b"\u202e".decode("unicode_escape").encode(),
    b"dims: 1 " * 50_000,
    b'parameters { key: "k" value { string_value: "' + b"9" * 5000 + b'" } }',
    b"${triton_max_batch_size}",
]
MODEL_JSONS = [
    b'{"model": "facebook/opt-125m", "tensor_parallel_size": 2, "gpu_memory_utilization": 0.9}',
    b'{"model": "x", "max_model_len": ' + b"9" * 5000 + b"}",
    b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}",
    b"{" + b",".join(b'"k%d": 1' % i for i in range(20_000)) + b"}",
    b'{"tensor_parallel_size": Infinity, "pipeline_parallel_size": NaN, "dtype": []}',
]
BLS_PY = (
    b"import numpy as np\nimport triton_python_backend_utils as pb_utils\n"
    b"class TritonPythonModel:\n    def execute(self, requests):\n"
    b"        t = pb_utils.Tensor('IN', np.zeros([1], dtype=np.float32) * 256)\n"
    b"        r = pb_utils.InferenceRequest(model_name='%s', requested_output_names=['OUT'],"
    b" inputs=[t]).exec()\n"
    b"        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor('OUT', t)])]\n"
)
COMMANDS = [
    ["check", ".", "--format", "{format}"],
    ["fmt", "--check", "."],
    ["convert", "--to", "json", "m/config.pbtxt"],
    ["convert", "--to", "pbtxt", "m/config.pbtxt"],
    ["complete", "m"],
    ["graph", "e"],
    ["request", "m", "body.json"],
]
FORMATS = ["text", "json", "sarif", "gitlab", "github"]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One or a few random edits of a config's bytes."""
    for _ in range(rng.randint(1, 4)):
        where = rng.randint(0, len(data))
        edit = rng.randrange(5)
        if edit == 0 and data:  # flip a byte
            index = rng.randrange(len(data))
            data = data[:index] + bytes([rng.randrange(256)]) + data[index + 1 :]
        elif edit == 1:  # cut the file
            data = data[:where]
        elif edit == 2:  # repeat a slice many times
            piece = data[where : where + rng.randint(1, 40)] or b"x"
            data = data[:where] + piece * rng.choice([10, 1000, 50_000]) + data[where:]
        else:  # splice in something hostile
            data = data[:where] + rng.choice(SPLICES) + data[where:]
    return data[: 9 << 20]


def write(path: Path | bytes, data: bytes) -> None:
    """Write `data` at `path` (a folder name may be bytes that are not UTF-8)."""
    raw = os.fsencode(path)
    os.makedirs(os.path.dirname(raw), exist_ok=True)
    with open(raw, "wb") as handle:
        handle.write(data)


def build(root: Path, rng: random.Random) -> None:
    """A repository: model m (a mutated config), an ensemble e, and hostile extras."""
    seed = CORPUS[rng.randrange(len(CORPUS))].read_bytes() if CORPUS else b""
    write(root / "m" / "config.pbtxt", mutate(seed, rng) if rng.random() < 0.8 else seed)
    write(root / "m" / "1" / "model.py", MODEL_PY)
    depth = rng.choice([1, 2, 50, 600])
    for level in range(depth):
        inner = f"e{level + 1}" if level + 1 < depth else "m"
        name = "e" if level == 0 else f"e{level}"
        count = rng.choice([1, 2, 1000] if depth <= 2 else [1, 2])  # a few MB in all
        step = (
            f'{{ model_name: "{rng.choice([inner, name])}" model_version: -1 input_map '
            '{ key: "IN" value: "IN" } output_map { key: "OUT" value: "OUT" } }'
        )
        steps = ",".join([step] * count)
        config = b'platform: "ensemble"\nmax_batch_size: 0\n' + IO
        write(
            root / name / "config.pbtxt",
            config + f"ensemble_scheduling {{ step [{steps}] }}\n".encode(),
        )
        os.makedirs(root / name / "1", exist_ok=True)
    for hostile in rng.sample(HOSTILE_NAMES, rng.randint(0, 3)):
        folder = os.path.join(os.fsencode(root), hostile)
        write(os.path.join(folder, b"config.pbtxt"), b'backend: "python"\n' + IO)
        write(os.path.join(folder, b"1", b"model.py"), MODEL_PY)
    if rng.random() < 0.3:
        write(
            root / "v" / "config.pbtxt", b'backend: "vllm"\ninstance_group [ { kind: KIND_GPU } ]\n'
        )
        write(root / "v" / "1" / "model.json", mutate(rng.choice(MODEL_JSONS), rng))
    if rng.random() < 0.3:
        callee = rng.choice([b"b", b"e", b"m", b"v", b"missing", b"\xff"])
        write(root / "b" / "config.pbtxt", b'backend: "python"\nmax_batch_size: 4\n' + IO)
        write(
            root / "b" / "1" / "model.py",
            mutate(BLS_PY % callee, rng) if rng.random() < 0.3 else BLS_PY % callee,
        )
    if rng.random() < 0.2:
        write(root / "o" / "config.pbtxt", b'backend: "onnxruntime"\nmax_batch_size: 8\n')
        write(root / "o" / "1" / "model.onnx", hostile_onnx(rng))
    if rng.random() < 0.3:
        os.symlink("/etc", root / "linked")
    if rng.random() < 0.3:
        os.symlink("loop", root / "loop")
    body = rng.choice(
        [
            b'{"inputs": [{"name": "IN", "shape": [1], "datatype": "FP32", "data": [1]}]}',
            b"{" * 100_000,
        ]
    )
    write(root / "body.json", mutate(body, rng) if rng.random() < 0.5 else body)


def hostile_onnx(rng: random.Random) -> bytes:
    """A graph whose shape tensor doubles at each Concat, with a cycle and absurd dims."""
    from onnx import TensorProto, helper

    count = rng.choice([5, 60])
    nodes = [helper.make_node("Shape", ["x"], ["s0"])]
    nodes += [
        helper.make_node("Concat", [f"s{i}", f"s{i}"], [f"s{i + 1}"], axis=0) for i in range(count)
    ]
    nodes += [
        helper.make_node("Reshape", ["x", f"s{count}"], ["r"]),
        helper.make_node("NonZero", ["r"], ["y"]),
        helper.make_node("Add", ["y", "c2"], ["c1"]),
        helper.make_node("Add", ["c1", "y"], ["c2"]),
    ]
    dims: list[str | int] = ["batch", rng.choice([2**62, -5, 0]), "n"]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.INT64, ["n", 2])],
    )
    data = helper.make_model(graph).SerializeToString()
    return mutate(data, rng) if rng.random() < 0.3 else data


def limit_memory(megabytes: int) -> Callable[[], None]:
    def apply() -> None:
        size = megabytes << 20
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return apply


def verdict(done: subprocess.CompletedProcess[bytes] | None) -> str | None:
    """Why a run failed, or None."""
    if done is None:
        return "timeout"
    if done.returncode not in (0, 1, 2):
        return f"exit {done.returncode}"
    stderr = done.stderr.decode("utf-8", "replace")
    if "Traceback" in stderr or "internal error" in stderr:
        return "traceback or internal error"
    if b"\x1b" in done.stdout + done.stderr or b"\r" in done.stdout + done.stderr:
        return "a raw ESC or CR reached the terminal"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--memory-mb", type=int, default=2048)
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    failures = 0
    env = {**os.environ, "PBTXT_LINT_NO_CACHE": "1", "NO_COLOR": "1", "GITHUB_ACTIONS": ""}
    for iteration in range(args.iterations):
        command = [part.format(format=rng.choice(FORMATS)) for part in rng.choice(COMMANDS)]
        with tempfile.TemporaryDirectory() as temporary:
            root = Path(temporary) / "repo"
            root.mkdir()
            build(root, rng)
            try:
                done: subprocess.CompletedProcess[bytes] | None = subprocess.run(
                    [sys.executable, "-m", "pbtxt_lint", *command],
                    cwd=root,
                    capture_output=True,
                    timeout=args.timeout,
                    env=env,
                    preexec_fn=limit_memory(args.memory_mb),
                    check=False,
                )
            except subprocess.TimeoutExpired:
                done = None
            why = verdict(done)
            print(
                f"{iteration:5d} {'FAIL ' + why if why else 'ok'}: pbtxt-lint {' '.join(command)}"
            )
            if why is not None:
                failures += 1
                kept = args.out / f"{args.seed}-{iteration}"
                shutil.copytree(root, kept / "repo", symlinks=True, dirs_exist_ok=True)
                record = {"command": command, "why": why}
                if done is not None:
                    (kept / "stdout").write_bytes(done.stdout)
                    (kept / "stderr").write_bytes(done.stderr)
                (kept / "run.json").write_text(json.dumps(record, indent=2))
    print(
        f"{failures} of {args.iterations} runs failed"
        + (f"; kept under {args.out}" if failures else "")
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
