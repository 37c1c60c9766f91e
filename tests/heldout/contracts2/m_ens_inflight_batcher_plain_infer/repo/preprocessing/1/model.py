# preprocessing/1/model.py: tokenize the prompt (stub vocabulary)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "QUERY").as_numpy()
            ids = np.array([[len(t) for t in row] + [2] for row in text], dtype=np.int32)
            lengths = np.full((ids.shape[0], 1), ids.shape[1], dtype=np.int32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("INPUT_ID", ids), pb_utils.Tensor("REQUEST_INPUT_LEN", lengths)]))
        return responses
