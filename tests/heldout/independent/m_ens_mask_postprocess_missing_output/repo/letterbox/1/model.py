# Pads an RGB image to 640x640 (top-left), CHW float32 in [0, 1], batch of one.
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "image_rgb").as_numpy()
            canvas = np.full((640, 640, 3), 114, dtype=np.uint8)
            h, w = min(image.shape[0], 640), min(image.shape[1], 640)
            canvas[:h, :w] = image[:h, :w]
            chw = canvas.transpose(2, 0, 1)[np.newaxis].astype(np.float32) / np.float32(255.0)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("images", chw)]))
        return responses
