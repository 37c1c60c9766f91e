# preprocessing: tokenizes the prompt with the Hugging Face tokenizer of tokenizer_dir
import json

import numpy as np
import triton_python_backend_utils as pb_utils
from transformers import AutoTokenizer


class TritonPythonModel:
    def initialize(self, args):
        config = json.loads(args["model_config"])
        tokenizer_dir = config["parameters"]["tokenizer_dir"]["string_value"]
        self.tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)

    def execute(self, requests):
        responses = []
        for request in requests:
            query = pb_utils.get_input_tensor_by_name(request, "QUERY").as_numpy()
            out_len = pb_utils.get_input_tensor_by_name(request, "REQUEST_OUTPUT_LEN").as_numpy()
            ids = [self.tokenizer.encode(q[0].decode()) for q in query]
            width = max(len(i) for i in ids)
            padded = np.array([i + [0] * (width - len(i)) for i in ids], dtype=np.int32)
            lengths = np.array([[len(i)] for i in ids], dtype=np.int32)
            responses.append(
                pb_utils.InferenceResponse(
                    [
                        pb_utils.Tensor("INPUT_ID", padded),
                        pb_utils.Tensor("REQUEST_INPUT_LEN", lengths),
                        pb_utils.Tensor("REQUEST_OUTPUT_LEN", out_len.astype(np.int32)),
                    ]
                )
            )
        return responses
