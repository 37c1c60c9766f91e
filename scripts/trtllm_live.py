"""Serve TensorRT-LLM's published Python models with the real tritonserver, break them
the way PL825-PL833 say, and print what Triton and the models answer.

    .venv/bin/python scripts/trtllm_live.py CHECKOUT --server-dir DIR --libs DIR \\
        --numpy-dir NP [CASE ...] [--json FILE]

CHECKOUT is a tensorrtllm_backend checkout (``git archive v0.19.0``); its
``all_models/inflight_batcher_llm`` is filled as its README does
(``scripts/trtllm_sample.py``) in a scratch folder. The server is tritonserver 2.51 of
the nvidia-pytriton wheel with its python backend (``--server-dir``, ``--libs``,
``--numpy-dir``: see ``scripts/evaluation_live.py``). What runs:

* preprocessing, postprocessing and tensorrt_llm_bls: the published model.py files,
  unchanged but for their first line (a licence comment), which puts the numpy folder
  and a folder of stand-ins on ``sys.path``: ``transformers`` (a byte tokenizer whose
  ``from_pretrained`` raises what transformers' ``utils/hub.py`` ``cached_file`` raises
  for a folder that does not exist: "Incorrect path_or_model_id: ..."), ``torch``,
  ``PIL``, ``requests`` and ``typing_extensions`` (imported, barely used by a text
  model).
* tensorrt_llm: the C++ backend does not run here, so its published config is served by
  a Python stand-in (same tensors, ``backend: "python"``) that echoes the prompt's
  tokens; the ensemble is the published one.

Each case breaks the filled repository one way, starts the server, sends the requests
it names and prints the model table's failures, the server log's errors and the
answers. Nothing from the checkout runs outside tritonserver's python backend stub.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
# scripts are not a package: the shared helpers are imported from their folder
from evaluation_live import send, served
from trtllm_sample import fill

TOKENIZER_DIR = "/app/tensorrt_llm/examples/gpt/gpt2"
"""The README's TOKENIZER_DIR: the stand-in tokenizer loads from a folder of that name."""

FAKES: dict[str, str] = {
    "transformers/__init__.py": """import os


class _ByteTokenizer:
    eos_token = "\\x03"
    pad_token = None
    vocab_size = 256

    def encode(self, text, add_special_tokens=True):
        return list(text.encode("utf-8")) or [3]

    def batch_decode(self, batch, skip_special_tokens=True):
        return [bytes(int(t) % 256 for t in ids).decode("utf-8", "replace") for ids in batch]

    def decode(self, ids, skip_special_tokens=True):
        return self.batch_decode([ids])[0]


class AutoTokenizer:
    @staticmethod
    def from_pretrained(path, **kwargs):
        if not os.path.isdir(path):
            # transformers utils/hub.py cached_file, on the HFValidationError of a
            # string that is neither a folder nor a Hub id
            raise OSError(
                f"Incorrect path_or_model_id: '{path}'. Please provide either the path "
                "to a local folder or the repo_id of a model on the Hub."
            )
        return _ByteTokenizer()


class AutoProcessor(AutoTokenizer):
    pass


class T5Tokenizer(_ByteTokenizer):
    pass
""",
    "torch/__init__.py": "class Tensor:\n    pass\n\n\nfloat16 = bfloat16 = float32 = None\n",
    "torch/utils/__init__.py": "",
    "torch/utils/dlpack.py": "def from_dlpack(x):\n    return x\n\n\n"
    "def to_dlpack(x):\n    return x\n",
    "PIL/__init__.py": "",
    "PIL/Image.py": "def open(*args, **kwargs):\n    raise OSError('no images here')\n",
    "requests/__init__.py": "",
    "typing_extensions.py": "def override(function):\n    return function\n",
}

LLM_STAND_IN = '''import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Echoes the prompt's tokens ([batch, beam 1, tokens]); decoupled or not, as configured."""

    def initialize(self, args):
        config = json.loads(args["model_config"])
        self.decoupled = pb_utils.using_decoupled_model_transaction_policy(config)

    def execute(self, requests):
        responses = []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
            lengths = np.full((ids.shape[0], 1), ids.shape[1], dtype=np.int32)
            response = pb_utils.InferenceResponse([
                pb_utils.Tensor("output_ids", ids[:, None, :].astype(np.int32)),
                pb_utils.Tensor("sequence_length", lengths),
            ])
            if self.decoupled:
                request.get_response_sender().send(
                    response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL
                )
            else:
                responses.append(response)
        return None if self.decoupled else responses
'''


