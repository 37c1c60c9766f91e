"""PL6xx: the config against the model files Triton would load, per loaded version.

Each backend compares the config with its model file in its own way; these rules
mirror those comparisons on what the readers in `pbtxt_lint.artifacts` can learn
without a GPU, a framework or running user code. Topic modules:

- `files`: PL600-PL604 and PL690, the file itself (missing, unreadable, a Git LFS
  pointer, ONNX external data, not inspected);
- `onnx_autocomplete`, `onnx_tensors`, `onnx_shapes`, `onnx_sequence`: PL605-PL618,
  the ONNX Runtime backend's auto-complete and the checks each instance runs when it
  is created, on the config as the backend sees it after auto-complete;
- `tensorrt`: PL630-PL632, TensorRT plan headers and how far a plan was checked;
- `model_tensors`, `model_shapes`: PL640-PL643, names, input counts, data types and
  shapes of OpenVINO IRs, SavedModel signatures and deserialized TensorRT engines;
- `openvino`: PL644-PL645; `savedmodel`: PL650-PL651;
- `python_shapes`, `python_omitted`: PL657-PL659, the size of each axis model.py
  answers with and the outputs some of its paths leave out;
- `python_model`: PL660-PL665, model.py and its emulated `auto_complete_config`;
- `python_sequence`: PL666, implicit state on the Python backend;
- `python_requests`, `python_decoupled`, `python_arrays`, `python_bls` (sharing
  `python_common`): PL667-PL669 and PL691-PL699, what execute does at request time:
  responses per request, the response sender, the dtypes and shapes of the answers,
  optional inputs and BLS calls;
- `torchscript`: PL670-PL675, forward()'s arguments and returned values;
  `torchscript_types`: PL676, the element types forward()'s code returns;
- `python_env`, `python_stub`, `python_imports` (sharing `python_runtime`): PL680-PL689,
  the Python backend's runtime: the execution environment archive, a stub in the model
  folder, and what model.py imports;
- `common`: the views and helpers they share.

Every rule reads files through `context.artifacts`, which is empty with
`--config-only`, so all of them respect that switch.
"""

MODULES: tuple[str, ...] = (
    "files",
    "onnx_autocomplete",
    "onnx_tensors",
    "onnx_shapes",
    "onnx_sequence",
    "onnx_versions",
    "tensorrt",
    "model_tensors",
    "model_shapes",
    "openvino",
    "savedmodel",
    "python_methods",
    "python_filename",
    "python_shapes",
    "python_omitted",
    "python_model",
    "python_sequence",
    "python_arrays",
    "python_requests",
    "torchscript",
    "torchscript_types",
    "python_env",
    "python_stub",
    "python_imports",
    "python_decoupled",
    "python_bls",
    "python_dlpack",
)
"""The topic modules of the family, in code order (names: importing the family imports
none of them, so a run loads only the modules whose rules it calls)."""
