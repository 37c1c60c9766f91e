"""A repository in an S3-compatible bucket whose endpoint lies (issue 24): each run ends
within a stated bound of time and memory, with a clear diagnostic and exit code.

The endpoint is tests/lying_s3.py on 127.0.0.1 in a thread of this process; pbtxt-lint
runs in an audited child (tests/audited.py) for its peak memory and its traceback-free
stderr. The bounds are storage.bounded's, lowered through the environment where the
real ones would make a test wait a minute: a run that does not end within the child's
timeout fails the test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from audited import PYTHON_MODEL, Run, run_audited
from lying_s3 import serving

pytest.importorskip("s3fs")

SECRET = "wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"
ENV = {
    "AWS_ACCESS_KEY_ID": "AKIAIOSFODNN7EXAMPLE",
    "AWS_SECRET_ACCESS_KEY": SECRET,
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_CONFIG_FILE": os.devnull,
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "PBTXT_LINT_NO_CACHE": "1",
}
TENSORS = (
    'input [ { name: "IN" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
    'output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 1 ] } ]\n'
)


@pytest.fixture
def bucket(tmp_path: Path) -> Path:
    """`bucket/models/`: a Python model, and an ONNX model of 4 MiB (read by ranges)."""
    from onnx_builders import write_big_embedded

    models = tmp_path / "root" / "bucket" / "models"
    (models / "m" / "1").mkdir(parents=True)
    (models / "m" / "config.pbtxt").write_text(f'backend: "python"\nmax_batch_size: 0\n{TENSORS}')
    (models / "m" / "1" / "model.py").write_text(PYTHON_MODEL)
    (models / "big" / "1").mkdir(parents=True)
    (models / "big" / "config.pbtxt").write_text('platform: "onnxruntime_onnx"\n')
    write_big_embedded(models / "big" / "1" / "model.onnx", [4 << 20])
    return tmp_path / "root"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def lint(work: Path, url: str, monkeypatch: pytest.MonkeyPatch, **env: str) -> Run:
    for name, value in {**ENV, **env}.items():
        monkeypatch.setenv(name, value)
    return run_audited(work, "check", url, timeout=60)


def assert_bounded(run: Run, exit_code: int, max_mb: float = 250) -> None:
    assert run.returncode == exit_code, run.stderr[-3000:]
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    assert SECRET not in run.stdout + run.stderr
    assert run.rss_mb < max_mb, f"{run.rss_mb:.0f} MB"


@pytest.fixture
def lying(bucket: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    mode, delay = request.param if isinstance(request.param, tuple) else (request.param, 0)
    with serving(bucket, mode, delay) as server:
        yield f"s3://{server.endpoint}/bucket/models"


@pytest.mark.parametrize("lying", ["endless-listing", "one-per-page"], indirect=True)
def test_a_listing_that_never_ends_is_cut(
    lying: str, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every page says more follow: the listing looped forever while memory grew (650 MB
    at 90 s)."""
    run = lint(work, lying, monkeypatch, PBTXT_LINT_REMOTE_MAX_PAGES="20")
    assert_bounded(run, 2)
    assert "the listing went on for 21 pages" in run.stderr
    assert "nothing checked" in run.stderr


@pytest.mark.parametrize("lying", ["ignore-range"], indirect=True)
def test_an_answer_that_ignores_the_range_is_refused(
    lying: str, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = lint(work, lying, monkeypatch)
    assert_bounded(run, 2)
    assert "ignored the Range header" in run.stderr
    assert "the run is incomplete" in run.stderr


@pytest.mark.parametrize("lying", ["endless-body"], indirect=True)
def test_an_endless_body_is_read_no_further_than_asked(
    lying: str, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that ignores Range and streams without end took 3.9 GB in 4 s."""
    run = lint(work, lying, monkeypatch)
    assert_bounded(run, 1, max_mb=150)  # the zeros it sends are no config: PL017
    assert "PL017" in run.stdout


@pytest.mark.parametrize("lying", [("slow", 600)], indirect=True)
def test_an_endpoint_that_never_answers_ends_the_run_within_its_deadline(
    lying: str, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Accepted and never answered: each request waited for the client library's read
    timeout, again for each retry and each request."""
    run = lint(work, lying, monkeypatch, PBTXT_LINT_REMOTE_TIMEOUT="2")
    assert_bounded(run, 2)
    assert "no answer within 4 s" in run.stderr  # a listing's deadline is two requests'


@pytest.mark.parametrize("lying", ["honest"], indirect=True)
def test_an_integer_of_any_length_in_a_bucket_is_a_finding(
    lying: str, bucket: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It was 'no problems found' and exit 0: the parse failed in the prefetch thread."""
    config = bucket / "bucket" / "models" / "m" / "config.pbtxt"
    config.write_text(f'backend: "python"\nmax_batch_size: {"9" * 5000}\n{TENSORS}')
    run = lint(work, lying, monkeypatch)
    assert_bounded(run, 1)
    assert "PL008" in run.stdout


@pytest.mark.parametrize("lying", ["honest"], indirect=True)
def test_credentials_in_a_url_are_never_printed(
    lying: str, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = lying.replace("s3://", f"s3://AKIAIOSFODNN7EXAMPLE:{SECRET}@")
    run = lint(work, url, monkeypatch)
    assert_bounded(run, 2)
    assert "s3://***@127.0.0.1:" in run.stderr
    assert "AKIAIOSFODNN7EXAMPLE" not in run.stderr
