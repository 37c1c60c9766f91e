# tensorrt_llm/1/model.py: stand-in for the engine, echoes the prompt ids
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "input_ids").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("output_ids", ids)]))
        return responses
