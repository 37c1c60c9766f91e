"""The result cache: a warm run reports exactly what a cold run reports, whatever changed,
and nothing a repository or a cache folder holds can make it write, delete or believe
what it should not.

Each warm/cold test lints cold (no cache) and warm (a cache filled by an earlier run)
and compares every field of every diagnostic. `INPUTS` lists every input a rule reads,
one case each: the test changes it and compares again (and checks that the change
matters, so the case proves something). The hostile tests give the cache folder links,
FIFOs, edited and forged files, and point --cache-dir at folders it must refuse.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fixture_cases import all_cases, materialize

import pbtxt_lint
from pbtxt_lint.cache import CacheError, CacheFolder, default_directory
from pbtxt_lint.cache import keys as keys_module
from pbtxt_lint.cache.folder import MAX_FILES, key_path
from pbtxt_lint.diagnostics import Diagnostic
from pbtxt_lint.linter import CheckOptions, LintResult, lint
from pbtxt_lint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "model_repository"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the cache is POSIX-only")


@pytest.fixture(autouse=True)
def user_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache and state folders, in the test's own scratch folder."""
    home = tmp_path / "home"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    return home


def everything(result: LintResult) -> list[tuple[object, ...]]:
    """Every field of every diagnostic, and the counts."""

    def fields(d: Diagnostic) -> tuple[object, ...]:
        fix = None if d.fix is None else (d.fix.description, d.fix.safe, d.fix.edits)
        return (d.code, d.severity, d.message, str(d.path), d.span, d.model, d.hint, fix,
                d.stage, d.trailer)  # fmt: skip

    internal = [(e.rule, e.model, e.error) for e in result.internal_errors]
    return [
        (result.models, result.files, result.suppressed, internal),
        *(fields(d) for d in result.diagnostics),
    ]


def check_same(paths: list[Path], settings: Settings, cache: Path) -> LintResult:
    """Cold and warm (twice: filling, then reading) agree; returns the warm result."""
    cold = lint(paths, settings, jobs=1)
    first = lint(paths, settings, jobs=1, cache_dir=cache)
    warm = lint(paths, settings, jobs=1, cache_dir=cache)
    assert everything(first) == everything(cold)
    assert everything(warm) == everything(cold)
    return warm


