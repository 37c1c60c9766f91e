# postprocess/1/model.py: threshold detections; nothing to report when no box passes
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            dets = pb_utils.get_input_tensor_by_name(request, "RAW_DETECTIONS").as_numpy()[0]
            keep = dets[dets[:, 4] > 0.25]
            outputs = [pb_utils.Tensor("BOXES", keep[:, :4][np.newaxis].astype(np.float32))]
            if len(keep):
                classes = keep[:, 5].astype(np.int32)[np.newaxis]
                outputs.append(pb_utils.Tensor("CLASSES", classes))
            responses.append(pb_utils.InferenceResponse(outputs))
        return responses