def _request(texts: list[str], max_tokens: int = 8) -> str:
    batch = len(texts)
    return json.dumps({
        "inputs": [
            {"name": "text_input", "datatype": "BYTES", "shape": [batch, 1], "data": texts},
            {"name": "max_tokens", "datatype": "INT32", "shape": [batch, 1],
             "data": [max_tokens] * batch},
        ]
    })  # fmt: skip


ONE = _request(["Hello"])


def _edit(path: str, old: str, new: str) -> Callable[[Path], None]:
    def change(repo: Path) -> None:
        file = repo / path
        text = file.read_text(encoding="utf-8")
        if not re.search(old, text, flags=re.S):
            raise SystemExit(f"{path}: {old!r} not found: another release of the templates?")
        file.write_text(re.sub(old, new, text, count=1, flags=re.S), encoding="utf-8")

    return change


def _parameter(path: str, key: str, value: str | None) -> Callable[[Path], None]:
    """Set (or, with None, delete) a parameters entry of a filled config."""
    value_block = r'\s*value:\s*\{\s*string_value:\s*"[^"]*"\s*\}\s*\}'
    block = r'parameters:?\s*\{\s*key:\s*"' + key + '"' + value_block
    replacement = (
        "" if value is None
        else f'parameters: {{ key: "{key}" value: {{ string_value: "{value}" }} }}'
    )  # fmt: skip
    return _edit(path, block, replacement)


def _output_removed(path: str, name: str) -> Callable[[Path], None]:
    return _edit(path, r'\{\s*name:\s*"' + name + r'"[^}]*\},?', "")


CASES: dict[str, tuple[str, list[Callable[[Path], None]], list[tuple[str, str]]]] = {
    "baseline": ("the README's example as filled", [], [("tensorrt_llm_bls", ONE)]),
    "PL828-postprocessing-no-tokenizer-dir": (
        "postprocessing without its tokenizer_dir parameter",
        [_parameter("postprocessing/config.pbtxt", "tokenizer_dir", None)],
        [],
    ),
    "PL827-preprocessing-tokenizer-placeholder": (
        'preprocessing with tokenizer_dir left as "${tokenizer_dir}"',
        [_parameter("preprocessing/config.pbtxt", "tokenizer_dir", "${tokenizer_dir}")],
        [],
    ),
    "PL833-preprocessing-old-config": (
        "preprocessing's config without PIXEL_VALUES (as 0.14's config had none)",
        [_output_removed("preprocessing/config.pbtxt", "PIXEL_VALUES")],
        [],
    ),
    "PL831-bls-output-undeclared": (
        "preprocessing's config without IS_VIDEO_INPUT, which the BLS requests",
        [_output_removed("preprocessing/config.pbtxt", "IS_VIDEO_INPUT")],
        [("tensorrt_llm_bls", ONE)],
    ),
    "PL831-bls-llm-name": (
        'tensorrt_llm_bls with tensorrt_llm_model_name "llama"',
        [_parameter("tensorrt_llm_bls/config.pbtxt", "tensorrt_llm_model_name", "llama")],
        [("tensorrt_llm_bls", ONE)],
    ),
    "PL832-bls-batch": (
        "tensorrt_llm_bls with max_batch_size 8 over callees of 4",
        [_edit("tensorrt_llm_bls/config.pbtxt", r"max_batch_size: 4", "max_batch_size: 8")],
        [("tensorrt_llm_bls", _request(["a", "b", "c", "d", "e", "f"]))],
    ),
    "PL834-bls-not-decoupled": (
        "tensorrt_llm decoupled (decoupled_mode:True), tensorrt_llm_bls not",
        [_edit("tensorrt_llm/config.pbtxt", r"decoupled: false", "decoupled: true")],
        [("tensorrt_llm_bls", ONE), ("tensorrt_llm_bls", _request(["a", "b"]))],
    ),
    "PL826-add-special-tokens": (
        'preprocessing with add_special_tokens "off"',
        [_parameter("preprocessing/config.pbtxt", "add_special_tokens", "off")],
        [],
    ),
    "PL825-skip-special-token": (
        'postprocessing with the key "skip_special_token" (one letter short)',
        [_edit("postprocessing/config.pbtxt", r'key: "skip_special_tokens"',
               'key: "skip_special_token"')],
        [],
    ),
}  # fmt: skip


