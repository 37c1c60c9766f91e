# Scores (query, passage) pairs by keyword overlap, the whole dynamic batch at once.
import numpy as np
import triton_python_backend_utils as pb_utils


def overlap(query, passage):
    q, p = set(query.lower().split()), set(passage.lower().split())
    return len(q & p) / max(len(q), 1)


class TritonPythonModel:
    def execute(self, requests):
        queries, passages = [], []
        for request in requests:
            queries.extend(pb_utils.get_input_tensor_by_name(request, "query").as_numpy()[:, 0])
            passages.extend(pb_utils.get_input_tensor_by_name(request, "passage").as_numpy()[:, 0])
        scores = np.array(
            [[overlap(q.decode(), p.decode())] for q, p in zip(queries, passages, strict=True)],
            dtype=np.float32,
        )
        return [pb_utils.InferenceResponse(output_tensors=[pb_utils.Tensor("score", scores)])]
