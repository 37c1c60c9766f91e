# Retrieval-augmented answering: look up context, build a prompt, ask the LLM (BLS).
import json

import numpy as np
import triton_python_backend_utils as pb_utils

LLM = "phi3_mini"
FAQ = {
    "refund": "Refunds are issued within 14 days of the return being received.",
    "shipping": "Standard shipping takes 3 to 5 business days.",
}


def retrieve(question):
    hits = [text for key, text in FAQ.items() if key in question.lower()]
    return "\n".join(hits) or "No matching document."


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            question = pb_utils.get_input_tensor_by_name(request, "question").as_numpy()[0]
            question = question.decode("utf-8")
            prompt = f"Context:\n{retrieve(question)}\n\nQuestion: {question}\nAnswer:"
            llm_request = pb_utils.InferenceRequest(
                model_name=LLM,
                requested_output_names=["text_output"],
                inputs=[
                    pb_utils.Tensor("text_input", np.array([prompt.encode()], dtype=np.object_)),
                    pb_utils.Tensor(
                        "sampling_parameters",
                        np.array([json.dumps({"max_tokens": 128}).encode()], dtype=np.object_),
                    ),
                ],
            )
            llm_response = llm_request.exec()
            if llm_response.has_error():
                raise pb_utils.TritonModelException(llm_response.error().message())
            text = pb_utils.get_output_tensor_by_name(llm_response, "text_output").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("answer", text)]))
        return responses
