"""artifacts/python_initialize.py: which config reads of initialize run unconditionally."""

from __future__ import annotations

import ast
from pathlib import Path

from pbtxt_lint.artifacts.python_initialize import initialize_reads, string_lists

SOURCE = """
import json
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        tokenizer_dir = config["parameters"]["tokenizer_dir"][
            "string_value"]
        optional = config["parameters"].get("add_special_tokens")
        if optional is not None:
            path = config["parameters"]["gpt_model_path"]["string_value"]
        try:
            other = config["parameters"]["maybe"]["string_value"]
        except KeyError:
            pass
        names = ["INPUT_ID", "REQUEST_INPUT_LEN"]
        for name in names:
            setattr(self, name, pb_utils.get_output_config_by_name(config, name)["data_type"])
        for name in ("EMBEDDING_BIAS_WORDS",):
            pb_utils.get_input_config_by_name(config, name)["data_type"]
        for name in names:
            pb_utils.get_output_config_by_name(config, "FIXED")

    def execute(self, requests):
        return []
"""


def test_only_unconditional_reads_are_collected() -> None:
    reads = initialize_reads(ast.parse(SOURCE))
    assert [(r.key, r.line) for r in reads.parameters] == [("tokenizer_dir", 9)]
    assert [(r.kind, r.name) for r in reads.lookups] == [
        ("output", "INPUT_ID"),
        ("output", "REQUEST_INPUT_LEN"),
        ("input", "EMBEDDING_BIAS_WORDS"),
    ]


def test_a_module_without_initialize_reads_nothing() -> None:
    reads = initialize_reads(ast.parse("class TritonPythonModel:\n    pass\n"))
    assert reads.parameters == () and reads.lookups == ()
    assert initialize_reads(None).parameters == ()


def test_string_lists_of_a_helper_module(tmp_path: Path) -> None:
    helper = tmp_path / "triton_decoder.py"
    helper.write_text(
        "class TritonDecoder:\n"
        "    def __init__(self):\n"
        '        self._llm_outputs = ["output_ids", "sequence_length"]\n'
        '        self._mixed = ["a", 1]\n'
    )
    assert string_lists(helper) == {"_llm_outputs": ("output_ids", "sequence_length")}
    helper.write_text("def broken(:\n")
    assert string_lists(helper) is None
    assert string_lists(tmp_path / "absent.py") is None
