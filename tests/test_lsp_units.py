"""Pieces of the language server that need no client: positions, settings, edits."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from pbtxt_lint.diagnostics import Diagnostic, Edit, Fix, Severity
from pbtxt_lint.lsp.actions import _add_directive, code_actions, minimal_edit
from pbtxt_lint.lsp.client_settings import ClientSettings, default_docs_url, read_client_settings
from pbtxt_lint.lsp.convert import SOURCE, docs_link, place
from pbtxt_lint.lsp.core import Options, Span, parse_config
from pbtxt_lint.lsp.documents import LineIndex, Position, is_model_config
from pbtxt_lint.lsp.server import Published, ensemble_steps
from pbtxt_lint.lsp.worker import LintJob, LintOutcome, LintProcess
from pbtxt_lint.textproto.write import is_formatted


def test_positions_count_utf16_units_and_lines_end_at_newline() -> None:
    text = 'name: "\U0001f600x"\r\nmax_batch_size: 1\n'
    index = LineIndex(text)
    x = text.index("x")
    assert index.position(x) == Position(0, 9)  # the emoji is two UTF-16 units
    assert index.offset(Position(0, 9)) == x
    assert index.position(text.index("max")) == Position(1, 0)
    assert index.line_text(0) == 'name: "\U0001f600x"'  # without the \r
    assert index.span_offsets(Span(1, 9, 1, 10)) == (x, x + 1)  # engine columns: code points
    assert LineIndex(text, "utf-32").position(x) == Position(0, 8)
    assert LineIndex(text, "utf-8").position(x) == Position(0, 11)


def test_only_model_configs_are_served() -> None:
    assert is_model_config(Path("/r/m/config.pbtxt"))
    assert is_model_config(Path("/r/m/configs/h100.pbtxt"))
    assert not is_model_config(Path("/r/m/labels.pbtxt"))
    assert not is_model_config(Path("/r/graph.pbtxt"))


def test_rule_links_work_from_a_wheel_install(tmp_path: Path) -> None:
    """A wheel has no docs/ folder: codes link to the Rules page its metadata names."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    rules = project["project"]["urls"]["Rules"]
    assert default_docs_url(tmp_path / "docs" / "rules.md") == rules
    assert default_docs_url().startswith("file://")  # this checkout's own docs/rules.md
    link = docs_link("PL003", rules)
    assert link is not None and link.href == f"{rules}#pl003"


def test_client_settings_take_file_keys_and_camel_case() -> None:
    settings = read_client_settings(
        {"select": ["PL2"], "tritonVersion": "24.10", "gpus": 0, "debounceMs": 250, "path": "x"},
        ClientSettings(),
    )
    assert settings.options.select == ("PL2",)
    assert settings.options.triton_version == "24.10"
    assert settings.options.gpus == 0
    assert settings.debounce == 0.25
    assert settings.problems == ()


def test_wrong_client_settings_are_reported_and_ignored() -> None:
    settings = read_client_settings({"gpus": -1, "config-only": "yes"}, ClientSettings())
    assert settings.options.gpus is None and settings.options.config_only is None
    assert settings.problems == (
        "config-only must be true or false",
        "gpus must be a whole number >= 0",
    )


def test_client_settings_declare_the_host() -> None:
    settings = read_client_settings(
        {"container": "vllm-python-py3", "backends": ["stateful"]}, ClientSettings()
    )
    assert settings.options.container == "vllm-python-py3"
    assert settings.options.backends == ("stateful",)
    wrong = read_client_settings({"backends": [1], "container": ""}, ClientSettings())
    assert wrong.options.backends == () and wrong.options.container is None
    assert wrong.problems == (
        "backends must be a list of backend names",
        "container must be a non-empty string",
    )


def _apply(text: str, edit: lsp.TextEdit) -> str:
    index = LineIndex(text)
    start = index.offset(Position(edit.range.start.line, edit.range.start.character))
    end = index.offset(Position(edit.range.end.line, edit.range.end.character))
    return text[:start] + edit.new_text + text[end:]


