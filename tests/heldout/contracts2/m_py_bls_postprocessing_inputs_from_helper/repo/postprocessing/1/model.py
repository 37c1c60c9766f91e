# postprocessing/1/model.py: detokenize the generated ids (stub vocabulary)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            tokens = pb_utils.get_input_tensor_by_name(request, "TOKENS_BATCH").as_numpy()
            lengths = pb_utils.get_input_tensor_by_name(request, "SEQUENCE_LENGTH").as_numpy()
            text = np.array([" ".join(str(t) for t in row[0][: n[0]]).encode() for row, n in zip(tokens, lengths)], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT", text.reshape(-1, 1))]))
        return responses
