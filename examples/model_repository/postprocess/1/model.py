"""Toy mean pooling for the example repository (never executed by pbtxt-lint)."""

import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            hidden = pb_utils.get_input_tensor_by_name(request, "last_hidden_state").as_numpy()
            embedding = pb_utils.Tensor("embedding", hidden.mean(axis=1))
            responses.append(pb_utils.InferenceResponse(output_tensors=[embedding]))
        return responses
