# Log energy of 10 ms frames (160 samples at 16 kHz) of an audio chunk.
import numpy as np
import triton_python_backend_utils as pb_utils

FRAME = 160


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            audio = pb_utils.get_input_tensor_by_name(request, "AUDIO_CHUNK").as_numpy()
            frames = audio[: len(audio) // FRAME * FRAME].reshape(-1, FRAME)
            energy = np.log(np.mean(frames**2, axis=1) + 1e-10).astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("LOG_ENERGY", energy)]))
        return responses
