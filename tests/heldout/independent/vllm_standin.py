"""Serve this set's vLLM cases with the real vLLM backend code over a stand-in engine.

    .venv/bin/python tests/heldout/independent/vllm_standin.py VLLM_SRC --server-dir DIR \\
        --libs DIR --numpy-dir NP [CASE ...]

Why: the vLLM backend is a Python-based backend (its ``model.py`` ships in the vllm
image), so tritonserver 2.51's python backend runs it here; only the engine needs a GPU.
``VLLM_SRC`` is the ``src/`` folder of a vllm_backend checkout at the release the cases
target (``git archive r24.10 src``). The script installs it as ``backends/vllm/`` of a
scratch copy of ``--server-dir`` (see ``scripts/evaluation_live.py`` for ``--server-dir``,
``--libs`` and ``--numpy-dir``), with a stand-in ``vllm`` package (and ``torch``) on the
stub's path:

* ``AsyncEngineArgs`` is a dataclass with the engine arguments of vLLM 0.5.5 (the vLLM of
  the 24.10 image), so an unknown model.json key fails as it does there;
* the engine checks ``gpu_memory_utilization`` as vLLM's ``CacheConfig._verify_args``
  does and answers every prompt with three streamed pieces of text.

Each case's ``[[standin_live]]`` tables are sent like ``[[live]]`` ones. KIND_GPU cases are
not run (no GPU here). Python models get the numpy folder on ``sys.path`` through their
first line, as in ``scripts/evaluation_live.py``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))
# scripts are not a package: the shared helpers are imported from their folder
from evaluation_live import send, served  # noqa: E402

CASES = Path(__file__).resolve().parent

STANDIN: dict[str, str] = {
    "torch/__init__.py": "from . import cuda  # noqa: F401\n",
    "torch/cuda/__init__.py": "def set_device(index):\n    pass\n",
    "vllm/__init__.py": "",
    "vllm/utils.py": "import uuid\n\n\ndef random_uuid():\n    return uuid.uuid4().hex\n",
    "vllm/sampling_params.py": """class SamplingParams:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
""",
    "vllm/lora/__init__.py": "",
    "vllm/lora/request.py": """class LoRARequest:
    def __init__(self, *args):
        self.args = args
""",
    "vllm/engine/__init__.py": "",
    "vllm/engine/metrics.py": """class StatLoggerBase:
    def __init__(self, local_interval=0, **kwargs):
        pass


class Stats:
    pass


class SupportsMetricsInfo:
    pass


def build_1_2_5_buckets(max_value):
    return [1, 2, 5]
""",
    "vllm/engine/arg_utils.py": """from dataclasses import dataclass
from typing import Optional


@dataclass
class EngineArgs:  # the fields of vLLM 0.5.5's EngineArgs
    model: str = "facebook/opt-125m"
    served_model_name: Optional[str] = None
    tokenizer: Optional[str] = None
    skip_tokenizer_init: bool = False
    tokenizer_mode: str = "auto"
    trust_remote_code: bool = False
    download_dir: Optional[str] = None
    load_format: str = "auto"
    dtype: str = "auto"
    kv_cache_dtype: str = "auto"
    quantization_param_path: Optional[str] = None
    seed: int = 0
    max_model_len: Optional[int] = None
    worker_use_ray: bool = False
    distributed_executor_backend: Optional[str] = None
    pipeline_parallel_size: int = 1
    tensor_parallel_size: int = 1
    max_parallel_loading_workers: Optional[int] = None
    block_size: int = 16
    enable_prefix_caching: bool = False
    disable_sliding_window: bool = False
    use_v2_block_manager: bool = False
    swap_space: float = 4
    cpu_offload_gb: float = 0
    gpu_memory_utilization: float = 0.90
    max_num_batched_tokens: Optional[int] = None
    max_num_seqs: int = 256
    max_logprobs: int = 20
    disable_log_stats: bool = False
    revision: Optional[str] = None
    code_revision: Optional[str] = None
    rope_scaling: Optional[dict] = None
    rope_theta: Optional[float] = None
    tokenizer_revision: Optional[str] = None
    quantization: Optional[str] = None
    enforce_eager: Optional[bool] = None
    max_context_len_to_capture: Optional[int] = None
    max_seq_len_to_capture: int = 8192
    disable_custom_all_reduce: bool = False
    tokenizer_pool_size: int = 0
    tokenizer_pool_type: str = "ray"
    tokenizer_pool_extra_config: Optional[dict] = None
    limit_mm_per_prompt: Optional[dict] = None
    enable_lora: bool = False
    max_loras: int = 1
    max_lora_rank: int = 16
    enable_prompt_adapter: bool = False
    max_prompt_adapters: int = 1
    max_prompt_adapter_token: int = 0
    fully_sharded_loras: bool = False
    lora_extra_vocab_size: int = 256
    long_lora_scaling_factors: Optional[tuple] = None
    lora_dtype: str = "auto"
    max_cpu_loras: Optional[int] = None
    device: str = "auto"
    num_scheduler_steps: int = 1
    ray_workers_use_nsight: bool = False
    num_gpu_blocks_override: Optional[int] = None
    num_lookahead_slots: int = 0
    model_loader_extra_config: Optional[dict] = None
    ignore_patterns: Optional[list] = None
    preemption_mode: Optional[str] = None
    scheduler_delay_factor: float = 0.0
    enable_chunked_prefill: Optional[bool] = None
    guided_decoding_backend: str = "outlines"
    speculative_model: Optional[str] = None
    speculative_model_quantization: Optional[str] = None
    speculative_draft_tensor_parallel_size: Optional[int] = None
    num_speculative_tokens: Optional[int] = None
    speculative_max_model_len: Optional[int] = None
    speculative_disable_by_batch_size: Optional[int] = None
    ngram_prompt_lookup_max: Optional[int] = None
    ngram_prompt_lookup_min: Optional[int] = None
    spec_decoding_acceptance_method: str = "rejection_sampler"
    typical_acceptance_sampler_posterior_threshold: Optional[float] = None
    typical_acceptance_sampler_posterior_alpha: Optional[float] = None
    qlora_adapter_name_or_path: Optional[str] = None
    disable_logprobs_during_spec_decoding: Optional[bool] = None
    otlp_traces_endpoint: Optional[str] = None
    collect_detailed_traces: Optional[str] = None
    disable_async_output_proc: bool = False
    override_neuron_config: Optional[dict] = None


