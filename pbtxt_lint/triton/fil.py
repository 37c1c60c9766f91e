"""The FIL backend's parameters and model files, per release, as data.

fil_backend reads its `parameters` in `RapidsSharedState::load` (src/shared_state.h) through
rapids-triton's `SharedModelState::get_config_param` (cpp/include/rapids_triton/model/
shared_state.hpp): a boolean must be exactly `true` or `false`; a number that does not parse
fails the load when the parameter has no default and silently gives the default when it
has one. Release 25.09 (server 2.61) replaced the GPU forest library: `output_class`
became `is_classifier` (the old name is still read), `algo` became `layout`,
`threads_per_tree` became `chunk_size`, and `storage_type` and `blocks_per_sm` went away
(each is then logged as removed and ignored).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pbtxt_lint.targets import Version

NEW_FOREST: Version = (2, 61)
"""The first server version (25.09) with the new parameter names."""

MODEL_FILES: Mapping[str, str] = {
    "xgboost": "xgboost.model",
    "xgboost_json": "xgboost.json",
    "xgboost_ubj": "xgboost.ubj",
    "lightgbm": "model.txt",
    "treelite_checkpoint": "checkpoint.tl",
}
"""model_type -> the file `RapidsModel::model_file` opens in the version folder when
default_model_filename is empty (src/model.h)."""

DEFAULT_MODEL_TYPE = "xgboost"

BOOLEANS = ("output_class", "is_classifier", "predict_proba", "xgboost_allow_unknown_field",
            "use_experimental_optimizations")  # fmt: skip
NUMBERS = ("threshold", "threads_per_tree", "chunk_size", "blocks_per_sm", "cpu_nthread",
           "transfer_threshold")  # fmt: skip
"""Read as numbers (`threshold` as a float, `transfer_threshold` as a size, the others
as ints); only `threshold` has no default."""


@dataclass(frozen=True)
class Renamed:
    """A parameter of the old forest library and what 25.09 made of it."""

    old: str
    new: str | None
    """Its successor (None: removed)."""
    choices: tuple[str, ...] = ()
    """The values the old library accepts (`fil_config.h`), empty: any."""


RENAMED: tuple[Renamed, ...] = (
    Renamed("output_class", "is_classifier"),
    Renamed("algo", "layout", ("ALGO_AUTO", "NAIVE", "TREE_REORG", "BATCH_TREE_REORG")),
    Renamed("threads_per_tree", "chunk_size"),
    Renamed("storage_type", None, ("AUTO", "DENSE", "SPARSE", "SPARSE8")),
    Renamed("blocks_per_sm", None),
)

LAYOUTS = ("depth_first", "breadth_first", "layered", "layered_children_together")
"""`layout` values from 25.09 (`name_to_fil_layout`)."""

FIL_PARAMETERS: tuple[str, ...] = (
    "model_type",
    *BOOLEANS,
    *NUMBERS,
    "algo",
    "storage_type",
    "layout",
)
"""Every key some release reads."""
