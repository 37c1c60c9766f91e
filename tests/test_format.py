"""The formatter: canonical layout, comments kept, meaning unchanged, idempotent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixture_cases import corpus
from hypothesis import HealthCheck, assume, given, settings
from pbtxt_strategies import configs

from pbtxt_lint.cli import cli
from pbtxt_lint.linter import lint
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.format import FormatError, format_config, format_text
from pbtxt_lint.textproto.parse import parse_config

CONFIG_FILES = corpus("*.pbtxt")
PARSING = {
    label: p for label, p in CONFIG_FILES.items() if parse_config(p.read_bytes()).config is not None
}


def comments(text: str) -> list[str]:
    return [c.text.rstrip() for c in parse_config(text.encode()).document.comments]


def test_the_corpus_is_large() -> None:
    assert len(PARSING) > 100
    assert len(CONFIG_FILES) > len(PARSING)  # some do not parse: they are refused


@pytest.mark.parametrize("path", PARSING.values(), ids=PARSING.keys())
def test_formatting_preserves_the_parsed_config_and_is_idempotent(path: Path) -> None:
    data = path.read_bytes()
    formatted = format_config(data)
    before, after = parse_config(data), parse_config(formatted)
    assert after.config == before.config
    assert after.problems == [] or [p.kind for p in after.problems] == [
        p.kind for p in before.problems
    ]
    text = formatted.decode(errors="replace")
    assert comments(text) == comments(data.decode(errors="replace"))
    assert format_config(formatted) == formatted


def test_every_example_and_fixture_that_does_not_parse_is_refused() -> None:
    refused = [p for label, p in CONFIG_FILES.items() if label not in PARSING]
    for path in refused:
        with pytest.raises(FormatError):
            format_config(path.read_bytes())


MESSY = """# header


name: "m" # the name
max_batch_size : 8 ;
input { name: "a" data_type: TYPE_FP32 dims: [1, # first
  2] }  # after a
# between
input < name: "b", data_type: TYPE_FP32, dims: 3 dims: 4 >
output [ # outputs
  { name: "o" # o
    data_type: TYPE_FP32 dims: [ -1 ] },
  # second output
  { name: "p" data_type: TYPE_FP32 dims: [ -1 ]


  # dangling in p
  }
] # after close

parameters: { key: "k" value: { string_value: "a" # part a
  "b" } }
parameters [ { key: "x" value { string_value: "y" } }, { key: "z" value { string_value: "w" } } ]
instance_group [ ]
version_policy: { specific: { versions: [] } }
dynamic_batching {
  # nothing here
}
# end
"""

CANONICAL = """# header

name: "m"  # the name
max_batch_size: 8
input [
  {
    name: "a"
    data_type: TYPE_FP32
    dims: [
      1,  # first
      2
    ]
  },  # after a
  # between
  {
    name: "b"
    data_type: TYPE_FP32
    dims: [ 3, 4 ]
  }
]
output [  # outputs
  {
    name: "o"  # o
    data_type: TYPE_FP32
    dims: [ -1 ]
  },
  # second output
  {
    name: "p"
    data_type: TYPE_FP32
    dims: [ -1 ]

    # dangling in p
  }
]  # after close

