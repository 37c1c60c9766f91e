# detokenizer/1/model.py: token ids back to text (vocabulary stubbed)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "output_ids").as_numpy()
            texts = [" ".join(f"<{t}>" for t in row if t != 0).encode() for row in ids]
            out = np.array(texts, dtype=np.object_).reshape(-1, 1)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("TEXT_OUTPUT", out)]))
        return responses
