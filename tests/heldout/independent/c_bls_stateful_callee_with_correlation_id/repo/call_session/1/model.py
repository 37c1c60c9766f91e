# Call-center front end: forwards each audio packet of a call to the streaming recognizer,
# one sequence per call (the call id is the correlation id).
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.open_calls = set()

    def execute(self, requests):
        responses = []
        for request in requests:
            call_id = int(pb_utils.get_input_tensor_by_name(request, "call_id").as_numpy()[0])
            audio = pb_utils.get_input_tensor_by_name(request, "audio")
            start = pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START
            flags = 0 if call_id in self.open_calls else start
            self.open_calls.add(call_id)
            asr_request = pb_utils.InferenceRequest(
                model_name="streaming_asr",
                requested_output_names=["transcript"],
                inputs=[pb_utils.Tensor("chunk", audio.as_numpy())],
                request_id=f"call-{call_id}",
                correlation_id=call_id,
                flags=flags,
            )
            asr_response = asr_request.exec()
            if asr_response.has_error():
                raise pb_utils.TritonModelException(asr_response.error().message())
            transcript = pb_utils.get_output_tensor_by_name(asr_response, "transcript")
            responses.append(pb_utils.InferenceResponse(output_tensors=[transcript]))
        return responses
