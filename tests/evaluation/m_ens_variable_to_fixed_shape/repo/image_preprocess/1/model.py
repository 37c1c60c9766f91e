# image_preprocess/1/model.py: decode-free resize keeping the aspect ratio (short side 224)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "RAW_IMAGE").as_numpy()[0]
            h, w = image.shape[:2]
            scale = 224.0 / min(h, w)
            nh, nw = round(h * scale), round(w * scale)
            rows = (np.arange(nh) / scale).astype(int).clip(0, h - 1)
            cols = (np.arange(nw) / scale).astype(int).clip(0, w - 1)
            resized = image[rows][:, cols].astype(np.float32) / 255.0
            chw = resized.transpose(2, 0, 1)[np.newaxis]
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PIXELS", chw)]))
        return responses
