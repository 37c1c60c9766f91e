# tokenizer/1/model.py: ids padded to the longest text of the request (vocabulary stubbed)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            texts = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            rows = [[101] + [2000 + len(w) for w in t[0].decode("utf-8").split()] + [102] for t in texts]
            width = max(len(r) for r in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for i, row in enumerate(rows):
                ids[i, : len(row)] = row
                mask[i, : len(row)] = 1
            responses.append(
                pb_utils.InferenceResponse(
                    [pb_utils.Tensor("input_ids", ids), pb_utils.Tensor("attention_mask", mask)]
                )
            )
        return responses
