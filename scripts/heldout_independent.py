"""The model files of tests/heldout/independent/, as a table that make_evaluation_set.py writes.

Each entry is a tiny, deterministic ONNX graph or TorchScript archive with the tensor
names, types and symbolic shapes the real export has (a SAM decoder, a YOLOv7 export with
NMS, a sequence-first tagger, torchvision's scripted Faster R-CNN, ...). The ONNX graphs are
built node by node so that ONNX Runtime runs them: tests/heldout/independent/README.md says
what running them shows (a batch axis that is not dim 0 changes the answer).
"""

from __future__ import annotations

from make_fixture_artifacts import FLOAT, INT64, Node, Ops, Spec, TorchScript

# --- ONNX ------------------------------------------------------------------------------------

SAM_DECODER = Ops(
    inputs=(
        ("image_embeddings", FLOAT, ("batch", 256, 64, 64)),
        ("point_coords", FLOAT, ("num_boxes", "num_points", 2)),
        ("point_labels", FLOAT, ("num_boxes", "num_points")),
    ),
    outputs=(
        ("masks", FLOAT, ("num_boxes", 1, 256, 256)),
        ("iou_predictions", FLOAT, ("num_boxes", 1)),
    ),
    nodes=(
        ("/embed", "ReduceMean", ("image_embeddings",), ("/e",), {"keepdims": 0}),
        ("/prompt", "ReduceMean", ("point_coords",), ("/p",), {"axes": [1, 2], "keepdims": 1}),
        ("/Unsqueeze", "Unsqueeze", ("/p", "three"), ("/u",), {}),
        ("/upscale", "Tile", ("/u", "mask_size"), ("/m",), {}),
        ("/mask_head", "Add", ("/m", "/e"), ("masks",), {}),
        ("/iou_head", "ReduceMean", ("point_labels",), ("iou_predictions",), {"axes": [1]}),
    ),
    constants=(("three", (3,)), ("mask_size", (1, 1, 256, 256))),
)
"""An EfficientViT-SAM / MobileSAM decoder export: one image embedding, a prompt per box,
one mask per box (dim 0 of the prompts and of the outputs counts boxes, not images)."""


def box_candidates(boxes: str, scores: str, scores_node: str) -> tuple[Node, ...]:
    """A detector's raw head: 100 candidate boxes and 100 scores per image, cut from the input
    (uses CANDIDATE_CONSTANTS)."""
    return (
        ("/Flatten", "Flatten", ("images",), ("/flat",), {"axis": 1}),
        ("/boxes_slice", "Slice", ("/flat", "zero", "box_end", "one"), ("/b",), {}),
        ("/boxes", "Reshape", ("/b", "box_shape"), (boxes,), {}),
        (scores_node, "Slice", ("/flat", "box_end", "score_end", "one"), (scores,), {}),
    )


CANDIDATE_CONSTANTS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("zero", (0,)),
    ("one", (1,)),
    ("box_end", (400,)),
    ("score_end", (500,)),
    ("box_shape", (0, 100, 4)),
)


def yolov7_nms(batch: int | str) -> Ops:
    """YOLOv7 exported with --end2end for ONNX Runtime: NonMaxSuppression over the batch, one
    row per kept box [batch_id, x0, y0, x1, y1, ...] whose count is not the batch size."""
    return Ops(
        inputs=(("images", FLOAT, (batch, 3, 640, 640)),),
        outputs=(("output", FLOAT, ("num_dets", 7)),),
        nodes=box_candidates("/boxes_out", "/s", "/scores_slice")
        + (
            ("/scores", "Unsqueeze", ("/s", "one"), ("/scores_out",), {}),
            (
                "/NonMaxSuppression",
                "NonMaxSuppression",
                ("/boxes_out", "/scores_out", "max_boxes", "iou", "score"),
                ("/selected",),
                {},
            ),
            ("/pick", "Gather", ("/selected", "batch_and_box"), ("/bb",), {"axis": 1}),
            ("/kept_boxes", "GatherND", ("/boxes_out", "/bb"), ("/kept",), {}),
            ("/ids", "Cast", ("/selected",), ("/ids_f",), {"to": FLOAT}),
            ("/Concat", "Concat", ("/ids_f", "/kept"), ("output",), {"axis": 1}),
        ),
        constants=CANDIDATE_CONSTANTS + (("max_boxes", (100,)), ("batch_and_box", (0, 2))),
        weights=(("iou", (1,)), ("score", (1,))),
    )


