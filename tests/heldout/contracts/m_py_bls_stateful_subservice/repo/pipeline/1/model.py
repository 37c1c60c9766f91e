# Calls the stateful punctuation service for every chunk of the client's stream.
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            chunk = pb_utils.get_input_tensor_by_name(request, "TEXT_CHUNK")
            punctuate = pb_utils.InferenceRequest(
                model_name="punctuation",
                requested_output_names=["RESULT"],
                inputs=[pb_utils.Tensor("TEXT", chunk.as_numpy().reshape(1, 1))],
                request_id=request.request_id(),
            )
            response = punctuate.exec()
            if response.has_error():
                raise pb_utils.TritonModelException(response.error().message())
            result = pb_utils.get_output_tensor_by_name(response, "RESULT")
            out = pb_utils.Tensor("PUNCTUATED", result.as_numpy().reshape(1))
            responses.append(pb_utils.InferenceResponse([out]))
        return responses
