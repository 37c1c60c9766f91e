# postprocess/1/model.py: top-5 class indices and probabilities
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            probs = pb_utils.get_input_tensor_by_name(request, "PROBS").as_numpy()
            top = np.argsort(-probs, axis=1)[:, :5]
            scores = np.take_along_axis(probs, top, axis=1).astype(np.float32)
            responses.append(
                pb_utils.InferenceResponse(
                    [
                        pb_utils.Tensor("TOP5_CLASSES", top.astype(np.int32)),
                        pb_utils.Tensor("TOP5_SCORES", scores),
                    ]
                )
            )
        return responses
