# lang_detect/1/model.py: tiny script-based language guess
import time

import numpy as np
import triton_python_backend_utils as pb_utils


def guess(text):
    if any("\u0400" <= ch <= "\u04ff" for ch in text):
        return b"ru"
    return b"en"


class TritonPythonModel:
    def execute(self, requests):
        request = requests[0]
        texts = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
        time.sleep(0.05)
        langs = np.array([[guess(t[0].decode("utf-8"))] for t in texts], dtype=np.object_)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("LANGUAGE", langs)])]
