"""Python models read with `ast`: structure, literal names, and auto_complete_config.

`auto_complete_config` is emulated, never run: these tests pin the emulation to
`triton_python_backend_utils.ModelConfig` (the checks and messages it raises), check
that anything beyond literals is reported as unknown rather than guessed, and that the
completed config reaches `pbtxt-lint complete` and the ensemble checks.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from google.protobuf import text_format

from pbtxt_lint.analysis.context import ModelContext, Workspace
from pbtxt_lint.analysis.ensemble import describe_model
from pbtxt_lint.artifacts.python_model import (
    AutoComplete,
    Completed,
    PythonSignature,
    Refused,
    Unknown,
    read_python_model,
)
from pbtxt_lint.linter import lint
from pbtxt_lint.report.complete import CommandError, complete_command, init_command
from pbtxt_lint.repository.layout import load_repository
from pbtxt_lint.rules.registry import ALL_RULES
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.settings import Settings

RULES = [r for r in ALL_RULES if "PL630" <= r.code <= "PL699"]
"""The rules on TensorRT, OpenVINO, SavedModel, Python and TorchScript files (and PL690)."""
EXECUTE = "\n    def execute(self, requests):\n        return []\n"


def read(tmp_path: Path, source: str) -> PythonSignature:
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent(source).lstrip())
    signature = read_python_model(path, tmp_path)
    assert isinstance(signature, PythonSignature)
    return signature


def config(text: str = "") -> ModelConfig:
    parsed = text_format.Parse(text, ModelConfig())
    parsed.name = parsed.name or "m"
    return parsed


def emulate(tmp_path: Path, body: str, base: str = "") -> Completed | Refused | Unknown:
    source = (
        "class TritonPythonModel:\n    @staticmethod\n    def auto_complete_config(c):\n"
        + textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
        + "\n"
        + EXECUTE
    )
    signature = read(tmp_path, source)
    assert signature.auto_complete is not None
    return signature.auto_complete.emulate(config(base))


# --- structure ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "binding", "execute"),
    [
        ("class TritonPythonModel:" + EXECUTE, "class", "present"),
        ("class TritonPythonModel:\n    pass\n", "class", "absent"),
        ("class TritonPythonModel(Base):\n    pass\n", "class", "unknown"),
        ("@register\nclass TritonPythonModel:\n    pass\n", "class", "unknown"),
        ("from impl import TritonPythonModel\n", "imported", "unknown"),
        ("import impl as TritonPythonModel\n", "imported", "unknown"),
        ("TritonPythonModel = make()\n", "imported", "unknown"),
        ("from impl import *\n", "unknown", "unknown"),
        ("globals()['TritonPythonModel'] = make()\n", "unknown", "unknown"),
        (
            "try:\n    import fast\nexcept ImportError:\n    class TritonPythonModel:\n"
            "        execute = None\n",
            "class",
            "present",
        ),
        ("class TritonModel:" + EXECUTE, "absent", "unknown"),
        ("", "absent", "unknown"),
    ],
)
def test_class_and_execute(tmp_path: Path, source: str, binding: str, execute: str) -> None:
    signature = read(tmp_path, source)
    assert (signature.model_class, signature.execute) == (binding, execute)


def test_syntax_error_has_its_line(tmp_path: Path) -> None:
    signature = read(tmp_path, "import os\n\ndef broken(:\n    pass\n")
    assert signature.syntax_line == 3 and signature.syntax_error.startswith("line 3:")


def test_nul_byte_is_a_syntax_error(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_bytes(b"class TritonPythonModel:\n    pass\x00\n")
    assert read_python_model(path, tmp_path).syntax_error


def test_deeply_nested_source_is_not_inspected_but_does_not_crash(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_text("x = " + "(" * 100_000 + ")" * 100_000 + "\n")
    signature = read_python_model(path, tmp_path)
    assert signature.syntax_error or signature.problems  # either way, no exception


def test_literal_names_aliases_and_bls_requests(tmp_path: Path) -> None:
    signature = read(
        tmp_path,
        """
        import triton_python_backend_utils as pb
        from triton_python_backend_utils import Tensor as T, get_input_tensor_by_name as get


        class TritonPythonModel:
            def initialize(self, args):
                self.cfg = pb.get_output_config_by_name(args, "OUT")
                self.inp = pb.get_input_config_by_name(args, name="IN")

            def execute(self, requests):
                for request in requests:
                    a = get(request, "IN")
                    b = pb.get_input_tensor_by_name(request, self.name)
                    extra = [T("BLS_IN", a)]
                    extra.append(pb.Tensor("BLS_IN2", a))
                    pb.InferenceRequest(model_name="x", inputs=extra, requested_output_names=[])
                    out = pb.Tensor.from_dlpack("OUT", a)
                    out2 = T(f"OUT{1}", a)
                    scratch = pb.Tensor("SCRATCH", a)  # reaches no response: not an output
                return [pb.InferenceResponse([out, out2])]
        """,
    )
    assert [u.name for u in signature.inputs_read] == ["IN"]
    assert [u.name for u in signature.outputs_made] == ["OUT"]
    assert [u.name for u in signature.output_configs] == ["OUT"]
    assert [u.name for u in signature.input_configs] == ["IN"]
    assert signature.dynamic_names == 2  # self.name and the f-string


def test_model_py_is_never_imported(tmp_path: Path) -> None:
    """Code at module level and in auto_complete_config would create files if it ran."""
    marker = tmp_path / "ran"
    repo = tmp_path / "repo"
    folder = repo / "m" / "1"
    folder.mkdir(parents=True)
    (repo / "m" / "config.pbtxt").write_text('backend: "python"\n')
    (folder / "model.py").write_text(
        f"open({str(marker)!r}, 'w').write('imported')\n"
        "class TritonPythonModel:\n"
        "    @staticmethod\n"
        "    def auto_complete_config(config):\n"
        f"        open({str(marker)!r}, 'w').write('completed')\n"
        "        return config\n" + EXECUTE
    )
    result = lint([repo], Settings(), RULES)
    assert not marker.exists()
    assert not [d for d in result.diagnostics if d.severity.value == "error"]


# --- auto_complete_config emulation ----------------------------------------------------------


def test_documented_example_is_emulated(tmp_path: Path) -> None:
    outcome = emulate(
        tmp_path,
        """
        input0 = {"name": "INPUT0", "data_type": "TYPE_FP32", "dims": [4]}
        output0 = {"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": [4]}
        config = c.as_dict()
        input_names = []
        for input in config["input"]:
            input_names.append(input["name"])
        if input0["name"] not in input_names:
            c.add_input(input0)
        c.add_output(output0)
        c.set_max_batch_size(8)
        c.set_dynamic_batching()
        return c
        """,
        'input [ { name: "INPUT0" data_type: TYPE_INVALID } ]',
    )
    assert isinstance(outcome, Completed)
    assert outcome.filled == {"max_batch_size", "dynamic_batching", "output"}
    assert outcome.config.max_batch_size == 8
    assert [(io.name, list(io.dims)) for io in outcome.config.input] == [("INPUT0", [])]
    assert [(io.name, list(io.dims)) for io in outcome.config.output] == [("OUTPUT0", [4])]


def test_add_input_fills_a_listed_tensor_and_sets_decoupled(tmp_path: Path) -> None:
    outcome = emulate(
        tmp_path,
        """
        c.add_input({"name": "IN", "data_type": "TYPE_INT64", "dims": [-1]})
        c.set_model_transaction_policy(dict(decoupled=True))
        return c
        """,
        'input [ { name: "IN" } ]',
    )
    assert isinstance(outcome, Completed)
    assert outcome.filled == {"input", "model_transaction_policy"}
    (io,) = outcome.config.input
    assert (io.data_type, list(io.dims)) == (9, [-1])
    assert outcome.config.model_transaction_policy.decoupled


@pytest.mark.parametrize(
    ("body", "base", "triton_id", "message"),
    [
        (
            "c.set_max_batch_size(4)\nreturn c",
            "max_batch_size: 8",
            "max-batch-size-lowered",
            "configuration specified max_batch_size 8, but in auto-complete-config function "
            "for model 'm' specified max_batch_size 4",
        ),
        (
            "c.set_dynamic_batching()\nreturn c",
            "sequence_batching { }",
            "scheduling-conflict",
            "Configuration specified scheduling_choice as 'sequence_batching', but "
            "auto-complete-config function for model 'm' tries to set scheduling_choice as "
            "'dynamic_batching'",
        ),
        (
            'c.add_input({"name": "X", "data_type": "TYPE_FP32", "dims": [1], "shape": [1]})\n'
            "return c",
            "",
            "unknown-tensor-property",
            "input 'X' in auto-complete-config function for model 'm' contains property "
            "other than 'name', 'data_type', 'dims' and 'optional'.",
        ),
        (
            'c.add_input({"name": "X", "dims": [1]})\nreturn c',
            "",
            "tensor-property-missing",
            "input 'X' in auto-complete-config function for model 'm' is missing "
            "'data_type' property.",
        ),
        (
            'c.add_input({"name": "X", "data_type": "TYPE_FP32", "dims": [1]})\nreturn c',
            'input [ { name: "X" data_type: TYPE_INT32 dims: [ 1 ] } ]',
            "tensor-conflict",
            "unable to load model 'm', configuration expects datatype TYPE_INT32 for input "
            "'X', model provides TYPE_FP32",
        ),
        (
            'c.add_output({"name": "Y", "data_type": "TYPE_FP32", "dims": [2]})\nreturn c',
            'output [ { name: "Y" data_type: TYPE_FP32 dims: [ 3 ] } ]',
            "tensor-conflict",
            "model 'm', tensor 'Y': the model expects dims [2] but the model configuration "
            "specifies dims [3]",
        ),
        (
            "c.set_model_transaction_policy(dict(decoupled=True))\nreturn c",
            "model_transaction_policy { decoupled: false }",
            "transaction-policy",
            "trying to change decoupled property in auto-complete-config for model 'm', "
            "which is already set to 'False'.",
        ),
        (
            "c.set_max_batch_size(8)",
            "",
            "invalid-config",
            "auto_complete_config function in model 'm' must return a valid pb.ModelConfig object.",
        ),
        (
            'c.add_input({"name": "X", "data_type": "FP32", "dims": [1]})\nreturn c',
            "",
            "invalid-config",
            "auto_complete_config in model 'm' sets data_type 'FP32' for input 'X', which is "
            "not a Triton data type (TYPE_FP32, TYPE_INT64, ...); Triton cannot parse the "
            "completed configuration",
        ),
    ],
)
def test_refusals_match_the_python_backend(
    tmp_path: Path, body: str, base: str, triton_id: str, message: str
) -> None:
    outcome = emulate(tmp_path, body, base)
    assert isinstance(outcome, Refused)
    assert (outcome.triton_id, outcome.message) == (triton_id, message)


@pytest.mark.parametrize(
    "body",
    [
        "import json\nreturn c",
        "c.set_max_batch_size(compute())\nreturn c",
        "while True:\n    pass",
        "for i in range(10**9):\n    pass\nreturn c",
        'name = f"IN{1}"\nreturn c',
        "c.add_input(INPUTS[0])\nreturn c",
        "with open('x') as f:\n    pass\nreturn c",
        'c.as_dict()["parameters"]["x"] = 1\nreturn c',
    ],
)
def test_non_literal_bodies_are_unknown(tmp_path: Path, body: str) -> None:
    assert isinstance(emulate(tmp_path, body), Unknown)


def test_loops_with_break_and_continue(tmp_path: Path) -> None:
    outcome = emulate(
        tmp_path,
        """
        for name in ["A", "SKIP", "B", "STOP", "C"]:
            if name == "SKIP":
                continue
            if name == "STOP":
                break
            c.add_output({"name": name, "data_type": "TYPE_FP32", "dims": [1]})
        return c
        """,
    )
    assert isinstance(outcome, Completed)
    assert [io.name for io in outcome.config.output] == ["A", "B"]


def test_not_a_staticmethod_is_unknown(tmp_path: Path) -> None:
    signature = read(
        tmp_path,
        "class TritonPythonModel:\n    def auto_complete_config(self, c):\n        return c\n"
        + EXECUTE,
    )
    assert isinstance(signature.auto_complete, AutoComplete)
    assert isinstance(signature.auto_complete.emulate(config()), Unknown)


# --- the completer, the commands and the ensemble seam -------------------------------------------

LITERAL_MODEL = """
class TritonPythonModel:
    @staticmethod
    def auto_complete_config(config):
        config.add_input({"name": "IN", "data_type": "TYPE_FP32", "dims": [4]})
        config.add_output({"name": "OUT", "data_type": "TYPE_FP16", "dims": [4]})
        config.set_max_batch_size(8)
        config.set_dynamic_batching()
        return config

    def execute(self, requests):
        return []
