# Greedy generation with a small GPT, batching the prompts Triton's dynamic batcher groups.
import numpy as np
import triton_python_backend_utils as pb_utils

VOCAB = 50257


def generate(prompts, lengths, steps):
    # stands in for the model's forward passes on the padded batch
    width = max(len(p) for p in prompts)
    batch = np.stack([np.pad(p, (0, width - len(p))) for p in prompts])
    outputs = []
    for row, length, n in zip(batch, lengths, steps, strict=True):
        new = (row[:length].sum() + np.arange(1, n + 1)) % VOCAB
        outputs.append(np.concatenate([row[:length], new]).astype(np.int32))
    return outputs


class TritonPythonModel:
    def execute(self, requests):
        prompts, lengths, steps, sizes = [], [], [], []
        for request in requests:
            ids = pb_utils.get_input_tensor_by_name(request, "start_ids").as_numpy()
            lens = pb_utils.get_input_tensor_by_name(request, "start_lengths").as_numpy()
            outs = pb_utils.get_input_tensor_by_name(request, "request_output_len").as_numpy()
            prompts.extend(ids)
            lengths.extend(int(n) for n in lens)
            steps.extend(int(n) for n in outs)
            sizes.append(len(ids))
        generated = generate(prompts, lengths, steps)
        responses, start = [], 0
        for size in sizes:
            rows = generated[start : start + size]
            width = max(len(r) for r in rows)
            padded = np.stack([np.pad(r, (0, width - len(r))) for r in rows])
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("output_ids", padded)]))
            start += size
        return responses
