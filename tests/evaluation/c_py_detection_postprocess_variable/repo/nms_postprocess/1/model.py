# nms_postprocess/1/model.py: keep the boxes above the score threshold (same count for the batch)
import numpy as np
import triton_python_backend_utils as pb_utils

THRESHOLD = 0.25


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "RAW").as_numpy()
            keep = max(1, int((raw[..., 4] > THRESHOLD).sum(axis=1).max()))
            order = np.argsort(-raw[..., 4], axis=1)[:, :keep]
            picked = np.take_along_axis(raw, order[..., None], axis=1)
            responses.append(
                pb_utils.InferenceResponse(
                    [
                        pb_utils.Tensor("BOXES", picked[..., :4].astype(np.float32)),
                        pb_utils.Tensor("SCORES", picked[..., 4].astype(np.float32)),
                        pb_utils.Tensor("CLASSES", picked[..., 5].astype(np.int32)),
                    ]
                )
            )
        return responses
