# Energy-based voice activity detection with a noise floor tracked per stream (sequence).
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.noise_floor = {}

    def execute(self, requests):
        responses = []
        for request in requests:
            energy = pb_utils.get_input_tensor_by_name(request, "LOG_ENERGY").as_numpy()
            start = pb_utils.get_input_tensor_by_name(request, "START").as_numpy()[0]
            stream = int(pb_utils.get_input_tensor_by_name(request, "CORRID").as_numpy()[0])
            if start or stream not in self.noise_floor:
                self.noise_floor[stream] = float(np.min(energy)) if len(energy) else -20.0
            floor = 0.95 * self.noise_floor[stream] + 0.05 * float(np.min(energy, initial=0.0))
            self.noise_floor[stream] = floor
            speech = energy > floor + 3.0
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("SPEECH", speech)]))
        return responses