@dataclass
class AsyncEngineArgs(EngineArgs):
    engine_use_ray: bool = False
    disable_log_requests: bool = False
""",
    "vllm/engine/async_llm_engine.py": """class _Completion:
    def __init__(self, text):
        self.text = text


class _Output:
    def __init__(self, prompt, text, finished):
        self.prompt = prompt
        self.outputs = [_Completion(text)]
        self.finished = finished


class _ModelConfig:
    max_model_len = 2048


class _Engine:
    model_config = _ModelConfig()


class AsyncLLMEngine:
    def __init__(self, args):
        if args.gpu_memory_utilization > 1.0:  # vLLM's CacheConfig._verify_args
            raise ValueError(
                "GPU memory utilization must be less than 1.0. Got "
                f"{args.gpu_memory_utilization}."
            )
        self.engine = _Engine()

    @classmethod
    def from_engine_args(cls, args, **kwargs):
        return cls(args)

    def add_logger(self, name, logger):
        pass

    async def add_request(self, request_id, prompt, sampling_params, lora_request=None):
        async def outputs():
            pieces = ["Paris", " is", " the answer."]
            for i in range(len(pieces)):
                yield _Output(prompt, "".join(pieces[: i + 1]), i == len(pieces) - 1)

        return outputs()

    async def abort(self, request_id):
        pass
""",
}
"""The stand-in packages put on the stub's path (relative path -> source)."""


def install(vllm_src: Path, server_dir: Path, scratch: Path, path_line: str) -> Path:
    """A server folder whose backends/ holds python/ and the vLLM backend under test."""
    server = scratch / "server"
    (server / "backends").mkdir(parents=True)
    (server / "bin").symlink_to((server_dir / "bin").resolve())
    shutil.copytree(server_dir / "backends" / "python", server / "backends" / "python")
    vllm = server / "backends" / "vllm"
    shutil.copytree(vllm_src, vllm)
    lines = (vllm / "model.py").read_text(encoding="utf-8").splitlines(keepends=True)
    (vllm / "model.py").write_text(path_line + "".join(lines[1:]), encoding="utf-8")
    for relative, source in STANDIN.items():
        target = scratch / "standin" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")
    return server


def prepare(case: Path, scratch: Path, path_line: str) -> Path:
    """The case's repository with the stand-in path as the first line of each model.py."""
    repo = scratch / "repo"
    shutil.copytree(case / "repo", repo)
    for source in repo.glob("*/*/model.py"):
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
        source.write_text(path_line + "".join(lines[1:]), encoding="utf-8")
    return repo


def run(case: Path, args: argparse.Namespace) -> None:
    spec = tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))
    configs = "".join(p.read_text() for p in (case / "repo").glob("*/config.pbtxt"))
    if re.search(r"\bKIND_GPU\b", configs):
        print(f"== {case.name}: not run (KIND_GPU needs a GPU)")
        return
    with tempfile.TemporaryDirectory(prefix="pbtxt-lint-vllm-") as tmp:
        scratch = Path(tmp)
        folders = [str(args.numpy_dir), str(scratch / "standin")]
        path_line = f"import sys; sys.path[:0] = {folders!r}\n"
        server = install(args.vllm_src, args.server_dir, scratch, path_line)
        repo = prepare(case, scratch, path_line)
        print(f"== {case.name}")
        with served(repo, server, args.libs, scratch) as (port, ready):
            for entry in spec.get("standin_live", []) if ready else []:
                status, answer = send(
                    port, entry["model"], entry["body"], 20, entry.get("endpoint", "infer")
                )
                print(f"  [{status}] {entry['model']}: {answer[:400]}")
        log = (scratch / "server.log").read_text(encoding="utf-8", errors="replace")
        for line in log.splitlines():
            if re.search(r"failed to load|UNAVAILABLE|Failed to process", line):
                print("  log:", line[:400])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vllm_src", type=Path, help="vllm_backend's src/ folder")
    parser.add_argument("cases", nargs="*", help="case folder names (default: the vLLM cases)")
    parser.add_argument("--server-dir", type=Path, required=True)
    parser.add_argument("--libs", type=Path, required=True)
    parser.add_argument("--numpy-dir", type=Path, required=True)
    args = parser.parse_args()
    names = args.cases or sorted(
        p.parent.parent.parent.name
        for p in CASES.glob("*/repo/*/config.pbtxt")
        if re.search(r'^\s*backend\s*:\s*"vllm"', p.read_text(encoding="utf-8"), re.M)
    )
    for name in dict.fromkeys(names):
        run(CASES / name, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
