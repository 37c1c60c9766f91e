# Speaker verification: embed both utterances with the ECAPA model, return the cosine score.
import itertools

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.counter = itertools.count(1)

    def embed(self, feats):
        request = pb_utils.InferenceRequest(
            model_name="ecapa_embedder",
            requested_output_names=["embedding"],
            inputs=[pb_utils.Tensor("feats", feats[np.newaxis].astype(np.float32))],
            request_id=next(self.counter),
        )
        response = request.exec()
        if response.has_error():
            raise pb_utils.TritonModelException(response.error().message())
        return pb_utils.get_output_tensor_by_name(response, "embedding").as_numpy()[0]

    def execute(self, requests):
        responses = []
        for request in requests:
            enrollment = pb_utils.get_input_tensor_by_name(request, "enrollment_feats").as_numpy()
            test = pb_utils.get_input_tensor_by_name(request, "test_feats").as_numpy()
            a, b = self.embed(enrollment), self.embed(test)
            score = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-9))
            out = pb_utils.Tensor("similarity", np.array([score], dtype=np.float32))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
