# Streaming text-to-speech: synthesizes the text sentence by sentence.
import numpy as np
import triton_python_backend_utils as pb_utils

SAMPLE_RATE = 22050


def synthesize(sentence):
    seconds = 0.06 * max(len(sentence), 1)
    t = np.arange(int(SAMPLE_RATE * seconds), dtype=np.float32) / SAMPLE_RATE
    return (0.1 * np.sin(2 * np.pi * 220.0 * t)).astype(np.float32)


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "text").as_numpy()[0]
            sentences = [s for s in text.decode("utf-8").split(".") if s.strip()]
            audio = np.concatenate([synthesize(s) for s in sentences])
            chunk = pb_utils.Tensor("audio_chunk", audio)
            responses.append(pb_utils.InferenceResponse(output_tensors=[chunk]))
        return responses
