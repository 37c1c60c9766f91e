# vocoder_head/1/model.py: 256 samples per mel frame, half precision output (generator stubbed)
import numpy as np
import triton_python_backend_utils as pb_utils

HOP = 256


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            mel = pb_utils.get_input_tensor_by_name(request, "MEL").as_numpy()
            frames = mel.mean(axis=1)
            audio = np.repeat(np.tanh(frames), HOP, axis=1).astype(np.float16)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("AUDIO", audio)]))
        return responses
