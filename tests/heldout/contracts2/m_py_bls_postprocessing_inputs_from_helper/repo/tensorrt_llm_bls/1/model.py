# tensorrt_llm_bls/1/model.py: tokenize, generate (stub), detokenize through BLS
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def create_postproc_inputs(self, output_ids, sequence_length):
        feeds = {"TOKENS_BATCH": output_ids}
        return [pb_utils.Tensor(name, value) for name, value in feeds.items()]

    def execute(self, requests):
        responses = []
        for request in requests:
            prompt = pb_utils.get_input_tensor_by_name(request, "text_input").as_numpy()
            max_tokens = pb_utils.get_input_tensor_by_name(request, "max_tokens").as_numpy()
            batch = prompt.shape[0]
            steps = int(max_tokens.reshape(-1)[0])
            output_ids = np.arange(batch * steps, dtype=np.int32).reshape(batch, 1, steps)
            sequence_length = np.full((batch, 1), steps, dtype=np.int32)
            postproc_request = pb_utils.InferenceRequest(
                model_name="postprocessing",
                inputs=self.create_postproc_inputs(output_ids, sequence_length),
                requested_output_names=["OUTPUT"],
            )
            postproc_response = postproc_request.exec()
            if postproc_response.has_error():
                raise pb_utils.TritonModelException(postproc_response.error().message())
            text = pb_utils.get_output_tensor_by_name(postproc_response, "OUTPUT").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("text_output", text)]))
        return responses
