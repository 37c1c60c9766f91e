"""Hostile repositories: pbtxt-lint answers with diagnostics, and touches nothing else.

Each case builds a repository with something a careless or malicious repository can
hold (symlink loops, links out of the repository, unreadable files and folders, a FIFO,
a zip bomb, an XML entity bomb, ONNX external data pointing at /etc/passwd, a model.py
with side effects, configs that are folders, garbage, empty or hold a NUL byte) and
runs ``pbtxt-lint check --format json`` on it in a child process that records, through
``sys.addaudithook``, every file it opens, every folder it lists and anything it writes,
spawns or executes. For every case:

* the run ends within its time limit with exit code 0 or 1 (never 2: no internal
  error), no traceback, JSON on stdout, and bounded memory;
* every path opened or listed is inside the repository or Python's (and pbtxt-lint's)
  own installation, or is a configuration file pbtxt-lint looks for in the folders
  above the repository (``pyproject.toml``, ``.pbtxt-lint.toml``);
* nothing is written, created, removed, spawned or executed;
* the expected diagnostic is there (or none, where Triton accepts the repository).

We run as root in CI, where ``chmod 000`` does not stop reads. The child is then started
through ``setpriv`` without the capabilities that bypass file permissions
(CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so unreadable files really are unreadable.
"""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest
from audited import (
    IO,
    PERMISSIONS_ENFORCED,
    PYTHON_CONFIG,
    PYTHON_MODEL,
    Run,
    assert_well_behaved,
    model,
    run_lint,
)
from onnx_builders import set_external_location, write_external_data
from oracle import fetch_error, find_tritonserver


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """An empty repository, with a folder beside it (``outside``) holding a valid model."""
    root = tmp_path / "repo"
    root.mkdir()
    model(tmp_path / "outside", "secret")
    return root


# --------------------------------------------------------------------------- symlinks


def test_model_folder_linking_to_itself(repo: Path) -> None:
    model(repo)
    (repo / "loop").symlink_to("loop")
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    assert run.codes("loop") == {"PL115"}
    assert run.codes("m") <= {"PL219"}  # the good model is still checked


def test_links_to_the_parent_folder(repo: Path) -> None:
    folder = model(repo)
    (repo / "up").symlink_to(".")  # a "model" that is the repository itself
    (folder / "1" / "back").symlink_to("..")  # a version folder linking to its model
    (folder / "2").symlink_to("2")  # and a self-looping version folder
    run = run_lint(repo, "--disable-auto-complete-config", timeout=60)
    assert_well_behaved(run, repo)
    assert "PL102" in run.codes("up")  # Triton also loads it as a model, without a config


def test_links_out_of_the_repository_are_not_followed(repo: Path) -> None:
    outside = repo.parent / "outside"
    (repo / "ext").symlink_to(outside / "secret")
    folder = model(repo, config=None)
    (folder / "config.pbtxt").symlink_to(outside / "secret" / "config.pbtxt")
    onnx_model = model(repo, "onnx", 'platform: "onnxruntime_onnx"\n' + IO)
    (onnx_model / "1" / "model.onnx").symlink_to(outside / "secret" / "1" / "model.py")
    (repo / "abs").symlink_to("/etc")
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    assert "PL115" in run.codes("ext") and "PL115" in run.codes("abs")
    assert run.codes("m") == {"PL013"}
    assert "outside the repository" in run.messages("PL013")
    assert any("outside the repository" in str(d["message"]) for d in run.diagnostics
               if d["model"] == "onnx")  # fmt: skip


# --------------------------------------------------------------------------- permissions


def test_unreadable_config(repo: Path) -> None:
    folder = model(repo)
    (folder / "config.pbtxt").chmod(0)
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    if PERMISSIONS_ENFORCED:  # as root without setpriv the file stays readable
        assert run.codes("m") == {"PL013"}
        assert "Permission denied" in run.messages("PL013")


