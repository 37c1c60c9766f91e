"""Model repositories in buckets, against real servers on 127.0.0.1 (tests/cloud_servers.py).

The bundled example repository uploaded to a bucket must give exactly the diagnostics of
the local run, paths aside, in every output format; failures of the service (missing
bucket or object, access denied, a server that stops) are diagnostics or repository
problems with the right exit code, never tracebacks, and never print a credential.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cloud_servers as servers
import pytest
from click.testing import CliRunner

from pbtxt_lint.storage import credentials, urls

EXAMPLE = servers.ROOT / "examples" / "model_repository"
FORMATS = ("text", "json", "sarif", "github", "gitlab")
needs = {
    "s3": importlib.util.find_spec("s3fs") and importlib.util.find_spec("moto"),
    "gs": importlib.util.find_spec("gcsfs")
    and shutil.which("gcp-storage-emulator", path=os.path.dirname(sys.executable)),
    "as": importlib.util.find_spec("adlfs"),
}


def _skip_unless(scheme: str) -> None:
    if not needs[scheme]:
        pytest.skip(f"the {scheme} extra or its test server is not installed (make demo)")


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PBTXT_LINT_NO_CACHE": "1", "NO_COLOR": "1", **env}
    command = [sys.executable, "-m", "pbtxt_lint", *args]
    return subprocess.run(command, env=full, cwd=cwd, capture_output=True, text=True, timeout=180)


@pytest.fixture(scope="module")
def s3() -> Iterator[servers.Server]:
    _skip_unless("s3")
    with servers.moto_server() as server:
        servers.upload_s3(server.endpoint, "bucket", "models", EXAMPLE)
        yield server


def _s3_url(server: servers.Server, rest: str = "bucket/models") -> str:
    return f"s3://127.0.0.1:{server.port}/{rest}"


def _local(tmp_path: Path, output_format: str) -> subprocess.CompletedProcess[str]:
    shutil.copytree(EXAMPLE, tmp_path / "model_repository", dirs_exist_ok=True)
    return run(["check", "--format", output_format, "model_repository"], {}, tmp_path)


def _normalized(output: str, url: str, output_format: str) -> object:
    """The report with the repository's URL (or local folder) taken out."""
    if output_format in ("text", "github"):
        escaped = url.replace("%", "%25").replace(":", "%3A").replace(",", "%2C")
        return (
            output.replace(escaped, "REPO").replace(url, "REPO").replace("model_repository", "REPO")
        )
    document = json.loads(output)
    if output_format == "json":
        document.pop("remote", None)
        for item in document["diagnostics"]:
            item["path"] = item["path"].replace(url, "REPO").replace("model_repository", "REPO")
        return document
    if output_format == "gitlab":  # fingerprints hash the path
        return [
            {**item, "fingerprint": None, "location": {**item["location"], "path": None}}
            for item in document
        ]
    results = document["runs"][0]["results"]
    return [
        (r["ruleId"], r["level"], r["message"]["text"], r["locations"][0]["physicalLocation"]
         .get("region"), r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
         .replace(url, "").replace("model_repository", ""))
        for r in results
    ]  # fmt: skip


@pytest.mark.parametrize("output_format", FORMATS)
def test_s3_repository_reports_what_the_local_run_reports(
    s3: servers.Server, tmp_path: Path, output_format: str
) -> None:
    url = _s3_url(s3)
    remote = run(["check", "--format", output_format, url], servers.S3_ENV, tmp_path)
    local = _local(tmp_path, output_format)
    assert remote.returncode == local.returncode == 1, remote.stderr
    assert remote.stderr == local.stderr == ""
    assert _normalized(remote.stdout, url, output_format) == _normalized(
        local.stdout, "model_repository", output_format
    )
    assert re.search(r"s3(:|%3A)//127.0.0.1", remote.stdout) or output_format == "gitlab"


def test_s3_one_model_and_one_config_file(s3: servers.Server, tmp_path: Path) -> None:
    for rest in ("bucket/models/text_encoder", "bucket/models/text_encoder/config.pbtxt"):
        done = run(["check", "--format", "json", _s3_url(s3, rest)], servers.S3_ENV, tmp_path)
        paths = {d["path"] for d in json.loads(done.stdout)["diagnostics"]}
        assert paths == {_s3_url(s3, "bucket/models/text_encoder/config.pbtxt")}, done.stderr
        assert done.returncode == 1


def test_verbose_and_json_say_what_was_read(s3: servers.Server, tmp_path: Path) -> None:
    done = run(["check", "-v", "--format", "json", _s3_url(s3)], servers.S3_ENV, tmp_path)
    remote = json.loads(done.stdout)["remote"][0]
    assert remote["service"] == "S3" and remote["requests"] > 0
    assert remote["bytes_read"] <= sum(p.stat().st_size for _, p in servers.files_of(EXAMPLE))
    assert re.search(r"S3, credentials from environment\): \d+ requests", done.stderr)


