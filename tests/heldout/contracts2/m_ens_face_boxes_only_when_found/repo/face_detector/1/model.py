# face_detector/1/model.py: boxes of bright regions (stub detector)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "IMAGE").as_numpy()
            found = image.reshape(image.shape[0], -1).max(axis=1) > 200
            count = found.astype(np.int32).reshape(-1, 1)
            outputs = [pb_utils.Tensor("NUM_FACES", count)]
            if found.any():
                boxes = np.tile(np.array([[0.0, 0.0, 32.0, 32.0]], dtype=np.float32), (image.shape[0], 1))
                outputs.append(pb_utils.Tensor("BOXES", boxes))
            responses.append(pb_utils.InferenceResponse(outputs))
        return responses
