# anchor_detector/1/model.py: keeps the confident boxes in the central band of the frame
import numpy as np
import triton_python_backend_utils as pb_utils

SCORE_THRESHOLD = 0.8
CENTRAL_BAND = 0.6


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            scores = pb_utils.get_input_tensor_by_name(request, "SCORES").as_numpy()
            boxes = pb_utils.get_input_tensor_by_name(request, "BOXES").as_numpy()
            kept = self.boxes_to_consider(scores[0], boxes[0])
            if len(kept):
                out = pb_utils.Tensor("KEPT_BOXES", np.asarray(kept, dtype=np.float32)[None])
                responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses

    def boxes_to_consider(self, scores, boxes):
        low, high = 0.5 - CENTRAL_BAND / 2, 0.5 + CENTRAL_BAND / 2
        return [
            box
            for score, box in zip(scores, boxes)
            if score >= SCORE_THRESHOLD and box[1] >= low and box[3] <= high
        ]
