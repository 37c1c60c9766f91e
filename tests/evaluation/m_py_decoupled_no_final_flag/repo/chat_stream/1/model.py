# chat_stream/1/model.py: echo the prompt back one word at a time
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            text = pb_utils.get_input_tensor_by_name(request, "text_input").as_numpy()[0]
            for word in text.decode("utf-8").split():
                out = np.array([word.encode("utf-8")], dtype=np.object_)
                sender.send(pb_utils.InferenceResponse([pb_utils.Tensor("text_output", out)]))
        return None
