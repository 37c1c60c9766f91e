# ner_tagger/1/model.py: capitalised words are entities
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            tokens = pb_utils.get_input_tensor_by_name(request, "TOKENS").as_numpy()
            tags = [b"B-ENT" if t[:1].isupper() else b"O" for t in tokens]
            out = np.array(tags, dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("TAGS", out)]))
        return responses
