# rag_pipeline/1/model.py: embed the query with the text encoder through BLS
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            query = pb_utils.get_input_tensor_by_name(request, "QUERY").as_numpy()
            ids = np.array([[len(q) for q in query]], dtype=np.int64)
            encoder_request = pb_utils.InferenceRequest(
                model_name="text_encoder",
                requested_output_names=["embedding"],
                inputs=[pb_utils.Tensor("input_ids", ids)],
            )
            result = encoder_request.exec()
            if result.has_error():
                raise pb_utils.TritonModelException(result.error().message())
            embedding = pb_utils.get_output_tensor_by_name(result, "embedding")
            responses.append(
                pb_utils.InferenceResponse(
                    [pb_utils.Tensor("EMBEDDING", embedding.as_numpy().astype(np.float32))]
                )
            )
        return responses
