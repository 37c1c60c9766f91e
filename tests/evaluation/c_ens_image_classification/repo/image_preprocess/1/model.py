# image_preprocess/1/model.py: centre crop 224x224, ImageNet normalisation, CHW float32
import numpy as np
import triton_python_backend_utils as pb_utils

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(3, 1, 1)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            images = pb_utils.get_input_tensor_by_name(request, "RAW_IMAGE").as_numpy()
            batch = []
            for image in images:
                h, w = image.shape[:2]
                top, left = max(0, (h - 224) // 2), max(0, (w - 224) // 2)
                crop = image[top : top + 224, left : left + 224].astype(np.float32) / 255.0
                batch.append((crop.transpose(2, 0, 1) - MEAN) / STD)
            pixels = np.stack(batch).astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PIXELS", pixels)]))
        return responses