def test_missing_bucket_and_missing_object_are_path_problems(
    s3: servers.Server, tmp_path: Path
) -> None:
    bucket = run(["check", _s3_url(s3, "nobucket/models")], servers.S3_ENV, tmp_path)
    assert bucket.returncode == 2
    assert "bucket does not exist" in bucket.stderr and "nothing checked" in bucket.stderr
    missing = run(["check", _s3_url(s3, "bucket/models/nomodel")], servers.S3_ENV, tmp_path)
    assert missing.returncode == 2
    assert "nomodel does not exist; nothing checked" in missing.stderr
    assert "Traceback" not in bucket.stderr + missing.stderr


def test_access_denied_names_the_object_never_the_secret(tmp_path: Path) -> None:
    """moto with authentication on: an unknown key is refused (HTTP 403)."""
    _skip_unless("s3")
    os.environ.setdefault("MOTO_DUMMY", "1")
    with servers.moto_server(auth=True) as server:
        done = run(["check", _s3_url(server)], servers.S3_ENV, tmp_path)
    assert done.returncode == 2, done.stderr
    assert "S3 denied access to s3://127.0.0.1" in done.stderr
    assert "does not exist in our records" in done.stderr  # what the service said
    assert servers.S3_ENV["AWS_SECRET_ACCESS_KEY"] not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_server_stopping_mid_run(tmp_path: Path) -> None:
    """The repository and one model are read, then the server stops: that model is
    checked, the others are reported unreadable, and the run says it is incomplete."""
    _skip_unless("s3")
    from pbtxt_lint.cli import cli
    from pbtxt_lint.storage.remote import as_path
    from pbtxt_lint.storage.urls import store_of

    for key, value in servers.S3_ENV.items():
        os.environ.setdefault(key, value)
    with servers.moto_server() as server:
        servers.upload_s3(server.endpoint, "bucket", "models", EXAMPLE)
        url = _s3_url(server)
        root = as_path(url)
        assert isinstance(root, urls.ObjectPath)
        store = store_of(root)
        store.list(root)
        store.list_tree(root / "text_encoder")
        store.read_whole(root / "text_encoder" / "config.pbtxt")
    runner = CliRunner()
    done = runner.invoke(cli, ["check", "--no-cache", "--format", "json", url])
    assert done.exit_code == 2, done.output
    diagnostics = json.loads(done.stdout)["diagnostics"]
    by_model = {d["model"] for d in diagnostics if "cannot reach" not in d["message"]}
    assert "text_encoder" in by_model  # its own findings, read before the stop
    unreadable = [d for d in diagnostics if "cannot reach" in d["message"]]
    assert {d["model"] for d in unreadable} >= {"tokenizer", "postprocess", "resnet50"}
    assert "stopped answering" in done.stderr and "the run is incomplete" in done.stderr


