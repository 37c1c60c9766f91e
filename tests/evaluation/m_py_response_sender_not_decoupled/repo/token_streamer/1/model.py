# token_streamer/1/model.py: stream a canned completion word by word
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            prompt = pb_utils.get_input_tensor_by_name(request, "PROMPT").as_numpy()[0]
            for word in (prompt.decode("utf-8") + " is a good question").split():
                token = np.array([word.encode("utf-8")], dtype=np.object_)
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("TOKEN", token)]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