POS_TAGGER = Ops(
    inputs=(("words", INT64, ("seq_len", "batch")),),
    outputs=(("tag_scores", FLOAT, ("seq_len", "batch", 20)),),
    nodes=(
        ("/embedding/Cast", "Cast", ("words",), ("/x",), {"to": FLOAT}),
        ("/rnn/ReduceMean", "ReduceMean", ("/x",), ("/mean",), {"axes": [0], "keepdims": 1}),
        ("/rnn/Sub", "Sub", ("/x", "/mean"), ("/context",), {}),
        ("/hidden2tag/Unsqueeze", "Unsqueeze", ("/context", "two"), ("/u",), {}),
        ("/hidden2tag/Tile", "Tile", ("/u", "tags"), ("tag_scores",), {}),
    ),
    constants=(("two", (2,)), ("tags", (1, 1, 20))),
)
"""Embedding + LSTM + Linear exported with nn.LSTM's default layout [seq_len, batch]; the
token scores depend on the whole sentence along axis 0 (a mean over it stands for the LSTM)."""

SPEECH_ENCODER = Ops(
    inputs=(("features", FLOAT, ("time", "batch", 256)),),
    outputs=(("encoded", FLOAT, ("time", "batch", 256)),),
    nodes=(
        ("/norm/ReduceMean", "ReduceMean", ("features",), ("/mean",), {"axes": [0], "keepdims": 1}),
        ("/norm/Sub", "Sub", ("features", "/mean"), ("encoded",), {}),
    ),
)
"""A transformer encoder exported with batch_first=False: [time, batch, d_model]; each frame's
output depends on every frame of its utterance (a mean over time stands for attention)."""

SEGMENTOR = Ops(
    inputs=(("input", FLOAT, ("batch", 3, "height", "width")),),
    outputs=(("output", INT64, (1, "batch", "height", "width")),),
    nodes=(
        ("/ArgMax", "ArgMax", ("input",), ("/seg",), {"axis": 1, "keepdims": 0}),
        ("/Unsqueeze", "Unsqueeze", ("/seg", "zero"), ("output",), {}),
    ),
    constants=(("zero", (0,)),),
)
"""mmsegmentation's pytorch2onnx: seg_logit.argmax(dim=1).unsqueeze(0), batch at axis 1."""

TEXT_EMBEDDER = Ops(
    inputs=(
        ("input_ids", INT64, ("batch_size", "sequence_length")),
        ("attention_mask", INT64, ("batch_size", "sequence_length")),
    ),
    outputs=(("sentence_embedding", FLOAT, ("batch_size", 384)),),
    nodes=(
        ("/Mul", "Mul", ("input_ids", "attention_mask"), ("/masked",), {}),
        ("/Cast", "Cast", ("/masked",), ("/x",), {"to": FLOAT}),
        ("/pool", "ReduceMean", ("/x",), ("/pooled",), {"axes": [1], "keepdims": 1}),
        ("/Tile", "Tile", ("/pooled", "dims"), ("sentence_embedding",), {}),
    ),
    constants=(("dims", (1, 384)),),
)
"""all-MiniLM-L6-v2 exported by optimum: mean pooling to a 384-d embedding."""

BERT_CLASSIFIER = Ops(
    inputs=(
        ("input_ids", INT64, ("batch_size", "sequence")),
        ("attention_mask", INT64, ("batch", "seq_len")),
        ("token_type_ids", INT64, ("batch_size", "sequence")),
    ),
    outputs=(("logits", FLOAT, ("batch_size", 2)),),
    nodes=(
        ("/Mul", "Mul", ("input_ids", "attention_mask"), ("/masked",), {}),
        ("/Add", "Add", ("/masked", "token_type_ids"), ("/ids",), {}),
        ("/Cast", "Cast", ("/ids",), ("/x",), {"to": FLOAT}),
        ("/pool", "ReduceMean", ("/x",), ("/pooled",), {"axes": [1], "keepdims": 1}),
        ("/classifier", "Tile", ("/pooled", "labels"), ("logits",), {}),
    ),
    constants=(("labels", (1, 2)),),
)
"""A BERT sentiment classifier whose exporter named the batch dim differently per input."""

ATTRIBUTE_CLASSIFIER = Ops(
    inputs=(("input00", FLOAT, ("batch", 3, 256, 128)), ("input01", FLOAT, ("num_rois", 5))),
    outputs=(("attributes", FLOAT, ("num_rois", 12)),),
    nodes=(
        ("/backbone", "ReduceMean", ("input00",), ("/f",), {"keepdims": 0}),
        ("/roi_align", "ReduceMean", ("input01",), ("/r",), {"axes": [1], "keepdims": 1}),
        ("/head", "Tile", ("/r", "attrs"), ("/h",), {}),
        ("/Add", "Add", ("/h", "/f"), ("attributes",), {}),
    ),
    constants=(("attrs", (1, 12)),),
)
"""A pedestrian-attribute head over RoIAlign: images, and rois [batch_index, x0, y0, x1, y1]
for the whole batch (torchvision.ops.roi_align's format); 12 attribute scores per roi."""

