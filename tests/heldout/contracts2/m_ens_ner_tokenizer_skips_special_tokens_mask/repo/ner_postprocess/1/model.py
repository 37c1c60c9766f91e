# ner_postprocess/1/model.py: one entity label per word, special tokens dropped (stub)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
            special = pb_utils.get_input_tensor_by_name(request, "special_tokens_mask").as_numpy()
            labels = np.array([[b"O" for _ in row if True] for row in ids], dtype=np.object_)
            labels = np.where(special > 0, b"", labels).astype(np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("entities", labels)]))
        return responses
