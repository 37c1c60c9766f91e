"""PL678: model.py converts a TYPE_STRING input to DLPack, which every request fails on.

`pbtxt_lint.artifacts.python_dlpack` finds the inputs model.py hands to
`to_dlpack()` or `from_dlpack()`; the Python backend refuses TYPE_BYTES tensors there
(`PbTensor::ToDLPack` in python_backend src/pb_tensor.cc).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbtxt_lint.rules.api import WARNING, DataType, Finding, ModelContext, Scope, rule
from pbtxt_lint.rules.artifacts.python_common import line_span, python_models


@rule(
    "PL678",
    "python-string-to-dlpack",
    WARNING,
    "model.py converts a TYPE_STRING input to DLPack (to_dlpack(), from_dlpack()): every "
    "request fails.",
    triton="Failed to process the request(s) for model '<model>_0', message: "
    "TritonModelException: DLPack does not have support for string tensors.",
    scope=Scope.MODEL_FILES,
    backend="python",
)
def python_string_to_dlpack(context: ModelContext) -> Iterator[Finding]:
    """A TYPE_STRING input reaches model.py as a TYPE_BYTES tensor of serialized
    strings, which DLPack cannot describe: `to_dlpack()` (and `torch.from_dlpack(tensor)`,
    which calls it) raises and the request fails with HTTP 500 "Failed to process the
    request(s) for model 'tokenizer_0', message: TritonModelException: DLPack does not
    have support for string tensors." (observed with tritonserver 2.51's Python
    backend). Text inputs are read with `as_numpy()` (an object array of bytes).

    Bad:
        text = pb_utils.get_input_tensor_by_name(request, "TEXT")  # TYPE_STRING
        ids = torch.utils.dlpack.from_dlpack(text.to_dlpack())
    Good:
        text = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy()
        prompts = [t.decode("utf-8") for t in text.reshape(-1)]
    """
    # deferred: the reader loads with the first model.py
    from pbtxt_lint.rules.api import dlpack_inputs

    for model in python_models(context):
        strings = {io.name for io in model.config.input if io.data_type == DataType.TYPE_STRING}
        if not strings:
            continue
        for use in dlpack_inputs(model.signature.module):
            if use.name not in strings:
                continue
            yield Finding(
                f'{model.shown} line {use.line} converts input "{use.name}" to DLPack, but '
                f"{context.folder.name}'s config declares it TYPE_STRING: every request that "
                'reaches the line fails with "TritonModelException: DLPack does not have '
                'support for string tensors."',
                file=model.artifact.opened,
                span=line_span(use.line),
                hint=f'read "{use.name}" with as_numpy() (an object array of bytes) and '
                "decode the strings",
            )
