# ImageNet preprocessing: resize to 224x224 (nearest), scale to [0, 1], normalize, HWC -> CHW.
import numpy as np
import triton_python_backend_utils as pb_utils

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


def resize(image, size=224):
    rows = np.arange(size) * image.shape[0] // size
    cols = np.arange(size) * image.shape[1] // size
    return image[rows][:, cols]


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            images = pb_utils.get_input_tensor_by_name(request, "image_rgb").as_numpy()
            scaled = [resize(i).astype(np.float32) / np.float32(255.0) for i in images]
            batch = np.stack([((s - MEAN) / STD).transpose(2, 0, 1) for s in scaled])
            out = pb_utils.Tensor("pixel_values", batch.astype(np.float32))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
