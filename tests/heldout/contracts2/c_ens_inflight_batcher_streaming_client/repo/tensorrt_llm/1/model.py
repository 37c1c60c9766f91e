# tensorrt_llm/1/model.py: stand-in for the inflight batcher, streams one token per response
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
            for step in range(3):
                token = np.full((ids.shape[0], 1, 1), step, dtype=np.int32)
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("output_ids", token)]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
