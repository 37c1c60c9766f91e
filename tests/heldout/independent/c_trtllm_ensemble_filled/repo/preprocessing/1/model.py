# Tokenizes the query (byte-level vocabulary of our fine-tuned model, offset by 3 specials).
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            query = pb_utils.get_input_tensor_by_name(request, "QUERY").as_numpy()
            output_len = pb_utils.get_input_tensor_by_name(request, "REQUEST_OUTPUT_LEN")
            ids = [np.frombuffer(q[0], dtype=np.uint8).astype(np.int32) + 3 for q in query]
            width = max(len(i) for i in ids)
            padded = np.stack([np.pad(i, (0, width - len(i)), constant_values=2) for i in ids])
            lengths = np.array([[len(i)] for i in ids], dtype=np.int32)
            outputs = [
                pb_utils.Tensor("INPUT_ID", padded),
                pb_utils.Tensor("REQUEST_INPUT_LEN", lengths),
                pb_utils.Tensor("REQUEST_OUTPUT_LEN", output_len.as_numpy()),
            ]
            responses.append(pb_utils.InferenceResponse(output_tensors=outputs))
        return responses
