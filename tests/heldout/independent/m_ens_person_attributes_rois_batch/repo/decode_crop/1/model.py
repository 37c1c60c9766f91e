# Resizes RGB frames (nearest neighbour) to the 256x128 pedestrian input, CHW float32 in [0, 1].
import numpy as np
import triton_python_backend_utils as pb_utils


def resize(frame, height=256, width=128):
    rows = np.arange(height) * frame.shape[0] // height
    cols = np.arange(width) * frame.shape[1] // width
    return frame[rows][:, cols]


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            frames = pb_utils.get_input_tensor_by_name(request, "frame_rgb").as_numpy()
            chw = np.stack([resize(f).transpose(2, 0, 1) for f in frames])
            images = pb_utils.Tensor("images", (chw / 255.0).astype(np.float32))
            responses.append(pb_utils.InferenceResponse(output_tensors=[images]))
        return responses
