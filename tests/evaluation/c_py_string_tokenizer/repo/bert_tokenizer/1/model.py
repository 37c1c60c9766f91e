# bert_tokenizer/1/model.py: whitespace "tokenizer" padded to 128 (vocabulary stubbed)
import numpy as np
import triton_python_backend_utils as pb_utils

MAX_LEN = 128


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            texts = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            ids = np.zeros((len(texts), MAX_LEN), dtype=np.int64)
            mask = np.zeros((len(texts), MAX_LEN), dtype=np.int64)
            for row, text in enumerate(texts):
                words = text[0].decode("utf-8").split()[: MAX_LEN - 2]
                tokens = [101] + [1000 + len(w) for w in words] + [102]
                ids[row, : len(tokens)] = tokens
                mask[row, : len(tokens)] = 1
            responses.append(
                pb_utils.InferenceResponse(
                    [pb_utils.Tensor("INPUT_IDS", ids), pb_utils.Tensor("ATTENTION_MASK", mask)]
                )
            )
        return responses
