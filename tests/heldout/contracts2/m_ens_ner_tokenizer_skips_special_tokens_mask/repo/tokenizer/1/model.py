# tokenizer/1/model.py: whitespace tokenizer for the NER pipeline (stub vocabulary)
import numpy as np
import triton_python_backend_utils as pb_utils

OUTPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


class TritonPythonModel:
    def encode(self, texts):
        words = [t.decode("utf-8").split() for t in texts.reshape(-1)]
        width = max(len(w) for w in words) + 2
        ids = np.zeros((len(words), width), dtype=np.int64)
        for row, sentence in enumerate(words):
            ids[row, : len(sentence) + 2] = [101] + [1000 + len(w) for w in sentence] + [102]
        return {
            "input_ids": ids,
            "attention_mask": (ids > 0).astype(np.int64),
            "token_type_ids": np.zeros_like(ids),
            "special_tokens_mask": np.isin(ids, [101, 102]).astype(np.int64),
        }

    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "text").as_numpy()
            encoded = self.encode(text)
            outputs = [pb_utils.Tensor(name, encoded[name]) for name in OUTPUT_NAMES]
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses
