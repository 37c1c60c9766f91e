# Crops two 16x16 patches per image, channels first, for the classifier.
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            images = pb_utils.get_input_tensor_by_name(request, "INPUT").as_numpy()
            crops = []
            for image in images:
                for top, left in ((0, 0), (16, 32)):
                    patch = image[top : top + 16, left : left + 16, :]
                    crops.append(np.transpose(patch, (2, 0, 1)))
            out = pb_utils.Tensor("CROPS", np.stack(crops).astype(np.float32))
            responses.append(pb_utils.InferenceResponse([out]))
        return responses
