"""ONNX Runtime auto-complete emulation, and the `complete`/`init` command functions."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import text_format
from onnx import TensorProto
from onnx_builders import IO, build_model, write_model, write_sequence_input

from pbtxt_lint.analysis.completed import CompletedConfig
from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.linter import lint
from pbtxt_lint.report.complete import CommandError, complete_command, init_command
from pbtxt_lint.repository.layout import load_repository
from pbtxt_lint.schema import ModelConfig
from pbtxt_lint.settings import Settings

FLOAT = TensorProto.FLOAT
BATCHED: tuple[list[IO], list[IO]] = ([("x", FLOAT, ["batch", 4])], [("y", FLOAT, ["batch", 4])])
FIXED: tuple[list[IO], list[IO]] = ([("x", FLOAT, [1, 4])], [("y", FLOAT, [1, 4])])


def make(tmp_path: Path, config: str | None, io: tuple[list[IO], list[IO]] = BATCHED) -> Path:
    model_dir = tmp_path / "repo" / "m"
    write_model(build_model(*io), model_dir / "1" / "model.onnx")
    if config is not None:
        (model_dir / "config.pbtxt").write_text(config)
    return model_dir


def completed(model_dir: Path, **settings: bool) -> CompletedConfig:
    repository = load_repository(model_dir.parent, None)
    context = ModelContext.standalone(
        repository.models[model_dir.name], repository, Settings(**settings)
    )
    return context.completed


def io_text(config: ModelConfig) -> list[str]:
    return [
        text_format.MessageToString(io, as_one_line=True, use_short_repeated_primitives=True)
        for io in (*config.input, *config.output)
    ]


def test_batchable_model_without_config_gets_default_batching(tmp_path: Path) -> None:
    result = completed(make(tmp_path, None))
    assert result.error is None and result.config is not None
    assert result.filled == {"max_batch_size", "dynamic_batching", "input", "output"}
    assert result.config.max_batch_size == 4
    assert list(result.config.dynamic_batching.preferred_batch_size) == [4]  # core normalises
    assert io_text(result.config) == [
        'name: "x" data_type: TYPE_FP32 dims: [4]',
        'name: "y" data_type: TYPE_FP32 dims: [4]',
    ]


def test_fixed_first_dim_is_not_batchable(tmp_path: Path) -> None:
    result = completed(make(tmp_path, 'backend: "onnxruntime"', FIXED))
    assert result.config is not None and result.filled == {"input", "output"}
    assert result.config.max_batch_size == 0
    assert not result.config.HasField("dynamic_batching")
    assert io_text(result.config)[0] == 'name: "x" data_type: TYPE_FP32 dims: [1, 4]'


def test_max_batch_size_on_a_model_that_cannot_batch_fails(tmp_path: Path) -> None:
    result = completed(make(tmp_path, "max_batch_size: 8", FIXED))
    assert result.error is not None and result.error.triton_id == "not-batchable"
    assert "model does not support batching" in result.error.message


def test_scalars_become_dims_one_with_an_empty_reshape_when_batched(tmp_path: Path) -> None:
    io = ([("x", FLOAT, ["batch"]), ("t", FLOAT, ["batch", 2])], [("y", FLOAT, ["batch"])])
    result = completed(make(tmp_path, "max_batch_size: 2", io))
    assert result.config is not None
    assert io_text(result.config) == [
        'name: "x" data_type: TYPE_FP32 dims: [1] reshape { }',
        'name: "t" data_type: TYPE_FP32 dims: [2]',
        'name: "y" data_type: TYPE_FP32 dims: [1] reshape { }',
    ]


def test_only_the_missing_list_is_filled_and_max_batch_size_still_is(tmp_path: Path) -> None:
    config = 'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\nsequence_batching { }'
    result = completed(make(tmp_path, config))
    assert result.config is not None
    assert result.filled == {"max_batch_size", "output"}  # no dynamic_batching: a scheduler is set
    assert [io.name for io in result.config.output] == ["y"]


def test_nothing_is_completed_when_inputs_and_outputs_are_given(tmp_path: Path) -> None:
    config = (
        'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 4 ] } ]\n'
        'output [ { name: "y" data_type: TYPE_FP32 dims: [ -1, 4 ] } ]'
    )
    result = completed(make(tmp_path, config))
    assert result.filled == frozenset() and result.config is not None
    assert result.config.max_batch_size == 0  # not even max_batch_size
    assert result.note == "inputs and outputs already specified"


@pytest.mark.parametrize(
    ("settings", "note", "io_known"),
    [
        ({"auto_complete": False}, "auto-complete is disabled", True),
        ({"config_only": True}, "--config-only", False),
    ],
)
def test_strict_mode_and_config_only_complete_nothing(
    tmp_path: Path, settings: dict[str, bool], note: str, io_known: bool
) -> None:
    result = completed(make(tmp_path, 'backend: "onnxruntime"'), **settings)
    assert result.filled == frozenset() and result.note is not None
    assert result.note.startswith(note)
    assert result.io_known is io_known


def test_non_tensor_io_fails_auto_complete(tmp_path: Path) -> None:
    model_dir = tmp_path / "repo" / "m"
    write_sequence_input(model_dir / "1" / "model.onnx")
    result = completed(model_dir)
    assert result.error is not None and result.error.triton_id == "io-not-a-tensor"
    assert "ONNX_TYPE_SEQUENCE" in result.error.message


def test_missing_artifact_is_r500(tmp_path: Path) -> None:
    model_dir = make(tmp_path, 'default_model_filename: "other.onnx"\nbackend: "onnxruntime"')
    result = completed(model_dir)
    assert result.error is not None and result.error.triton_id == "model-file-missing"


def test_complete_command_prints_what_triton_serves(tmp_path: Path) -> None:
    text = complete_command(make(tmp_path, None), Settings(gpus=0))
    config = text_format.Parse(text, ModelConfig())  # comments included, it parses
    assert config.name == "m" and config.backend == "onnxruntime"
    assert config.platform == "onnxruntime_onnx" and config.max_batch_size == 4
    assert config.version_policy.latest.num_versions == 1
    assert config.optimization.input_pinned_memory.enable
    group = config.instance_group[0]
    assert (group.name, group.kind, group.count) == ("m", group.KIND_CPU, 2)


def test_complete_command_leaves_the_instance_kind_open_for_an_unknown_host(
    tmp_path: Path,
) -> None:
    text = complete_command(make(tmp_path, None), Settings())
    assert "pass --gpus N" in text


def test_complete_command_reports_a_failed_load(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="does not support batching"):
        complete_command(make(tmp_path, "max_batch_size: 8", FIXED), Settings())


def test_init_writes_a_starter_that_lints_clean(tmp_path: Path) -> None:
    model_dir = make(tmp_path, None)
    written = init_command(model_dir, force=False)
    assert written == model_dir / "config.pbtxt"
    starter = text_format.Parse(written.read_text(), ModelConfig())
    assert starter.max_batch_size == 4 and starter.HasField("dynamic_batching")
    assert not starter.dynamic_batching.preferred_batch_size  # left to Triton
    result = lint([model_dir.parent], Settings())
    assert [(d.code, d.message) for d in result.diagnostics if d.code.startswith("PL6")] == []
    assert not [d for d in result.diagnostics if d.severity.value == "error"]
    assert not list(model_dir.glob(".config.pbtxt.*"))  # no temporary file left behind


def test_init_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    model_dir = make(tmp_path, "max_batch_size: 2")
    with pytest.raises(CommandError, match="already exists"):
        init_command(model_dir, force=False)
    assert (model_dir / "config.pbtxt").read_text() == "max_batch_size: 2"
    init_command(model_dir, force=True)
    assert "max_batch_size: 4" in (model_dir / "config.pbtxt").read_text()


def test_init_needs_a_model_it_can_read(tmp_path: Path) -> None:
    model_dir = tmp_path / "repo" / "p"
    (model_dir / "1").mkdir(parents=True)
    (model_dir / "1" / "model.py").write_text("class TritonPythonModel: ...\n")
    with pytest.raises(CommandError, match="only ONNX"):
        init_command(model_dir, force=False)
