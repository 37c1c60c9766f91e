# tensorrt_llm_bls (decoupled): one answer per request through its response sender
import triton_python_backend_utils as pb_utils
from lib.triton_decoder import TritonDecoder


class TritonPythonModel:
    def initialize(self, args):
        self.decoder = TritonDecoder()

    def execute(self, requests):
        for request in requests:
            sender = request.get_response_sender()
            sender.send(
                self.decoder.decode(request),
                flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL,
            )
        return None
