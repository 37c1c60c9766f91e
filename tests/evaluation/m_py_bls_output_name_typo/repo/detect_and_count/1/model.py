# detect_and_count/1/model.py: count detections above 0.5 (BLS call to the detector)
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            image = pb_utils.get_input_tensor_by_name(request, "IMAGE")
            result = pb_utils.InferenceRequest(
                model_name="person_detector",
                requested_output_names=["detections"],
                inputs=[pb_utils.Tensor("images", image.as_numpy())],
            ).exec()
            if result.has_error():
                raise pb_utils.TritonModelException(result.error().message())
            dets = pb_utils.get_output_tensor_by_name(result, "detections").as_numpy()
            count = np.array([int((dets[..., 4] > 0.5).sum())], dtype=np.int32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("COUNT", count)]))
        return responses
