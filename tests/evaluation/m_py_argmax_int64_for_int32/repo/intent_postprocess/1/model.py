# intent_postprocess/1/model.py: best intent and its probability
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            logits = pb_utils.get_input_tensor_by_name(request, "LOGITS").as_numpy()
            exp = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs = exp / exp.sum(axis=1, keepdims=True)
            class_id = np.argmax(probs, axis=1)[:, None]
            confidence = probs.max(axis=1, keepdims=True).astype(np.float32)
            responses.append(
                pb_utils.InferenceResponse(
                    [
                        pb_utils.Tensor("CLASS_ID", class_id),
                        pb_utils.Tensor("CONFIDENCE", confidence),
                    ]
                )
            )
        return responses
