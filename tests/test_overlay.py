"""The overlay seam: an editor's unsaved buffer is linted instead of the file on disk."""

from __future__ import annotations

from pathlib import Path

from pbtxt_lint.linter import lint
from pbtxt_lint.settings import Settings

PYTHON_MODEL = 'name: "{name}"\nbackend: "python"\n'


def make_model(repo: Path, name: str, config: str) -> Path:
    (repo / name / "1").mkdir(parents=True)
    (repo / name / "1" / "model.py").write_text("class TritonPythonModel:\n    pass\n")
    path = repo / name / "config.pbtxt"
    path.write_text(config)
    return path


def test_buffer_replaces_the_file(tmp_path: Path) -> None:
    path = make_model(tmp_path, "m", PYTHON_MODEL.format(name="m"))
    buffer = 'name: "m"\nbackend: "python"\nmax_batch_size: -1\n'
    on_disk = lint([path], Settings(config_only=True)).diagnostics
    edited = lint([path], Settings(config_only=True), overlay={path: buffer}).diagnostics
    assert not [d for d in on_disk if d.severity.value == "error"]
    errors = [
        (d.code, d.span.line if d.span else None) for d in edited if d.severity.value == "error"
    ]
    assert errors == [("PL301", 3)]
    assert path.read_text() == PYTHON_MODEL.format(name="m")  # nothing written


def test_ensemble_sees_the_composing_models_buffer(tmp_path: Path) -> None:
    """Cross-model checks read other open buffers too: an unsaved rename of a composing
    model's name is an error of that model, which its ensemble reports (PL516)."""
    step = make_model(tmp_path, "step", PYTHON_MODEL.format(name="step"))
    ensemble = make_model(
        tmp_path,
        "ens",
        'name: "ens"\nplatform: "ensemble"\n'
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        'ensemble_scheduling { step [ { model_name: "step" model_version: -1\n'
        '  input_map { key: "x" value: "IN" } output_map { key: "y" value: "OUT" } } ] }\n',
    )
    settings = Settings(config_only=True)
    before = {d.code for d in lint([ensemble], settings).diagnostics}
    renamed = 'name: "stepp"\nbackend: "python"\n'
    after = {d.code for d in lint([ensemble], settings, overlay={step: renamed}).diagnostics}
    assert "PL516" not in before
    assert "PL516" in after
