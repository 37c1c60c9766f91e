# ocr_preprocess/1/model.py: HWC uint8 crops to CHW float32 in [0, 1]
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()
            chw = image.transpose(0, 3, 1, 2).reshape(3, 224, 224)
            pixels = (chw.astype(np.float32) / 255.0)[np.newaxis]
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PIXELS", pixels)]))
        return responses
