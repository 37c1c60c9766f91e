# The calls the BLS model makes, one request at a time.
import triton_python_backend_utils as pb_utils


class TritonDecoder:
    def __init__(self):
        self._preproc_outputs = ["INPUT_ID", "REQUEST_INPUT_LEN", "REQUEST_OUTPUT_LEN"]
        self._llm_outputs = ["output_ids", "sequence_length"]
        self._postproc_outputs = ["OUTPUT"]

    def _call(self, model, inputs, outputs):
        response = pb_utils.InferenceRequest(
            model_name=model, inputs=inputs, requested_output_names=outputs
        ).exec()
        if response.has_error():
            raise pb_utils.TritonModelException(response.error().message())
        return {t.name(): t for t in response.output_tensors()}

    def decode(self, request):
        text = pb_utils.get_input_tensor_by_name(request, "text_input")
        max_tokens = pb_utils.get_input_tensor_by_name(request, "max_tokens")
        pre = self._call(
            "preprocessing",
            [
                pb_utils.Tensor("QUERY", text.as_numpy()),
                pb_utils.Tensor("REQUEST_OUTPUT_LEN", max_tokens.as_numpy()),
            ],
            self._preproc_outputs,
        )
        llm = self._call(
            "tensorrt_llm",
            [
                pb_utils.Tensor("input_ids", pre["INPUT_ID"].as_numpy()),
                pb_utils.Tensor("input_lengths", pre["REQUEST_INPUT_LEN"].as_numpy()),
                pb_utils.Tensor("request_output_len", pre["REQUEST_OUTPUT_LEN"].as_numpy()),
            ],
            self._llm_outputs,
        )
        post = self._call(
            "postprocessing",
            [pb_utils.Tensor("TOKENS_BATCH", llm["output_ids"].as_numpy())],
            self._postproc_outputs,
        )
        text = post["OUTPUT"].as_numpy()
        return pb_utils.InferenceResponse([pb_utils.Tensor("text_output", text)])
