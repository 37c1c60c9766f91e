"""The one writer (textproto/write.py): what pbtxt-lint writes, `pbtxt-lint fmt` keeps.

For every fixture where `init`, `check --fix`, `convert` or `complete` produce a config,
`fmt --check` passes on the result, the result means what the command says it means,
and it lints clean of what the command claims to handle.
"""

from __future__ import annotations

import difflib
import shutil
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixture_cases import Case, all_cases, corpus
from google.protobuf.descriptor import Descriptor
from hypothesis import HealthCheck, assume, given, settings
from onnx import TensorProto
from onnx_builders import IO, build_model, write_model
from oracle import require_tritonserver
from pbtxt_strategies import configs

from pbtxt_lint.cli import cli
from pbtxt_lint.diagnostics import Edit, Fix, Severity
from pbtxt_lint.fixes import apply_edits, apply_fixes, fix_text
from pbtxt_lint.jsonconfig import config_to_json, parse_json_config
from pbtxt_lint.linter import lint
from pbtxt_lint.report.complete import CommandError, complete_command, init_command
from pbtxt_lint.schema import MODEL_CONFIG_DESCRIPTOR, ModelConfig
from pbtxt_lint.settings import Settings
from pbtxt_lint.textproto.binder import message_type
from pbtxt_lint.textproto.format import FormatError, decode_text, format_text
from pbtxt_lint.textproto.parse import parse_config
from pbtxt_lint.textproto.tree import Block, Field, ListValue
from pbtxt_lint.textproto.write import (
    TOP_LEVEL_ORDER,
    field_ranks,
    is_formatted,
    keep_layout,
    write_config,
    write_text,
)

CASES = [case for case in all_cases() if not case.fifos]
CONFIG_FILES = corpus("*.pbtxt")
PARSING = {
    label: path
    for label, path in CONFIG_FILES.items()
    if parse_config(path.read_bytes()).config is not None
}


def settings_for(case: Case) -> Settings:
    return Settings(
        config_only="--config-only" in case.args,
        auto_complete="--disable-auto-complete-config" not in case.args,
    )


def comments(text: str) -> list[str]:
    document = parse_config(text.encode("utf-8", errors="surrogateescape")).document
    return sorted(comment.text.rstrip() for comment in document.comments)


def unordered_blocks(text: str) -> list[str]:
    """Blocks whose fields are not in the written order (empty when all are)."""
    found: list[str] = []

    def walk(fields: Sequence[Field], descriptor: Descriptor, where: str) -> None:
        ranks = field_ranks(descriptor)
        order = [ranks[node.name.text] for node in fields]
        if order != sorted(order):
            found.append(where or "the top level")
        for node in fields:
            fd = descriptor.fields_by_name[node.name.text]
            value = node.value
            for item in value.items if isinstance(value, ListValue) else [value]:
                if isinstance(item, Block):
                    walk(item.fields, message_type(fd), f"{where}{node.name.text}.")

    document = parse_config(text.encode("utf-8", errors="surrogateescape")).document
    walk(document.fields, MODEL_CONFIG_DESCRIPTOR, "")
    return found


def assert_written(text: str, config: ModelConfig | None = None) -> None:
    """`text` is what the writer promises: `fmt`-clean, ordered, and `config` if given."""
    assert format_text(text) == text, "fmt would reformat it"
    assert unordered_blocks(text) == []
    if config is not None:
        assert parse_config(text.encode("utf-8", errors="surrogateescape")).config == config


