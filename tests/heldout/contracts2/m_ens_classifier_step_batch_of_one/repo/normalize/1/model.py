# normalize/1/model.py: uint8 HWC image to float in [0, 1]
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "RAW").as_numpy()
            image = (raw.astype(np.float32) / 255.0).astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("IMAGE", image)]))
        return responses