def prepare(checkout: Path, scratch: Path, numpy_dir: Path) -> Path:
    """The filled repository with its stand-ins, ready to serve."""
    repo = scratch / "repo"
    fill(checkout, repo)
    fakes = scratch / "fakes"
    for name, text in FAKES.items():
        (fakes / name).parent.mkdir(parents=True, exist_ok=True)
        (fakes / name).write_text(text, encoding="utf-8")
    (scratch / TOKENIZER_DIR.lstrip("/")).mkdir(parents=True)
    for config in repo.glob("*/config.pbtxt"):
        text = config.read_text(encoding="utf-8")
        text = text.replace(TOKENIZER_DIR, f"{scratch}{TOKENIZER_DIR}")
        config.write_text(text, encoding="utf-8")
    llm = repo / "tensorrt_llm"
    config = llm / "config.pbtxt"
    config.write_text(
        config.read_text(encoding="utf-8").replace('backend: "tensorrtllm"', 'backend: "python"'),
        encoding="utf-8",
    )
    (llm / "1" / "model.py").write_text(LLM_STAND_IN, encoding="utf-8")
    line = f"import sys; sys.path[:0] = [{str(numpy_dir)!r}, {str(fakes)!r}]\n"
    for source in [llm / "1" / "model.py", *repo.glob("*/1/model.py")]:
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
        if lines[0].startswith("#"):
            lines[0] = line
        else:
            lines.insert(0, line)
        source.write_text("".join(lines), encoding="utf-8")
    return repo


def run_case(
    name: str, checkout: Path, server_dir: Path, libs: Path, numpy_dir: Path
) -> dict[str, Any]:
    about, changes, requests = CASES[name]
    with tempfile.TemporaryDirectory(prefix="pbtxt-lint-trtllm-") as tmp:
        scratch = Path(tmp)
        repo = prepare(checkout, scratch, numpy_dir)
        for change in changes:
            change(repo)
        answers = []
        with served(repo, server_dir, libs, scratch, wait=120) as (port, _):
            for model, body in requests:
                status, answer = send(port, model, body, 30)
                answers.append({"model": model, "status": status, "answer": _last(answer)})
        log_text = (scratch / "server.log").read_text(encoding="utf-8", errors="replace")
    wanted = re.compile(r"failed to load|UNAVAILABLE|Error|\[TensorRT-LLM\]|Traceback")
    lines = [line.strip() for line in log_text.splitlines() if wanted.search(line)]
    return {"case": name, "about": about, "log": lines[:12], "answers": answers}


def _last(answer: str) -> str:
    """An answer, or the last line of the traceback an error answer carries."""
    try:
        error = json.loads(answer).get("error")
    except (ValueError, AttributeError):
        return answer[:400]
    if not isinstance(error, str) or not error:
        return answer[:400]
    lines = [line for line in error.splitlines() if line.strip()]
    return "error: " + (lines[-1] if lines else error)[:400]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path)
    parser.add_argument("cases", nargs="*", help=f"default: all of {', '.join(CASES)}")
    parser.add_argument("--server-dir", type=Path, required=True)
    parser.add_argument("--libs", type=Path, required=True)
    parser.add_argument("--numpy-dir", type=Path, required=True)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results = []
    for name in args.cases or list(CASES):
        result = run_case(name, args.checkout, args.server_dir, args.libs, args.numpy_dir)
        results.append(result)
        print(f"== {name}: {result['about']}")
        for line in result["log"]:
            print(f"  log: {line[:400]}")
        for answer in result["answers"]:
            print(f"  [{answer['status']}] {answer['model']}: {answer['answer']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
