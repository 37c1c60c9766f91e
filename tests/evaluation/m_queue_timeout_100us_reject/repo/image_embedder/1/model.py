# image_embedder/1/model.py: CLIP-like image embedding (encoder stubbed, ~50 ms per batch)
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        time.sleep(0.05)
        responses = []
        for request in requests:
            pixels = pb_utils.get_input_tensor_by_name(request, "PIXELS").as_numpy()
            emb = np.resize(pixels.mean(axis=(2, 3)), (pixels.shape[0], 128)).astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("EMBEDDING", emb)]))
        return responses
