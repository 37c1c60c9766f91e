"""The Triton release table and PL016: fields and enum values the target release lacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cli import GOOD, make_model

from pbtxt_lint.cli import cli
from pbtxt_lint.schema import model_config_pb2
from pbtxt_lint.targets import ADDED, NEWEST, OLDEST, RELEASES, UnknownRelease, introduced, resolve


@pytest.mark.parametrize(
    "text",
    [
        "24.10",
        "r24.10",
        "24.10-py3",
        "nvcr.io/nvidia/tritonserver:24.10-vllm-python-py3",
        "2.51",
        "2.51.0",
        "v2.51.0",
        " 2.51.1 ",
    ],
)
def test_both_names_of_a_release(text: str) -> None:
    target = resolve(text)
    assert (target.release.container, target.release.server) == ("24.10", (2, 51))
    assert target.note is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "25.07",
            "there is no Triton release 25.07; the releases around it are 25.06 (2.59) "
            "and 25.08 (2.60)",
        ),
        ("21.01", "around it are 20.12 (2.6) and 21.02 (2.7)"),
        ("20.06", "older than the oldest release pbtxt-lint knows, 20.09 (2.3)"),
        ("2.0", "older than the oldest"),
        ("latest", "is not a Triton release"),
        ("1.14", "is not a Triton release"),
    ],
)
def test_unknown_releases(text: str, message: str) -> None:
    with pytest.raises(UnknownRelease, match=message.replace("(", r"\(").replace(")", r"\)")):
        resolve(text)


def test_newer_releases_are_checked_as_the_newest() -> None:
    for text in ("27.01", "2.99"):
        target = resolve(text)
        assert target.release == NEWEST and target.note is not None


def test_release_table_facts() -> None:
    servers = [r.server for r in RELEASES]
    assert servers == sorted(servers) and len(set(servers)) == len(servers)
    containers = [r.container for r in RELEASES]
    assert containers == sorted(containers)
    assert [r.server[1] for r in RELEASES] == list(range(OLDEST.server[1], NEWEST.server[1] + 1))
    known = {
        "20.12": 6,
        "21.02": 7,
        "22.04": 21,
        "22.12": 29,
        "23.12": 41,
        "24.02": 43,
        "24.10": 51,
        "25.03": 56,
        "25.06": 59,
        "25.08": 60,
        "25.09": 61,
        "26.05": 69,
    }
    for container, minor in known.items():
        assert resolve(container).release.server == (2, minor)


def test_added_symbols_exist_in_the_compiled_schema() -> None:
    """Every symbol is a field or enum value of the newest schema (the one compiled in);
    a typo would make PL016 silently never fire."""
    pool = model_config_pb2.DESCRIPTOR.pool
    for symbol, version in ADDED.items():
        owner, name = symbol.rsplit(".", 1)
        full = f"inference.{owner}"
        try:
            assert name in pool.FindMessageTypeByName(full).fields_by_name, symbol
        except KeyError:
            assert name in pool.FindEnumTypeByName(full).values_by_name, symbol
        assert OLDEST.server < version <= NEWEST.server
    assert introduced("ModelInput.optional") == resolve("22.01").release
    assert introduced("ModelInput.name") is None


CONFIG = GOOD.replace(
    "dims: [ 4 ] } ]\noutput",
    "dims: [ 4 ] optional: true } ]\noutput",
).replace("TYPE_FP32 dims: [ 4 ] } ]\n", "TYPE_BF16 dims: [ 4 ] } ]\n") + (
    'model_metrics { metric_control [ { metric_identifier { family: "f" } } ] }\n'
)


def pl016(tmp_path: Path, *args: str) -> list[tuple[int, str]]:
    result = CliRunner().invoke(cli, ["check", str(tmp_path), "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return [
        (d["line"], d["message"])
        for d in json.loads(result.stdout)["diagnostics"]
        if d["code"] == "PL016"
    ]


def test_pl016_by_target(tmp_path: Path) -> None:
    make_model(tmp_path, "m", CONFIG)
    assert pl016(tmp_path) == [], "without a target the newest release is assumed"
    assert pl016(tmp_path, "--triton-version", NEWEST.container) == []
    found = pl016(tmp_path, "--triton-version", "21.12")
    assert found == [
        (
            4,
            "field 'optional' of ModelInput is new in Triton 22.01 (2.18): Triton 21.12 (2.17) "
            "does not know it and cannot read this config",
        ),
        (
            5,
            "DataType value TYPE_BF16 is new in Triton 22.05 (2.22): Triton 21.12 (2.17) "
            "does not know it and cannot read this config",
        ),
        (
            6,
            "field 'model_metrics' of ModelConfig is new in Triton 24.11 (2.52): Triton "
            "21.12 (2.17) does not know it and cannot read this config",
        ),
    ]
    assert [line for line, _ in pl016(tmp_path, "--triton-version", "2.51")] == [6]
    assert pl016(tmp_path, "--triton-version", "24.11") == []


def test_pl016_target_from_configuration(tmp_path: Path) -> None:
    make_model(tmp_path / "models", "m", CONFIG)
    (tmp_path / ".pbtxt-lint.toml").write_text('triton-version = "24.10"\n')
    assert [line for line, _ in pl016(tmp_path / "models")] == [6]