def tree(folder: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every entry under `folder` (links not followed): kind, time and content."""
    found = {}
    for path in sorted(folder.rglob("*")):
        info = path.lstat()
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        found[str(path.relative_to(folder))] = (info.st_mode, info.st_mtime_ns, content)
    return found


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    target = tmp_path / "models"
    shutil.copytree(EXAMPLES, target)
    return target


# ---------------------------------------------------------------------------- warm = cold


def test_a_warm_run_reads_every_model_from_the_cache(repository: Path, tmp_path: Path) -> None:
    warm = check_same([repository], Settings(), tmp_path / "cache")
    assert warm.cached == warm.models > 0
    assert (tmp_path / "cache" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f59")


def test_every_fixture_and_mode_is_the_same_warm(tmp_path: Path) -> None:
    for number, case in enumerate(all_cases()):
        root = materialize(case, tmp_path / f"case{number}")
        settings = Settings(config_only="--config-only" in case.args)
        check_same([root], settings, tmp_path / "cache")


def test_a_config_edit_re_lints_that_model_only(repository: Path, tmp_path: Path) -> None:
    """Models that read nothing of each other: an edit re-lints the edited model alone.
    (An ensemble's checks and a Python model's look over every model of the repository,
    for cycles and for the ensembles that use it: those are linted again after any edit.)"""
    cache = tmp_path / "cache"
    for name in ("pipeline", "tokenizer", "text_encoder"):
        shutil.rmtree(repository / name)
    models = check_same([repository], Settings(), cache).models
    config = repository / "resnet50" / "config.pbtxt"
    text = config.read_text()
    assert "max_batch_size: 8" in text
    config.write_text(text.replace("max_batch_size: 8", "max_batch_size: -5"))
    cold = lint([repository], Settings(), jobs=1)
    first = lint([repository], Settings(), jobs=1, cache_dir=cache)
    assert everything(first) == everything(cold)
    assert any(d.model == "resnet50" and "-5" in d.message for d in cold.diagnostics)
    assert first.cached == models - 1


def test_an_edit_of_a_composing_model_reaches_the_ensemble(
    repository: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    tokenizer = repository / "tokenizer" / "config.pbtxt"
    text = tokenizer.read_text()
    assert "TYPE_INT64" in text
    tokenizer.write_text(text.replace("TYPE_INT64", "TYPE_INT32"))
    before = {d.message for d in lint([repository], Settings(), jobs=1).diagnostics}
    warm = check_same([repository], Settings(), cache)
    assert {d.message for d in warm.diagnostics} == before


def test_an_edit_of_a_model_a_bls_model_calls_reaches_it(tmp_path: Path) -> None:
    """PL831 reads the callee's config from the BLS model's checks: the BLS model's
    cached result must follow the callee."""
    case = next(c for c in all_cases() if c.code == "PL831" and c.name == "pass_same_release")
    root = tmp_path / "case"
    shutil.copytree(materialize(case, tmp_path / "scratch"), root)
    cache = tmp_path / "cache"
    assert not check_same([root], Settings(), cache).diagnostics
    preprocessing = root / "preprocessing" / "config.pbtxt"
    preprocessing.write_text(preprocessing.read_text().replace("IS_VIDEO_INPUT", "IS_VIDEO"))
    warm = check_same([root], Settings(), cache)
    assert [d.code for d in warm.diagnostics] == ["PL831"]


def test_settings_are_part_of_the_key(repository: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    for settings in (
        Settings(gpus=0),
        Settings(config_only=True),
        Settings(auto_complete=False),
        Settings(ignore=frozenset({"PL5"})),
    ):
        check_same([repository], settings, cache)


def test_another_version_of_the_code_invalidates_everything(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    monkeypatch.setattr(keys_module, "__version__", "999.0")
    fresh = lint([repository], Settings(), jobs=1, cache_dir=cache)
    assert fresh.cached == 0


# ---- every input a rule reads, one case each

PYTHON_CONFIG = """backend: "python"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""
ENV_PARAMETER = 'parameters { key: "EXECUTION_ENV_PATH" value: { string_value: "%s" } }\n'


def python_model(*imports: str) -> str:
    lines = [f"import {name}" for name in imports]
    return "\n".join(lines) + (
        "\nimport numpy as np\nimport triton_python_backend_utils as pb_utils\n\n\n"
        "class TritonPythonModel:\n"
        "    def execute(self, requests):\n"
        "        responses = []\n"
        "        for request in requests:\n"
        '            data = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()\n'
        '            out = pb_utils.Tensor("OUT", np.asarray(data, dtype=np.float32))\n'
        "            responses.append(pb_utils.InferenceResponse([out]))\n"
        "        return responses\n"
    )


def environment(*packages: str) -> bytes:
    """A conda-pack archive of Python 3.12 holding `packages` (empty modules)."""
    files = {
        "bin/activate": b"",
        "bin/python3": b"",
        "bin/python3.12": b"",
        "conda-meta/python-3.12.0-h0_0.json": b"{}",
        **{f"lib/python3.12/site-packages/{p}/__init__.py": b"" for p in packages},
    }
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def write(root: Path, files: dict[str, str | bytes | None]) -> None:
    """Write `files` under `root` (None: an empty folder)."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if content is None:
            path.mkdir(exist_ok=True)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def replace(name: str, old: str, new: str) -> Callable[[Path], None]:
    def change(scratch: Path) -> None:
        path = scratch / name
        text = path.read_text()
        assert old in text, (name, old)
        path.write_text(text.replace(old, new))

    return change


def rewrite(name: str, content: str | bytes) -> Callable[[Path], None]:
    return lambda scratch: write(scratch, {name: content})


VLLM_CONFIG = (
    'backend: "vllm"\ninstance_group [ { kind: KIND_MODEL } ]\n'
    "model_transaction_policy { decoupled: true }\n"
)
ROI_ENSEMBLE = """platform: "ensemble"
max_batch_size: 8
input [
  { name: "IMAGES" data_type: TYPE_FP32 dims: [ 3, 32, 32 ] },
  { name: "ROIS" data_type: TYPE_FP32 dims: [ 4 ] },
  { name: "INDICES" data_type: TYPE_INT64 dims: [ 1 ] }
]
output [ { name: "FEATURES" data_type: TYPE_FP32 dims: [ 3, 7, 7 ] } ]
ensemble_scheduling { step [ { model_name: "m" model_version: -1
  input_map { key: "images" value: "IMAGES" } input_map { key: "rois" value: "ROIS" }
  input_map { key: "batch_indices" value: "INDICES" }
  output_map { key: "roi_features" value: "FEATURES" } } ] }
"""
VLLM_LORA = 'parameters { key: "enable_lora" value { string_value: "true" } }\n'


def fixture_files(case: str) -> dict[str, str | bytes | None]:
    """The files of a rule's fixture folder, as the model repository `models/`."""
    folder = ROOT / "tests/fixtures/rules" / case
    return {
        f"models/{p.relative_to(folder).as_posix()}": p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def fixture_bytes(case: str) -> bytes:
    """The model file of a fixture's model `m`."""
    return next((ROOT / "tests/fixtures/rules" / case / "m/1").iterdir()).read_bytes()


@dataclass(frozen=True)
class Input:
    """An input some rule reads: a repository that reads it, and a change of it.

    Paths are relative to the test's scratch folder; the repository is `models/`."""

    name: str
    files: dict[str, str | bytes | None]
    change: Callable[[Path], None]
    settings: Settings = field(default_factory=Settings)
    paths: tuple[str, ...] = ("models",)


PIPELINE_CASE = next(c for c in all_cases() if c.name == "fail_ensemble_step_float64")
PIPELINE: dict[str, str | bytes | None] = {
    **{f"models/{name}": data for name, data in PIPELINE_CASE.files or ()},
    **{f"models/{name}": None for name in PIPELINE_CASE.dirs},
}
BLS_CALLER = """import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            data = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
            result = pb_utils.InferenceRequest(
                model_name="callee",
                requested_output_names=["emb"],
                inputs=[pb_utils.Tensor("x", data)],
            ).exec()
            emb = pb_utils.get_output_tensor_by_name(result, "emb").as_numpy()
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("OUT", emb)]))
        return responses
"""
CALLEE_CONFIG = """backend: "python"
max_batch_size: 0
input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "emb" data_type: TYPE_FP32 dims: [ 4 ] } ]
"""
ENSEMBLE_OF_MISSING = """platform: "ensemble"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [ { model_name: "later" model_version: -1
  input_map { key: "IN" value: "IN" } output_map { key: "OUT" value: "OUT" } } ] }
"""
STATE_CONFIG = """backend: "python"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
sequence_batching {
  max_sequence_idle_microseconds: 5000000
  state [ { input_name: "S" output_name: "S_OUT" data_type: TYPE_FP32 dims: [ 4 ]
            initial_state [ { name: "init" data_type: TYPE_FP32 dims: [ 4 ]
                              data_file: "init.bin" } ] } ]
}
"""
WARMUP = (
    'model_warmup [ { name: "w" batch_size: 1 inputs { key: "IN" value: { data_type: '
    'TYPE_FP32 dims: [ 4 ] input_data_file: "in.bin" } } } ]\n'
)
LABELS = PYTHON_CONFIG.replace(
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]',
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] label_filename: "%s" } ]',
)

