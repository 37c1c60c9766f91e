# Greedy CTC decoding of the recognizer's logits (blank = 0).
import string

import numpy as np
import triton_python_backend_utils as pb_utils

ALPHABET = "-" + string.digits + string.ascii_lowercase


def decode(best_path):
    chars, previous = [], 0
    for index in best_path:
        if index not in (0, previous):
            chars.append(ALPHABET[index])
        previous = index
    return "".join(chars).encode("utf-8")


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            logits = pb_utils.get_input_tensor_by_name(request, "logits").as_numpy()
            texts = [[decode(path)] for path in logits.argmax(axis=-1)]
            out = pb_utils.Tensor("text", np.array(texts, dtype=np.object_))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
