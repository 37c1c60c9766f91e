# fraud_score/1/model.py: logistic score over 30 transaction features; declares its own I/O
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    @staticmethod
    def auto_complete_config(auto_complete_model_config):
        inputs = [{"name": "FEATURES", "data_type": "TYPE_FP32", "dims": [30]}]
        outputs = [{"name": "SCORE", "data_type": "TYPE_FP32", "dims": [1]}]
        config = auto_complete_model_config.as_dict()
        declared_inputs = {i["name"] for i in config["input"]}
        declared_outputs = {o["name"] for o in config["output"]}
        for tensor in inputs:
            if tensor["name"] not in declared_inputs:
                auto_complete_model_config.add_input(tensor)
        for tensor in outputs:
            if tensor["name"] not in declared_outputs:
                auto_complete_model_config.add_output(tensor)
        auto_complete_model_config.set_max_batch_size(8)
        auto_complete_model_config.set_dynamic_batching()
        return auto_complete_model_config

    def execute(self, requests):
        responses = []
        weights = np.linspace(-1.0, 1.0, 30, dtype=np.float32)
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "FEATURES").as_numpy()
            score = (1.0 / (1.0 + np.exp(-(x @ weights))))[:, None].astype(np.float32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("SCORE", score)]))
        return responses
