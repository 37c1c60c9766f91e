# reranker/1/model.py: cosine similarity, best k documents per query (k optional)
import numpy as np
import triton_python_backend_utils as pb_utils

DEFAULT_TOP_K = 10


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            query = pb_utils.get_input_tensor_by_name(request, "QUERY_EMB").as_numpy()
            docs = pb_utils.get_input_tensor_by_name(request, "DOC_EMB").as_numpy()
            top_k_tensor = pb_utils.get_input_tensor_by_name(request, "TOP_K")
            top_k = DEFAULT_TOP_K
            if top_k_tensor is not None:
                top_k = int(top_k_tensor.as_numpy()[0, 0])
            scores = np.einsum("bd,bnd->bn", query, docs)
            order = np.argsort(-scores, axis=1)[:, :top_k].astype(np.int32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("TOP_INDICES", order)]))
        return responses