INPUTS = [
    Input(
        "the model's config file",
        {"models/m/config.pbtxt": PYTHON_CONFIG, "models/m/1/model.py": python_model()},
        replace("models/m/config.pbtxt", "max_batch_size: 0", "max_batch_size: -5"),
    ),
    Input(
        "the config variant --model-config-name selects",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG,
            "models/m/configs/small.pbtxt": PYTHON_CONFIG,
            "models/m/1/model.py": python_model(),
        },
        replace("models/m/configs/small.pbtxt", "max_batch_size: 0", "max_batch_size: -5"),
        Settings(model_config_name="small"),
    ),
    Input(
        "an explicit config file named on the command line (JSON)",
        {
            "models/m/model.json": json.dumps({"backend": "python", "max_batch_size": 0}),
            "models/m/1/model.py": python_model(),
        },
        rewrite("models/m/model.json", json.dumps({"backend": "python", "max_batch_size": -5})),
        paths=("models/m/model.json",),
    ),
    Input(
        "a version's model file (model.py)",
        {"models/m/config.pbtxt": PYTHON_CONFIG, "models/m/1/model.py": python_model()},
        rewrite("models/m/1/model.py", python_model("not_installed_anywhere")),
    ),
    Input(
        "a local module at any depth (1/pkg/sub/mod.py)",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG,
            "models/m/1/model.py": python_model("pkg.sub.mod"),
            "models/m/1/pkg/__init__.py": "",
            "models/m/1/pkg/sub/__init__.py": "",
            "models/m/1/pkg/sub/mod.py": "import json\n",
        },
        rewrite("models/m/1/pkg/sub/mod.py", "import not_installed_anywhere\n"),
    ),
    Input(
        "a model file linked from another entry of the repository",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG,
            "models/shared/model.py": python_model(),
        },
        rewrite("models/shared/model.py", python_model("not_installed_anywhere")),
    ),
    Input(
        "an environment archive in the model folder (EXECUTION_ENV_PATH)",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG
            + ENV_PARAMETER % "$$TRITON_MODEL_DIRECTORY/env.tar.gz",
            "models/m/env.tar.gz": environment("numpy", "tokenizers"),
            "models/m/1/model.py": python_model("tokenizers"),
        },
        rewrite("models/m/env.tar.gz", environment("numpy")),
    ),
    Input(
        "an environment archive elsewhere in the repository (EXECUTION_ENV_PATH)",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG
            + ENV_PARAMETER % "$$TRITON_MODEL_DIRECTORY/../m_env.tar.gz",
            "models/m_env.tar.gz": environment("numpy", "tokenizers"),
            "models/m/1/model.py": python_model("tokenizers"),
        },
        rewrite("models/m_env.tar.gz", environment("numpy")),
    ),
    Input(
        "the file --python-packages names (outside the repository)",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG,
            "models/m/1/model.py": python_model("tokenizers"),
            "requirements.txt": "numpy==1.26.4\ntokenizers==0.19.1\n",
        },
        rewrite("requirements.txt", "numpy==1.26.4\n"),
        Settings(python_packages=Path("requirements.txt")),
    ),
    Input(
        "a label file in the model folder",
        {
            "models/m/config.pbtxt": LABELS % "labels.txt",
            "models/m/1/model.py": python_model(),
            "models/m/labels.txt": "a\nb\nc\nd\n",
        },
        rewrite("models/m/labels.txt", "a\nb\n"),
    ),
    Input(
        "a warmup data file",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG + WARMUP,
            "models/m/1/model.py": python_model(),
            "models/m/warmup/in.bin": bytes(16),
        },
        rewrite("models/m/warmup/in.bin", bytes(8)),
    ),
    Input(
        "an initial-state data file",
        {
            "models/m/config.pbtxt": STATE_CONFIG,
            "models/m/1/model.py": python_model(),
            "models/m/initial_state/init.bin": bytes(16),
        },
        rewrite("models/m/initial_state/init.bin", bytes(8)),
    ),
    Input(
        "a Python backend stub in the model folder",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG,
            "models/m/1/model.py": python_model(),
            "models/m/triton_python_backend_stub": (
                ROOT / "tests/fixtures/rules/PL684/pass_x86_64_stub/m/triton_python_backend_stub"
            ).read_bytes(),
        },
        rewrite(
            "models/m/triton_python_backend_stub",
            (
                ROOT / "tests/fixtures/rules/PL684/fail_arm32/m/triton_python_backend_stub"
            ).read_bytes(),
        ),
    ),
    Input(
        "a composing model of an ensemble",
        PIPELINE,
        replace("models/net/config.pbtxt", "TYPE_FP32 dims: [ 8 ]", "TYPE_FP64 dims: [ 8 ]"),
    ),
    Input(
        "the ensemble that uses a model (its other steps)",
        PIPELINE,
        replace("models/pipeline/config.pbtxt", 'model_name: "net"', 'model_name: "pre"'),
    ),
    Input(
        "a model a Python model calls (BLS)",
        {
            "models/m/config.pbtxt": PYTHON_CONFIG,
            "models/m/1/model.py": BLS_CALLER,
            "models/callee/config.pbtxt": CALLEE_CONFIG,
            "models/callee/1/model.py": python_model(),
        },
        replace("models/callee/config.pbtxt", 'name: "emb"', 'name: "embedding"'),
    ),
    Input(
        "vLLM's engine arguments (1/model.json)",
        {
            "models/v/config.pbtxt": VLLM_CONFIG,
            "models/v/1/model.json": '{"model": "facebook/opt-125m"}',
        },
        rewrite("models/v/1/model.json", '{"model": "facebook/opt-125m", "gpu_memory": 1}'),
    ),
    Input(
        "vLLM's LoRA adapters (1/multi_lora.json)",
        {
            "models/v/config.pbtxt": VLLM_CONFIG + VLLM_LORA,
            "models/v/1/model.json": '{"model": "facebook/opt-125m", "enable_lora": true}',
            "models/v/1/multi_lora.json": '{"alpaca": "/loras/alpaca"}',
        },
        rewrite("models/v/1/multi_lora.json", '["alpaca"]'),
    ),
    Input(
        "the ONNX graph the batch axis is read from (PL900, PL608)",
        fixture_files("PL900/fail_roi_head"),
        rewrite("models/m/1/model.onnx", fixture_bytes("PL900/pass_batch_named_per_input")),
    ),
    Input(
        "the ONNX graph of an ensemble's step (its batch axis)",
        {
            **fixture_files("PL900/fail_roi_head"),
            "models/e/config.pbtxt": ROI_ENSEMBLE,
            "models/e/1": None,
        },
        rewrite("models/m/1/model.onnx", fixture_bytes("PL900/pass_batch_named_per_input")),
    ),
    Input(
        "a TorchScript archive's forward (PL863)",
        fixture_files("PL863/pass_keys_are_config_names"),
        rewrite("models/m/1/model.pt", fixture_bytes("PL863/fail_dict_of_string_lists")),
    ),
    Input(
        "a model that appears under a name a step gives",
        {"models/e/config.pbtxt": ENSEMBLE_OF_MISSING, "models/e/1/.keep": ""},
        rewrite("models/later/config.pbtxt", PYTHON_CONFIG),
    ),
]


