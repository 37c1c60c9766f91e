# ocr_decode/1/model.py: greedy CTC decoding of character ids into plate text
import numpy as np
import triton_python_backend_utils as pb_utils

ALPHABET = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def ctc_decode(ids):
    chars, previous = [], 0
    for i in ids:
        if i != previous and i != 0:
            chars.append(ALPHABET[i % len(ALPHABET)])
        previous = i
    return "".join(chars)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "CHAR_IDS").as_numpy()
            texts = [[ctc_decode(row)] for row in ids]
            out = np.array(texts, dtype=object)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("TEXT", out)]))
        return responses