def test_suppression_comments() -> None:
    text = "max_batch_size: -1\ndims: [ 0 ]  # why\nkind: X  # pbtxt-lint: disable=PL401\n"
    index = LineIndex(text)
    assert _apply(text, _add_directive(text, index, "disable", "PL301", 0)).startswith(
        "max_batch_size: -1  # pbtxt-lint: disable=PL301\n"
    )
    assert "# pbtxt-lint: disable=PL204\ndims: [ 0 ]  # why\n" in _apply(
        text, _add_directive(text, index, "disable", "PL204", 1)
    )
    assert "kind: X  # pbtxt-lint: disable=PL401,PL402\n" in _apply(
        text, _add_directive(text, index, "disable", "PL402", 2)
    )
    assert _apply(text, _add_directive(text, index, "disable-file", "PL107", None)).startswith(
        "# pbtxt-lint: disable-file=PL107\nmax_batch_size"
    )


def test_minimal_edit_keeps_the_common_ends() -> None:
    old, new = "abc TYPE_FLOAT32 xyz", "abc TYPE_FP32 xyz"
    edit = minimal_edit(old, new, LineIndex(old))
    assert edit is not None and _apply(old, edit) == new
    assert edit.range.start.character == 10 and edit.new_text == "P"
    assert minimal_edit(old, old, LineIndex(old)) is None


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


def test_a_quick_fix_keeps_a_formatted_buffer_formatted(tmp_path: Path) -> None:
    path = tmp_path / "config.pbtxt"
    at = STEP.index('"double"') + len('"double"')
    fix = Fix("add model_version: -1", (Edit(at, at, " model_version: -1"),), safe=False)
    index = LineIndex(STEP)
    placed = place(Diagnostic("PL517", Severity.ERROR, "x", path, fix=fix), path, index)
    seen = lsp.Diagnostic(lsp.Range(lsp.Position(0, 0), lsp.Position(0, 1)), "x")
    seen.source, seen.data = SOURCE, {"key": 0}
    params = lsp.CodeActionParams(
        lsp.TextDocumentIdentifier(path.as_uri()), seen.range, lsp.CodeActionContext([seen])
    )
    found = code_actions(path.as_uri(), STEP, index, Published(1, STEP, [placed]), params)
    [action] = [a for a in found if "unsafe fix" in a.title]
    assert action.edit is not None and action.edit.changes is not None
    [edit] = action.edit.changes[path.as_uri()]
    result = _apply(STEP, edit)
    assert is_formatted(result)
    assert result == STEP.replace('"double"\n', '"double"\n      model_version: -1\n')


def test_ensemble_steps_are_read_from_a_broken_buffer() -> None:
    text = (
        'platform: "ensemble"\nensemble_scheduling { step [ { model_name: "a" }, { model_name: "b" '
    )
    assert ensemble_steps(parse_config(text.encode())) == {"a", "b"}


@pytest.mark.asyncio
async def test_worker_lints_and_comes_back_after_being_killed(tmp_path: Path) -> None:
    (tmp_path / "m" / "1").mkdir(parents=True)
    (tmp_path / "m" / "1" / "model.py").write_text("class TritonPythonModel:\n    pass\n")
    config = tmp_path / "m" / "config.pbtxt"
    config.write_text('name: "m"\nbackend: "python"\n')
    job = LintJob(config, {config: 'name: "m"\nbackend: "python"\nmax_batch_size: -1\n'}, Options())
    worker = LintProcess()
    try:
        worker.start()
        worker.cancel()  # a stale run is cancelled by killing the worker
        outcome = await worker.run(job, "m")
        assert isinstance(outcome, LintOutcome)
        assert "PL301" in {d.code for d in outcome.diagnostics}
        assert worker.restarts == 1 and worker.running is None
    finally:
        worker.close()
