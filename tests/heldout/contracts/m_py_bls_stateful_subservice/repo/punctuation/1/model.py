# Keeps the text of each sequence so far and punctuates the new chunk in context.
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.history = {}

    def execute(self, requests):
        responses = []
        for request in requests:
            sequence = request.correlation_id()
            start = pb_utils.get_input_tensor_by_name(request, "START").as_numpy()
            text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
            if start.flatten()[0]:
                self.history[sequence] = b""
            self.history[sequence] = self.history.get(sequence, b"") + text.flatten()[0]
            result = np.array([[self.history[sequence] + b"."]], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("RESULT", result)]))
        return responses
