# postprocessing: detokenizes the generated ids
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
            tokens = pb_utils.get_input_tensor_by_name(request, "TOKENS_BATCH").as_numpy()
            texts = [self.tokenizer.decode(beams[0]) for beams in tokens]
            output = np.array(texts, dtype=object)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUTPUT", output)]))
        return responses
