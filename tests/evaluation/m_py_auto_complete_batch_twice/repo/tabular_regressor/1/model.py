# tabular_regressor/1/model.py: Boston-housing style regressor that declares its own I/O
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        auto_complete_model_config.set_max_batch_size(8)
        auto_complete_model_config.add_input(
            {"name": "FEATURES", "data_type": "TYPE_FP32", "dims": [-1, 13]}
        )
        auto_complete_model_config.add_output(
            {"name": "PREDICTION", "data_type": "TYPE_FP32", "dims": [-1, 1]}
        )
        auto_complete_model_config.set_dynamic_batching()
        return auto_complete_model_config

    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "FEATURES").as_numpy()
            y = x.sum(axis=-1, keepdims=True).astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("PREDICTION", y)]))
        return responses
