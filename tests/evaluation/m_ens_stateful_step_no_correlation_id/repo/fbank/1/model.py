# fbank/1/model.py: 10 frames of 80 log-mel-like features per 100 ms chunk (filterbank stubbed)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            wav = pb_utils.get_input_tensor_by_name(request, "wav").as_numpy()
            frames = wav.reshape(wav.shape[0], 10, 160)
            energy = np.log1p((frames**2).sum(axis=2, keepdims=True))
            feats = np.repeat(energy, 80, axis=2).astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("features", feats)]))
        return responses
