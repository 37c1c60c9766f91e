"""The language server end to end, driven by a real LSP client (pytest-lsp) over stdio.

Each test starts `python -m pbtxt_lint lsp` on a small repository of its own and talks
to it as an editor does: open, type, hover, complete, apply code actions, format.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

pytestmark = pytest.mark.asyncio

PRE = """\
name: "pre"
backend: "python"
max_batch_size: 8
input [ { name: "TEXT" data_type: TYPE_STRING dims: [ 1 ] } ]
output [ { name: "IDS" data_type: TYPE_INT64 dims: [ -1 ] } ]
instance_group [ { kind: KIND_CPU } ]
dynamic_batching { }
"""
POST = """\
name: "post"
backend: "python"
max_batch_size: 8
input [ { name: "IDS" data_type: TYPE_INT64 dims: [ -1 ] } ]
output [
  {
    name: "EMBEDDING"
    data_type: TYPE_FLOAT32
    dims: [ 16 ]
  }
]
instance_group [ { kind: KIND_CPU } ]
dynamic_batching { }
"""
ENSEMBLE = """\
name: "ens"
platform: "ensemble"
max_batch_size: 8
input [ { name: "TEXT" data_type: TYPE_STRING dims: [ 1 ] } ]
output [ { name: "EMBEDDING" data_type: TYPE_FP32 dims: [ 16 ] } ]
ensemble_scheduling {
  step [
    {
      model_name: "pre"
      model_version: -1
      input_map { key: "TEXT" value: "TEXT" }
      output_map { key: "IDS" value: "ids" }
    },
    {
      model_name: "post"
      model_version: -1
      input_map { key: "IDS" value: "ids" }
      output_map { key: "EMBEDDING" value: "EMBEDDING" }
    }
  ]
}
"""
MODEL_PY = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"


def make_repository(root: Path) -> Path:
    repository = root / "models"
    for name, config in (("pre", PRE), ("post", POST), ("ens", ENSEMBLE)):
        (repository / name / "1").mkdir(parents=True)
        (repository / name / "config.pbtxt").write_text(config)
        if name != "ens":
            (repository / name / "1" / "model.py").write_text(MODEL_PY)
    (root / ".git").mkdir()  # the configuration-file search stops here
    return repository


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[sys.executable, "-m", "pbtxt_lint", "lsp"]),
)
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    repository = make_repository(tmp_path)
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=tmp_path.as_uri(),
            workspace_folders=[lsp.WorkspaceFolder(tmp_path.as_uri(), "work")],
            initialization_options={"debounce-ms": 20},
        )
    )
    lsp_client.repository = repository  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


def repo(client: LanguageClient) -> Path:
    path: Path = client.repository  # type: ignore[attr-defined]
    return path


async def wait_for(
    client: LanguageClient,
    uri: str,
    condition: Callable[[Sequence[lsp.Diagnostic]], bool],
    timeout: float = 60,
) -> Sequence[lsp.Diagnostic]:
    """The diagnostics of `uri` once they satisfy `condition`."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = client.diagnostics.get(uri)
        if found is not None and condition(found):
            return found
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"no matching diagnostics for {uri}; last: {found}")
        await asyncio.sleep(0.02)


def codes(diagnostics: Sequence[lsp.Diagnostic]) -> set[str]:
    return {str(d.code) for d in diagnostics}


