# sentence_embedding/1/model.py: mean-pooled MiniLM embeddings (encoder stubbed with a projection)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        rng = np.random.default_rng(0)
        self.table = rng.standard_normal((30522, 384)).astype(np.float32)

    def execute(self, requests):
        responses = []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
            mask = pb_utils.get_input_tensor_by_name(request, "attention_mask").as_numpy()
            tokens = self.table[ids]  # [batch, seq, 384]
            weights = mask[..., None].astype(np.float32)
            pooled = (tokens * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
            responses.append(
                pb_utils.InferenceResponse(
                    [pb_utils.Tensor("sentence_embedding", pooled.astype(np.float32))]
                )
            )
        return responses
