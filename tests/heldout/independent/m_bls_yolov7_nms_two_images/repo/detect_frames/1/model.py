# Runs YOLOv7 (exported with NMS) on the frames of a clip in one call and returns the boxes.
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            frames = pb_utils.get_input_tensor_by_name(request, "frames").as_numpy()
            detect = pb_utils.InferenceRequest(
                model_name="yolov7_nms",
                requested_output_names=["output"],
                inputs=[pb_utils.Tensor("images", frames.astype(np.float32))],
            )
            result = detect.exec()
            if result.has_error():
                raise pb_utils.TritonModelException(result.error().message())
            rows = pb_utils.get_output_tensor_by_name(result, "output").as_numpy()
            out = pb_utils.Tensor("detections", rows.reshape(-1, 7))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
