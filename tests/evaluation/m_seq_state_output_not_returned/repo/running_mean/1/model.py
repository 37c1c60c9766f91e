# running_mean/1/model.py: mean of every value seen in the sequence so far
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            value = pb_utils.get_input_tensor_by_name(request, "VALUE").as_numpy()
            state = pb_utils.get_input_tensor_by_name(request, "ACC_STATE").as_numpy()
            total, count = state[0, 0] + value[0, 0], state[0, 1] + 1.0
            mean = np.array([[total / count]], dtype=np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("MEAN", mean)]))
        return responses
