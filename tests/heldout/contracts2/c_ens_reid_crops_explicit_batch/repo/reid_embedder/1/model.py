# reid_embedder/1/model.py: re-identification embedding of person crops (stub)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            crop = pb_utils.get_input_tensor_by_name(request, "CROP").as_numpy()
            flat = crop.reshape(crop.shape[:-3] + (-1,))
            embedding = flat[..., :128].astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("EMBEDDING", embedding)]))
        return responses
