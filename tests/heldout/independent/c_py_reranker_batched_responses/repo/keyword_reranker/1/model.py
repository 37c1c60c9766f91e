# Scores (query, passage) pairs by keyword overlap, the whole dynamic batch at once.
import numpy as np
import triton_python_backend_utils as pb_utils


def overlap(query, passage):
    q, p = set(query.lower().split()), set(passage.lower().split())
    return len(q & p) / max(len(q), 1)


class TritonPythonModel:
    def execute(self, requests):
        queries, passages, sizes = [], [], []
        for request in requests:
            query = pb_utils.get_input_tensor_by_name(request, "query").as_numpy()[:, 0]
            queries.extend(query)
            passages.extend(pb_utils.get_input_tensor_by_name(request, "passage").as_numpy()[:, 0])
            sizes.append(len(query))
        scores = np.array(
            [[overlap(q.decode(), p.decode())] for q, p in zip(queries, passages, strict=True)],
            dtype=np.float32,
        )
        responses, start = [], 0
        for size in sizes:
            out = pb_utils.Tensor("score", scores[start : start + size])
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
            start += size
        return responses
