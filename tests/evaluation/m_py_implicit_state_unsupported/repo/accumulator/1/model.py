# accumulator/1/model.py: running sum per sequence, kept in Triton's implicit state
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "x").as_numpy()
            start = pb_utils.get_input_tensor_by_name(request, "START").as_numpy()
            corrid = pb_utils.get_input_tensor_by_name(request, "CORRID").as_numpy()
            state = pb_utils.get_input_tensor_by_name(request, "state_in").as_numpy()
            if start[0, 0] == 1:
                state = np.zeros_like(state)
            total = (state + x).astype(np.int32)
            pb_utils.Logger.log_verbose(f"sequence {int(corrid[0, 0])}: {int(total[0, 0])}")
            responses.append(
                pb_utils.InferenceResponse(
                    [pb_utils.Tensor("y", total), pb_utils.Tensor("state_out", total)]
                )
            )
        return responses
