# Converts detector boxes [x0, y0, x1, y1] in [0, 1] to pixel coordinates of the original image.
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            boxes = pb_utils.get_input_tensor_by_name(request, "boxes_normalized").as_numpy()
            height, width = pb_utils.get_input_tensor_by_name(request, "image_size").as_numpy()
            scale = np.array([width, height, width, height], dtype=np.float32)
            pixels = np.rint(boxes * scale).astype(np.uint8)
            out = pb_utils.Tensor("boxes_pixels", pixels)
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
