# minilm_encoder/1/model.py: mean-pooled token embeddings (encoder stubbed with a lookup table)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.table = np.random.default_rng(0).standard_normal((30522, 384)).astype(np.float32)

    def execute(self, requests):
        responses = []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
            mask = pb_utils.get_input_tensor_by_name(request, "attention_mask").as_numpy()
            weights = mask[..., None].astype(np.float32)
            pooled = (self.table[ids] * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
            responses.append(
                pb_utils.InferenceResponse([pb_utils.Tensor("embeddings", pooled.astype(np.float32))])
            )
        return responses
