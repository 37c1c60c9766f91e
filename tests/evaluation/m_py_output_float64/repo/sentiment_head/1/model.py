# sentiment_head/1/model.py: softmax over negative / neutral / positive logits
import numpy as np
import triton_python_backend_utils as pb_utils


def softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            logits = pb_utils.get_input_tensor_by_name(request, "LOGITS_IN").as_numpy()
            probs = softmax(logits.astype(np.float64))
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PROBS", probs)]))
        return responses
