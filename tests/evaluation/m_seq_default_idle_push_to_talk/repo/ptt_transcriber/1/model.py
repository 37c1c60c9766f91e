# ptt_transcriber/1/model.py: accumulates audio per session and returns a running "transcript"
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.seconds = {}

    def execute(self, requests):
        responses = []
        for request in requests:
            audio = pb_utils.get_input_tensor_by_name(request, "AUDIO").as_numpy()
            start = pb_utils.get_input_tensor_by_name(request, "START").as_numpy()
            session = int(pb_utils.get_input_tensor_by_name(request, "CORRID").as_numpy()[0, 0])
            if start[0, 0]:
                self.seconds[session] = 0.0
            self.seconds[session] = self.seconds.get(session, 0.0) + audio.shape[1] / 16000
            text = f"[{self.seconds[session]:.1f}s of speech]".encode("utf-8")
            out = np.array([[text]], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PARTIAL_TEXT", out)]))
        return responses
