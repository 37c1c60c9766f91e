"""scripts/trtllm_sample.py fills the published templates as the README's commands do,
and the filled sample stays quiet under the TensorRT-LLM rules (issue 27's acceptance,
measured on a miniature of the published repository: the real one is fetched, never
committed)."""

from __future__ import annotations

from pathlib import Path

from script_modules import load_script

from pbtxt_lint.linter import lint
from pbtxt_lint.settings import Settings

README = """
ENGINE_DIR=/engines/gpt/fp16/4-gpu
TRITON_MAX_BATCH_SIZE=4
DECOUPLED_MODE=false

python3 ${FILL_TEMPLATE_SCRIPT} -i ${MODEL_FOLDER}/tensorrt_llm/config.pbtxt \
triton_backend:tensorrtllm,triton_max_batch_size:${TRITON_MAX_BATCH_SIZE},\
decoupled_mode:${DECOUPLED_MODE},engine_dir:${ENGINE_DIR},batching_strategy:inflight_fused_batching
python3 tools/fill_template.py -i llama/tensorrt_llm/config.pbtxt triton_max_batch_size:64
"""

TEMPLATE = """name: "tensorrt_llm"
backend: "${triton_backend}"
max_batch_size: ${triton_max_batch_size}
model_transaction_policy { decoupled: ${decoupled_mode} }
dynamic_batching {
  max_queue_delay_microseconds: ${max_queue_delay_microseconds}
  default_queue_policy: { max_queue_size: ${max_queue_size} }
}
input [
  { name: "input_ids" data_type: TYPE_INT32 dims: [ -1 ] },
  { name: "request_output_len" data_type: TYPE_INT32 dims: [ 1 ] reshape: { shape: [ ] } }
]
output [
  { name: "output_ids" data_type: TYPE_INT32 dims: [ -1, -1 ] },
  { name: "sequence_length" data_type: TYPE_INT32 dims: [ -1 ] }
]
instance_group [ { count: 1 kind: KIND_CPU } ]
parameters: { key: "gpt_model_type" value: { string_value: "${batching_strategy}" } }
parameters: { key: "gpt_model_path" value: { string_value: "${engine_dir}" } }
parameters: { key: "max_beam_width" value: { string_value: "${max_beam_width}" } }
parameters: { key: "tokenizer_dir" value: { string_value: "${tokenizer_dir}" } }
parameters: { key: "xgrammar_tokenizer_info_path"
  value: { string_value: "${xgrammar_tokenizer_info_path}" } }
parameters: { key: "guided_decoding_backend" value: { string_value: "${guided_decoding_backend}" } }
"""


def checkout(root: Path) -> Path:
    model = root / "all_models" / "inflight_batcher_llm" / "tensorrt_llm"
    (model / "1").mkdir(parents=True)
    (root / "README.md").write_text(README.replace("\\\n", ""))
    (model / "config.pbtxt").write_text(TEMPLATE)
    return root


def test_the_first_command_per_model_with_the_readme_variables(tmp_path: Path) -> None:
    sample = load_script("trtllm_sample")
    commands = sample.readme_commands(README.replace("\\\n", ""))
    assert commands == {
        "tensorrt_llm": {
            "max_queue_size": "0",
            "max_queue_delay_microseconds": "0",
            "triton_backend": "tensorrtllm",
            "triton_max_batch_size": "4",
            "decoupled_mode": "false",
            "engine_dir": "/engines/gpt/fp16/4-gpu",
            "batching_strategy": "inflight_fused_batching",
        }
    }


def test_the_filled_sample_gets_no_tensorrtllm_finding(tmp_path: Path) -> None:
    sample = load_script("trtllm_sample")
    out = tmp_path / "filled"
    sample.fill(checkout(tmp_path / "checkout"), out)
    text = (out / "tensorrt_llm" / "config.pbtxt").read_text()
    assert 'string_value: "inflight_fused_batching"' in text and "${max_beam_width}" in text
    codes = {d.code for d in lint([out], Settings(config_only=True)).diagnostics}
    assert not {c for c in codes if "PL825" <= c <= "PL859"}, codes
