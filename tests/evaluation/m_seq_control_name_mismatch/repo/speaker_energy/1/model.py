# speaker_energy/1/model.py: running sum of audio-frame energies per stream (stateful, implicit state)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            frames = pb_utils.get_input_tensor_by_name(request, "AUDIO_CHUNK").as_numpy()
            start = pb_utils.get_input_tensor_by_name(request, "START").as_numpy()
            state = pb_utils.get_input_tensor_by_name(request, "ENERGY_STATE").as_numpy()
            if start[0, 0]:
                state = np.zeros_like(state)
            total = (state + (frames.astype(np.float32) ** 2).sum(axis=1, keepdims=True)).astype(np.float32)
            responses.append(
                pb_utils.InferenceResponse(
                    [
                        pb_utils.Tensor("ENERGY", total),
                        pb_utils.Tensor("ENERGY_STATE_OUT", total),
                    ]
                )
            )
        return responses