def open_file(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri, "pbtxt", 1, path.read_text() if text is None else text)
        )
    )
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def apply(text: str, edits: Sequence[lsp.TextEdit]) -> str:
    """Apply LSP edits (ASCII text: characters are UTF-16 units)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: lsp.Position) -> int:
        return starts[position.line] + position.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


async def test_open_reports_the_mistake_at_its_range(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "post" / "config.pbtxt")
    found = await wait_for(client, uri, lambda ds: "PL003" in codes(ds))
    (pl003,) = [d for d in found if d.code == "PL003"]
    assert pl003.range == lsp.Range(lsp.Position(7, 15), lsp.Position(7, 27))
    assert pl003.severity == lsp.DiagnosticSeverity.Error
    assert pl003.source == "pbtxt-lint"
    assert "TYPE_FLOAT32" in pl003.message and "hint: did you mean TYPE_FP32?" in pl003.message
    assert pl003.code_description is not None
    assert pl003.code_description.href.endswith("rules.md#pl003")


async def test_typing_the_fix_clears_the_diagnostic(client: LanguageClient) -> None:
    path = repo(client) / "post" / "config.pbtxt"
    uri = open_file(client, path)
    await wait_for(client, uri, lambda ds: "PL003" in codes(ds))
    change(client, uri, 2, POST.replace("TYPE_FLOAT32", "TYPE_FP3"))  # still wrong
    change(client, uri, 3, POST.replace("TYPE_FLOAT32", "TYPE_FP32"))
    await wait_for(client, uri, lambda ds: not ds)
    assert path.read_text() == POST  # the buffer was linted; nothing written


async def test_unsaved_buffer_is_linted_not_the_file(client: LanguageClient) -> None:
    path = repo(client) / "pre" / "config.pbtxt"
    uri = open_file(client, path, PRE.replace("max_batch_size: 8", "max_batch_size: -4"))
    found = await wait_for(client, uri, lambda ds: "PL301" in codes(ds))
    (pl301,) = [d for d in found if d.code == "PL301"]
    assert pl301.range.start.line == 2


async def test_hover_on_a_field_shows_its_documentation(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "post" / "config.pbtxt")
    result = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(2, 3))
    )
    assert result is not None and isinstance(result.contents, lsp.MarkupContent)
    text = result.contents.value
    assert "**max_batch_size** `int32` · default `0`" in text
    assert "0 disables batching" in text
    assert result.range == lsp.Range(lsp.Position(2, 0), lsp.Position(2, 14))


async def test_hover_on_enum_value_and_on_a_diagnostic(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "post" / "config.pbtxt")
    await wait_for(client, uri, lambda ds: "PL003" in codes(ds))
    kind = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(11, 27))
    )
    assert kind is not None and isinstance(kind.contents, lsp.MarkupContent)
    assert "**KIND_CPU**" in kind.contents.value and "on the CPU" in kind.contents.value
    wrong = await client.text_document_hover_async(
        lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(7, 18))
    )
    assert wrong is not None and isinstance(wrong.contents, lsp.MarkupContent)
    assert "**PL003 unknown-enum-value** (error)" in wrong.contents.value
    assert "*Bad*" in wrong.contents.value


async def test_completion_in_data_type_offers_the_enum(client: LanguageClient) -> None:
    path = repo(client) / "post" / "config.pbtxt"
    text = POST.replace("TYPE_FLOAT32", "TYPE_")
    uri = open_file(client, path, text)
    result = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(7, 20))
    )
    assert isinstance(result, lsp.CompletionList)
    labels = [item.label for item in result.items]
    assert "TYPE_FP32" in labels and "TYPE_STRING" in labels and "TYPE_INVALID" in labels
    fp32 = next(item for item in result.items if item.label == "TYPE_FP32")
    assert fp32.text_edit is not None
    assert apply(text, [fp32.text_edit]) == POST.replace("TYPE_FLOAT32", "TYPE_FP32")  # type: ignore[list-item]


async def test_completion_of_field_names_follows_the_schema(client: LanguageClient) -> None:
    text = POST.replace("    dims: [ 16 ]\n", "    dims: [ 16 ]\n    la\n")
    uri = open_file(client, repo(client) / "post" / "config.pbtxt", text)
    result = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(9, 6))
    )
    assert isinstance(result, lsp.CompletionList)
    labels = {item.label for item in result.items}
    assert "label_filename" in labels  # a field of ModelOutput
    assert "name" not in labels and "data_type" not in labels  # already set in this block
    assert "dims" in labels  # repeated: may be written again
    assert "max_batch_size" not in labels  # a field of ModelConfig, not of this block


async def test_completion_in_an_ensemble_step(client: LanguageClient) -> None:
    path = repo(client) / "ens" / "config.pbtxt"
    text = ENSEMBLE.replace('input_map { key: "IDS" value: "ids" }', 'input_map { key: "" }')
    uri = open_file(client, path, text)
    line = text.split("\n").index('      input_map { key: "" }')
    keys = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 24))
    )
    assert isinstance(keys, lsp.CompletionList)
    assert [item.label for item in keys.items] == ["IDS"]  # post's input
    model_line = text.split("\n").index('      model_name: "post"')
    models = await client.text_document_completion_async(
        lsp.CompletionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(model_line, 19))
    )
    assert isinstance(models, lsp.CompletionList)
    assert {item.label for item in models.items} == {"pre", "post"}


async def test_code_action_applies_the_fix(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "post" / "config.pbtxt")
    found = await wait_for(client, uri, lambda ds: "PL003" in codes(ds))
    pl003 = [d for d in found if d.code == "PL003"]
    result = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), pl003[0].range, lsp.CodeActionContext(pl003)
        )
    )
    assert result is not None
    titles = [a.title for a in result if isinstance(a, lsp.CodeAction)]
    fix = next(a for a in result if isinstance(a, lsp.CodeAction) and "safe fix" in a.title)
    assert "(safe fix)" in fix.title and fix.is_preferred
    assert "Suppress PL003 on this line (# pbtxt-lint: disable=PL003)" in titles
    assert fix.edit is not None and fix.edit.changes is not None
    fixed = apply(POST, fix.edit.changes[uri])  # type: ignore[arg-type]
    assert fixed == POST.replace("TYPE_FLOAT32", "TYPE_FP32")
    change(client, uri, 2, fixed)
    await wait_for(client, uri, lambda ds: "PL003" not in codes(ds))


async def test_suppress_and_fix_all_actions(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "post" / "config.pbtxt")
    found = await wait_for(client, uri, lambda ds: "PL003" in codes(ds))
    pl003 = [d for d in found if d.code == "PL003"]
    result = await client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri), pl003[0].range, lsp.CodeActionContext(pl003)
        )
    )
    assert result is not None
    actions = {a.title: a for a in result if isinstance(a, lsp.CodeAction)}
    suppress = actions["Suppress PL003 on this line (# pbtxt-lint: disable=PL003)"]
    assert suppress.edit is not None and suppress.edit.changes is not None
    silenced = apply(POST, suppress.edit.changes[uri])  # type: ignore[arg-type]
    assert "    data_type: TYPE_FLOAT32  # pbtxt-lint: disable=PL003\n" in silenced
    fix_all = actions["Fix all safe problems in this file (1)"]
    assert fix_all.kind == "source.fixAll.pbtxt-lint"
    change(client, uri, 2, silenced)
    await wait_for(client, uri, lambda ds: "PL003" not in codes(ds))


async def test_formatting_returns_edits(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "pre" / "config.pbtxt")
    edits = await client.text_document_formatting_async(
        lsp.DocumentFormattingParams(
            lsp.TextDocumentIdentifier(uri), lsp.FormattingOptions(tab_size=2, insert_spaces=True)
        )
    )
    assert edits
    formatted = apply(PRE, edits)
    assert 'input [\n  {\n    name: "TEXT"\n' in formatted


async def test_formatting_a_buffer_that_does_not_parse_says_why(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "pre" / "config.pbtxt", PRE + "max_batch_size 8\n")
    edits = await client.text_document_formatting_async(
        lsp.DocumentFormattingParams(
            lsp.TextDocumentIdentifier(uri), lsp.FormattingOptions(tab_size=2, insert_spaces=True)
        )
    )
    assert edits is None
    (shown,) = [m for m in client.messages if "not formatted" in m.message]
    assert shown.type == lsp.MessageType.Warning
    assert "does not parse (line 8:" in shown.message, shown.message


async def test_symbols_and_definition(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "ens" / "config.pbtxt")
    symbols = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(uri))
    )
    assert symbols is not None
    by_name = {s.name: s for s in symbols if isinstance(s, lsp.DocumentSymbol)}
    assert [c.name for c in by_name["input"].children or []] == ["TEXT"]
    scheduling = by_name["ensemble_scheduling"].children or []
    assert [c.name for c in scheduling[0].children or []] == ["step 1: pre", "step 2: post"]
    line = ENSEMBLE.split("\n").index('      model_name: "post"')
    target = await client.text_document_definition_async(
        lsp.DefinitionParams(lsp.TextDocumentIdentifier(uri), lsp.Position(line, 21))
    )
    assert isinstance(target, lsp.Location)
    assert target.uri == (repo(client) / "post" / "config.pbtxt").as_uri()


async def test_ensemble_is_rechecked_when_a_composing_model_changes(
    client: LanguageClient,
) -> None:
    ensemble = open_file(client, repo(client) / "ens" / "config.pbtxt")
    step = open_file(client, repo(client) / "pre" / "config.pbtxt")

    def blames_pre(diagnostics: Sequence[lsp.Diagnostic]) -> bool:
        return any(d.code == "PL516" and "`pre`" in d.message for d in diagnostics)

    await wait_for(client, ensemble, lambda ds: bool(ds) and not blames_pre(ds))
    change(client, step, 2, PRE.replace('name: "pre"', 'name: "prepare"'))  # now PL103
    await wait_for(client, step, lambda ds: "PL103" in codes(ds))
    await wait_for(client, ensemble, blames_pre)
    change(client, step, 3, PRE)
    await wait_for(client, ensemble, lambda ds: not blames_pre(ds))


async def test_configuration_file_and_client_settings(client: LanguageClient) -> None:
    (repo(client).parent / ".pbtxt-lint.toml").write_text('ignore = ["PL003"]\n')
    uri = open_file(client, repo(client) / "post" / "config.pbtxt")
    found = await wait_for(client, uri, lambda ds: True)
    assert "PL003" not in codes(found)
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"pbtxt-lint": {"select": ["PL2"]}})
    )
    found = await wait_for(client, uri, lambda ds: "PL003" not in codes(ds) and not ds)
    assert not found  # PL2 selected (the file's ignore still applies)


async def test_diagnostics_about_other_files_show_on_the_first_line(
    client: LanguageClient,
) -> None:
    (repo(client) / "pre" / "1").rename(repo(client) / "pre" / "01")
    uri = open_file(client, repo(client) / "pre" / "config.pbtxt")
    found = await wait_for(client, uri, lambda ds: "PL107" in codes(ds))
    folder = next(d for d in found if d.code == "PL108")
    assert folder.message.startswith("pre/01: ")
    assert folder.range.start == lsp.Position(0, 0)


async def test_shutdown_and_exit_are_clean(client: LanguageClient) -> None:
    uri = open_file(client, repo(client) / "post" / "config.pbtxt")
    await wait_for(client, uri, lambda ds: "PL003" in codes(ds))
    await client.shutdown_async(None)
    client.exit(None)
    server = client._server
    assert server is not None
    assert await asyncio.wait_for(server.wait(), 20) == 0
    client.capabilities = None  # already shut down: the fixture has nothing left to do
