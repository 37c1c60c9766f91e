# tensorrt_llm_bls: preprocessing -> tensorrt_llm -> postprocessing in one Python model
from lib.triton_decoder import TritonDecoder


class TritonPythonModel:
    def initialize(self, args):
        self.decoder = TritonDecoder()

    def execute(self, requests):
        return [self.decoder.decode(request) for request in requests]