@pytest.mark.parametrize("case", INPUTS, ids=lambda case: case.name)
def test_warm_equals_cold_after_each_input_changes(
    case: Input, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scratch = tmp_path / "scratch"
    write(scratch, case.files)
    if case.name.startswith("a model file linked"):
        (scratch / "models/m/1").mkdir(parents=True)
        (scratch / "models/m/1/model.py").symlink_to("../../shared/model.py")
    if case.name.startswith("a model that appears"):
        (scratch / "models/later/1").mkdir(parents=True)  # made now, filled by the change
        (scratch / "models/later/1/model.py").write_text(python_model())
        shutil.move(scratch / "models/later", tmp_path / "later")
    paths = [scratch / p for p in case.paths]
    cache = tmp_path / "cache"
    monkeypatch.chdir(scratch)  # --python-packages is relative to the working folder
    before = check_same(paths, case.settings, cache)
    assert before.cached == before.models
    if case.name.startswith("a model that appears"):
        shutil.move(tmp_path / "later", scratch / "models/later")
    case.change(scratch)
    cold = lint(paths, case.settings, jobs=1)
    assert everything(cold) != everything(before), "the change must change what a run reports"
    warm = lint(paths, case.settings, jobs=1, cache_dir=cache)
    assert everything(warm) == everything(cold)


def test_a_model_file_change_is_seen(tmp_path: Path) -> None:
    case = next(c for c in all_cases() if c.code == "PL601" and not c.should_fail)
    root = tmp_path / "case"
    shutil.copytree(materialize(case, tmp_path / "scratch"), root)  # never the fixture itself
    cache = tmp_path / "cache"
    check_same([root], Settings(), cache)
    model_file = next(p for p in root.rglob("*") if p.is_file() and p.parent.name == "1")
    model_file.write_bytes(b"")
    check_same([root], Settings(), cache)
    os.utime(model_file, ns=(1, 1))
    check_same([root], Settings(), cache)


def test_workers_fill_the_cache_like_one_process(tmp_path: Path) -> None:
    root = tmp_path / "models"
    for index in range(60):
        (root / f"m{index:02d}" / "1").mkdir(parents=True)
        (root / f"m{index:02d}" / "config.pbtxt").write_text(
            'backend: "python"\nmax_batch_size: 4\n'
            'input [ { name: "x" data_type: TYPE_FP32 dims: [ -1, 3 ] } ]\n'
        )
    cold = lint([root], Settings(config_only=True), jobs=1)
    lint([root], Settings(config_only=True), jobs=2, cache_dir=tmp_path / "cache")
    warm = lint([root], Settings(config_only=True), jobs=2, cache_dir=tmp_path / "cache")
    assert warm.cached == 60
    assert everything(warm) == everything(cold)


def test_entries_of_removed_models_are_dropped(repository: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    shutil.rmtree(repository / "postprocess")
    check_same([repository], Settings(), cache)
    assert "postprocess" not in body(cache)["entries"]


def test_a_differential_corpus_is_the_same_warm(tmp_path: Path) -> None:
    import differential

    groups = differential.random_groups(5, 80) + differential.mutation_groups(5, 1)[:120]
    for number, batch in enumerate(differential.pack(groups, 100)):
        root = tmp_path / f"r{number}"
        differential.write_repository(root, batch)
        for settings in (Settings(), Settings(auto_complete=False, config_only=True)):
            check_same([root], settings, tmp_path / "cache")


# ---------------------------------------------------------------------------- the folder


def test_the_command_line_caches_in_the_users_cache_folder(
    repository: Path, user_folders: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from pbtxt_lint.cli import cli

    monkeypatch.chdir(repository)
    monkeypatch.delenv("PBTXT_LINT_NO_CACHE", raising=False)
    before = tree(repository)
    runner = CliRunner()
    first = runner.invoke(cli, ["check", ".", "--format", "json"])
    second = runner.invoke(cli, ["check", ".", "--format", "json"])
    assert second.stdout == first.stdout and second.exit_code == first.exit_code
    assert tree(repository) == before  # nothing written in the repository
    assert default_directory() == user_folders / "cache" / "pbtxt-lint"
    assert len(list((user_folders / "cache" / "pbtxt-lint").glob("*.json"))) == 1
    assert key_path() == user_folders / "state" / "pbtxt-lint" / "cache-key"
    assert (user_folders / "state" / "pbtxt-lint" / "cache-key").stat().st_mode & 0o777 == 0o600
    none = user_folders.parent / "none"
    none.mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(none))
    runner.invoke(cli, ["check", ".", "--no-cache"])
    assert list(none.iterdir()) == []


def test_two_runs_inside_the_bundled_examples_leave_nothing_there(user_folders: Path) -> None:
    """The acceptance case of issue 24, as a user runs it (a process, the default cache)."""
    before = tree(EXAMPLES)
    env = {k: v for k, v in os.environ.items() if k != "PBTXT_LINT_NO_CACHE"}
    command = [sys.executable, "-m", "pbtxt_lint", "check", "--format", "json"]
    runs = [
        subprocess.run(command, cwd=EXAMPLES, env=env, capture_output=True, timeout=120)
        for _ in range(2)
    ]
    assert runs[0].stdout == runs[1].stdout and b'"code"' in runs[0].stdout
    assert runs[0].returncode == runs[1].returncode == 1
    assert tree(EXAMPLES) == before
    assert list((user_folders / "cache" / "pbtxt-lint").glob("*.json"))


def test_a_cache_folder_inside_a_checked_repository_is_refused(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from pbtxt_lint.cli import cli

    monkeypatch.delenv("PBTXT_LINT_NO_CACHE", raising=False)
    before = tree(repository)
    runner = CliRunner()
    flag = runner.invoke(cli, ["check", str(repository), "--cache-dir", str(repository / "c")])
    monkeypatch.setenv("PBTXT_LINT_CACHE_DIR", str(repository / "resnet50" / "c"))
    variable = runner.invoke(cli, ["check", str(repository / "resnet50")])
    for result in (flag, variable):
        assert result.exit_code == 2
        (line,) = result.stderr.splitlines()
        assert "inside the model repository" in line and "Triton" in line
    assert tree(repository) == before
    with pytest.raises(CacheError):
        lint([repository], Settings(), cache_dir=repository)


@pytest.mark.parametrize("variable", ["XDG_CACHE_HOME", "XDG_STATE_HOME"])
def test_user_folders_inside_the_checked_repository_mean_no_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    """The user's cache folder or the key's folder inside the checked repository (a CI
    job whose home is its working folder): no cache, and nothing written there."""
    root = tmp_path / "models"
    write(root, {"m/config.pbtxt": PYTHON_CONFIG, "m/1/model.py": python_model()})
    monkeypatch.setenv(variable, str(root / ".user"))
    before = tree(root)
    cold = everything(lint([root], Settings()))
    for _ in range(2):
        result = pbtxt_lint.check([root], CheckOptions(cache=True))
        assert result.cached == 0 and everything(result) == cold
    assert tree(root) == before


@pytest.mark.parametrize("kind", ["foreign", "link", "open-to-others"])
def test_a_hostile_cache_dir_is_refused_and_left_alone(
    tmp_path: Path, repository: Path, kind: str
) -> None:
    """A folder of the user's own files, a link to one, a folder others can write."""
    own = tmp_path / "own"
    own.mkdir()
    for index in range(100):
        (own / f"{index:02d}.json").write_text("{}")
    target = own
    if kind == "link":
        target = tmp_path / "link"
        target.symlink_to(own)
    elif kind == "open-to-others":
        target = tmp_path / "open"
        target.mkdir()
        target.chmod(0o777)
    before = tree(tmp_path / "own"), tree(target) if not target.is_symlink() else {}
    with pytest.raises(CacheError) as refused:
        lint([repository], Settings(), jobs=1, cache_dir=target)
    assert "\n" not in str(refused.value)
    assert (tree(tmp_path / "own"), tree(target) if not target.is_symlink() else {}) == before


def test_an_empty_folder_becomes_a_cache(repository: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir(mode=0o700)
    check_same([repository], Settings(), empty)
    assert (empty / "CACHEDIR.TAG").exists()


def test_a_repository_shipping_a_cache_link_is_left_alone(
    repository: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An old default cache folder that is a link out of the repository: pbtxt-lint
    reports it (Triton loads it as a model) and never writes or deletes through it."""
    victim = tmp_path / "victim"
    victim.mkdir()
    for index in range(80):
        (victim / f"{index:02d}.json").write_text("{}")
    (repository / ".pbtxt_lint_cache").symlink_to(victim)
    monkeypatch.chdir(repository)
    monkeypatch.delenv("PBTXT_LINT_NO_CACHE", raising=False)
    before = tree(victim), tree(repository)
    for _ in range(2):
        pbtxt_lint.check([Path(".")], CheckOptions(cache=True))
    assert (tree(victim), tree(repository)) == before


def test_an_old_cache_folder_in_a_repository_is_named_in_the_finding(repository: Path) -> None:
    (repository / ".pbtxt_lint_cache").mkdir()
    (repository / ".pbtxt_lint_cache" / "0123.json").write_text("{}")
    found = [d for d in lint([repository], Settings()).diagnostics if d.code == "PL101"]
    (old,) = [d for d in found if d.model == ".pbtxt_lint_cache"]
    assert "pbtxt-lint's own result cache" in (old.hint or "")


def cache_file(cache: Path) -> Path:
    (stored,) = cache.glob("*.json")
    return stored


def test_links_inside_the_cache_folder_are_never_followed(repository: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    stored = cache_file(cache)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "kept.json").write_text("mine")
    stored.unlink()
    stored.symlink_to(outside / "created-by-the-link.json")  # a dangling link
    tag = cache / "CACHEDIR.TAG"
    result = lint([repository], Settings(), jobs=1, cache_dir=cache)
    assert result.cached == 0
    assert sorted(p.name for p in outside.iterdir()) == ["kept.json"]
    assert not stored.is_symlink()  # replaced by a file of its own, the link untouched
    tag.unlink()
    tag.symlink_to(outside / "kept.json")  # a tag that is a link: not a pbtxt-lint cache
    with pytest.raises(CacheError):
        lint([repository], Settings(), jobs=1, cache_dir=cache)
    assert (outside / "kept.json").read_text() == "mine"


def test_a_fifo_in_the_cache_folder_is_a_miss_not_a_hang(repository: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    stored = cache_file(cache)
    stored.unlink()
    os.mkfifo(stored)
    env = {**os.environ, "PBTXT_LINT_NO_CACHE": ""}
    command = [sys.executable, "-m", "pbtxt_lint", "check", str(repository), "--cache-dir"]
    run = subprocess.run([*command, str(cache)], env=env, capture_output=True, timeout=120)
    assert run.returncode == 1, run.stderr
    assert b"internal error" not in run.stderr
    assert not stored.exists() or not stored.is_fifo()


def body(cache: Path) -> dict[str, Any]:
    """The JSON body of the (one) cache file."""
    _, _, rest = cache_file(cache).read_bytes().partition(b"\n")
    return json.loads(rest.partition(b"\n")[2])  # type: ignore[no-any-return]


def seal(cache: Path, text: bytes, key: bytes | None = None) -> None:
    """Replace the cache file's body with `text`, sealed with `key` (None: the user's own,
    as if stolen)."""
    if key is None:
        key = key_path().read_bytes()  # type: ignore[union-attr]
    folder = CacheFolder(os.open(cache, os.O_RDONLY | os.O_DIRECTORY), key)
    try:
        cache_file(cache).write_bytes(folder.seal(text))
    finally:
        folder.close()


def test_an_edited_cache_file_is_never_believed(repository: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = check_same([repository], Settings(), cache)
    assert cold.diagnostics
    stored = cache_file(cache)
    original = stored.read_bytes()
    for damage in (
        original[: len(original) // 2],  # truncated (a killed run)
        original.replace(b'"severity":"error"', b'"severity":"info"'),  # edited
        b"not a cache file at all",
    ):
        stored.write_bytes(damage)
        again = lint([repository], Settings(), jobs=1, cache_dir=cache)
        assert again.cached == 0
        assert everything(again) == everything(cold)
    # Edited, and sealed again without the user's key (the checksum "recomputed").
    stored.write_bytes(original)
    document = body(cache)
    for entry in document["entries"].values():
        entry["outcome"]["diagnostics"] = []
    seal(cache, json.dumps(document).encode(), key=b"x" * 32)
    again = lint([repository], Settings(), jobs=1, cache_dir=cache)
    assert again.cached == 0 and everything(again) == everything(cold)


def test_a_sealed_file_of_a_hostile_shape_is_a_miss(repository: Path, tmp_path: Path) -> None:
    """Even sealed with the user's key (stolen), a body nested too deep or of another
    shape is a miss, never an internal error."""
    cache = tmp_path / "cache"
    cold = check_same([repository], Settings(), cache)
    document = body(cache)
    for entry in document["entries"].values():
        entry["outcome"] = {"diagnostics": 5}
    for text in (
        b"[" * 200_000 + b"]" * 200_000,
        b'{"context": 1}',
        b"[]",
        json.dumps(document).encode(),
    ):
        seal(cache, text)
        again = lint([repository], Settings(), jobs=1, cache_dir=cache)
        assert again.cached == 0 and everything(again) == everything(cold)


FIXABLE = next(
    c for c in all_cases() if c.code == "PL002" and c.name == "fail_typo_and_wrong_block"
)


def test_fixes_are_recomputed_never_replayed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kept fix that names another file (an entry forged with a stolen key): `--fix`
    lints the model again and writes only the fixes it computes."""
    from click.testing import CliRunner

    from pbtxt_lint.cli import cli

    root = tmp_path / "case"
    shutil.copytree(materialize(FIXABLE, tmp_path / "scratch"), root)
    cache = tmp_path / "cache"
    first = lint([root], Settings(), jobs=1, cache_dir=cache)
    assert any(d.fix is not None for d in first.diagnostics), "the case must have a fix"
    victim = tmp_path / "victim.txt"
    victim.write_text("do not touch\n")

    def redirect(document: dict[str, Any]) -> None:
        for entry in document["entries"].values():
            for diagnostic in entry["outcome"]["diagnostics"]:
                if diagnostic["fix"] is not None:
                    diagnostic["path"] = str(victim)
                    diagnostic["fix"][2] = [[0, 2, "owned"]]

    document = body(cache)
    redirect(document)
    seal(cache, json.dumps(document).encode())
    monkeypatch.delenv("PBTXT_LINT_NO_CACHE", raising=False)
    runner = CliRunner()
    runner.invoke(cli, ["check", str(root), "--diff", "--cache-dir", str(cache)])
    runner.invoke(cli, ["check", str(root), "--fix", "--cache-dir", str(cache)])
    assert victim.read_text() == "do not touch\n"


def test_a_key_others_can_read_is_not_trusted(
    repository: Path, tmp_path: Path, user_folders: Path
) -> None:
    cache = tmp_path / "cache"
    check_same([repository], Settings(), cache)
    key = user_folders / "state" / "pbtxt-lint" / "cache-key"
    key.chmod(0o644)
    assert CacheFolder.open(cache) is None
    assert lint([repository], Settings(), jobs=1, cache_dir=cache).cached == 0


def test_only_its_own_files_are_pruned(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for index in range(MAX_FILES + 5):
        root = tmp_path / f"r{index}"
        (root / "m" / "1").mkdir(parents=True)
        (root / "m" / "config.pbtxt").write_text('backend: "python"\n')
        lint([root], Settings(config_only=True), jobs=1, cache_dir=cache)
        if index == 0:
            (cache / "notes.json").write_text("the user's")
            (cache / ("f" * 32 + ".json")).symlink_to(tmp_path / "r0" / "m" / "config.pbtxt")
    names = {p.name for p in cache.iterdir()}
    assert len([n for n in names if len(n) == 37 and not (cache / n).is_symlink()]) == MAX_FILES
    assert {"notes.json", "f" * 32 + ".json", "CACHEDIR.TAG"} <= names
    assert (tmp_path / "r0" / "m" / "config.pbtxt").read_text() == 'backend: "python"\n'


def test_an_unwritable_cache_folder_does_not_fail_the_run(repository: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be")
    result = lint([repository], Settings(), jobs=1, cache_dir=blocker / "cache")
    assert everything(result) == everything(lint([repository], Settings(), jobs=1))


def test_a_name_that_is_a_path_is_never_looked_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A BLS call to model `../outside` records no dependency on a folder beside the
    repository: keys never look outside it."""
    root = tmp_path / "models"
    write(root, {
        "m/config.pbtxt": PYTHON_CONFIG,
        "m/1/model.py": BLS_CALLER.replace('"callee"', '"../outside"'),
    })  # fmt: skip
    (tmp_path / "outside").mkdir()
    keyed: list[str] = []
    real = keys_module.folder_key

    def recording(path: str, repository_root: str) -> str | None:
        keyed.append(os.path.abspath(path))
        return real(path, repository_root)

    monkeypatch.setattr(keys_module, "folder_key", recording)
    check_same([root], Settings(), tmp_path / "cache")
    assert keyed and all(path.startswith(str(root) + os.sep) for path in keyed)
