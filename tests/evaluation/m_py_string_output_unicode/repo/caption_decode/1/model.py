# caption_decode/1/model.py: turn generated token ids into a caption string
import numpy as np
import triton_python_backend_utils as pb_utils

WORDS = ["a", "dog", "on", "the", "beach", "runs", "with", "ball"]


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            tokens = pb_utils.get_input_tensor_by_name(request, "TOKENS").as_numpy()
            captions = [" ".join(WORDS[t % len(WORDS)] for t in row) for row in tokens]
            out = np.array(captions).reshape(-1, 1)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("CAPTION", out)]))
        return responses
