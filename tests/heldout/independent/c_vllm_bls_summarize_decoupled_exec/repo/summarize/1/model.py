# Pre-processes a document, asks the vLLM model for a summary (BLS) and post-processes it.
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            document = pb_utils.get_input_tensor_by_name(request, "document").as_numpy()[0]
            prompt = "Summarize in one sentence:\n" + document.decode("utf-8").strip() + "\nTL;DR:"
            llm_request = pb_utils.InferenceRequest(
                model_name="gpt2_vllm",
                requested_output_names=["text_output"],
                inputs=[
                    pb_utils.Tensor("text_input", np.array([prompt.encode()], dtype=np.object_)),
                    pb_utils.Tensor(
                        "sampling_parameters",
                        np.array([json.dumps({"max_tokens": 48}).encode()], dtype=np.object_),
                    ),
                    pb_utils.Tensor("exclude_input_in_output", np.array([True])),
                ],
            )
            text = b""
            for llm_response in llm_request.exec(decoupled=True):
                if llm_response.has_error():
                    raise pb_utils.TritonModelException(llm_response.error().message())
                output = pb_utils.get_output_tensor_by_name(llm_response, "text_output")
                if output is not None:
                    text = output.as_numpy()[0]
            summary = text.decode("utf-8").strip().encode("utf-8")
            out = pb_utils.Tensor("summary", np.array([summary], dtype=np.object_))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
