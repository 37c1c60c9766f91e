# Streaming recognizer stand-in: accumulates audio per stream and reports its duration.
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.samples = {}

    def execute(self, requests):
        responses = []
        for request in requests:
            chunk = pb_utils.get_input_tensor_by_name(request, "chunk").as_numpy()
            start = pb_utils.get_input_tensor_by_name(request, "START").as_numpy()[0]
            stream = int(pb_utils.get_input_tensor_by_name(request, "CORRID").as_numpy()[0])
            self.samples[stream] = (0 if start else self.samples.get(stream, 0)) + len(chunk)
            text = f"[{self.samples[stream] / 16000:.2f} s of speech]".encode()
            out = pb_utils.Tensor("transcript", np.array([text], dtype=np.object_))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
