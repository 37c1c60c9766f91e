# Content moderation: tokenize a comment, score it with the toxicity model, keep the labels.
import numpy as np
import triton_python_backend_utils as pb_utils

LABELS = ["Profanity", "Race", "LGBTQ", "Religion", "Politics", "Violence"]


def tokenize(text, length=64):
    ids = [101] + [1000 + (hash(w) % 20000) for w in text.lower().split()][: length - 2] + [102]
    ids = np.array(ids + [0] * (length - len(ids)), dtype=np.int64)
    return ids[np.newaxis], (ids != 0).astype(np.int64)[np.newaxis]


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            comment = pb_utils.get_input_tensor_by_name(request, "comment").as_numpy()[0]
            input_ids, attention_mask = tokenize(comment.decode("utf-8"))
            scoring = pb_utils.InferenceRequest(
                model_name="toxicity_classifier",
                requested_output_names=["model_output"],
                inputs=[
                    pb_utils.Tensor("input_ids", input_ids),
                    pb_utils.Tensor("attention_mask", attention_mask),
                ],
            )
            scored = scoring.exec()
            if scored.has_error():
                raise pb_utils.TritonModelException(scored.error().message())
            logits = pb_utils.get_output_tensor_by_name(scored, "model_output").as_numpy()[0]
            probs = 1.0 / (1.0 + np.exp(-logits))
            labels = [name.encode() for name, p in zip(LABELS, probs, strict=True) if p > 0.5]
            out = pb_utils.Tensor("labels", np.array(labels, dtype=np.object_))
            responses.append(pb_utils.InferenceResponse(output_tensors=[out]))
        return responses
