# image_preprocess/1/model.py: centre crop, scale to [0, 1] (layout left as decoded: HWC)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "RAW_IMAGE").as_numpy()[0]
            h, w = image.shape[:2]
            top, left = max(0, (h - 224) // 2), max(0, (w - 224) // 2)
            crop = image[top : top + 224, left : left + 224].astype(np.float32) / 255.0
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PIXELS", crop[np.newaxis])]))
        return responses