def test_large_model_is_read_by_ranges(s3: servers.Server, tmp_path: Path) -> None:
    """A 24 MiB ONNX model: the checks read its graph, not its weights."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weights = numpy_helper.from_array(np.ones((2048, 3072), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-1, 2048])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 3072])],
        [weights],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    repository = tmp_path / "big"
    (repository / "m" / "1").mkdir(parents=True)
    onnx.save(model, repository / "m" / "1" / "model.onnx")
    (repository / "m" / "config.pbtxt").write_text(
        'backend: "onnxruntime"\nmax_batch_size: 0\n'
        'input [ { name: "x", data_type: TYPE_FP32, dims: [ -1, 2048 ] } ]\n'
        'output [ { name: "y", data_type: TYPE_FP32, dims: [ -1, 3000 ] } ]\n'
    )
    servers.upload_s3(s3.endpoint, "big", "models", repository)
    done = run(["check", "--format", "json", _s3_url(s3, "big/models")], servers.S3_ENV, tmp_path)
    local = run(["check", "--format", "json", "big"], {}, tmp_path)
    codes = [(d["code"], d["line"]) for d in json.loads(done.stdout)["diagnostics"]]
    assert codes == [(d["code"], d["line"]) for d in json.loads(local.stdout)["diagnostics"]]
    assert ("PL614", 4) in codes  # the output dims disagree with the model's
    read = json.loads(done.stdout)["remote"][0]
    size = (repository / "m" / "1" / "model.onnx").stat().st_size
    assert read["bytes_read"] < size / 100, read


def test_gcs_repository_reports_what_the_local_run_reports(tmp_path: Path) -> None:
    _skip_unless("gs")
    with servers.gcs_emulator() as server:
        servers.upload_gcs(server.endpoint, "bucket", "models", EXAMPLE)
        env = {"STORAGE_EMULATOR_HOST": server.endpoint}
        for output_format in ("text", "json"):
            remote = run(["check", "--format", output_format, "gs://bucket/models"], env, tmp_path)
            local = _local(tmp_path, output_format)
            assert remote.returncode == local.returncode == 1, remote.stderr
            assert _normalized(remote.stdout, "gs://bucket/models", output_format) == (
                _normalized(local.stdout, "model_repository", output_format)
            )


def test_azure_repository_reports_what_the_local_run_reports(tmp_path: Path) -> None:
    _skip_unless("as")
    command = servers.azurite_command()
    if isinstance(command, str):
        pytest.skip(f"Azurite cannot be installed here: {command}")
    with servers.azurite(command) as server:
        servers.upload_azure(server.port, "cont", "models", EXAMPLE)
        env = {"AZURE_STORAGE_CONNECTION_STRING": servers.azurite_connection_string(server.port)}
        url = f"as://{servers.AZURITE_ACCOUNT}/cont/models"
        for output_format in ("text", "json"):
            remote = run(["check", "--format", output_format, url], env, tmp_path)
            local = _local(tmp_path, output_format)
            assert remote.returncode == local.returncode == 1, remote.stderr
            assert _normalized(remote.stdout, url, output_format) == _normalized(
                local.stdout, "model_repository", output_format
            )
            assert servers.AZURITE_KEY not in remote.stdout + remote.stderr


# -- without a server ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "prefix", "bucket", "key", "endpoint"),
    [
        ("s3://bucket/models", "s3://", "bucket", "models", None),
        ("s3://bucket//a//b/", "s3://", "bucket", "a/b", None),
        (
            "s3://10.0.0.1:9000/bucket/m",
            "s3://10.0.0.1:9000/",
            "bucket",
            "m",
            "http://10.0.0.1:9000",
        ),
        ("s3://https://h.io:443/b", "s3://https://h.io:443/", "b", "", "https://h.io:443"),
        ("gs://b/x/y", "gs://", "b", "x/y", None),
        ("as://acct/cont/p", "as://acct/", "cont", "p", "https://acct.blob.core.windows.net"),
    ],
)
def test_urls_parse_as_triton_parses_them(
    url: str, prefix: str, bucket: str, key: str, endpoint: str | None
) -> None:
    location = urls.parse_url(url)
    assert (location.prefix, location.bucket, location.key, location.endpoint) == (
        prefix,
        bucket,
        key,
        endpoint,
    )


def test_an_endpoint_triton_would_take_for_a_bucket_is_refused() -> None:
    with pytest.raises(urls.UrlError, match="Triton takes 'h:9000' as the bucket name"):
        urls.parse_url("s3://h:9000/bucket/my models")


def test_credential_file_longest_prefix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "creds.json"
    path.write_text(
        json.dumps(
            {
                "s3": {
                    "": {"key_id": "A", "secret_key": "B"},
                    "s3://bucket/prod": {"profile": "prod"},
                }
            }
        )
    )
    monkeypatch.setenv(credentials.CREDENTIAL_PATH, str(path))
    chosen = credentials.for_url(
        urls.parse_url("s3://bucket/prod/models"), "s3://bucket/prod/models"
    )
    assert chosen.options == {"profile": "prod"}
    assert "s3://bucket/prod" in chosen.source
    other = credentials.for_url(urls.parse_url("s3://other/m"), "s3://other/m")
    assert other.options == {"key": "A", "secret": "B"} and other.secrets == ["A", "B"]


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from pbtxt_lint.cli import cli

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "gcsfs" else real(n, *a)
    )
    done = CliRunner().invoke(cli, ["check", "gs://bucket/models"])
    assert done.exit_code == 2
    assert "pip install 'pbtxt-lint[gcs]'" in done.output


def test_writing_commands_refuse_urls(tmp_path: Path) -> None:
    from pbtxt_lint.cli import cli

    runner = CliRunner()
    fmt = runner.invoke(cli, ["fmt", "s3://bucket/models"])
    assert fmt.exit_code == 2 and "fmt works on local files only" in fmt.output
    if needs["s3"]:
        fix = runner.invoke(cli, ["check", "--fix", "s3://bucket/models"])
        assert fix.exit_code == 2 and "--fix works on local files only" in fix.output


def test_a_local_run_imports_no_cloud_library(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from pbtxt_lint.linter import lint; "
        "from pbtxt_lint.settings import Settings; "
        f"lint([Path({str(EXAMPLE)!r})], Settings()); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('s3fs', 'gcsfs', 'adlfs', 'botocore', 'aiobotocore', 'fsspec', 'azure', 'aiohttp') "
        "or m.startswith(('google.auth', 'google.cloud'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
