# ImageNet preprocessing: resize to 224x224 (nearest), scale to [0, 1], normalize, HWC -> CHW.
import numpy as np
import triton_python_backend_utils as pb_utils

MEAN = np.array([0.485, 0.456, 0.406])
STD = np.array([0.229, 0.224, 0.225])


def resize(image, size=224):
    rows = np.arange(size) * image.shape[0] // size
    cols = np.arange(size) * image.shape[1] // size
    return image[rows][:, cols]


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            images = pb_utils.get_input_tensor_by_name(request, "image_rgb").as_numpy()
            normalized = [(resize(i) / 255.0 - MEAN) / STD for i in images]
            batch = np.stack([n.transpose(2, 0, 1) for n in normalized])
            out = pb_utils.Tensor("pixel_values", batch)
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
