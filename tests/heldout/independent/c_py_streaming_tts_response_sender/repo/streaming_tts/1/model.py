# Streaming text-to-speech: one audio chunk per sentence, sent as soon as it is ready.
import numpy as np
import triton_python_backend_utils as pb_utils

SAMPLE_RATE = 22050


def synthesize(sentence):
    seconds = 0.06 * max(len(sentence), 1)
    t = np.arange(int(SAMPLE_RATE * seconds), dtype=np.float32) / SAMPLE_RATE
    return (0.1 * np.sin(2 * np.pi * 220.0 * t)).astype(np.float32)


class TritonPythonModel:
    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            text = pb_utils.get_input_tensor_by_name(request, "text").as_numpy()[0]
            for sentence in [s for s in text.decode("utf-8").split(".") if s.strip()]:
                chunk = pb_utils.Tensor("audio_chunk", synthesize(sentence))
                sender.send(pb_utils.InferenceResponse(output_tensors=[chunk]))
            sender.send(flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        return None
