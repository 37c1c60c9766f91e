"""Tests of the Triton-oracle harness (tests/oracle.py), not of pbtxt-lint.

Three groups: the log parser on recorded tritonserver 2.51.0 output (always run), the
process handling on fake server scripts (always run), and the real server on small
repositories built here (skipped when the wheel cannot be fetched, failing under CI).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from oracle import (
    UNDECIDED,
    TritonServer,
    Verdict,
    classify,
    fetch_error,
    find_tritonserver,
    parse_log,
)

# --------------------------------------------------------------------------- helpers

IO = """
input [ { name: "x" data_type: TYPE_FP32 dims: [ 3 ] } ]
output [ { name: "y" data_type: TYPE_FP32 dims: [ 3 ] } ]
"""
ONNX = 'platform: "onnxruntime_onnx"\nmax_batch_size: 4\n' + IO


def step(model: str, version: int = -1) -> str:
    return (
        f'step [ {{ model_name: "{model}" model_version: {version} '
        'input_map { key: "x" value: "x" } output_map { key: "y" value: "y" } } ]'
    )


def ensemble(*models: str) -> str:
    steps = " ".join(step(m) for m in models)
    return f'platform: "ensemble"\nmax_batch_size: 4\n{IO}\nensemble_scheduling {{ {steps} }}\n'


def write_model(
    repo: Path,
    name: str,
    config: str | None,
    *,
    versions: tuple[str, ...] = ("1",),
    files: tuple[str, ...] = (),
) -> Path:
    """A model directory: config.pbtxt (unless None), version folders, empty files."""
    model = repo / name
    model.mkdir(parents=True)
    if config is not None:
        (model / "config.pbtxt").write_text(textwrap.dedent(config))
    for version in versions:
        (model / version).mkdir()
    for file in files:
        (model / file).parent.mkdir(parents=True, exist_ok=True)
        (model / file).write_bytes(b"")
    return model


def no_tritonserver_children() -> bool:
    """No process whose parent is this one is a tritonserver or a fake of it."""
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if fields[1] == me and (b"tritonserver" in cmdline or b"fake-server" in cmdline):
            return False
    return True


# --------------------------------------------------------------------------- parser

HEAD = 'E1122 02:30:30.917643 3452 model_repository_manager.cc:1460] "'
PROTOBUF = (
    "[libprotobuf ERROR /tmp/tritonbuild/.../protobuf/text_format.cc:337] Error parsing "
    'text-format inference.ModelConfig: 3:1: Message type "inference.ModelConfig" has no '
    'field named "xx".'
)


def table(*rows: str) -> list[str]:
    border = "+-----+---------+--------+"
    return ["I1122 02:30:30.918489 3452 server.cc:674] ", border,
            "| Model | Version | Status |", border, *rows, border, ""]  # fmt: skip


def test_parse_poll_failure_keeps_protobuf_detail() -> None:
    lines = [
        PROTOBUF,
        HEAD + "Poll failed for model directory 'syntax': failed to read text proto from "
        '/r/syntax/config.pbtxt"',
        *table(),
    ]
    verdicts = parse_log(lines, ["syntax"], completed=True)
    assert verdicts["syntax"] == Verdict(
        "syntax", "rejected", "failed to read text proto from /r/syntax/config.pbtxt", "poll",
        detail='3:1: Message type "inference.ModelConfig" has no field named "xx".',
    )  # fmt: skip


def test_parse_unescapes_json_messages_and_matches_quoted_names() -> None:
    lines = [
        HEAD + "Poll failed for model directory 'it''s': unexpected directory name 'it''s' "
        "for model 'x\\\"y\\nz', directory name must equal model name\"",
        *table(),
    ]
    verdict = parse_log(lines, ["it'", "it''s"], completed=True)["it''s"]
    assert verdict.message.startswith("unexpected directory name")
    assert "'x\"y\nz'" in verdict.message


def test_parse_load_failures_by_message() -> None:
    lines = [
        'E1 00:00:00.0 1 x] "ignored, not a log line"',
        "E1122 02:30:30.918093 3452 model_lifecycle.cc:642] \"failed to load 'onnx' version 1: "
        "Invalid argument: unable to find backend library for backend 'onnxruntime', try "
        'specifying runtime on the model configuration."',
        "E1122 02:30:30.918093 3452 model_lifecycle.cc:642] \"failed to load 'gpu' version 1: "
        "Invalid argument: instance group gpu_0 of model gpu has kind KIND_GPU but no GPUs are "
        'available"',
        'E1122 02:30:30.917956 3452 model_repository_manager.cc:724] "failed to load model '
        "'nover': at least one version must be available under the version policy of model "
        "'nover'\"",
        *table("| gpu | 1 | UNAVAILABLE: ... |", "| nover | - | Not loaded: No model version |"),
    ]
    verdicts = parse_log(lines, ["gpu", "nover", "onnx"], completed=True)
    assert [(v.status, v.stage) for v in verdicts.values()] == [
        ("gpu_missing", "load"),
        ("rejected", "version"),
        ("backend_missing", "load"),
    ]
    assert verdicts["onnx"].message.startswith("Invalid argument: unable to find backend")


def test_parse_table_only_models_with_wrapped_cells() -> None:
    lines = table(
        "| ok   | 1 | READY |",
        "| long | 1 | UNAVAILABLE: Invalid argument: unable to find backend library for 'bb |",
        "|      |   | bb', try specifying runtime on the model configuration.           |",
    )
    verdicts = parse_log(lines, ["long", "ok"], completed=True)
    assert verdicts["ok"] == Verdict("ok", "ready", "", "")
    assert verdicts["long"].status == "backend_missing"
    assert "for 'bbbb', try" in verdicts["long"].message


def test_parse_ensemble_follows_its_upstream() -> None:
    missing = (
        "Invalid argument: unable to find backend library for backend 'onnxruntime', try "
        "specifying runtime on the model configuration."
    )
    lines = [
        HEAD + "Poll failed for model directory 'bad': 'max_batch_size' must be non-negative "
        'value for bad"',
        HEAD + "Invalid argument: ensemble lost contains models that are not available or "
        'ambiguous: nope"',
        HEAD + "Invalid argument: ensemble onbad contains models that are not available or "
        'ambiguous: bad"',
        f"E1122 02:30:30.918093 3452 model_lifecycle.cc:642] \"failed to load 'm' version 1: "
        f'{missing}"',
        HEAD + "Invalid argument: ensemble 'e1' depends on 'm' which has no loaded version. "
        f"Model 'm' loading failed with error: version 1 is at UNAVAILABLE state: {missing};\"",
        HEAD + "Invalid argument: ensemble 'e2' depends on 'e1' which is not valid. Model 'e1' "
        "failed with error: ensemble 'e1' depends on 'm' which has no loaded version.\"",
        *table(),
    ]
    verdicts = parse_log(lines, ["bad", "e1", "e2", "lost", "m", "onbad"], completed=True)
    got = {name: (v.status, v.stage, v.upstream) for name, v in verdicts.items()}
    assert got == {
        "bad": ("rejected", "poll", ""),
        "e1": ("backend_missing", "ensemble", "m"),
        "e2": ("backend_missing", "ensemble", "e1"),
        "lost": ("rejected", "ensemble", "nope"),
        "m": ("backend_missing", "load", ""),
        "onbad": ("rejected", "ensemble", "bad"),
    }


def test_parse_circular_lines_cover_unnamed_members() -> None:
    """A 4-cycle logs four identical lines naming only two members."""
    line = HEAD + 'Invalid argument: circular dependency between ensembles: a -> ... -> d -> a"'
    verdicts = parse_log([line] * 4 + table(), ["a", "b", "c", "d"], completed=True)
    assert {v.status for v in verdicts.values()} == {"rejected"}
    assert {v.stage for v in verdicts.values()} == {"ensemble"}


def test_parse_incomplete_run_is_crashed_but_keeps_printed_verdicts() -> None:
    lines = [HEAD + "Poll failed for model directory 'a': bad\""]
    verdicts = parse_log(lines, ["a", "b"], completed=False, failure="SIGSEGV")
    assert verdicts["a"].status == "rejected"
    assert verdicts["b"] == Verdict("b", "crashed", "SIGSEGV", "")


def test_parse_silent_model_is_unknown() -> None:
    verdict = parse_log(table(), ["ghost"], completed=True)["ghost"]
    assert verdict.status == "unknown"
    assert not verdict.decided


def test_classify() -> None:
    assert classify("unable to find backend library for backend 'x', try ...") == (
        "backend_missing"
    )
    assert classify("unable to find 'libtritonrepoagent_c.so' for repo agent 'c', searched: /o")
    assert classify("instance group g of model m specifies invalid or unsupported gpu id 3") == (
        "gpu_missing"
    )
    kind_model = "instance group g of model m has kind KIND_MODEL but specifies one or more GPUs"
    assert classify(kind_model) == "rejected"
    assert {"backend_missing", "gpu_missing", "crashed", "unknown"} == UNDECIDED


# --------------------------------------------------------------------------- processes


def fake_server(tmp_path: Path, script: str) -> TritonServer:
    """A shell script standing in for tritonserver, to test process handling."""
    binary = tmp_path / "fake-server"
    binary.write_text("#!/bin/sh\n" + textwrap.dedent(script))
    binary.chmod(0o755)
    return TritonServer(binary=binary, libs=tmp_path)


def test_timeout_kills_the_server(tmp_path: Path) -> None:
    server = fake_server(tmp_path, "echo starting\nexec sleep 600\n")
    (tmp_path / "repo" / "m").mkdir(parents=True)
    run = server.run(tmp_path / "repo", timeout=0.5)
    assert run.timed_out and not run.completed
    assert run.verdicts["m"].status == "crashed"
    assert "timed out" in run.verdicts["m"].message
    assert run.elapsed < 10
    assert no_tritonserver_children()


def test_stops_once_the_model_table_is_printed(tmp_path: Path) -> None:
    rows = "\n".join(table("| m | 1 | READY |"))
    server = fake_server(tmp_path, f"cat <<'EOF'\n{rows}\nEOF\nexec sleep 600\n")
    (tmp_path / "repo" / "m").mkdir(parents=True)
    run = server.run(tmp_path / "repo", timeout=30)
    assert run.completed and not run.timed_out
    assert run.verdicts == {"m": Verdict("m", "ready", "", "")}
    assert run.elapsed < 10
    assert no_tritonserver_children()


def test_signal_death_is_crashed(tmp_path: Path) -> None:
    server = fake_server(tmp_path, "kill -SEGV $$\n")
    (tmp_path / "repo" / ".hidden").mkdir(parents=True)
    verdict = server.validate(tmp_path / "repo")[".hidden"]
    assert verdict.status == "crashed"
    assert "SIGSEGV" in verdict.message


def test_not_a_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(NotADirectoryError):
        fake_server(tmp_path, "exit 0\n").run(tmp_path / "missing")


# --------------------------------------------------------------------------- real server


@pytest.fixture(scope="session")
def tritonserver() -> TritonServer:
    """The real server; skip without it, except under CI where that is a failure."""
    server = find_tritonserver()
    if server is None:
        message = f"tritonserver unavailable (nvidia-pytriton from PyPI): {fetch_error()}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return server


def test_syntax_error_is_rejected_at_poll(tritonserver: TritonServer, tmp_path: Path) -> None:
    config = write_model(tmp_path, "m", 'platform: "onnxruntime_onnx"\nmax_batch_size: 4 xx\n')
    verdict = tritonserver.validate(tmp_path)["m"]
    assert (verdict.status, verdict.stage) == ("rejected", "poll")
    assert str(config / "config.pbtxt") in verdict.message
    assert verdict.detail.startswith("3:1: ")
    assert '"xx"' in verdict.detail


def test_negative_max_batch_size(tritonserver: TritonServer, tmp_path: Path) -> None:
    write_model(tmp_path, "m", ONNX.replace("max_batch_size: 4", "max_batch_size: -1"))
    verdict = tritonserver.validate(tmp_path)["m"]
    assert (verdict.status, verdict.stage) == ("rejected", "poll")
    assert "'max_batch_size' must be non-negative value" in verdict.message


def test_valid_onnx_config_stops_at_missing_backend(
    tritonserver: TritonServer, tmp_path: Path
) -> None:
    write_model(tmp_path, "m", ONNX, files=("1/model.onnx",))
    verdict = tritonserver.validate(tmp_path)["m"]
    assert (verdict.status, verdict.stage) == ("backend_missing", "load")
    assert "unable to find backend library for backend 'onnxruntime'" in verdict.message


def test_kind_gpu_is_not_reached(tritonserver: TritonServer, tmp_path: Path) -> None:
    """Backend resolution (S7) comes before instance groups (S8): no GPU check runs."""
    write_model(tmp_path, "m", ONNX + "instance_group [ { kind: KIND_GPU } ]\n",
                files=("1/model.onnx",))  # fmt: skip
    assert tritonserver.validate(tmp_path)["m"].status == "backend_missing"


def test_two_models_two_verdicts(tritonserver: TritonServer, tmp_path: Path) -> None:
    write_model(tmp_path, "good", ONNX, files=("1/model.onnx",))
    write_model(tmp_path, "bad", ONNX.replace("dims: [ 3 ] } ]\noutput", "dims: [ 0 ] } ]\noutput"))
    (tmp_path / "README.md").write_text("files at the root are not models\n")
    verdicts = tritonserver.validate(tmp_path)
    assert sorted(verdicts) == ["bad", "good"]
    assert verdicts["good"].status == "backend_missing"
    assert verdicts["bad"].status == "rejected"
    assert "dimension must be integer >= 1" in verdicts["bad"].message


def test_auto_complete_defers_io_checks(tritonserver: TritonServer, tmp_path: Path) -> None:
    write_model(tmp_path, "m", ONNX.replace("dims: [ 3 ] } ]\noutput", "dims: [ 0 ] } ]\noutput"))
    assert tritonserver.validate(tmp_path)["m"].stage == "poll"
    verdict = tritonserver.validate(tmp_path, auto_complete=True)["m"]
    assert (verdict.status, verdict.stage) == ("backend_missing", "load")


def test_hidden_directory_is_a_model(tritonserver: TritonServer, tmp_path: Path) -> None:
    write_model(tmp_path, "m", ONNX, files=("1/model.onnx",))
    (tmp_path / ".ipynb_checkpoints").mkdir()
    strict = tritonserver.validate(tmp_path)[".ipynb_checkpoints"]
    assert (strict.status, strict.stage) == ("rejected", "poll")
    assert "No such file or directory" in strict.message
    autofill = tritonserver.validate(tmp_path, auto_complete=True)[".ipynb_checkpoints"]
    assert (autofill.status, autofill.stage) == ("rejected", "version")
    assert "at least one version must be available" in autofill.message


def test_model_config_name(tritonserver: TritonServer, tmp_path: Path) -> None:
    model = write_model(tmp_path, "m", ONNX, files=("1/model.onnx",))
    (model / "configs").mkdir()
    (model / "configs" / "bad.pbtxt").write_text(ONNX.replace("4", "-1"))
    assert tritonserver.validate(tmp_path)["m"].status == "backend_missing"
    assert tritonserver.validate(tmp_path, model_config_name="bad")["m"].status == "rejected"
    assert tritonserver.validate(tmp_path, model_config_name="none")["m"].status == (
        "backend_missing"
    )


def test_ensembles(tritonserver: TritonServer, tmp_path: Path) -> None:
    write_model(tmp_path, "m", ONNX, files=("1/model.onnx",))
    write_model(tmp_path, "e1", ensemble("m"))
    write_model(tmp_path, "e2", ensemble("e1"))
    write_model(tmp_path, "lost", ensemble("nope"))
    write_model(tmp_path, "noversion", ensemble("m"), versions=())
    for name, target in (("ca", "cb"), ("cb", "cc"), ("cc", "ca")):
        write_model(tmp_path, name, ensemble(target))
    verdicts = tritonserver.validate(tmp_path)
    got = {name: (v.status, v.stage, v.upstream) for name, v in verdicts.items()}
    assert got == {
        "m": ("backend_missing", "load", ""),
        "e1": ("backend_missing", "ensemble", "m"),
        "e2": ("backend_missing", "ensemble", "e1"),
        "lost": ("rejected", "ensemble", "nope"),
        "noversion": ("backend_missing", "ensemble", "m"),
        "ca": ("rejected", "ensemble", ""),
        "cb": ("rejected", "ensemble", ""),
        "cc": ("rejected", "ensemble", ""),
    }
    assert "which has no loaded version" in verdicts["e1"].message
    assert "circular dependency between ensembles" in verdicts["cb"].message


def test_empty_repository_server_keeps_running_and_is_stopped(
    tritonserver: TritonServer, tmp_path: Path
) -> None:
    """Nothing fails, so the server would serve forever: the table must stop it."""
    (tmp_path / "notes.txt").write_text("")
    run = tritonserver.run(tmp_path, timeout=30)
    assert run.completed and not run.timed_out
    assert run.verdicts == {}
    assert no_tritonserver_children()


def test_segfault_is_crashed(tritonserver: TritonServer, tmp_path: Path) -> None:
    """An empty model_repository_agents block kills tritonserver 2.51 while polling."""
    write_model(tmp_path, "agents", ONNX + "model_repository_agents { }\n")
    write_model(tmp_path, "m", ONNX, files=("1/model.onnx",))
    run = tritonserver.run(tmp_path)
    assert run.returncode == -11
    assert {v.status for v in run.verdicts.values()} == {"crashed"}
    assert no_tritonserver_children()


def test_fetch_is_safe_in_parallel(tritonserver: TritonServer, tmp_path: Path) -> None:
    """Two processes on an empty cache: one download, both get the same working binary."""
    code = "import oracle; s = oracle.find_tritonserver(); print(s.binary if s else 'NONE')"
    env = {**os.environ, "PBTXT_LINT_CACHE": str(tmp_path / "cache")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parent),
                                                      env.get("PYTHONPATH")]))  # fmt: skip
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=900)[0].strip() for proc in procs]
    assert outputs[0] == outputs[1] != "NONE"
    assert Path(outputs[0]).is_file()
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [
        ".lock",
        "nvidia-pytriton-0.7.0",
    ]