def test_unreadable_model_folder(repo: Path) -> None:
    model(repo, "locked").chmod(0)
    model(repo)
    try:
        run = run_lint(repo, "--disable-auto-complete-config")
    finally:
        (repo / "locked").chmod(0o755)
    assert_well_behaved(run, repo)
    if PERMISSIONS_ENFORCED:
        assert run.codes("locked") == {"PL115"}
    assert run.codes("m") <= {"PL219"}


def test_unreadable_version_folder(repo: Path) -> None:
    folder = model(repo, config='platform: "onnxruntime_onnx"\n' + IO)
    (folder / "1" / "model.onnx").write_bytes(b"")
    (folder / "1").chmod(0)
    try:
        run = run_lint(repo, "--disable-auto-complete-config")
    finally:
        (folder / "1").chmod(0o755)
    assert_well_behaved(run, repo)
    # Unreadable here need not mean unreadable for the server's user: a warning.
    assert "PL601" in run.codes("m")


# --------------------------------------------------------------------------- special files


def test_fifo_config_does_not_hang(repo: Path) -> None:
    folder = model(repo, config=None)
    os.mkfifo(folder / "config.pbtxt")
    run = run_lint(repo, "--disable-auto-complete-config", timeout=30)
    assert_well_behaved(run, repo)
    assert run.codes("m") == {"PL013"}


def test_fifo_model_file_is_not_opened(repo: Path) -> None:
    folder = model(repo, config='platform: "onnxruntime_onnx"\n' + IO)
    os.mkfifo(folder / "1" / "model.onnx")
    run = run_lint(repo, "--disable-auto-complete-config", timeout=30)
    assert_well_behaved(run, repo)
    assert "PL601" in run.codes("m")


def test_config_that_is_a_folder(repo: Path) -> None:
    folder = model(repo, config=None)
    (folder / "config.pbtxt").mkdir()
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    assert "PL013" in run.codes("m") and "folder" in run.messages("PL013")
    assert run.codes("m") <= {"PL013", "PL108"}  # Triton ignores it as a version folder


# --------------------------------------------------------------------------- bombs


def test_zip_bomb_as_torchscript_model(repo: Path) -> None:
    folder = model(repo, config='platform: "pytorch_libtorch"\n' + IO)
    with (
        zipfile.ZipFile(folder / "1" / "model.pt", "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("archive/data/0", "w", force_zip64=True) as entry,
    ):
        chunk = bytes(1 << 20)
        for _ in range(512):  # 512 MiB of zeros, about 0.5 MiB compressed
            entry.write(chunk)
    assert (folder / "1" / "model.pt").stat().st_size < 2 << 20
    run = run_lint(repo, "--disable-auto-complete-config", timeout=60)
    assert_well_behaved(run, repo, max_mb=250)


def test_xml_entity_bomb_as_openvino_model(repo: Path) -> None:
    folder = model(repo, config='backend: "openvino"\n' + IO)
    entities = ['<!ENTITY e0 "lol">'] + [
        f'<!ENTITY e{i} "{f"&e{i - 1};" * 10}">' for i in range(1, 10)
    ]
    (folder / "1" / "model.xml").write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE net [\n' + "\n".join(entities) + "\n]>\n"
        '<net name="&e9;"><layers/></net>\n'
    )
    (folder / "1" / "model.bin").write_bytes(b"")
    run = run_lint(repo, "--disable-auto-complete-config", timeout=60)
    assert_well_behaved(run, repo, max_mb=250)


def test_onnx_external_data_pointing_at_etc_passwd(repo: Path) -> None:
    folder = model(
        repo,
        config='platform: "onnxruntime_onnx"\n'
        'input [ { name: "X" data_type: TYPE_FP32 dims: [ -1, 8 ] } ]\n'
        'output [ { name: "Y" data_type: TYPE_FP32 dims: [ -1, 8 ] } ]\n',
    )
    path = write_external_data(folder / "1" / "model.onnx")
    set_external_location(path, "../../etc/passwd")
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)  # /etc/passwd is never opened
    assert "PL604" in run.codes("m")
    assert "etc/passwd" in run.messages("PL604")


