# image_preprocess/1/model.py: centre crop and ImageNet normalisation
import numpy as np
import triton_python_backend_utils as pb_utils

MEAN = np.array([0.485, 0.456, 0.406]).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225]).reshape(3, 1, 1)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "RAW_IMAGE").as_numpy()[0]
            h, w = image.shape[:2]
            top, left = max(0, (h - 224) // 2), max(0, (w - 224) // 2)
            crop = image[top : top + 224, left : left + 224] / 255.0
            chw = (crop.transpose(2, 0, 1) - MEAN) / STD
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PIXELS", chw[np.newaxis])]))
        return responses
