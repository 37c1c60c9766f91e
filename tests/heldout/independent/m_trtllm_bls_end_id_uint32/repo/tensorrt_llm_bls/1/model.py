# BLS front end of the TensorRT-LLM engine: tokenize, generate, detokenize in one model.
import json

import numpy as np
import triton_python_backend_utils as pb_utils

END_ID = 2


def encode(text):
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int32) + 3


def decode(ids):
    return bytes(int(i) - 3 for i in ids if i > 2).decode("utf-8", errors="replace")


class TritonPythonModel:
    def initialize(self, args):
        params = json.loads(args["model_config"])["parameters"]
        self.llm_model_name = params["tensorrt_llm_model_name"]["string_value"]

    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "text_input").as_numpy()[0]
            max_tokens = pb_utils.get_input_tensor_by_name(request, "max_tokens").as_numpy()
            ids = encode(text.decode("utf-8"))
            llm_request = pb_utils.InferenceRequest(
                model_name=self.llm_model_name,
                requested_output_names=["output_ids", "sequence_length"],
                inputs=[
                    pb_utils.Tensor("input_ids", ids[np.newaxis, :]),
                    pb_utils.Tensor("input_lengths", np.array([[len(ids)]], dtype=np.int32)),
                    pb_utils.Tensor("request_output_len", max_tokens.reshape(1, 1)),
                    pb_utils.Tensor("end_id", np.array([[END_ID]], dtype=np.int32)),
                    pb_utils.Tensor("pad_id", np.array([[END_ID]], dtype=np.int32)),
                ],
            )
            llm_response = llm_request.exec()
            if llm_response.has_error():
                raise pb_utils.TritonModelException(llm_response.error().message())
            output_ids = pb_utils.get_output_tensor_by_name(llm_response, "output_ids").as_numpy()
            answer = decode(output_ids[0, 0])
            out = pb_utils.Tensor("text_output", np.array([answer.encode()], dtype=np.object_))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
