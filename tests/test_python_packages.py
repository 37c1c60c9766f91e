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
