# Keeps the 3 best person boxes of every image as RoIAlign rois [batch_index, x0, y0, x1, y1].
import numpy as np
import triton_python_backend_utils as pb_utils

TOP_K = 3


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            boxes = pb_utils.get_input_tensor_by_name(request, "det_boxes").as_numpy()
            scores = pb_utils.get_input_tensor_by_name(request, "det_scores").as_numpy()
            rois = []
            for index, (image_boxes, image_scores) in enumerate(zip(boxes, scores, strict=True)):
                for best in np.argsort(-image_scores)[:TOP_K]:
                    rois.append([index, *image_boxes[best]])
            out = pb_utils.Tensor("rois", np.array(rois, dtype=np.float32))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
