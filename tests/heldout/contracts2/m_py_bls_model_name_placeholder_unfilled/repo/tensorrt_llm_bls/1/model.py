# tensorrt_llm_bls/1/model.py: generate with the LLM model named in the config's parameters
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.model_config = json.loads(args["model_config"])
        self.llm_model_name = self.model_config["parameters"]["tensorrt_llm_model_name"]["string_value"]

    def execute(self, requests):
        responses = []
        for request in requests:
            prompt = pb_utils.get_input_tensor_by_name(request, "text_input").as_numpy()
            input_ids = np.array([[len(p) for p in row] for row in prompt], dtype=np.int32)
            llm_request = pb_utils.InferenceRequest(
                model_name=self.llm_model_name,
                requested_output_names=["output_ids"],
                inputs=[pb_utils.Tensor("input_ids", input_ids)],
            )
            llm_response = llm_request.exec()
            if llm_response.has_error():
                raise pb_utils.TritonModelException(llm_response.error().message())
            ids = pb_utils.get_output_tensor_by_name(llm_response, "output_ids").as_numpy()
            text = np.array([[" ".join(str(i) for i in row).encode()] for row in ids], dtype=np.object_)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("text_output", text)]))
        return responses
