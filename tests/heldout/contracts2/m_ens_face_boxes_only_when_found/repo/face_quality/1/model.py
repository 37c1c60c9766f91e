# face_quality/1/model.py: a quality score per face box (stub)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            boxes = pb_utils.get_input_tensor_by_name(request, "BOXES").as_numpy()
            score = (boxes[:, 2:3] - boxes[:, 0:1]).astype(np.float32) / 32.0
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("QUALITY", score)]))
        return responses
