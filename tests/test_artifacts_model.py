"""ModelArtifacts locates what Triton opens per loaded version, and gates every PL6 rule."""

from __future__ import annotations

from pathlib import Path

from onnx import TensorProto
from onnx_builders import build_model, write_model

from pbtxt_lint.analysis.artifacts import ArtifactState, ModelArtifacts
from pbtxt_lint.analysis.context import ModelContext
from pbtxt_lint.artifacts.formats import READERS, reader_for
from pbtxt_lint.linter import lint
from pbtxt_lint.repository.layout import load_repository
from pbtxt_lint.settings import Settings

XY = build_model([("x", TensorProto.FLOAT, ["b", 4])], [("y", TensorProto.FLOAT, ["b", 4])])
CONFIG = (
    'backend: "onnxruntime"\nmax_batch_size: 8\n'
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    'output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
    "dynamic_batching { }\n"
)


def artifacts(model_dir: Path, settings: Settings | None = None) -> ModelArtifacts:
    repository = load_repository(model_dir.parent, None)
    folder = repository.models[model_dir.name]
    return ModelContext.standalone(folder, repository, settings or Settings()).artifacts


def model(tmp_path: Path, config: str = CONFIG) -> Path:
    model_dir = tmp_path / "repo" / "m"
    model_dir.mkdir(parents=True)
    (model_dir / "config.pbtxt").write_text(config)
    return model_dir


def codes(model_dir: Path, settings: Settings | None = None) -> list[str]:
    result = lint([model_dir.parent], settings or Settings())
    return [d.code for d in result.diagnostics if d.code.startswith("PL6")]


def test_locates_the_file_of_each_loaded_version(tmp_path: Path) -> None:
    model_dir = model(tmp_path, CONFIG + "version_policy { all { } }\n")
    write_model(XY, model_dir / "1" / "model.onnx")
    write_model(XY, model_dir / "3" / "model.onnx" / "model.onnx")  # ONNX folder rule
    found = artifacts(model_dir)
    assert found.format == "onnx" and found.filename == "model.onnx" and found.readable
    assert [a.version for a in found.versions] == [1, 3]
    three = found.version()
    assert three is not None and three.version == 3
    assert three.opened == three.path / "model.onnx"
    assert three.state is ArtifactState.PRESENT and three.signature is not None
    assert three.read is three.read  # read once


def test_every_registered_reader_resolves() -> None:
    from pbtxt_lint.artifacts.onnx import read_onnx

    assert reader_for("onnx") is read_onnx
    assert all(callable(reader_for(fmt)) for fmt in READERS)
    assert reader_for("graphdef") is None  # located, never read


def test_triton_loads_from_the_numbered_folder_not_the_prefixed_one(tmp_path: Path) -> None:
    model_dir = model(tmp_path)
    write_model(XY, model_dir / "1_old" / "model.onnx")
    (only,) = artifacts(model_dir).versions
    assert only.folder == model_dir / "1" and only.state is ArtifactState.MISSING
    assert codes(model_dir) == ["PL600"]


def test_a_link_outside_the_repository_is_not_read(tmp_path: Path) -> None:
    model_dir = model(tmp_path)
    write_model(XY, tmp_path / "elsewhere.onnx")
    (model_dir / "1").mkdir()
    (model_dir / "1" / "model.onnx").symlink_to(tmp_path / "elsewhere.onnx")
    (only,) = artifacts(model_dir).versions
    assert only.state is ArtifactState.OUTSIDE and only.read is None


def test_config_only_switches_every_artifact_rule_off(tmp_path: Path) -> None:
    model_dir = model(tmp_path, CONFIG.replace('"x"', '"wrong"'))
    write_model(XY, model_dir / "1" / "model.onnx")
    assert codes(model_dir) == ["PL608"]
    assert artifacts(model_dir, Settings(config_only=True)).versions == ()
    assert codes(model_dir, Settings(config_only=True)) == []


def test_findings_name_the_versions_when_several_are_loaded(tmp_path: Path) -> None:
    wrong_type = CONFIG.replace('"x" data_type: TYPE_FP32', '"x" data_type: TYPE_INT32')
    model_dir = model(tmp_path, wrong_type + "version_policy { all { } }\n")
    write_model(XY, model_dir / "1" / "model.onnx")
    write_model(XY, model_dir / "2" / "model.onnx")
    result = lint([model_dir.parent], Settings())
    (finding,) = [d for d in result.diagnostics if d.code == "PL610"]
    assert finding.message.startswith("versions 1, 2: ")


def test_missing_default_file_is_info_when_gpus_may_use_cc_files(tmp_path: Path) -> None:
    config = CONFIG + 'cc_model_filenames { key: "8.0" value: "model_sm80.onnx" }\n'
    model_dir = model(tmp_path, config)
    write_model(XY, model_dir / "1" / "model_sm80.onnx")
    result = lint([model_dir.parent], Settings())
    (finding,) = [d for d in result.diagnostics if d.code == "PL600"]
    assert finding.severity.value == "info" and "cc_model_filenames" in finding.message
    result = lint([model_dir.parent], Settings(gpus=0))
    (finding,) = [d for d in result.diagnostics if d.code == "PL600"]
    assert finding.severity.value == "error"
