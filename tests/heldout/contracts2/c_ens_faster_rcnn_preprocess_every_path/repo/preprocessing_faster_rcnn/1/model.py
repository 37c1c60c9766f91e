# preprocessing_faster_rcnn/1/model.py: decode and resize to the detector's input (stub)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "INPUT_PREPROC").as_numpy()
            batch = raw.shape[0]
            if raw.size == 0:
                image = np.zeros((batch, 3, 32, 32), dtype=np.float32)
            else:
                image = np.resize(raw.astype(np.float32), (batch, 3, 32, 32))
            out = pb_utils.Tensor("OUTPUT_PREPROC", image)
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