"""


def make_model(repo: Path, name: str, config_text: str | None, source: str) -> Path:
    folder = repo / name
    (folder / "1").mkdir(parents=True)
    if config_text is not None:
        (folder / "config.pbtxt").write_text(config_text)
    (folder / "1" / "model.py").write_text(textwrap.dedent(source).lstrip())
    return folder


def context_of(folder: Path, auto_complete: bool = True) -> ModelContext:
    repository = load_repository(folder.parent, None)
    settings = Settings(auto_complete=auto_complete)
    return ModelContext.standalone(repository.models[folder.name], repository, settings)


def test_complete_config_emulates_python(tmp_path: Path) -> None:
    folder = make_model(tmp_path / "repo", "m", 'backend: "python"\n', LITERAL_MODEL)
    completed = context_of(folder).completed
    assert completed.error is None and completed.io_known and completed.config is not None
    assert completed.filled == {"input", "output", "max_batch_size", "dynamic_batching"}
    assert list(completed.config.dynamic_batching.preferred_batch_size) == [8]  # core again
    strict = context_of(folder, auto_complete=False).completed
    assert strict.filled == frozenset() and not strict.config.input  # type: ignore[union-attr]


def test_complete_config_reports_failures_and_unknowns(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    broken = make_model(repo, "broken", 'backend: "python"\n', "class TritonPythonModel(:\n")
    result = context_of(broken).completed
    assert result.error is not None and result.error.triton_id == "stub-import-fails"
    dynamic = make_model(
        repo,
        "dynamic",
        'backend: "python"\n',
        "import json\nclass TritonPythonModel:\n    @staticmethod\n"
        "    def auto_complete_config(c):\n        c.add_input(json.loads(X))\n"
        "        return c\n" + EXECUTE,
    )
    result = context_of(dynamic).completed
    assert result.error is None and not result.io_known
    assert result.note is not None and "line 5" in result.note


def test_complete_and_init_commands_for_a_python_model(tmp_path: Path) -> None:
    folder = make_model(tmp_path / "repo", "m", None, LITERAL_MODEL)
    text = complete_command(folder, Settings(gpus=0))
    assert "Auto-complete filled from 1/model.py" in text
    served = text_format.Parse(text, ModelConfig())
    assert [io.name for io in served.input] == ["IN"] and served.max_batch_size == 8
    written = init_command(folder, force=False)
    starter = text_format.Parse(written.read_text(), ModelConfig())
    assert [io.name for io in starter.output] == ["OUT"]
    assert starter.HasField("dynamic_batching")


def test_init_refuses_a_python_model_without_auto_complete(tmp_path: Path) -> None:
    folder = make_model(tmp_path / "repo", "m", None, "class TritonPythonModel:" + EXECUTE)
    with pytest.raises(CommandError, match="only ONNX"):
        init_command(folder, force=False)


def test_ensemble_sees_what_auto_complete_adds(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_model(repo, "m", 'backend: "python"\n', LITERAL_MODEL)
    repository = load_repository(repo, None)
    model = describe_model(Workspace(repository, Settings()), "m")
    assert model.completed is not None and model.completed.io_known
    assert [io.name for io in model.completed.config.output] == ["OUT"]
    assert model.completed.config.output[0].data_type == 10  # TYPE_FP16, from model.py
    unknown = describe_model(Workspace(repository, Settings(auto_complete=False)), "m")
    assert unknown.completed is not None and not unknown.completed.config.output


def test_rules_on_a_python_model(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    make_model(
        repo,
        "m",
        'backend: "python"\nmax_batch_size: 16\n'
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP16 dims: [ 4 ] } ]\n',
        LITERAL_MODEL,
    )
    (diagnostic,) = lint([repo], Settings(), RULES).diagnostics
    assert diagnostic.code == "PL664" and "max_batch_size 16" in diagnostic.message
    assert diagnostic.span is not None and diagnostic.span.line == 6