def invoke(*args: str) -> tuple[int, bytes, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout_bytes, result.stderr


# -- the order ------------------------------------------------------------------------


def test_the_top_level_order_places_every_field_once() -> None:
    assert sorted(TOP_LEVEL_ORDER) == sorted(fd.name for fd in MODEL_CONFIG_DESCRIPTOR.fields)
    assert len(set(TOP_LEVEL_ORDER)) == len(TOP_LEVEL_ORDER)


def test_the_order_is_the_conventional_one() -> None:
    ranks = field_ranks(MODEL_CONFIG_DESCRIPTOR)
    conventional = [
        "name",
        "platform",
        "backend",
        "max_batch_size",
        "version_policy",
        "input",
        "output",
        "dynamic_batching",
        "instance_group",
        "parameters",
    ]
    assert [ranks[name] for name in conventional] == sorted(ranks[n] for n in conventional)
    group = field_ranks(message_type(MODEL_CONFIG_DESCRIPTOR.fields_by_name["instance_group"]))
    assert group["count"] < group["kind"] < group["gpus"]


def test_a_config_written_from_a_message_follows_the_order_exactly() -> None:
    config = ModelConfig()
    # Every field but two members of the scheduling oneof, set in reverse order.
    for name in reversed(TOP_LEVEL_ORDER):
        if name in ("name", "platform", "backend", "runtime", "default_model_filename"):
            setattr(config, name, f"{name}_value")
        elif name == "max_batch_size":
            config.max_batch_size = 1
        elif name in ("cc_model_filenames", "metric_tags"):
            getattr(config, name)["k"] = "v"
        elif name == "parameters":
            config.parameters["k"].string_value = "v"
        elif name in ("input", "output", "batch_input", "batch_output", "instance_group"):
            getattr(config, name).add()
        elif name == "model_warmup":
            config.model_warmup.add(name="w")
        elif name not in ("sequence_batching", "ensemble_scheduling"):
            getattr(config, name).SetInParent()
    text = write_config(config)
    assert_written(text, config)
    written = [node.name.text for node in parse_config(text.encode()).document.fields]
    assert written == [
        n for n in TOP_LEVEL_ORDER if n not in ("sequence_batching", "ensemble_scheduling")
    ]


# -- comments travel with their fields --------------------------------------------------

SCATTERED = """\
# A header: a blank line sets it apart from the fields.

# says what the backend is
backend: "python"  # stays on its line
output [ { name: "y" dims: [ 1 ] data_type: TYPE_FP32 } ]
# the first input
input { data_type: TYPE_FP32 name: "x" dims: [ 1 ] }
name: "m"
instance_group [ { kind: KIND_CPU count: 2 } ]
input { name: "z" data_type: TYPE_FP32 dims: [ 1 ] }
max_batch_size: 8
# the end of the file stays last
"""

WRITTEN = """\
# A header: a blank line sets it apart from the fields.

name: "m"
# says what the backend is
backend: "python"  # stays on its line
max_batch_size: 8
# the first input
input [
  {
    name: "x"
    data_type: TYPE_FP32
    dims: [ 1 ]
  },
  {
    name: "z"
    data_type: TYPE_FP32
    dims: [ 1 ]
  }
]
output [
  {
    name: "y"
    data_type: TYPE_FP32
    dims: [ 1 ]
  }
]
instance_group [
  {
    count: 2
    kind: KIND_CPU
  }
]
# the end of the file stays last
"""


def test_comments_travel_with_their_fields() -> None:
    assert write_text(SCATTERED) == WRITTEN
    assert write_text(WRITTEN) == WRITTEN


def test_crlf_and_bytes_that_are_not_utf8_are_kept() -> None:
    data = b'# caf\xe9\r\nbackend: "python"\r\nname: "m"\r\n'
    written = write_text(decode_text(data)).encode("utf-8", errors="surrogateescape")
    assert written == b'name: "m"\r\n# caf\xe9\r\nbackend: "python"\r\n'


def test_text_that_does_not_parse_is_refused() -> None:
    with pytest.raises(FormatError, match="does not parse"):
        write_text("name: {")


@pytest.mark.parametrize("path", PARSING.values(), ids=PARSING.keys())
def test_every_example_and_fixture_config_is_rewritten_faithfully(path: Path) -> None:
    data = path.read_bytes()
    text = decode_text(data)
    written = write_text(text)
    assert_written(written, parse_config(data).config)
    assert comments(written) == comments(text)
    assert write_text(written) == written


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_generated_configs_are_written_faithfully(text: str) -> None:
    config = parse_config(text.encode()).config
    assume(config is not None)
    assert config is not None
    written = write_text(text)
    assert_written(written, config)
    assert comments(written) == comments(text)
    assert_written(write_config(config), config)


# -- convert ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", PARSING.values(), ids=PARSING.keys())
def test_convert_to_pbtxt_from_text_json_and_binary(path: Path, tmp_path: Path) -> None:
    config = parse_config(path.read_bytes()).config
    assert config is not None
    code, out, err = invoke("convert", str(path), "--to", "pbtxt")
    assert code == 0, err
    text = out.decode("utf-8", errors="surrogateescape")
    assert_written(text, config)
    assert comments(text) == comments(decode_text(path.read_bytes()))
    as_json = tmp_path / "config.json"
    as_json.write_text(config_to_json(config))
    binary = tmp_path / "config.bin"
    binary.write_bytes(config.SerializeToString())
    for source in (as_json, binary):
        code, out, err = invoke("convert", str(source), "--to", "pbtxt")
        assert code == 0, err
        assert_written(out.decode(), config)
    assert parse_json_config(as_json.read_bytes()).config == config


def test_a_binary_config_converted_in_place_lints_clean_of_pl017() -> None:
    cases = [case for case in CASES if case.code == "PL017" and case.name.startswith("fail")]
    converted = 0
    for case in cases:
        for path in case.path.rglob("config.pbtxt"):
            parsed = parse_config(path.read_bytes())
            if parsed.not_text is None or parsed.not_text.config is None:
                continue
            code, out, err = invoke("convert", str(path), "--to", "pbtxt")
            assert code == 0, err
            assert_written(out.decode(), parsed.not_text.config)
            assert parse_config(out).problems == []
            converted += 1
    assert converted >= 1


def rewritten_copy(case: Case, target: Path, rewrite: Callable[[str], str]) -> bool:
    """Copy `case` to `target` with every parsing config rewritten; did any change?"""
    shutil.copytree(case.path, target, symlinks=True)
    changed = False
    for path in sorted(target.rglob("*.pbtxt")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if parse_config(data).config is None:
            continue
        new = rewrite(decode_text(data)).encode("utf-8", errors="surrogateescape")
        changed |= new != data
        path.write_bytes(new)
    return changed


def codes_by_file(root: Path, case: Case) -> Counter[tuple[str, str]]:
    return Counter(
        (str(Path(d.path).relative_to(root)) if Path(d.path).is_relative_to(root) else "", d.code)
        for d in lint([root], settings_for(case)).diagnostics
    )


def test_convert_moving_fields_changes_no_finding(tmp_path: Path) -> None:
    """The writer's order against `fmt`'s layout alone: the same findings, file by file."""
    compared = 0
    for case in CASES:
        ordered, formatted = tmp_path / "o" / case.id, tmp_path / "f" / case.id
        if not rewritten_copy(case, ordered, write_text):
            continue
        rewritten_copy(case, formatted, format_text)
        assert codes_by_file(ordered, case) == codes_by_file(formatted, case), case.id
        compared += 1
    assert compared > 50


# -- init and complete ----------------------------------------------------------------


def model_folders(case: Case) -> list[Path]:
    return sorted(p for p in case.path.iterdir() if p.is_dir() and not p.name.startswith("."))


def test_init_on_every_fixture_model_writes_what_fmt_keeps_and_lints_without_errors(
    tmp_path: Path,
) -> None:
    written: list[str] = []
    for case in CASES:
        for folder in model_folders(case):
            root = tmp_path / case.id / folder.name
            shutil.copytree(case.path, root, symlinks=True)
            model = root / folder.name
            try:
                config = init_command(model, force=True)
            except CommandError:
                continue
            assert_written(config.read_text())
            errors = [
                (d.code, d.message)
                for d in lint([root], Settings()).diagnostics
                if d.severity is Severity.ERROR and Path(d.path) == config
            ]  # errors about the model files (a missing external data file) are not init's
            assert errors == [], f"{case.id}/{folder.name}"
            written.append(f"{case.id}/{folder.name}")
    assert len(written) > 20


def test_triton_accepts_what_init_writes_without_auto_complete(tmp_path: Path) -> None:
    """Every starter init writes for a fixture model, in one repository, read by the real
    tritonserver with auto-complete disabled: the config alone must pass its poll-time
    checks (I/O included), so the verdict is at worst a missing backend."""
    server = require_tritonserver()
    repository = tmp_path / "repository"
    repository.mkdir()
    for case in CASES:
        for folder in model_folders(case):
            model = repository / f"{case.code}_{case.name}_{folder.name}"
            shutil.copytree(folder, model, symlinks=True)
            (model / "config.pbtxt").unlink(missing_ok=True)
            try:
                init_command(model, force=True)
            except CommandError:
                shutil.rmtree(model)
    verdicts = server.validate(repository, auto_complete=False)
    assert len(verdicts) > 20
    refused = {m: v.message for m, v in verdicts.items() if v.status not in ("backend_missing",)}
    assert refused == {}


def test_complete_on_every_fixture_model_prints_what_fmt_keeps() -> None:
    printed = 0
    for case in CASES:
        for folder in model_folders(case):
            try:
                text = complete_command(folder, Settings(gpus=0))
            except CommandError:
                continue
            assert_written(text)
            assert parse_config(text.encode()).config is not None
            printed += 1
    assert printed > 300


def test_the_issue_init_then_fmt_check(tmp_path: Path) -> None:
    model = tmp_path / "models" / "enc"
    x: IO = ("x", TensorProto.FLOAT, ["batch", 4])
    y: IO = ("y", TensorProto.FLOAT, ["batch", "n"])
    write_model(build_model([x], [y]), model / "1" / "model.onnx")
    code, out, err = invoke("init", str(model))
    assert code == 0, err
    text = (model / "config.pbtxt").read_text()
    body = text[text.index("\n\n") + 2 :]
    assert body.startswith('name: "enc"\nbackend: "onnxruntime"\nmax_batch_size: 4\ninput [\n')
    assert "    dims: [ 4 ]\n" in body and body.endswith("]\ndynamic_batching { }\n")
    code, out, err = invoke("fmt", "--check", str(tmp_path / "models"))
    assert code == 0, out.decode() + err


# -- check --fix ------------------------------------------------------------------------


def undo_fixes(raw: str, fixed: str, canonical: str) -> str:
    """`canonical` (`fixed` in `fmt` layout) with the edits that made `fixed` from `raw`
    undone: the fixture's mistakes in a file that is otherwise formatted."""
    undo = difflib.SequenceMatcher(None, fixed, raw, autojunk=False).get_opcodes()
    blocks = difflib.SequenceMatcher(None, fixed, canonical, autojunk=False).get_matching_blocks()

    def where(offset: int) -> int:
        for a, b, size in blocks:
            if a <= offset <= a + size:
                return b + offset - a
        raise AssertionError(f"offset {offset} of the fixed text is not in the formatted one")

    out = canonical
    for tag, i1, i2, j1, j2 in reversed(undo):
        if tag != "equal":
            out = out[: where(i1)] + raw[j1:j2] + out[where(i2) :]
    return out


def formatted_with_mistakes(path: Path, fixes: list[Fix]) -> str | None:
    """The config at `path` in `fmt` layout, its fixable mistakes still in it; None when
    it would not parse even with the fixes applied (they are refused anyway)."""
    raw = decode_text(path.read_bytes())
    if parse_config(path.read_bytes()).config is not None:
        return format_text(raw)
    fixed, _ = apply_edits(raw, fixes)
    try:
        return undo_fixes(raw, fixed, format_text(fixed))
    except FormatError:
        return None


def test_fixing_a_formatted_fixture_keeps_it_formatted(tmp_path: Path) -> None:
    fixed_codes: set[str] = set()
    for case in CASES:
        settings = settings_for(case)
        raw = [d for d in lint([case.path], settings).diagnostics if d.fix is not None]
        if not raw:
            continue
        root = tmp_path / case.id
        shutil.copytree(case.path, root, symlinks=True)
        for path in sorted({Path(d.path) for d in raw}):
            text = formatted_with_mistakes(path, [d.fix for d in raw if d.path == path and d.fix])
            if text is not None:
                (root / path.relative_to(case.path)).write_bytes(
                    text.encode("utf-8", errors="surrogateescape")
                )
        before = lint([root], settings).diagnostics
        assert sorted(d.code for d in before if d.fix) == sorted(d.code for d in raw), case.id
        outcomes = apply_fixes(before, unsafe=True, write=True)
        after = lint([root], settings).diagnostics
        for outcome in outcomes:
            if outcome.refused is not None:
                assert not outcome.written
                continue
            assert is_formatted(decode_text(outcome.path.read_bytes())), case.id
            remaining = {(d.code, d.message) for d in after if d.path == outcome.path}
            for diagnostic in before:
                if diagnostic.path == outcome.path and diagnostic.fix is not None:
                    assert (diagnostic.code, diagnostic.message) not in remaining, case.id
                    fixed_codes.add(diagnostic.code)
    assert {"PL003", "PL004", "PL010", "PL015", "PL501", "PL517"} <= fixed_codes


STEP = """\
platform: "ensemble"
ensemble_scheduling {
  step [
    {
      model_name: "double"
      input_map {
        key: "INPUT0"
        value: "IN"
      }
    }
  ]
}
"""


def version_fix(text: str) -> Fix:
    """A fix like PL517's: a field written after another, on the same line."""
    end = text.index('"double"') + len('"double"')
    return Fix("add model_version: -1", (Edit(end, end, " model_version: -1"),), safe=False)


def test_keep_layout_formats_only_what_was_formatted() -> None:
    fixed, applied = fix_text(Path("config.pbtxt"), STEP, [version_fix(STEP)])
    assert applied == 1
    assert fixed == STEP.replace('"double"\n', '"double"\n      model_version: -1\n')
    one_line = STEP.replace("{\n        key", "{ key").replace('"IN"\n      }', '"IN" }')
    assert not is_formatted(one_line)
    fixed, _ = fix_text(Path("config.pbtxt"), one_line, [version_fix(one_line)])
    assert fixed == one_line.replace('"double"', '"double" model_version: -1')
    broken = STEP + "max_batch: 1\n"
    assert keep_layout(broken, broken.replace("max_batch", "max_batch_size")) == (
        broken.replace("max_batch", "max_batch_size")
    )


def test_json_configs_keep_their_own_layout() -> None:
    text = '{"name": "m",\n"max_batch_size": 1}'
    fixed, _ = fix_text(Path("config.json"), text, [Fix("f", (Edit(10, 11, "n"),))])
    assert fixed == '{"name": "n",\n"max_batch_size": 1}'