def test_model_py_is_never_executed(repo: Path) -> None:
    marker = repo.parent / "imported"
    folder = model(repo, config='backend: "python"\n')  # auto-complete would run model.py
    (folder / "1" / "model.py").write_text(
        f"open({str(marker)!r}, 'w').write('model.py ran')\n"
        "import os\nos.system('touch /tmp/pbtxt-lint-model-py-ran')\n" + PYTHON_MODEL
    )
    for args in ((), ("--disable-auto-complete-config",)):
        run = run_lint(repo, *args)
        assert_well_behaved(run, repo)  # no exec, compile, spawn or write recorded either
        assert not marker.exists()
        model_py = str(folder / "1" / "model.py")
        assert not [e for e in run.events if e[0] in ("exec", "compile") and e[1] == model_py]


# --------------------------------------------------------------------------- config bytes


HOSTILE_CONFIGS: dict[str, bytes] = {
    "binary garbage": bytes(range(256)) * 8,
    "empty": b"",
    "NUL byte": PYTHON_CONFIG.encode() + b"\x00\n",
    "NUL in a string": PYTHON_CONFIG.encode() + b'parameters { key: "a\x00" value { } }\n',
    "UTF-16": PYTHON_CONFIG.encode("utf-16"),
    "invalid UTF-8": PYTHON_CONFIG.encode() + b"# \xff\xfe\n",
}
TRITON_REJECTS = {"binary garbage", "NUL byte", "NUL in a string", "UTF-16"}
"""What tritonserver 2.51 does with each (checked by test_hostile_configs_are_tritons)."""


@pytest.mark.parametrize("case", HOSTILE_CONFIGS)
def test_hostile_config_bytes(repo: Path, case: str) -> None:
    model(repo, config=HOSTILE_CONFIGS[case])
    run = run_lint(repo, "--disable-auto-complete-config")
    assert_well_behaved(run, repo)
    errors = {str(d["code"]) for d in run.diagnostics if d["severity"] == "error"}
    assert bool(errors) == (case in TRITON_REJECTS), run.diagnostics
    assert run.returncode == (1 if errors else 0)


def test_hostile_configs_are_tritons(tmp_path: Path) -> None:
    server = find_tritonserver()
    if server is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"tritonserver could not be fetched: {fetch_error()}")
        pytest.skip(f"tritonserver could not be fetched: {fetch_error()}")
    names = {case: f"m{index}" for index, case in enumerate(HOSTILE_CONFIGS)}
    for case, name in names.items():
        model(tmp_path, name, HOSTILE_CONFIGS[case])
    verdicts = server.validate(tmp_path)
    rejected = {case for case, name in names.items() if verdicts[name].status == "rejected"}
    assert rejected == TRITON_REJECTS, verdicts


def test_the_harness_sees_reads_outside_the_repository(tmp_path: Path) -> None:
    """The audit trail is real: a read outside the repository is caught."""
    run = Run(0, '{"diagnostics": []}', "", [("open", "/etc/hostname", "r", 0, "/")], 1.0)
    with pytest.raises(AssertionError, match="outside the repository"):
        assert_well_behaved(run, tmp_path)
    written = Run(0, '{"diagnostics": []}', "", [("open", str(tmp_path / "x"), "w", 0, "/")], 1)
    with pytest.raises(AssertionError, match="wrote"):
        assert_well_behaved(written, tmp_path)


def test_sanity_the_child_is_really_audited(repo: Path) -> None:
    model(repo)
    run = run_lint(repo, "--disable-auto-complete-config")
    opened = {Path(str(e[1])).name for e in run.events if e[0] == "open"}
    assert "config.pbtxt" in opened and run.rss_mb > 0
    assert stat.S_ISDIR(os.stat(repo).st_mode)