parameters {
  key: "k"
  value {
    string_value: "a"  # part a
      "b"
  }
}
parameters {
  key: "x"
  value {
    string_value: "y"
  }
}
parameters {
  key: "z"
  value {
    string_value: "w"
  }
}
instance_group [ ]
version_policy {
  specific {
    versions: [ ]
  }
}
dynamic_batching {
  # nothing here
}
# end
"""


def test_the_canonical_layout() -> None:
    assert format_text(MESSY) == CANONICAL
    assert format_text(CANONICAL) == CANONICAL


def test_long_scalar_lists_get_one_element_per_line() -> None:
    sizes = ", ".join(str(n) for n in range(1, 40))
    text = f"dynamic_batching {{ preferred_batch_size: [ {sizes} ] }}\n"
    formatted = format_text(text)
    assert "    1,\n    2,\n" in formatted
    assert parse_config(formatted.encode()).config == parse_config(text.encode()).config


def test_crlf_files_stay_crlf() -> None:
    data = b'name: "m"\r\nmax_batch_size: 8 # c\r\n'
    assert format_config(data) == b'name: "m"\r\nmax_batch_size: 8  # c\r\n'


def test_values_keep_their_spelling() -> None:
    text = "max_batch_size: 0x10\ninput [ { name: 'x' optional: True } ]\n"
    assert format_text(text) == (
        "max_batch_size: 0x10\ninput [\n  {\n    name: 'x'\n    optional: True\n  }\n]\n"
    )


def test_empty_and_comment_only_files() -> None:
    assert format_text("") == ""
    assert format_text("\n\n") == ""
    assert format_text("# only\n\n\n# comments") == "# only\n\n# comments\n"


@pytest.mark.parametrize(
    "text",
    ['name: "m" {', '\ufeffname: "m"\n', "data_type: TYPE_FLOAT32\n", "dims: ${N}\n"],
)
def test_files_that_do_not_parse_are_refused(text: str) -> None:
    with pytest.raises(FormatError):
        format_text(text)


def test_bytes_that_are_not_utf8_are_kept() -> None:
    assert format_config(b'name:"caf\xe9" # \xff\n') == b'name: "caf\xe9"  # \xff\n'


# -- generated configs: any layout formats to the same thing ------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_generated_configs_format_idempotently_to_the_same_config(text: str) -> None:
    before = parse_config(text.encode())
    assume(before.config is not None)
    formatted = format_text(text)
    assert parse_config(formatted.encode()).config == before.config
    assert comments(formatted) == comments(text)
    assert format_text(formatted) == formatted


# -- the fmt command ----------------------------------------------------------------

UGLY = (
    'name: "m" backend: "python" max_batch_size: 0\n'
    'input [ { name: "x" data_type: TYPE_FP32 dims: [ 4 ] } ]\n'
)


def make_repository(root: Path) -> Path:
    model = root / "m"
    (model / "1").mkdir(parents=True)
    (model / "1" / "model.py").write_text("")
    (model / "configs").mkdir()
    (model / "config.pbtxt").write_text(UGLY)
    (model / "configs" / "gpu.pbtxt").write_text(UGLY)
    broken = root / "broken"
    broken.mkdir()
    (broken / "config.pbtxt").write_text("name: {")
    return model


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_fmt_check_reports_and_writes_nothing(tmp_path: Path) -> None:
    model = make_repository(tmp_path)
    code, out, err = invoke("fmt", "--check", str(tmp_path))
    assert code == 1
    assert "would reformat" in out and "config.pbtxt" in out and "gpu.pbtxt" in out
    assert "broken" in err and "not formatted" in err
    assert (model / "config.pbtxt").read_text() == UGLY


def test_fmt_diff_prints_a_diff_and_writes_nothing(tmp_path: Path) -> None:
    model = make_repository(tmp_path)
    code, out, _ = invoke("fmt", "--diff", str(model / "config.pbtxt"))
    assert code == 1
    assert out.startswith("--- a/") and '+name: "m"' in out
    assert (model / "config.pbtxt").read_text() == UGLY


def test_fmt_rewrites_only_what_changes(tmp_path: Path) -> None:
    model = make_repository(tmp_path)
    (tmp_path / "broken" / "config.pbtxt").unlink()
    code, out, _ = invoke("fmt", str(model))
    assert code == 0, out
    formatted = (model / "config.pbtxt").read_text()
    assert formatted == format_text(UGLY)
    assert (model / "configs" / "gpu.pbtxt").read_text() == formatted
    stamp = os.stat(model / "config.pbtxt").st_mtime_ns
    code, out, _ = invoke("fmt", "--check", str(tmp_path))
    assert code == 0 and "0 files would be reformatted, 2 files already formatted" in out
    invoke("fmt", str(tmp_path))
    assert os.stat(model / "config.pbtxt").st_mtime_ns == stamp


def test_fmt_leaves_files_that_do_not_parse_alone(tmp_path: Path) -> None:
    make_repository(tmp_path)
    code, _, err = invoke("fmt", str(tmp_path / "broken"))
    assert code == 1 and "does not parse" in err
    assert (tmp_path / "broken" / "config.pbtxt").read_text() == "name: {"


def test_fmt_on_a_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = invoke("fmt", str(tmp_path / "nope"))
    assert code == 2 and "no such file or folder" in err


def test_the_example_in_the_module_documentation_is_canonical() -> None:
    import pbtxt_lint.textproto.format as module

    assert module.__doc__ is not None
    example = module.__doc__.split("```")[1].lstrip("\n")
    assert format_text(example) == example


SUPPRESSED = {
    "trailing, on a one-line list": """\
name: "m"
backend: "onnxruntime"
max_batch_size: 8
input [ { name: "x" data_type: TYPE_FP32 dims: [ 3 ] }, { name: "x" dims: [ 3 ] } ]  \
# pbtxt-lint: disable=PL218
output [ { name: "y" data_type: TYPE_FP32 dims: [ 4 ] } ]
""",
    "alone before a one-line block among its siblings": """\
name: "m"
backend: "onnxruntime"
max_batch_size: 8
input { name: "x" data_type: TYPE_FP32 dims: [ 3 ] }
# pbtxt-lint: disable=PL204
# (a placeholder the exporter writes)
output { name: "y", data_type: TYPE_FP32, dims: [ 0 ] }
output { name: "z" data_type: TYPE_FP32 dims: [ 4 ] }
""",
    "alone before one element of a list": """\
name: "m"
backend: "python"
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
parameters [
  { key: "mode" value: { string_value: "a" } },
  # pbtxt-lint: disable=PL011
  { key: "mode" value: { string_value: "b" } }
]
""",
}


@pytest.mark.parametrize("text", SUPPRESSED.values(), ids=SUPPRESSED.keys())
def test_formatting_keeps_what_suppression_comments_silence(tmp_path: Path, text: str) -> None:
    """A one-line block that a suppression covers stays on its line: laid out over
    several lines, its findings would move to lines the comment does not cover."""

    def findings(config: str) -> list[tuple[str, str]]:
        (tmp_path / "m").mkdir(exist_ok=True)
        (tmp_path / "m" / "config.pbtxt").write_text(config)
        result = lint([tmp_path / "m" / "config.pbtxt"], Settings(config_only=True))
        return sorted((d.code, d.message) for d in result.diagnostics)

    formatted = format_text(text)
    assert format_text(formatted) == formatted
    before = findings(text)
    assert not any(code == "PL015" for code, _ in before)  # every suppression silences
    assert findings(formatted) == before
