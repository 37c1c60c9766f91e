# A GLM wrapper: one request at a time, each with its own prompt length.
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
            out = pb_utils.Tensor("output0", ids.astype(np.int64))
            responses.append(pb_utils.InferenceResponse([out]))
        return responses
