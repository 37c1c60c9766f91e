# Greedy CTC decoding of a text recognizer's best-path indices into strings.
import string

import numpy as np
import triton_python_backend_utils as pb_utils

ALPHABET = "-" + string.digits + string.ascii_lowercase


def decode(indices):
    chars, previous = [], 0
    for index in indices:
        if index != previous and index != 0:
            chars.append(ALPHABET[index])
        previous = index
    return "".join(chars)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            batch = pb_utils.get_input_tensor_by_name(request, "indices").as_numpy()
            texts = np.array([[decode(row)] for row in batch])
            out = pb_utils.Tensor("text", texts)
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
