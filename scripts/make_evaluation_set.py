#!/usr/bin/env python3
"""Write the model files of the evaluation set and of the held-out cases from tables.

Usage: python scripts/make_evaluation_set.py [--check]

Each case of the evaluation set (tests/evaluation/) and of the held-out sets
(tests/heldout/<backend>/) is a model repository whose config.pbtxt, model.py and
label files are written by hand; its ONNX graphs, TorchScript archives, TensorRT plan
headers and SavedModel protobufs are generated here (tiny, deterministic, with the
tensor names, types and shapes a real export has), so that what a model declares is
readable in this table rather than hidden in a binary. The builders are those of the
rule fixtures (scripts/make_fixture_artifacts.py). `--check` compares the committed
files with what the table produces, without writing (exit 1 on a difference).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "evaluation"
HELDOUT = ROOT / "tests" / "heldout"
"""Cases built from threads no rule was designed from (`<backend>/<case>/`)."""
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_tree import command_line, table_differences, write_all  # noqa: E402
from heldout_independent import INDEPENDENT  # noqa: E402
from make_fixture_artifacts import (  # noqa: E402
    FLOAT,
    INT64,
    IO,
    Graph,
    OpenVino,
    Ops,
    Plan,
    SavedModel,
    Spec,
    Special,
    Stamped,
    TorchScript,
    generated_files,
)

DT_FLOAT, DT_UINT8 = 1, 4
"""tensorflow DataType numbers of float32 and uint8."""


XGBOOST_JSON = (
    '{"learner":{"attributes":{},"feature_names":[],"feature_types":[],"gradient_booster":'
    '{"model":{"gbtree_model_param":{"num_parallel_tree":"1","num_trees":"1",'
    '"size_leaf_vector":"0"},"tree_info":[0],"trees":[]},"name":"gbtree"},'
    '"learner_model_param":{"base_score":"5E-1","boost_from_average":"1","num_class":"0",'
    '"num_feature":"2","num_target":"1"},"objective":{"name":"reg:squarederror"}},'
    '"version":[1,7,1]}\n'
)
"""An XGBoost 1.7 JSON model (one empty forest), as save_model("xgboost.json") writes it."""


def xgboost_json(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(XGBOOST_JSON, encoding="utf-8")


RESNET50 = Graph([("input", FLOAT, ["batch", 3, 224, 224])], [("probs", FLOAT, ["batch", 1000])])
STREAMING_ENCODER = Graph(
    [
        ("features", FLOAT, ["batch", 10, 80]),
        ("START", FLOAT, ["batch", 1]),
        ("READY", FLOAT, ["batch", 1]),
    ],
    [("log_probs", FLOAT, ["batch", 10, 500])],
)

TABLE: dict[str, Spec] = {
    # ------------------------------------------------------------------ mistakes
    "m_pt_densenet_batch_twice/repo/densenet_pt/1/model.pt": TorchScript(
        (("x", "Tensor"),), root="__torch__.torchvision.models.densenet.DenseNet"
    ),
    "m_py_bls_output_name_typo/repo/person_detector/1/model.onnx": Graph(
        [("images", FLOAT, ["batch", 3, 64, 64])], [("DETECTIONS", FLOAT, ["batch", 100, 6])]
    ),
    "m_onnx_seq_idle_1ms/repo/streaming_conformer/1/model.onnx": Graph(
        [
            ("speech", FLOAT, ["batch", 16, 80]),
            ("START", FLOAT, ["batch", 1]),
            ("READY", FLOAT, ["batch", 1]),
        ],
        [("encoder_out", FLOAT, ["batch", 4, 256])],
    ),
    "m_onnx_labels_on_detection_output/repo/yolov5s/1/model.onnx": Graph(
        [("images", FLOAT, ["batch", 3, 640, 640])], [("output0", FLOAT, ["batch", 25200, 85])]
    ),
    "m_onnx_labels_csv_header_shift/repo/gtsrb_classifier/1/model.onnx": Graph(
        [("input", FLOAT, ["batch", 3, 32, 32])], [("logits", FLOAT, ["batch", 43])]
    ),
    "m_onnx_labels_index_prefixed/repo/cifar10_resnet/1/model.onnx": Graph(
        [("input", FLOAT, ["batch", 3, 32, 32])], [("output", FLOAT, ["batch", 10])]
    ),
    "m_ens_variable_to_fixed_shape/repo/resnet50/1/model.onnx": RESNET50,
    "m_ens_python_step_drops_batch/repo/resnet50/1/model.onnx": RESNET50,
    "m_ens_python_step_float64/repo/resnet50/1/model.onnx": RESNET50,
    "m_ens_reshape_as_transpose/repo/resnet50/1/model.onnx": RESNET50,
    "m_ens_tokenizer_length_vs_dims/repo/bert_router/1/model.onnx": Graph(
        [("input_ids", INT64, ["batch", 128]), ("attention_mask", INT64, ["batch", 128])],
        [("logits", FLOAT, ["batch", 6])],
    ),
    "m_ens_step_omits_output/repo/yolov8n/1/model.onnx": Graph(
        [("images", FLOAT, ["batch", 3, 640, 640])], [("output0", FLOAT, ["batch", 300, 6])]
    ),
    "m_ens_stateful_step_no_correlation_id/repo/streaming_encoder/1/model.onnx": (
        STREAMING_ENCODER
    ),
    "m_pt_input_order_swapped/repo/intent_bert/1/model.pt": TorchScript(
        (("input_ids", "Tensor"), ("attention_mask", "Tensor")),
        root="__torch__.transformers.models.bert.modeling_bert.BertForSequenceClassification",
    ),
    # A model.half() export: its data.pkl stores the weights as torch.HalfStorage (checked
    # on a real torch.jit.script(model.half()).save(); an FP32 export names FloatStorage).
    "m_pt_output_fp16/repo/segformer_fp16/1/model.pt": TorchScript(
        (("pixel_values", "Tensor"),),
        root="__torch__.segformer.SegformerForSemanticSegmentation",
        storage="HalfStorage",
    ),
    # ------------------------------------------------------------------ controls
    "c_onnx_cifar_labels/repo/cifar10_resnet/1/model.onnx": Graph(
        [("input", FLOAT, ["batch", 3, 32, 32])], [("output", FLOAT, ["batch", 10])]
    ),
    "c_onnx_bert_dynamic_batching/repo/bert_sentiment/1/model.onnx": Graph(
        [
            ("input_ids", INT64, ["batch", "sequence"]),
            ("attention_mask", INT64, ["batch", "sequence"]),
            ("token_type_ids", INT64, ["batch", "sequence"]),
        ],
        [("logits", FLOAT, ["batch", 2])],
    ),
    "c_onnx_yolov8_mbs0_full_shape/repo/yolov8s/1/model.onnx": Graph(
        [("images", FLOAT, [1, 3, 640, 640])], [("output0", FLOAT, [1, 84, 8400])]
    ),
    "c_onnx_stateful_implicit_state/repo/streaming_vad/1/model.onnx": Graph(
        [
            ("audio_chunk", FLOAT, ["batch", 512]),
            ("START", FLOAT, ["batch", 1]),
            ("past_state", FLOAT, ["batch", 2, 64]),
        ],
        [("speech_prob", FLOAT, ["batch", 1]), ("present_state", FLOAT, ["batch", 2, 64])],
    ),
    "c_onnx_sequence_controls_in_graph/repo/conformer_encoder/1/model.onnx": Graph(
        [
            ("speech", FLOAT, ["batch", 67, 80]),
            ("START", FLOAT, ["batch", 1]),
            ("END", FLOAT, ["batch", 1]),
            ("READY", FLOAT, ["batch", 1]),
            ("CORRID", INT64, ["batch", 1]),
        ],
        [("encoder_out", FLOAT, ["batch", 16, 256])],
    ),
    "c_onnx_scalar_reshape/repo/sampler/1/model.onnx": Graph(
        [("logits", FLOAT, ["batch", 32000]), ("temperature", FLOAT, ["batch"])],
        [("probs", FLOAT, ["batch", 32000])],
    ),
    "c_ens_image_classification/repo/resnet50/1/model.onnx": RESNET50,
    "c_ens_bert_variable_sequence/repo/distilbert_intent/1/model.onnx": Graph(
        [
            ("input_ids", INT64, ["batch", "sequence"]),
            ("attention_mask", INT64, ["batch", "sequence"]),
        ],
        [("logits", FLOAT, ["batch", 8])],
    ),
    "c_pt_named_inputs/repo/toxic_bert/1/model.pt": TorchScript(
        (("input_ids", "Tensor"), ("attention_mask", "Tensor")),
        root="__torch__.transformers.models.bert.modeling_bert.BertForSequenceClassification",
    ),
    "c_pt_index_convention/repo/resnet18_pt/1/model.pt": TorchScript(
        (("x", "Tensor"),), root="__torch__.torchvision.models.resnet.ResNet"
    ),
    "c_trt_plan_detector_gpu/repo/yolov8m_trt/1/model.plan": Plan((10, 8, 0, 43), size=256),
    "c_tf_savedmodel_gpu/repo/efficientnet_tf/1/model.savedmodel/saved_model.pb": SavedModel(
        (("input_1", DT_FLOAT, (-1, 224, 224, 3)),), (("predictions", DT_FLOAT, (-1, 1000)),)
    ),
}
"""Case-relative path -> how the file is made."""

IOs = tuple[tuple[IO, ...], tuple[IO, ...]]
QWEN_IO: IOs = (
    (("input_ids", INT64, ("batch", "sequence")), ("attention_mask", INT64, ("batch", "sequence"))),
    (("logits", FLOAT, ("batch", "sequence", 151936)),),
)
YOLO_IO: IOs = (
    (("images", FLOAT, ("batch", 3, 640, 640)),),
    (("output0", FLOAT, ("batch", 84, 8400)),),
)
VAD_IO: IOs = ((("input", FLOAT, ("batch", "samples")),), (("output", FLOAT, ("batch", 1)),))
TEXT_RECOGNITION = OpenVino((("input.1", "f32", "?,1,32,100"),), (("308", "FP32", "-1,26,37"),))

FRCNN_OUTPUTS = "Tuple[Tensor, Tensor, Tensor]"
HELDOUT_TABLE: dict[str, Spec] = {
    "pytorch/m_pt_frcnn_list_input/repo/frcnn/1/model.pt": TorchScript(
        (("images", "List[Tensor]"),),
        returns=FRCNN_OUTPUTS,
        root="__torch__.detector.FasterRCNNExport",
        body="    _0 = (self.model).forward(images, )\n    return _0\n",
    ),
    "pytorch/m_pt_yolov7_list_output/repo/yolov7/1/model.pt": TorchScript(
        (("x", "Tensor"),),
        returns="Tuple[Tensor, List[Tensor]]",
        root="__torch__.models.yolo.Model",
        body="    _0 = (self.model).forward(x, )\n    return _0\n",
    ),
    "pytorch/m_pt_fasterrcnn_scripted/repo/fasterrcnn/1/model.pt": TorchScript(
        (("images", "List[Tensor]"), ("targets", "Optional[List[Dict[str, Tensor]]]=None")),
        returns="Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]",
        root="__torch__.torchvision.models.detection.faster_rcnn.FasterRCNN",
        body="    _0 = (self).eager_outputs(images, targets, )\n    return _0\n",
    ),
    "pytorch/m_pt_lstm_tuple_state/repo/ner_lstm/1/model.pt": TorchScript(
        (("input", "Tensor"), ("hx", "Tuple[Tensor, Tensor]")),
        returns="Tuple[Tensor, Tuple[Tensor, Tensor]]",
        root="__torch__.torch.nn.modules.rnn.LSTM",
        body="    _0 = torch.lstm(input, [hx[0], hx[1]], self._flat_weights, True, 1, 0., False, "
        "True, True)\n    return (_0[0], (_0[1], _0[2]))\n",
    ),
    "pytorch/m_pt_classifier_dict_output/repo/attr_classifier/1/model.pt": TorchScript(
        (("x", "Tensor"),),
        returns="Dict[str, Tensor]",
        root="__torch__.classifier.MultiHeadClassifier",
        body="    _0 = (self.backbone).forward(x, )\n    _1 = (self.head1).forward(_0, )\n"
        '    _2 = (self.head2).forward(_0, )\n    return {"output_1": _1, "output_2": _2}\n',
    ),
    "pytorch/m_pt_keypoints_list_of_dicts/repo/keypoint_rcnn/1/model.pt": TorchScript(
        (("image", "Tensor"),),
        returns="List[Dict[str, Tensor]]",
        root="__torch__.detectron2.export.flatten.TracingAdapter",
        body="    _0 = (self.model).inference([image], )\n    return _0\n",
    ),
    "pytorch/m_pt_sequence_controls_unindexed/repo/streaming_asr/1/model.pt": TorchScript(
        (("audio", "Tensor"), ("start", "Tensor"), ("ready", "Tensor")),
        root="__torch__.asr.StreamingEncoder",
    ),
    "pytorch/c_pt_frcnn_tensor_wrapper/repo/frcnn/1/model.pt": TorchScript(
        (("image", "Tensor"),),
        returns=FRCNN_OUTPUTS,
        root="__torch__.detector.FasterRCNNExport",
        body="    _0 = (self.model).forward([image], )\n    _1 = _0[0]\n"
        '    return (_1["boxes"], _1["labels"], _1["scores"])\n',
    ),
    "pytorch/c_pt_sequence_indexed_controls/repo/streaming_asr/1/model.pt": TorchScript(
        (("audio", "Tensor"), ("start", "Tensor"), ("ready", "Tensor")),
        root="__torch__.asr.StreamingEncoder",
    ),
    "pytorch/c_pt_classifier_tuple_output/repo/attr_classifier/1/model.pt": TorchScript(
        (("x", "Tensor"),),
        returns="Tuple[Tensor, Tensor]",
        root="__torch__.classifier.MultiHeadClassifier",
        body="    _0 = (self.backbone).forward(x, )\n    _1 = (self.head1).forward(_0, )\n"
        "    _2 = (self.head2).forward(_0, )\n    return (_1, _2)\n",
    ),
    # tests/heldout/backends: ONNX Runtime, OpenVINO, TensorFlow and FIL cases.
    "backends/m_onnx_ir10_on_24_01/repo/deepseek_r1_distill/1/model.onnx": Stamped(
        10, 21, *QWEN_IO
    ),
    "backends/m_onnx_ir10_on_22_12/repo/C41/1/model.onnx": Stamped(10, 19, *YOLO_IO),
    "backends/m_onnx_opset16_on_22_02/repo/silero_vad/1/model.onnx": Stamped(8, 16, *VAD_IO),
    "backends/c_onnx_opset17_on_24_01/repo/yolov8n/1/model.onnx": Stamped(8, 17, *YOLO_IO),
    "backends/m_openvino_dynamic_batching_b2/repo/text_recognition/1/model.xml": TEXT_RECOGNITION,
    "backends/c_openvino_batch_padding/repo/text_recognition/1/model.xml": TEXT_RECOGNITION,
    "backends/m_tf_tfod_max_batch/repo/fasterrcnn101v1640x640/1/model.savedmodel/saved_model.pb": (
        SavedModel(
            (("input_tensor", DT_UINT8, (1, -1, -1, 3)),),
            (("detection_boxes", DT_FLOAT, (1, 300, 4)), ("num_detections", DT_FLOAT, (1,))),
        )
    ),
    "backends/m_fil_xgboost_json_1_7/repo/xgboost_regressor/1/xgboost.json": Special(xgboost_json),
    "backends/c_fil_xgboost_json_classifier/repo/xgboost_model/1/xgboost.json": Special(
        xgboost_json
    ),
    "backends/c_fil_custom_filename/repo/mymodel/1/mymodel.json": Special(xgboost_json),
    **INDEPENDENT,
}
"""Held-out case path (below tests/heldout) -> how the file is made."""

# tests/heldout/contracts: ONNX graphs with the dim names and the ops the threads' exports
# have, at toy sizes.
YOLOV7_END2END = Ops(  # yolov7 export.py --end2end --dynamic-batch, the onnxruntime NMS variant
    (("images", FLOAT, ("batch", 3, 64, 64)),),
    (("output", FLOAT, ("Concatoutput_dim_0", 7)),),
    (
        ("/model.105/Conv", "Conv", ("images", "head.weight"), ("head",), {"strides": [8, 8]}),
        ("/model.105/Reshape", "Reshape", ("head", "head_shape"), ("grid",), {}),
        ("/model.105/Transpose", "Transpose", ("grid",), ("preds",), {"perm": [0, 2, 1]}),
        ("/end2end/Slice", "Slice", ("preds", "zero", "four", "two"), ("xyxy",), {}),
        ("/end2end/Slice_1", "Slice", ("grid", "four", "seven", "one"), ("conf",), {}),
        (
            "/end2end/NonMaxSuppression",
            "NonMaxSuppression",
            ("xyxy", "conf", "topk_all", "iou_thres", "conf_thres"),
            ("selected",),
            {},
        ),
        ("/end2end/Gather", "Gather", ("selected", "zero"), ("batch_id",), {"axis": 1}),
        ("/end2end/Gather_1", "Gather", ("selected", "one"), ("category",), {"axis": 1}),
        ("/end2end/Gather_2", "Gather", ("selected", "two"), ("box_id",), {"axis": 1}),
        ("/end2end/Reshape", "Reshape", ("xyxy", "rows_of_four"), ("all_boxes",), {}),
        ("/end2end/Squeeze", "Squeeze", ("box_id", "one"), ("box_rows",), {}),
        ("/end2end/Gather_3", "Gather", ("all_boxes", "box_rows"), ("boxes",), {"axis": 0}),
        ("/end2end/Cast", "Cast", ("batch_id",), ("batch_f",), {"to": FLOAT}),
        ("/end2end/Cast_1", "Cast", ("category",), ("category_f",), {"to": FLOAT}),
        ("/end2end/Cast_2", "Cast", ("box_id",), ("score_f",), {"to": FLOAT}),
        (
            "/end2end/Concat",
            "Concat",
            ("batch_f", "boxes", "category_f", "score_f"),
            ("output",),
            {"axis": 1},
        ),
    ),
    constants=(
        ("head_shape", (0, 7, -1)),
        ("zero", (0,)),
        ("one", (1,)),
        ("two", (2,)),
        ("four", (4,)),
        ("seven", (7,)),
        ("topk_all", (100,)),
        ("rows_of_four", (-1, 4)),
    ),
    weights=(("head.weight", (7, 3, 8, 8)), ("iou_thres", (1,)), ("conf_thres", (1,))),
)
ENCODER_SEQUENCE_FIRST = Ops(  # an nn.TransformerEncoder layer's linear part, time-major
    (("src", FLOAT, ("sequence_length", "batch_size", 256)),),
    (("memory", FLOAT, ("sequence_length", "batch_size", 256)),),
    (
        ("/linear1/MatMul", "MatMul", ("src", "linear1.weight"), ("projected",), {}),
        ("/linear1/Add", "Add", ("projected", "linear1.bias"), ("shifted",), {}),
        ("/activation/Relu", "Relu", ("shifted",), ("memory",), {}),
    ),
    weights=(("linear1.weight", (256, 256)), ("linear1.bias", (256,))),
)
CNN_WITH_BOXES = Ops(  # torch.onnx with dynamic_axes given as lists: auto-named dims
    (
        ("input00", FLOAT, ("input00_dynamic_axes_1", 3, 32, 32)),
        ("input01", FLOAT, ("input01_dynamic_axes_1", 4)),
    ),
    (("output", FLOAT, ("output_dynamic_axes_1", 10)),),
    (
        ("/Shape", "Shape", ("input01",), ("boxes_shape",), {}),
        ("/Gather", "Gather", ("boxes_shape", "zero"), ("box_count",), {"axis": 0}),
        ("/ConstantOfShape", "ConstantOfShape", ("box_count",), ("image_of_box",), {}),
        ("/Cast", "Cast", ("image_of_box",), ("image_index",), {"to": INT64}),
        (
            "/RoiAlign",
            "RoiAlign",
            ("input00", "input01", "image_index"),
            ("pooled",),
            {"output_height": 4, "output_width": 4},
        ),
        ("/Flatten", "Flatten", ("pooled",), ("flat",), {"axis": 1}),
        ("/fc/MatMul", "MatMul", ("flat", "fc.weight"), ("output",), {}),
    ),
    constants=(("zero", (0,)),),
    weights=(("fc.weight", (48, 10)),),
)
ENHANCE = Graph(
    [("image", FLOAT, ["batch", 32, 48, 3])], [("enhanced", FLOAT, ["batch", 32, 48, 3])]
)
CROP_CLASSIFIER = Graph([("crop", FLOAT, ["batch", 3, 16, 16])], [("logits", FLOAT, ["batch", 10])])
PAR_RESNET = Graph(
    [("input.1", FLOAT, ["batch_size", 3, 288, 144])], [("512", FLOAT, ["batch_size", 22])]
)
DUMMY_SEQUENCE = Graph(
    [("input", FLOAT, ["batch", "length"])], [("output", FLOAT, ["batch", "length"])]
)
CONTRACTS_TABLE: dict[str, Spec] = {
    "contracts/m_onnx_yolov7_end2end_dynamic_batch/repo/yolov7/1/model.onnx": YOLOV7_END2END,
    "contracts/c_onnx_yolov7_end2end_unbatched/repo/yolov7/1/model.onnx": YOLOV7_END2END,
    "contracts/m_onnx_encoder_sequence_first/repo/encoder/1/model.onnx": ENCODER_SEQUENCE_FIRST,
    "contracts/m_ens_boxes_beside_batched_images/repo/cnn_model/1/model.onnx": CNN_WITH_BOXES,
    "contracts/m_ens_batching_step_into_crop/repo/enhance/1/model.onnx": ENHANCE,
    "contracts/m_ens_batching_step_into_crop/repo/classify/1/model.onnx": CROP_CLASSIFIER,
    "contracts/c_ens_crop_takes_the_batch_axis/repo/enhance/1/model.onnx": ENHANCE,
    "contracts/c_ens_crop_takes_the_batch_axis/repo/classify/1/model.onnx": CROP_CLASSIFIER,
    "contracts/c_onnx_par_batch_named_everywhere/repo/par/1/model.onnx": PAR_RESNET,
    "contracts/m_onnx_requests_of_other_lengths/repo/dummy/1/model.onnx": DUMMY_SEQUENCE,
    "contracts/m_pt_crnn_time_major_output/repo/crnn/1/model.pt": TorchScript(
        (("input__0", "Tensor"),),
        root="__torch__.crnn.CRNN",
        body="    _0 = (self.cnn).forward(input__0, )\n    _1 = (self.rnn).forward(_0, )\n"
        "    return _1\n",
    ),
}


def model_files(root: Path) -> list[Path]:
    """The generated files of the cases: what the fixtures' generator counts, but each
    case's case.toml, which is written by hand."""
    return [path for path in generated_files(root) if path.name != "case.toml"]


def differences() -> list[str]:
    """Files the tables would write differently (or not at all) in the committed cases."""
    return table_differences(CASES, TABLE, 1, model_files) + table_differences(
        HELDOUT, {**HELDOUT_TABLE, **CONTRACTS_TABLE}, 2, model_files
    )


def main() -> int:
    def write() -> str:
        write_all(CASES, TABLE)
        held_out = {**HELDOUT_TABLE, **CONTRACTS_TABLE}
        write_all(HELDOUT, held_out)
        return (
            f"wrote {len(TABLE)} model files under {CASES.relative_to(ROOT)} and "
            f"{len(held_out)} under {HELDOUT.relative_to(ROOT)}"
        )

    return command_line(__doc__.splitlines()[0], differences, write)


if __name__ == "__main__":
    sys.exit(main())
