# session_counter/1/model.py: counts the events of a session, keyed by the sequence ID
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.counts = {}

    def execute(self, requests):
        responses = []
        for request in requests:
            ready = pb_utils.get_input_tensor_by_name(request, "SEQ_READY").as_numpy()
            start = pb_utils.get_input_tensor_by_name(request, "SEQ_START").as_numpy()
            end = pb_utils.get_input_tensor_by_name(request, "SEQ_END").as_numpy()
            seq_id = int(pb_utils.get_input_tensor_by_name(request, "SEQ_ID").as_numpy()[0, 0])
            if start[0, 0]:
                self.counts[seq_id] = 0
            self.counts[seq_id] = self.counts.get(seq_id, 0) + int(ready[0, 0])
            count = np.array([[self.counts[seq_id]]], dtype=np.int32)
            if end[0, 0]:
                del self.counts[seq_id]
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("COUNT", count)]))
        return responses