PERSON_DETECTOR = Ops(
    inputs=(("images", FLOAT, ("batch", 3, 256, 128)),),
    outputs=(("det_boxes", FLOAT, ("batch", 100, 4)), ("det_scores", FLOAT, ("batch", 100))),
    nodes=box_candidates("det_boxes", "det_scores", "/scores"),
    constants=CANDIDATE_CONSTANTS,
)
"""A person detector with a fixed 100 candidates per image (batched outputs)."""

RERANKER = Ops(
    inputs=(
        ("input_ids", INT64, ("batch", "sequence")),
        ("attention_mask", INT64, ("batch", "sequence")),
    ),
    outputs=(("logits", FLOAT, ("batch", 1)),),
    nodes=(
        ("/Mul", "Mul", ("input_ids", "attention_mask"), ("/masked",), {}),
        ("/Cast", "Cast", ("/masked",), ("/x",), {"to": FLOAT}),
        ("/pool", "ReduceMean", ("/x",), ("logits",), {"axes": [1], "keepdims": 1}),
    ),
)
"""bge-reranker-base exported by optimum: one relevance logit per (query, passage) pair."""

RESNET = Ops(
    inputs=(("input", FLOAT, ("batch", 3, 224, 224)),),
    outputs=(("logits", FLOAT, ("batch", 1000)),),
    nodes=(
        ("/avgpool", "ReduceMean", ("input",), ("/p",), {"axes": [1, 2, 3], "keepdims": 0}),
        ("/Unsqueeze", "Unsqueeze", ("/p", "one"), ("/u",), {}),
        ("/fc", "Tile", ("/u", "classes"), ("logits",), {}),
    ),
    constants=(("one", (1,)), ("classes", (1, 1000))),
)
"""A ResNet-50 image classifier (torchvision, exported with a dynamic batch)."""


def crnn(batch: int | str) -> Ops:
    """A CRNN text recognizer: CTC logits [batch, 26 steps, 37 classes]."""
    return Ops(
        inputs=(("x", FLOAT, (batch, 1, 32, 100)),),
        outputs=(("logits", FLOAT, (batch, 26, 37)),),
        nodes=(
            ("/pool", "ReduceMean", ("x",), ("/p",), {"axes": [1, 2], "keepdims": 0}),
            ("/Slice", "Slice", ("/p", "zero", "steps", "one"), ("/t",), {}),
            ("/Unsqueeze", "Unsqueeze", ("/t", "two"), ("/u",), {}),
            ("/fc", "Tile", ("/u", "classes"), ("logits",), {}),
        ),
        constants=(
            ("zero", (0,)),
            ("one", (1,)),
            ("two", (2,)),
            ("steps", (26,)),
            ("classes", (1, 1, 37)),
        ),
    )


# --- TorchScript -----------------------------------------------------------------------------

YOLOV5_SCRIPTED = TorchScript(
    (("x", "Tensor"), ("targets", "Optional[Tensor]")),
    returns="Tuple[Tensor, List[Tensor]]",
    root="__torch__.models.yolo.DetectionModel",
    body="    _0 = self.model\n    return (_0).forward(x, targets, )\n",
)
FASTERRCNN_SCRIPTED = TorchScript(
    (("images", "List[Tensor]"),),
    returns="Tuple[Dict[str, Tensor], List[Dict[str, Tensor]]]",
    root="__torch__.torchvision.models.detection.faster_rcnn.FasterRCNN",
    body="    _0 = (self).eager_outputs(losses, detections, )\n    return (losses, detections)\n",
)
RETINANET_DICT = TorchScript(
    (("images", "Tensor"),),
    returns="Dict[str, Tensor]",
    root="__torch__.deploy.RetinaNetWrapper",
    body='    _0 = (self.model).forward(images, )\n    return {"boxes": _0[0], "scores": _0[1]}\n',
)
YOLOV7_TRACED = TorchScript(
    (("x", "Tensor"),),
    returns="Tuple[Tensor, List[Tensor]]",
    root="__torch__.models.yolo.Model",
    body="    _0, _1 = (self.model).forward(x, )\n    return (_0, _1)\n",
)
LSTM_TAGGER = TorchScript(
    (("sentence", "Tensor"), ("hidden", "Tuple[Tensor, Tensor]")),
    returns="Tuple[Tensor, Tuple[Tensor, Tensor]]",
    root="__torch__.torch.nn.modules.rnn.LSTM",
    body="    _0 = self._flat_weights\n"
    "    _1 = torch.lstm(sentence, hidden, _0, True, 2, 0., False, True, True)\n"
    "    return (_1[0], (_1[1], _1[2]))\n",
)
INTENT_CLASSIFIER = TorchScript(
    (("texts", "List[str]"),),
    returns="Tensor",
    root="__torch__.intent.IntentClassifier",
    body="    _0 = (self.tokenizer).forward(texts, )\n    return (self.encoder).forward(_0, )\n",
)
BERT_NAMED = TorchScript(
    (("input_ids", "Tensor"), ("attention_mask", "Tensor")),
    returns="Tuple[Tensor, Tensor]",
    root="__torch__.transformers.models.bert.modeling_bert.BertForSequenceClassification",
    body="    _0 = (self.bert).forward(input_ids, attention_mask, )\n"
    "    return ((self.classifier).forward(_0[1], ), _0[1])\n",
)
RANKER_DICT = TorchScript(
    (("features", "Dict[str, Tensor]"),),
    returns="Tensor",
    root="__torch__.ranking.TwoTowerScorer",
    body='    _0 = (self.user_tower).forward(features["user_id"], )\n'
    '    _1 = (self.item_tower).forward(features["item_id"], )\n'
    "    return torch.sum(torch.mul(_0, _1), [1], True)\n",
)

