¼
"serve*2.21.0

xPlaceholder"Ã*
serving_defaultû
V
input_tensorF
serving_default_input_tensor:0"ÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿG
detection_boxes4
!serving_default_detection_boxes:0¬<
num_detections*
 serving_default_num_detections:0tensorflow/serving/predict