# BLS front end: tokenize here, generate with tensorrt_llm, detokenize with postprocessing.
import numpy as np
import triton_python_backend_utils as pb_utils

END_ID = 2


def call(model_name, inputs, outputs):
    request = pb_utils.InferenceRequest(
        model_name=model_name, requested_output_names=outputs, inputs=inputs
    )
    response = request.exec()
    if response.has_error():
        raise pb_utils.TritonModelException(response.error().message())
    return response


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "text_input").as_numpy()[0]
            max_tokens = pb_utils.get_input_tensor_by_name(request, "max_tokens").as_numpy()
            ids = np.frombuffer(text, dtype=np.uint8).astype(np.int32) + 3
            generated = call(
                "tensorrt_llm",
                [
                    pb_utils.Tensor("input_ids", ids[np.newaxis, :]),
                    pb_utils.Tensor("input_lengths", np.array([[len(ids)]], dtype=np.int32)),
                    pb_utils.Tensor("request_output_len", max_tokens.reshape(1, 1)),
                    pb_utils.Tensor("end_id", np.array([[END_ID]], dtype=np.int32)),
                    pb_utils.Tensor("pad_id", np.array([[END_ID]], dtype=np.int32)),
                ],
                ["output_ids"],
            )
            output_ids = pb_utils.get_output_tensor_by_name(generated, "output_ids")
            decoded = call(
                "postprocessing",
                [pb_utils.Tensor("TOKENS_BATCH", output_ids.as_numpy())],
                ["OUTPUT"],
            )
            text_output = pb_utils.get_output_tensor_by_name(decoded, "OUTPUT").as_numpy()
            out = pb_utils.Tensor("text_output", text_output[0])
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
