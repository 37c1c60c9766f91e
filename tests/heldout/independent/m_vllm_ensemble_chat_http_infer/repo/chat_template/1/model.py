# Wraps the user's message in the Llama 3 chat template.
import numpy as np
import triton_python_backend_utils as pb_utils

TEMPLATE = (
    "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n"
    "{message}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            message = pb_utils.get_input_tensor_by_name(request, "user_message").as_numpy()[0]
            prompt = TEMPLATE.format(message=message.decode("utf-8"))
            out = pb_utils.Tensor("prompt", np.array([prompt.encode("utf-8")], dtype=np.object_))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
