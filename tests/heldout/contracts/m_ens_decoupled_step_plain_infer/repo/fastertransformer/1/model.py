# Streams the generated tokens one response at a time: decoupled, like FT streaming.
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
            for step in range(3):
                token = np.array([[int(ids[0][0]) + step]], dtype=np.uint32)
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("output_ids", token)]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