# --- the table -------------------------------------------------------------------------------

INDEPENDENT: dict[str, Spec] = {
    # ONNX batch axis
    "independent/m_onnx_sam_decoder_points_as_batch/repo/sam_decoder/1/model.onnx": SAM_DECODER,
    "independent/c_onnx_sam_decoder_full_shapes/repo/sam_decoder/1/model.onnx": SAM_DECODER,
    "independent/m_bls_yolov7_nms_two_images/repo/yolov7_nms/1/model.onnx": yolov7_nms("batch"),
    "independent/c_onnx_yolov7_nms_mbs0/repo/yolov7_nms/1/model.onnx": yolov7_nms(1),
    "independent/m_onnx_pos_tagger_seq_first/repo/pos_tagger/1/model.onnx": POS_TAGGER,
    "independent/m_onnx_speech_encoder_time_first/repo/speech_encoder/1/model.onnx": (
        SPEECH_ENCODER
    ),
    "independent/m_onnx_mmseg_output_batch_axis1/repo/deeplabv3_cityscapes/1/model.onnx": (
        SEGMENTOR
    ),
    "independent/c_onnx_bert_batch_symbols_differ/repo/sentiment_bert/1/model.onnx": (
        BERT_CLASSIFIER
    ),
    "independent/m_ens_person_attributes_rois_batch/repo/person_detector/1/model.onnx": (
        PERSON_DETECTOR
    ),
    "independent/m_ens_person_attributes_rois_batch/repo/attribute_classifier/1/model.onnx": (
        ATTRIBUTE_CLASSIFIER
    ),
    "independent/m_db_onnx_minilm_variable_length/repo/minilm_embedder/1/model.onnx": (
        TEXT_EMBEDDER
    ),
    "independent/m_trtllm_kv_cache_fraction_cli_spelling/repo/bge_reranker/1/model.onnx": (
        RERANKER
    ),
    "independent/c_db_minilm_padded_fixed_length/repo/minilm_embedder/1/model.onnx": (
        TEXT_EMBEDDER
    ),
    # ensembles
    "independent/m_ens_ocr_fixed_batch_step/repo/crnn_ocr/1/model.onnx": crnn(16),
    "independent/m_ens_preprocess_float64/repo/resnet50/1/model.onnx": RESNET,
    "independent/c_ens_classify_all_steps_batch/repo/resnet50/1/model.onnx": RESNET,
    "independent/m_ens_mask_postprocess_missing_output/repo/face_mask_yolov7/1/model.onnx": (
        yolov7_nms(1)
    ),
    # PyTorch
    "independent/m_pt_yolov5_optional_input/repo/yolov5s/1/model.pt": YOLOV5_SCRIPTED,
    "independent/m_pt_fasterrcnn_list_input/repo/fasterrcnn_resnet50/1/model.pt": (
        FASTERRCNN_SCRIPTED
    ),
    "independent/m_pt_retinanet_returns_dict/repo/retinanet/1/model.pt": RETINANET_DICT,
    "independent/m_pt_yolov7_list_output/repo/yolov7/1/model.pt": YOLOV7_TRACED,
    "independent/m_pt_lstm_tagger_tuple_hidden/repo/ner_tagger/1/model.pt": LSTM_TAGGER,
    "independent/m_pt_intent_strings_batched/repo/intent_classifier/1/model.pt": (
        INTENT_CLASSIFIER
    ),
    "independent/c_pt_bert_named_inputs/repo/bert_sentiment/1/model.pt": BERT_NAMED,
    "independent/c_pt_two_tower_dict_input/repo/two_tower_ranker/1/model.pt": RANKER_DICT,
}
"""Held-out case path (below tests/heldout) -> how the file is made."""
