"""Units behind the run-time rules read from configs and model files: what the
TorchScript reader learns from forward()'s return, how label files split into lines,
which dims are an image with its batch axis, and dims set by auto_complete_config."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pbtxt_lint.artifacts.torchscript_code import Returned, _returned
from pbtxt_lint.linter import lint
from pbtxt_lint.rules.batching.timeouts import duration
from pbtxt_lint.rules.features.label_contents import _index_offset, _split
from pbtxt_lint.rules.tensors.batch_axis import image_layout
from pbtxt_lint.rules.tensors.reshape_order import reordered
from pbtxt_lint.settings import Settings


def returned(body: str) -> tuple[Returned, ...]:
    source = "def forward(self, x: Tensor, y: Tensor) -> Tensor:\n" + body
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    return _returned(function)


@pytest.mark.parametrize(
    ("body", "types"),
    [
        ("    return torch.to(x, 5, False, False, None)\n", ["TYPE_FP16"]),
        ("    _0 = torch.to(x, 6, False, False, None)\n    return _0\n", ["TYPE_FP32"]),
        ("    a = torch.to(x, torch.device('cuda'), 7, False)\n    return a\n", ["TYPE_FP64"]),
        ("    return torch.to(x, dtype=4)\n", ["TYPE_INT64"]),
        ("    return x.half()\n", ["TYPE_FP16"]),
        ("    return x.to(torch.float16)\n", ["TYPE_FP16"]),
        ("    a = torch.relu(x)\n    b = torch.to(y, 3, False, False, None)\n    return (a, b)\n",
         [None, "TYPE_INT32"]),
        ("    return x\n", [None]),  # an argument: nothing says its type
        ("    return torch.to(x, 'cuda')\n", [None]),  # a device, not a type
    ],
)  # fmt: skip
def test_returned_types(body: str, types: list[str | None]) -> None:
    assert [r.data_type for r in returned(body)] == types


@pytest.mark.parametrize(
    "body",
    [
        "    a = torch.to(x, 5)\n    a = torch.relu(a)\n    return a\n",  # assigned twice
        "    if bool(y):\n        a = torch.to(x, 5)\n    else:\n        a = x\n    return a\n",
    ],
)
def test_returned_unknown_when_not_straight_line(body: str) -> None:
    assert [r.data_type for r in returned(body)] == [None]


def test_returned_nothing_without_a_single_final_return() -> None:
    body = "    if bool(y):\n        return torch.to(x, 5)\n    return x\n"
    assert returned(body) == ()


@pytest.mark.parametrize(
    ("data", "lines"),
    [
        (b"", []),
        (b"a\nb", ["a", "b"]),
        (b"a\nb\n", ["a", "b"]),
        (b"a\n\nb\n", ["a", "", "b"]),
        (b"a\r\nb\r\n", ["a\r", "b\r"]),
        (b"a\n\n", ["a", ""]),  # std::getline yields the empty line before the last \n
    ],
)
def test_label_lines_split_like_getline(data: bytes, lines: list[str]) -> None:
    assert _split(data) == lines


@pytest.mark.parametrize(
    ("lines", "offset"),
    [
        (["0 cat", "1 dog"], 0),
        (["1: cat", "2: dog"], 1),
        (["0\tcat", "1\tdog"], 0),
        (["0 cat", "2 dog"], None),
        (["101 dalmatians", "102 dogs"], None),
        (["cat", "dog"], None),
    ],
)
def test_index_prefixes(lines: list[str], offset: int | None) -> None:
    assert _index_offset(lines) == offset


@pytest.mark.parametrize(
    ("dims", "layout"),
    [
        ([-1, 3, 224, 224], "NCHW"),
        ([-1, 224, 224, 3], "NHWC"),
        ([1, 1, 32, 128], "NCHW"),
        ([-1, 3, -1, -1], "NCHW"),
        ([-1, 256, 7, 7], None),  # a feature map
        ([3, 224, 224], None),
        ([-1, 3, 3, 3], None),  # a 3x3 kernel, not an image
        ([2, 3, 224, 224], None),  # a fixed count of images
    ],
)
def test_image_layout(dims: list[int], layout: str | None) -> None:
    assert image_layout(dims) == layout


@pytest.mark.parametrize(
    ("dims", "shape", "expected"),
    [
        ([224, 224, 3], [3, 224, 224], True),
        ([4, 100], [100, 4], True),
        ([224, 224, 1], [1, 224, 224], False),  # moving a size-1 axis moves no value
        ([3, 224, 224], [1, 3, 224, 224], False),
        ([4, 6], [24], False),
    ],
)
def test_reordered(dims: list[int], shape: list[int], expected: bool) -> None:
    assert reordered(dims, shape) is expected


@pytest.mark.parametrize(
    ("microseconds", "text"),
    [(100, "100 µs"), (5000, "5 ms"), (1_500_000, "1.5 s"), (60_000_000, "60 s")],
)
def test_duration(microseconds: int, text: str) -> None:
    assert duration(microseconds) == text


def test_batch_axis_set_by_auto_complete_config(tmp_path: Path) -> None:
    """Dims that model.py's auto_complete_config writes count like written ones."""
    model = tmp_path / "tagger"
    (model / "1").mkdir(parents=True)
    (model / "config.pbtxt").write_text(
        'backend: "python"\noutput [ { name: "TAGS" data_type: TYPE_FP32 dims: [ 20 ] } ]\n'
    )
    (model / "1" / "model.py").write_text(
        "class TritonPythonModel:\n"
        "    @staticmethod\n"
        "    def auto_complete_config(auto_complete_model_config):\n"
        "        auto_complete_model_config.set_max_batch_size(8)\n"
        "        auto_complete_model_config.add_input(\n"
        '            {"name": "IMAGE", "data_type": "TYPE_UINT8", "dims": [-1, 224, 224, 3]}\n'
        "        )\n"
        "        return auto_complete_model_config\n"
        "\n"
        "    def execute(self, requests):\n"
        "        return []\n"
    )
    found = [d for d in lint([tmp_path], Settings()).diagnostics if d.code == "PL224"]
    assert len(found) == 1
    assert "Expected [-1,-1,224,224,3], got [1,224,224,3]" in found[0].message
