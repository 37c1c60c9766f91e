# vehicle_type/1/model.py: 10-way vehicle classifier head (weights stubbed)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.head = np.full((3, 10), 0.01, dtype=np.float32)

    def execute(self, requests):
        responses = []
        for request in requests:
            images = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()
            pooled = images.mean(axis=(2, 3))
            logits = pooled @ self.head
            responses.append(
                pb_utils.InferenceResponse([pb_utils.Tensor("LOGITS", logits[0])])
            )
        return responses
