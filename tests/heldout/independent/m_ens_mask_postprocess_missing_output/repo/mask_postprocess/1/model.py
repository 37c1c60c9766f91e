# Splits YOLOv7 detections [batch_id, x0, y0, x1, y1, class, score] into faces with and
# without a mask ([x0, y0, x1, y1, score] each).
import numpy as np
import triton_python_backend_utils as pb_utils

CLASSES = {0: "MASK", 1: "NO_MASK"}


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            rows = pb_utils.get_input_tensor_by_name(request, "detections").as_numpy()
            outputs = []
            for class_id, name in CLASSES.items():
                faces = rows[rows[:, 5] == class_id][:, [1, 2, 3, 4, 6]]
                if len(faces):
                    outputs.append(pb_utils.Tensor(name, faces.astype(np.float32)))
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses
