# postprocessing/1/model.py: detokenize (stub vocabulary)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            tokens = pb_utils.get_input_tensor_by_name(request, "TOKENS_BATCH").as_numpy()
            text = np.array([[" ".join(str(t) for t in row.reshape(-1)).encode()] for row in tokens], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT", text)]))
        return responses
