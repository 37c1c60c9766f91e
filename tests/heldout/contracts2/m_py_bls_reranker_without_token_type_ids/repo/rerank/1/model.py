# rerank/1/model.py: score query-passage pairs with the cross-encoder through BLS
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def tokenize(self, queries, passages):
        ids = np.array([[101, len(q), 102, len(p), 102] for q, p in zip(queries, passages)], dtype=np.int64)
        return {"input_ids": ids, "attention_mask": np.ones_like(ids)}

    def execute(self, requests):
        responses = []
        for request in requests:
            queries = pb_utils.get_input_tensor_by_name(request, "query").as_numpy().reshape(-1)
            passages = pb_utils.get_input_tensor_by_name(request, "passage").as_numpy().reshape(-1)
            encoded = self.tokenize(queries, passages)
            inputs = []
            for name, array in encoded.items():
                inputs.append(pb_utils.Tensor(name, array))
            scored = pb_utils.InferenceRequest(
                model_name="cross_encoder",
                requested_output_names=["logits"],
                inputs=inputs,
            ).exec()
            if scored.has_error():
                raise pb_utils.TritonModelException(scored.error().message())
            logits = pb_utils.get_output_tensor_by_name(scored, "logits").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("score", logits[:, :1].astype(np.float32))]))
        return responses
