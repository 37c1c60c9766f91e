"""The host profile's package list: requirements and pip-freeze files, module names."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbtxt_lint.artifacts.python_packages import (
    ProfileError,
    modules_of,
    read_host_packages,
)


def test_requirements_and_freeze_lines(tmp_path: Path) -> None:
    (tmp_path / "base.txt").write_text("tritonclient[http]==2.51.0\n")
    path = tmp_path / "requirements.txt"
    path.write_text(
        "# the serving image\n"
        "numpy<2 ; python_version < '3.13'\n"
        "Pillow==10.4.0  # images\n"
        "opencv-python-headless>=4\n"
        "typing_extensions\n"
        "mypkg @ https://example.invalid/mypkg.whl\n"
        "-e git+https://example.invalid/repo.git#egg=editable-thing\n"
        "--index-url https://example.invalid/simple\n"
        "-r base.txt\n"
        "conda-style=1.0=h0_0\n"
    )
    packages = read_host_packages(path)
    assert packages.distributions == {
        "numpy",
        "pillow",
        "opencv-python-headless",
        "typing-extensions",
        "mypkg",
        "editable-thing",
        "tritonclient",
        "conda-style",
    }
    for module in ("numpy", "PIL", "cv2", "typing_extensions", "tritonclient", "editable_thing"):
        assert module in packages.modules, module


@pytest.mark.parametrize(
    ("distribution", "module"),
    [
        ("scikit-learn", "sklearn"),
        ("PyYAML", "yaml"),
        ("python-dateutil", "dateutil"),
        ("onnxruntime-gpu", "onnxruntime"),
        ("faiss-cpu", "faiss"),
        ("torch", "torch"),
        ("cv2", "cv2"),  # a module declared on a line of its own
    ],
)
def test_module_names(distribution: str, module: str) -> None:
    assert module in modules_of(distribution)


def test_unreadable_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="cannot read"):
        read_host_packages(tmp_path / "missing.txt")


def test_setting_from_file_and_command_line(tmp_path: Path) -> None:
    from pbtxt_lint.settings_files import Options, SettingsError, resolve_settings

    (tmp_path / "image.txt").write_text("numpy\n")
    (tmp_path / ".pbtxt-lint.toml").write_text('python-packages = "image.txt"\n')
    (group,) = resolve_settings([tmp_path], Options())
    assert group.settings.python_packages == tmp_path / "image.txt"
    assert group.origins["python-packages"].source.endswith(".pbtxt-lint.toml")
    other = tmp_path / "other.txt"
    other.write_text("torch\n")
    (group,) = resolve_settings([tmp_path], Options(python_packages=other))
    assert group.settings.python_packages == other
    with pytest.raises(SettingsError, match=r"--python-packages.*cannot read"):
        resolve_settings([tmp_path], Options(python_packages=tmp_path / "nope.txt"))
    (tmp_path / ".pbtxt-lint.toml").write_text("python-packages = 3\n")
    with pytest.raises(SettingsError, match="must be a path"):
        resolve_settings([tmp_path], Options())


def test_cli_flag_reaches_the_rule(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from pbtxt_lint.cli import cli

    model = tmp_path / "m"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(
        'backend: "python"\nmax_batch_size: 0\n'
        'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
        'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    )
    (model / "1" / "model.py").write_text(
        "import transformers\n\nclass TritonPythonModel:\n"
        "    def execute(self, requests):\n        return []\n"
    )
    (tmp_path / "image.txt").write_text("numpy\n")
    runner = CliRunner()
    plain = runner.invoke(cli, ["check", str(tmp_path), "--select", "PL686", "--format", "json"])
    declared = runner.invoke(
        cli,
        ["check", str(tmp_path), "--select", "PL686", "--format", "json",
         "--python-packages", str(tmp_path / "image.txt")],
    )  # fmt: skip
    assert plain.exit_code == 0 and '"severity": "info"' in plain.stdout
    assert declared.exit_code == 1 and '"severity": "error"' in declared.stdout
    missing = runner.invoke(cli, ["check", str(tmp_path), "--python-packages", "nope.txt"])
    assert missing.exit_code == 2 and "cannot read" in missing.output
