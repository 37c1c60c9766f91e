# image_preprocess/1/model.py: normalise RGB frames with the ImageNet mean and std
import numpy as np
import triton_python_backend_utils as pb_utils

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(1, 3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(1, 3, 1, 1)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            images = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()
            pixels = ((images / 255.0 - MEAN) / STD).astype(np.float32)
            responses.append(
                pb_utils.InferenceResponse([pb_utils.Tensor("PIXEL_VALUES", pixels)])
            )
        return responses
