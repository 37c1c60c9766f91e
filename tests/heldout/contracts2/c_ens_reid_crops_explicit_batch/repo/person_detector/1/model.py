# person_detector/1/model.py: one person crop per frame (stub detector)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            frames = pb_utils.get_input_tensor_by_name(request, "FRAME").as_numpy()
            crops = frames[:, :, :32, :32].astype(np.float32) / 255.0
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("CROP", crops)]))
        return responses
