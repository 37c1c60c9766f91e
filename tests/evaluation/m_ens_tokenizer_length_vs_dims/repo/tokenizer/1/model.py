# tokenizer/1/model.py: WordPiece-style ids padded to max_length (vocabulary stubbed)
import numpy as np
import triton_python_backend_utils as pb_utils

MAX_LENGTH = 256


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            texts = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            ids = np.zeros((len(texts), MAX_LENGTH), dtype=np.int64)
            mask = np.zeros((len(texts), MAX_LENGTH), dtype=np.int64)
            for row, text in enumerate(texts):
                words = text[0].decode("utf-8").split()[: MAX_LENGTH - 2]
                tokens = [101] + [2000 + (hash(w) % 20000) for w in words] + [102]
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1
            responses.append(
                pb_utils.InferenceResponse(
                    [pb_utils.Tensor("input_ids", ids), pb_utils.Tensor("attention_mask", mask)]
                )
            )
        return responses
