#!/usr/bin/env python3
"""Write the model files of the held-out backend cases (tests/heldout/backends/) from one table.

Usage: python scripts/make_heldout_backends.py [--check]

The cases are built from public threads that no backend rule was designed from (see
tests/heldout/backends/README.md); their config.pbtxt and text model files are written by
hand, their ONNX graphs, OpenVINO IRs and SavedModel protobufs are generated here with
the builders of the rule fixtures (tiny, with the names, types and shapes the threads
show). `--check` compares the committed files with the table, without writing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "heldout" / "backends"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_tree import case_files_command, case_files_differences  # noqa: E402
from make_fixture_artifacts import (  # noqa: E402
    FLOAT,
    INT64,
    IO,
    OpenVino,
    SavedModel,
    Spec,
    generated_files,
)
from onnx_builders import build_model, write_model  # type: ignore[import-not-found]  # noqa: E402

DT_FLOAT, DT_UINT8 = 1, 4
"""tensorflow DataType numbers."""


@dataclass(frozen=True)
class Exported:
    """An ONNX graph stamped with the IR version and opset of the exporter that wrote it."""

    inputs: list[IO]
    outputs: list[IO]
    ir_version: int
    opset: int

    def write(self, path: Path) -> None:
        model = build_model(
            self.inputs, self.outputs, ir_version=self.ir_version, opsets=(("", self.opset),)
        )
        write_model(model, path)


IOs = tuple[list[IO], list[IO]]

QWEN_IO: IOs = (
    [("input_ids", INT64, ["batch", "sequence"]), ("attention_mask", INT64, ["batch", "sequence"])],
    [("logits", FLOAT, ["batch", "sequence", 151936])],
)
YOLO_IO: IOs = (
    [("images", FLOAT, ["batch", 3, 640, 640])],
    [("output0", FLOAT, ["batch", 84, 8400])],
)
VAD_IO: IOs = ([("input", FLOAT, ["batch", "samples"])], [("output", FLOAT, ["batch", 1])])

TABLE: dict[str, Spec | Exported] = {
    "m_onnx_ir10_on_24_01/repo/deepseek_r1_distill/1/model.onnx": Exported(*QWEN_IO, 10, 21),
    "m_onnx_ir10_on_22_12/repo/C41/1/model.onnx": Exported(*YOLO_IO, 10, 19),
    "m_onnx_opset16_on_22_02/repo/silero_vad/1/model.onnx": Exported(*VAD_IO, 8, 16),
    "c_onnx_opset17_on_24_01/repo/yolov8n/1/model.onnx": Exported(*YOLO_IO, 8, 17),
    "m_openvino_dynamic_batching_b2/repo/text_recognition/1/model.xml": OpenVino(
        (("input.1", "f32", "?,1,32,100"),), (("308", "FP32", "-1,26,37"),)
    ),
    "c_openvino_batch_padding/repo/text_recognition/1/model.xml": OpenVino(
        (("input.1", "f32", "?,1,32,100"),), (("308", "FP32", "-1,26,37"),)
    ),
    "m_tf_tfod_max_batch/repo/fasterrcnn101v1640x640/1/model.savedmodel/saved_model.pb": (
        SavedModel(
            (("input_tensor", DT_UINT8, (1, -1, -1, 3)),),
            (("detection_boxes", DT_FLOAT, (1, 300, 4)), ("num_detections", DT_FLOAT, (1,))),
        )
    ),
}
"""Case-relative path -> how the file is made."""


def model_files(root: Path) -> list[Path]:
    """The generated files of the cases (every case's case.toml and hand-written files
    excluded)."""
    made = {root / path for path in TABLE}
    return [path for path in generated_files(root) if path in made or path.parent in made]


def differences() -> list[str]:
    """Files the table would write differently (or not at all) in the committed cases."""
    return case_files_differences(CASES, TABLE, model_files)


def main() -> int:
    return case_files_command(__doc__.splitlines()[0], CASES, TABLE, model_files)


if __name__ == "__main__":
    sys.exit(main())
