"""PL9xx: the contracts between models, and between a model and its clients.

What the batch axis is, and the names, types and shapes a tensor has, followed from
one model to the next: a config and its model file, two steps of an ensemble, a
Python model and the model it calls (BLS), a model and the requests its clients send.
Each fact is computed once in the analysis layer; these rules compare producer and
consumer.
"""

MODULES: tuple[str, ...] = ("onnx_batch", "bls", "values", "pipelines", "batching")
