# clip_image_preprocess/1/model.py: CLIP mean/std normalisation of a batch of images
import numpy as np
import triton_python_backend_utils as pb_utils

MEAN = np.array([0.4815, 0.4578, 0.4082], dtype=np.float32).reshape(1, 3, 1, 1)
STD = np.array([0.2686, 0.2613, 0.2758], dtype=np.float32).reshape(1, 3, 1, 1)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            images = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()
            pixels = ((images - MEAN) / STD).astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PIXELS", pixels)]))
        return responses
