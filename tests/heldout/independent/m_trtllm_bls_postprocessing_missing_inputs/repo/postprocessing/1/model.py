# Detokenizes the generated ids (byte-level vocabulary, 3 special ids).
import numpy as np
import triton_python_backend_utils as pb_utils


def decode(ids, length):
    return bytes(int(i) - 3 for i in ids[:length] if i > 2)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            tokens = pb_utils.get_input_tensor_by_name(request, "TOKENS_BATCH").as_numpy()
            lengths = pb_utils.get_input_tensor_by_name(request, "SEQUENCE_LENGTH").as_numpy()
            texts = [
                [decode(beam, int(n)) for beam, n in zip(beams, ns, strict=True)]
                for beams, ns in zip(tokens, lengths, strict=True)
            ]
            out = pb_utils.Tensor("OUTPUT", np.array(texts, dtype=np.object_))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
