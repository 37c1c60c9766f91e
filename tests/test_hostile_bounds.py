"""Hostile inputs that cost time, memory or output: each run stays bounded (issue 24).

Every case is generated in tmp_path (nothing large is committed) and run in an audited
child (tests/audited.py) that must end within its timeout with exit 0 or 1, no
traceback, no internal error and bounded memory. Work is bounded by what we count
(findings, bytes of output), never by elapsed time: a run that hangs or goes quadratic
is caught by the child's timeout, generous on purpose.
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from audited import PYTHON_MODEL, assert_well_behaved, run_audited, run_lint

ENSEMBLE_IO = (
    "max_batch_size: 0\n"
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
)


def step(model: str, read: str, write: str) -> str:
    return (
        f'{{ model_name: "{model}" model_version: -1 input_map {{ key: "IN" value: "{read}" }} '
        f'output_map {{ key: "OUT" value: "{write}" }} }}'
    )


def ensemble(root: Path, name: str, steps: list[str]) -> None:
    folder = root / name
    (folder / "1").mkdir(parents=True)
    body = ",\n".join(steps)
    (folder / "config.pbtxt").write_text(
        f'platform: "ensemble"\n{ENSEMBLE_IO}ensemble_scheduling {{ step [\n{body}\n] }}\n'
    )


def python_model(root: Path, name: str) -> None:
    folder = root / name
    (folder / "1").mkdir(parents=True)
    (folder / "1" / "model.py").write_text(PYTHON_MODEL)
    (folder / "config.pbtxt").write_text(f'backend: "python"\n{ENSEMBLE_IO}')


def chain(count: int) -> list[tuple[str, str]]:
    """The tensors `count` steps read and write, IN -> t1 -> ... -> OUT."""
    names = ["IN", *(f"t{i}" for i in range(1, count)), "OUT"]
    return list(pairwise(names))


# --------------------------------------------------------------------------- ensembles


def test_hundreds_of_nested_ensembles_are_walked_not_recursed(tmp_path: Path) -> None:
    """Each ensemble's one step is the next ensemble: the composing-model checks
    (PL516's first errors, the decoupled flag) went as deep as the nesting and hit
    Python's recursion limit."""
    depth = 600
    for i in range(depth):
        ensemble(tmp_path, f"e{i}", [step(f"e{i + 1}", "IN", "OUT")])
    python_model(tmp_path, f"e{depth}")
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert run.diagnostics == []


def test_a_diamond_of_nested_ensembles_costs_one_visit_per_model(tmp_path: Path) -> None:
    """Each ensemble uses the next one twice: 2**40 paths, 41 models."""
    depth = 40
    for i in range(depth):
        inner = f"d{i + 1}"
        ensemble(tmp_path, f"d{i}", [step(inner, "IN", "a"), step(inner, "a", "OUT")])
    python_model(tmp_path, f"d{depth}")
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert run.diagnostics == []


def test_an_ensemble_naming_itself_in_every_step_is_one_cycle(tmp_path: Path) -> None:
    """Thousands of steps that all name the ensemble and write the same tensor: the
    cycle and the twice-written tensor are reported once each, naming how many steps
    share them (16,000 steps took minutes and printed megabytes, a finding per step)."""
    count = 3000  # 75,000 tokens: under the 100,000 a config may hold (PL013)
    ensemble(tmp_path, "e", [step("e", "IN", "OUT")] * count)
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert sorted(str(d["code"]) for d in run.diagnostics) == ["PL507", "PL514"]
    assert f"{count - 13:,} more" in run.messages("PL514")
    assert len(run.stdout) < 10_000


def test_a_long_broken_chain_is_followed_step_by_step(tmp_path: Path) -> None:
    """PL510 follows the chain from the output back to the tensor nobody writes; it
    recursed once per step. Written last step first, the steps also make Triton's
    pass-by-pass reachability take one pass per step, once per step of the walk."""
    count = 3000
    links = chain(count)
    links[0] = ("nothing", links[0][1])
    python_model(tmp_path, "p")
    ensemble(tmp_path, "e", [step("p", read, write) for read, write in reversed(links)])
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert run.codes() == {"PL508", "PL510", "PL511"}
    assert "`nothing`, which is neither an ensemble input" in run.messages("PL510")
    assert len(run.stdout) < 20_000


def test_a_long_chain_written_backwards_is_one_walk(tmp_path: Path) -> None:
    """Triton's reachability runs the steps in passes over the written order; emulated
    pass by pass, a chain written last step first took one pass per step."""
    count = 3_000  # a quadratic walk is 9 million step visits; under PL013's token cap
    python_model(tmp_path, "p")
    ensemble(tmp_path, "e", [step("p", read, write) for read, write in reversed(chain(count))])
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert run.diagnostics == []


# --------------------------------------------------------------------------- integers

HUGE = "9" * 5000
"""More digits than Python's int() converts (4,300: sys.get_int_max_str_digits)."""
HUGE_HEX = "0x" + "f" * 5000
"""Valid for int(), but an int Python cannot print."""


def _integer_repository(root: Path) -> Path:
    """Models whose config, parameters, label file, ONNX external data and model.py hold
    integers thousands of digits long, and one ordinary model with an error of its own."""
    python_model(root, "fine")
    (root / "fine" / "config.pbtxt").write_text('backend: "python"\nmax_batch_size: -5\n')
    python_model(root, "decimal")
    (root / "decimal" / "config.pbtxt").write_text(f'backend: "python"\nmax_batch_size: {HUGE}\n')
    python_model(root, "hex")
    (root / "hex" / "config.pbtxt").write_text(f'backend: "python"\nmax_batch_size: {HUGE_HEX}\n')
    python_model(root, "labels")
    (root / "labels" / "config.pbtxt").write_text(
        'backend: "python"\nmax_batch_size: 0\ninput [ { name: "IN" data_type: TYPE_FP32 '
        'dims: [ 2 ] } ]\noutput [ { name: "OUT" data_type: TYPE_FP32 dims: [ 2 ] '
        'label_filename: "labels.txt" } ]\n'
        f'parameters {{ key: "FORCE_CPU_ONLY_INPUT_TENSORS" value {{ string_value: "{HUGE}" }} }}\n'
    )
    (root / "labels" / "labels.txt").write_text(f"{HUGE} cat\n1 dog\n")
    python_model(root, "script")
    (root / "script" / "1" / "model.py").write_text(
        f"import numpy as np\nN = {HUGE_HEX}\nclass TritonPythonModel:\n"
        f"    def execute(self, requests):\n        x = np.zeros(({HUGE_HEX}, 2))\n"
        "        return []\n"
    )
    onnx = root / "onnx"
    (onnx / "1").mkdir(parents=True)
    (onnx / "config.pbtxt").write_text('platform: "onnxruntime_onnx"\nmax_batch_size: 0\n')
    _onnx_with_external_offset(onnx / "1" / "model.onnx", HUGE)
    return root


def _onnx_with_external_offset(path: Path, offset: str) -> None:
    import onnx
    from onnx_builders import write_external_data

    write_external_data(path)
    model = onnx.load(path, load_external_data=False)
    for tensor in model.graph.initializer:
        tensor.external_data.add(key="offset", value=offset)
    onnx.save_model(model, path)


def test_a_number_of_a_million_digits_that_runs_into_a_letter(tmp_path: Path) -> None:
    """Saying why a number token is refused tried one of its patterns on every split of
    the digits: 40,000 digits took 19 s, a million would take hours (found by
    fuzz_hostile.py seed 14, through `graph`)."""
    python_model(tmp_path, "m")
    (tmp_path / "m" / "config.pbtxt").write_text(
        'backend: "python"\nmax_batch_size: ' + "9" * 1_000_000 + "x\n"
    )
    run = run_lint(tmp_path)
    assert_well_behaved(run, tmp_path)
    assert "a number cannot run into letters" in json.dumps(run.diagnostics)


@pytest.mark.parametrize(
    ("run_of", "count"), [("{", 10**6), ("${", 10**6 // 2), ("<<", 10**6 // 2), ('${x}" "', 40_000)]
)
def test_a_line_of_a_million_template_openings_is_one_scan(
    tmp_path: Path, run_of: str, count: int
) -> None:
    """Looking for template placeholders scanned from each `{{` (`${`, `<<`) to the end
    of the line, and compared each with every string of it (under the token cap, 40,000
    strings): a line of 1.4 MB took
    minutes in every command (found by fuzz_hostile.py seed 14, through `graph`)."""
    python_model(tmp_path, "m")
    (tmp_path / "m" / "config.pbtxt").write_text(
        'backend: "python"\nname: "' + run_of * count + '"\n'  # one string, or 40,000
    )
    run = run_lint(tmp_path)
    assert_well_behaved(run, tmp_path)
    assert run.diagnostics


def test_integers_of_any_length_in_check_are_findings(tmp_path: Path) -> None:
    """An integer over 4,300 digits was an internal error that ended the run: no other
    model reported, no -o report; an ONNX offset gave 22 rule internal errors."""
    root = _integer_repository(tmp_path / "repo")
    report = tmp_path / "report.json"
    run = run_audited(root, "check", ".", "--format", "json", "-o", str(report))
    run.stdout = report.read_text()
    assert_well_behaved(run, root, writes=(report,))
    found = {(str(d["model"]), str(d["code"])) for d in run.diagnostics}
    assert {("fine", "PL301"), ("decimal", "PL008"), ("hex", "PL008"), ("onnx", "PL603")} <= found
    assert "reads bytes past byte 2**64 of 'model.onnx.data'" in run.messages("PL603")


@pytest.mark.parametrize(
    "argv",
    [
        ("fmt", "--check", "decimal/config.pbtxt", "hex/config.pbtxt"),
        ("convert", "--to", "json", "decimal/config.pbtxt"),
        ("complete", "decimal"),
        ("graph", "decimal"),
    ],
    ids=lambda argv: argv[0],
)
def test_integers_of_any_length_in_every_command_are_one_line(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    """fmt, convert and complete printed a full traceback."""
    root = _integer_repository(tmp_path / "repo")
    run = run_audited(root, *argv)
    assert_well_behaved(run, root, exits=(1, 2), json_out=False)
    said = run.stdout + run.stderr
    assert "out of range" in said or "does not parse" in said or "cannot be read" in said


def test_an_integer_of_any_length_in_a_json_config_and_a_request(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    python_model(root, "m")
    config = root / "m" / "config.json"
    config.write_text(f'{{"backend": "python", "max_batch_size": {HUGE}}}')
    run = run_audited(root, "convert", "--to", "pbtxt", str(config))
    assert_well_behaved(run, root, exits=(1,), json_out=False)
    assert "is out of range for 'max_batch_size'" in run.stderr + run.stdout
    body = root / "request.json"
    body.write_text(
        f'{{"inputs": [{{"name": "IN", "shape": [{HUGE}], "datatype": "FP32", '
        f'"data": [{HUGE}]}}], "parameters": {{"sequence_id": {HUGE}}}}}'
    )
    run = run_audited(root, "request", "m", str(body))
    assert_well_behaved(run, root, exits=(1,), json_out=False)
    assert "non-negative 64-bit integers" in run.stdout


# --------------------------------------------------------------------------- parser work


def test_millions_of_dims_are_not_read_token_by_token(tmp_path: Path) -> None:
    """4 million dims within the 8 MiB file cap took 28 s and 2.9 GB to read."""
    python_model(tmp_path, "m")
    dims = ",".join(["1"] * 4_000_000)
    (tmp_path / "m" / "config.pbtxt").write_text(
        f'backend: "python"\ninput [ {{ name: "IN" data_type: TYPE_FP32 dims: [ {dims} ] }} ]\n'
    )
    run = run_lint(tmp_path)
    assert_well_behaved(run, tmp_path, max_mb=150)
    assert run.codes() == {"PL013"}
    assert "more than 100,000 tokens" in run.messages("PL013")


def test_thousands_of_unknown_fields_are_counted_not_explained(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each unknown name was compared with every field name (33,000 took half a minute):
    past the first hundred problems no suggestion is searched for."""
    from pbtxt_lint.textproto import binder
    from pbtxt_lint.textproto.binder import ProblemKind
    from pbtxt_lint.textproto.parse import MAX_KEPT, parse_config

    searched = []
    real = binder._suggest_field
    monkeypatch.setattr(binder, "_suggest_field", lambda *args: searched.append(1) or real(*args))
    count = 30_000
    text = 'backend: "python"\n' + "".join(f"field_{i}: {i}\n" for i in range(count))
    parsed = parse_config(text.encode())
    assert parsed.config is None
    assert len(parsed.problems) == MAX_KEPT
    assert parsed.unreported == {ProblemKind.UNKNOWN_FIELD: count - MAX_KEPT}
    assert len(searched) <= 100


def test_an_input_declared_thousands_of_times_is_one_finding(tmp_path: Path) -> None:
    """PL218 reported every copy, each after counting the inputs again (7,000 copies:
    four minutes, 3 MB of output)."""
    python_model(tmp_path, "m")
    inputs = ",".join(['{ name: "IN" data_type: TYPE_FP32 dims: [ 1 ] }'] * 7000)
    (tmp_path / "m" / "config.pbtxt").write_text(
        f'backend: "python"\ninput [ {inputs} ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    )
    run = run_lint(tmp_path, "--config-only")
    assert_well_behaved(run, tmp_path)
    assert [d["code"] for d in run.diagnostics] == ["PL218"]
    assert "declared 7,000 times" in run.messages("PL218")


# --------------------------------------------------------------------------- request bodies


def test_a_request_body_past_the_cap_is_refused_in_one_line(tmp_path: Path) -> None:
    """A 4 MB body took 723 MB; 80 MB ended in a MemoryError traceback."""
    python_model(tmp_path, "m")
    body = tmp_path / "body.json"
    count = 3_000_000  # 9 MB of "1.5,"
    data = ",".join(["1.5"] * count)
    body.write_text(
        f'{{"inputs": [{{"name": "IN", "shape": [{count}], "datatype": "FP32", '
        f'"data": [{data}]}}]}}'
    )
    run = run_audited(tmp_path, "request", "m", str(body))
    assert_well_behaved(run, tmp_path, max_mb=100, exits=(2,), json_out=False)
    assert "larger than 8 MiB, the most `request` checks" in run.stderr
    assert run.stderr.count("\n") == 1


# ------------------------------------------------- what the contract and backend rules read


def test_the_contracts_of_a_thousand_nested_ensembles_and_a_bls_cycle(tmp_path: Path) -> None:
    """The whole check (the PL9 contracts of every ensemble and BLS caller, not only the
    config rules) over a chain of 1,000 nested ensembles, a diamond of 40, and Python
    models that call themselves and each other in a ring through BLS."""
    depth = 1000
    for i in range(depth):
        ensemble(tmp_path, f"e{i}", [step(f"e{i + 1}", "IN", "OUT")])
    python_model(tmp_path, f"e{depth}")
    for i in range(40):
        ensemble(tmp_path, f"d{i}", [step(f"d{i + 1}", "IN", "a"), step(f"d{i + 1}", "a", "OUT")])
    python_model(tmp_path, "d40")
    ring = 200
    for i in range(ring + 1):
        python_model(tmp_path, f"b{i}")
        callee = f"b{(i + 1) % ring}" if i < ring else f"b{i}"  # b200 calls itself
        (tmp_path / f"b{i}" / "1" / "model.py").write_text(BLS_MODEL % callee)
    run = run_lint(tmp_path, timeout=180)
    assert_well_behaved(run, tmp_path)
    assert run.diagnostics == []


BLS_MODEL = """import numpy as np
import triton_python_backend_utils as pb_utils

class TritonPythonModel:
    def execute(self, requests):
        out = []
        for request in requests:
            tensor = pb_utils.Tensor("IN", np.zeros([1], dtype=np.float32))
            call = pb_utils.InferenceRequest(
                model_name="%s", requested_output_names=["OUT"], inputs=[tensor]
            )
            answer = call.exec()
            out.append(pb_utils.InferenceResponse(
                output_tensors=[pb_utils.get_output_tensor_by_name(answer, "OUT")]))
        return out
"""


def vllm_model(root: Path, model_json: str, instance: str = "KIND_MODEL") -> Path:
    folder = root / "v"
    (folder / "1").mkdir(parents=True)
    (folder / "config.pbtxt").write_text(
        f'backend: "vllm"\ninstance_group [ {{ kind: {instance} }} ]\n'
        "model_transaction_policy { decoupled: true }\n"
    )
    (folder / "1" / "model.json").write_text(model_json)
    return folder / "1" / "model.json"


def test_an_integer_of_any_length_in_model_json_is_what_json_load_says(tmp_path: Path) -> None:
    """json.load refuses an integer of more than 4,300 digits with a ValueError (not a
    JSONDecodeError): eight vLLM rules ended in internal errors."""
    vllm_model(tmp_path, f'{{"model": "facebook/opt-125m", "max_model_len": {HUGE}}}')
    run = run_lint(tmp_path)
    assert_well_behaved(run, tmp_path)
    assert run.codes() == {"PL801"}
    assert "ValueError: Exceeds the limit (4300" in run.messages("PL801")  # 3.10: "(4300) for"


def test_parallel_sizes_past_what_python_prints_or_converts(tmp_path: Path) -> None:
    """PL808 multiplies tensor_parallel_size by pipeline_parallel_size: int(Infinity)
    raised OverflowError, and a product of 8,000 digits could not be printed."""
    vllm_model(tmp_path / "a", '{"model": "x", "tensor_parallel_size": Infinity}', "KIND_GPU")
    big = "9" * 4000
    body = f'{{"model": "x", "tensor_parallel_size": {big}, "pipeline_parallel_size": {big}}}'
    vllm_model(tmp_path / "b", body, "KIND_GPU")
    for root in (tmp_path / "a", tmp_path / "b"):
        run = run_lint(root)
        assert_well_behaved(run, root)
    assert "runs on more than 2**64 GPUs" in run.messages("PL808")


def test_a_model_json_of_repeated_or_unknown_keys_is_a_few_findings(tmp_path: Path) -> None:
    """120,000 copies of one key took 37 s (each key's line counted from the start of
    the file) and printed 69 MB, a PL802 finding per copy; json.load keeps one."""
    from pbtxt_lint.artifacts.model_json import read_json_object
    from pbtxt_lint.rules.backends.vllm_engine_args import MAX_UNKNOWN_KEYS

    path = vllm_model(tmp_path / "same", "{" + ",\n".join(['"a": 1'] * 100_000) + "}")
    document = read_json_object(path)
    assert [(e.key, e.line, e.column) for e in document.entries] == [("a", 100_000, 1)]
    run = run_lint(tmp_path / "same")
    assert_well_behaved(run, tmp_path / "same")
    assert [d["code"] for d in run.diagnostics].count("PL802") == 1
    count = 20_000
    many = vllm_model(tmp_path / "many", "{" + ", ".join(f'"k{i}": 1' for i in range(count)) + "}")
    assert [e.column for e in read_json_object(many).entries][:3] == [2, 11, 20]
    run = run_lint(tmp_path / "many")
    assert_well_behaved(run, tmp_path / "many")
    assert [d["code"] for d in run.diagnostics].count("PL802") == MAX_UNKNOWN_KEYS + 1
    assert f"{count - MAX_UNKNOWN_KEYS:,} more keys" in run.messages("PL802")


def test_the_scaled_value_walk_has_a_budget_per_function(monkeypatch: pytest.MonkeyPatch) -> None:
    """PL915 followed each Tensor's value back through the whole function: 5,000
    Tensors of one list of 20,000 elements took 100 million steps (minutes)."""
    import ast

    from pbtxt_lint.artifacts import python_ranges

    steps = []
    real = python_ranges._Function.factor
    monkeypatch.setattr(
        python_ranges._Function,
        "factor",
        lambda self, *args: steps.append(1) or real(self, *args),
    )
    listed = "[" + ", ".join(["0"] * 20_000) + "]"
    source = (
        "import triton_python_backend_utils as pb_utils\n"
        f"def execute(requests):\n    x = {listed}\n"
        + "    t = pb_utils.Tensor('OUT', x)\n" * 5000
        + "    y = x * 256\n    u = pb_utils.Tensor('OUT', y)\n"
    )
    python_ranges.scaled_tensors(ast.parse(source))
    assert len(steps) < python_ranges.MAX_STEPS + 6000  # then a step or two per Tensor
    small = source.replace("    t = pb_utils.Tensor('OUT', x)\n" * 5000, "")
    assert [s.name for s in python_ranges.scaled_tensors(ast.parse(small))] == ["OUT"]


def test_a_shape_tensor_that_doubles_at_each_node_stays_small(tmp_path: Path) -> None:
    """Sixty Concat nodes, each joining a shape tensor with itself, made a shape of
    2**60 elements: the batch-axis trace of the PL9 rules took 24 GB. A cycle and an
    input dim of 2**62 come with it."""
    from onnx import TensorProto, helper

    nodes = [helper.make_node("Shape", ["x"], ["s0"])]
    nodes += [helper.make_node("Concat", [f"s{i}", f"s{i}"], [f"s{i + 1}"], axis=0)
              for i in range(60)]  # fmt: skip
    nodes += [
        helper.make_node("Reshape", ["x", "s60"], ["r"]),
        helper.make_node("NonZero", ["r"], ["y"]),
        helper.make_node("Add", ["y", "c2"], ["c1"]),  # c1 and c2 read each other
        helper.make_node("Add", ["c1", "y"], ["c2"]),
        helper.make_node("Transpose", ["x"], ["t"], perm=list(range(100))),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 2**62])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, ["n", 2])],
    )
    folder = tmp_path / "o"
    (folder / "1").mkdir(parents=True)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    (folder / "1" / "model.onnx").write_bytes(model.SerializeToString())
    (folder / "config.pbtxt").write_text(
        'backend: "onnxruntime"\nmax_batch_size: 8\ndynamic_batching { }\n'
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_INT64 dims: [ 2 ] } ]\n'
    )
    run = run_lint(tmp_path, timeout=120)
    assert_well_behaved(run, tmp_path, max_mb=300)
    assert "PL614" in run.codes()  # the dim of 2**62 against the config's -1
