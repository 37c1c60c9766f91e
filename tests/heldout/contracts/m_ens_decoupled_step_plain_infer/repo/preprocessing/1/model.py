# Tokenizes the query (bytes as token ids here).
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            query = pb_utils.get_input_tensor_by_name(request, "QUERY").as_numpy()
            ids = np.array([[b for b in query[0][0]]], dtype=np.uint32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("INPUT_ID", ids)]))
        return responses
