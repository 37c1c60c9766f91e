"""The language server: LSP messages in, engine calls out.

Diagnostics: on open and save at once, on change after a short pause (debounce); each
run lints the unsaved buffer with the repository around it (other open buffers
included) in the worker process. A run made stale by newer typing is cancelled, a
result for an older version is dropped. When a model's config changes, the open
ensembles that use it (directly or through other ensembles) are linted again.

Everything else (hover, completion, symbols, formatting, code actions) works on the
buffer's own parse in this process, which takes a millisecond for a config.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from pbtxt_lint import __version__
from pbtxt_lint.lsp import actions, completion, hover, symbols
from pbtxt_lint.lsp.client_settings import ClientSettings, read_client_settings
from pbtxt_lint.lsp.convert import Placed, place, to_lsp
from pbtxt_lint.lsp.core import FormatError, ParsedConfig, Settings, format_text, parse_config
from pbtxt_lint.lsp.cursor import string_of
from pbtxt_lint.lsp.documents import LineIndex, Position, is_model_config, uri_to_path
from pbtxt_lint.lsp.transport import serve_stdio
from pbtxt_lint.lsp.worker import LintJob, LintOutcome, LintProcess, TensorsJob, TensorsOutcome

logger = logging.getLogger(__name__)
SECTION = "pbtxt-lint"


@dataclass
class Published:
    """The diagnostics last published for a document, and the text they are about."""

    version: int | None
    text: str
    placed: list[Placed]
    settings: Settings | None = None


@dataclass
class OpenConfig:
    """An open model config: its buffer and its parse (for this version)."""

    uri: str
    path: Path
    version: int | None
    text: str
    index: LineIndex
    parsed: ParsedConfig

    @property
    def model(self) -> str:
        folder = self.path.parent
        return folder.parent.name if folder.name == "configs" else folder.name

    @property
    def repository(self) -> Path:
        folder = self.path.parent
        return folder.parent.parent if folder.name == "configs" else folder.parent


@dataclass
class _Cache:
    parsed: dict[str, tuple[int | None, str, ParsedConfig]] = field(default_factory=dict)


class PbtxtLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("pbtxt-lint", __version__)
        self.worker = LintProcess()
        self.client = ClientSettings()
        self.published: dict[str, Published] = {}
        self.pending: dict[str, asyncio.Task[None]] = {}
        self._cache = _Cache()
        self._shown_errors: set[str] = set()

    # -- documents -----------------------------------------------------------------

    @property
    def encoding(self) -> str:
        encoding = self.server_capabilities.position_encoding if self.protocol else None
        return str(encoding or "utf-16")

    def config(self, uri: str) -> OpenConfig | None:
        """The open document `uri` if it is a model config, parsed (cached by version)."""
        path = uri_to_path(uri)
        if path is None or not is_model_config(path):
            return None
        document = self.workspace.text_documents.get(uri)
        if document is None:
            return None
        text, version = document.source, document.version
        cached = self._cache.parsed.get(uri)
        if cached is not None and cached[0] == version and cached[1] == text:
            parsed = cached[2]
        else:
            parsed = parse_config(text.encode("utf-8", errors="surrogateescape"))
            self._cache.parsed[uri] = (version, text, parsed)
        return OpenConfig(uri, path, version, text, LineIndex(text, self.encoding), parsed)

    def open_configs(self) -> list[OpenConfig]:
        found = (self.config(uri) for uri in list(self.workspace.text_documents))
        return [config for config in found if config is not None]

    def overlay(self) -> dict[Path, str]:
        """Every open config's buffer, by its path (and its real path, for symlinks)."""
        overlay: dict[Path, str] = {}
        for uri, document in self.workspace.text_documents.items():
            path = uri_to_path(uri)
            if path is not None and is_model_config(path):
                overlay[path] = document.source
                overlay[Path(os.path.realpath(path))] = document.source
        return overlay

    # -- linting -------------------------------------------------------------------

    def schedule(self, uri: str, delay: float, propagate: bool = True) -> None:
        """Lint `uri` after `delay` seconds, replacing (and cancelling) an older run."""
        previous = self.pending.pop(uri, None)
        if previous is not None and not previous.done():
            previous.cancel()
        if self.worker.running == uri:
            self.worker.cancel()  # its result would be stale
        self.pending[uri] = asyncio.ensure_future(self._lint_later(uri, delay, propagate))

    async def _lint_later(self, uri: str, delay: float, propagate: bool) -> None:
        if delay > 0:
            await asyncio.sleep(delay)
        config = self.config(uri)
        if config is None:
            return
        if not config.path.exists():  # not saved yet: nothing around it to check against
            return
        job = LintJob(config.path, self.overlay(), self.client.options)
        outcome = await self._run(uri, job)
        if not isinstance(outcome, LintOutcome):
            return
        current = self.config(uri)
        if current is None or current.version != config.version or current.text != config.text:
            return  # typed on meanwhile: a newer run is scheduled
        self.publish(config, outcome)
        if propagate:
            for dependent in self.dependents(config):
                self.schedule(dependent, 0, propagate=False)

    async def _run(self, key: str, job: LintJob | TensorsJob) -> object:
        return await self.worker.run(job, key)

    def publish(self, config: OpenConfig, outcome: LintOutcome) -> None:
        if outcome.error and outcome.error not in self._shown_errors:
            self._shown_errors.add(outcome.error)
            self.window_show_message(
                lsp.ShowMessageParams(lsp.MessageType.Error, f"pbtxt-lint: {outcome.error}")
            )
        placed = [place(d, config.path, config.index) for d in outcome.diagnostics]
        self.published[config.uri] = Published(
            config.version, config.text, placed, outcome.settings
        )
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=config.uri,
                version=config.version,
                diagnostics=[
                    to_lsp(p, key, config.path, config.index, self.client.docs_url)
                    for key, p in enumerate(placed)
                ],
            )
        )

    def dependents(self, changed: OpenConfig) -> list[str]:
        """Open ensembles of the same repository that use `changed`'s model, directly or
        through other ensembles."""
        ensembles: dict[str, tuple[str, set[str]]] = {}
        for config in self.open_configs():
            if config.uri == changed.uri or config.repository != changed.repository:
                continue
            steps = ensemble_steps(config.parsed)
            if steps:
                ensembles[config.model] = (config.uri, steps)
        affected: list[str] = []
        reached = {changed.model}
        grew = True
        while grew:
            grew = False
            for name, (uri, steps) in ensembles.items():
                if uri not in affected and steps & reached:
                    affected.append(uri)
                    reached.add(name)
                    grew = True
        return affected

    async def tensors(self, config: OpenConfig, model: str) -> TensorsOutcome:
        """A composing model's inputs and outputs, as its ensemble step sees them."""
        published = self.published.get(config.uri)
        settings = published.settings if published and published.settings else Settings()
        job = TensorsJob(config.repository, model, self.overlay(), settings)
        outcome = await self._run(f"tensors:{model}", job)
        return outcome if isinstance(outcome, TensorsOutcome) else TensorsOutcome()

    def apply_client_settings(self, raw: object) -> None:
        """Take the editor's settings; say which ones are wrong (they are ignored)."""
        self.client = read_client_settings(raw, self.client)
        self.report_setting_problems()

    def report_setting_problems(self) -> None:
        if self.client.problems:
            self.window_show_message(
                lsp.ShowMessageParams(
                    lsp.MessageType.Warning,
                    "pbtxt-lint: ignored settings: " + "; ".join(self.client.problems),
                )
            )

    def relint_all(self) -> None:
        for config in self.open_configs():
            self.schedule(config.uri, 0, propagate=False)


def ensemble_steps(parsed: ParsedConfig) -> set[str]:
    """The model names of an ensemble's steps, read from the tree (works on a buffer
    that does not parse as a whole)."""
    names: set[str] = set()
    for node in parsed.document.fields:
        if node.name.text != "ensemble_scheduling" or node.value is None:
            continue
        stack: list[Any] = [node.value]
        while stack:
            value = stack.pop()
            items = getattr(value, "items", None)
            if items is not None:
                stack.extend(items)
                continue
            for inner in getattr(value, "fields", []):
                if inner.name.text == "step" and inner.value is not None:
                    stack.append(inner.value)
                elif inner.name.text == "model_name":
                    name = string_of(inner.value) if inner.value is not None else None
                    if name:
                        names.add(name)
    return names


def create_server() -> PbtxtLanguageServer:
    server = PbtxtLanguageServer()

    @server.feature(lsp.INITIALIZE)
    def initialize(ls: PbtxtLanguageServer, params: lsp.InitializeParams) -> None:
        ls.client = read_client_settings(params.initialization_options, ls.client)
        ls.worker.start()

    @server.feature(lsp.INITIALIZED)
    async def initialized(ls: PbtxtLanguageServer, params: lsp.InitializedParams) -> None:
        ls.report_setting_problems()  # of initializationOptions
        await _pull_configuration(ls)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(
        ls: PbtxtLanguageServer, params: lsp.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if isinstance(settings, dict) and settings:
            ls.apply_client_settings(settings.get(SECTION, settings))
        else:
            await _pull_configuration(ls)
        ls.relint_all()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PbtxtLanguageServer, params: lsp.DidOpenTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PbtxtLanguageServer, params: lsp.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, ls.client.debounce)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PbtxtLanguageServer, params: lsp.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PbtxtLanguageServer, params: lsp.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        task = ls.pending.pop(uri, None)
        if task is not None:
            task.cancel()
        if ls.published.pop(uri, None) is not None:
            ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri, []))
        # Its saved text replaces the buffer: ensembles that use it see the file again.
        path = uri_to_path(uri)
        if path is not None and is_model_config(path):
            for config in ls.open_configs():
                if steps_use(config, path):
                    ls.schedule(config.uri, 0, propagate=False)

    @server.feature(lsp.SHUTDOWN)
    def shutdown(ls: PbtxtLanguageServer, params: None) -> None:
        for task in ls.pending.values():
            task.cancel()
        ls.worker.close()

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def on_hover(ls: PbtxtLanguageServer, params: lsp.HoverParams) -> lsp.Hover | None:
        config = ls.config(params.text_document.uri)
        if config is None:
            return None
        offset = config.index.offset(Position(params.position.line, params.position.character))
        published = ls.published.get(config.uri)
        fresh = published if published and published.text == config.text else None
        found = [p.diagnostic for p in (fresh.placed if fresh else []) if _covers(p, offset)]
        return hover.hover(config.parsed, config.index, offset, found)

    @server.feature(
        lsp.TEXT_DOCUMENT_COMPLETION,
        lsp.CompletionOptions(trigger_characters=[":", '"', " ", "_"]),
    )
    async def on_completion(
        ls: PbtxtLanguageServer, params: lsp.CompletionParams
    ) -> lsp.CompletionList | None:
        config = ls.config(params.text_document.uri)
        if config is None:
            return None
        offset = config.index.offset(Position(params.position.line, params.position.character))
        snippets = bool(
            (capabilities := ls.client_capabilities.text_document)
            and capabilities.completion
            and capabilities.completion.completion_item
            and capabilities.completion.completion_item.snippet_support
        )

        async def tensors(model: str) -> tuple[list[str], list[str]]:
            outcome = await ls.tensors(config, model)
            return outcome.inputs, outcome.outputs

        context = completion.Context(
            config.text,
            config.parsed,
            config.index,
            offset,
            config.repository,
            config.model,
            snippets,
            tensors,
        )
        items = await completion.complete(context)
        return lsp.CompletionList(is_incomplete=False, items=items)

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, actions.FIX_ALL_KIND]
        ),
    )
    def on_code_action(
        ls: PbtxtLanguageServer, params: lsp.CodeActionParams
    ) -> list[lsp.CodeAction] | None:
        config = ls.config(params.text_document.uri)
        if config is None:
            return None
        published = ls.published.get(config.uri)
        if published is None or published.text != config.text:
            return []  # the diagnostics are about an older text: wait for the new ones
        return actions.code_actions(config.uri, config.text, config.index, published, params)

    @server.feature(lsp.TEXT_DOCUMENT_FORMATTING)
    def on_formatting(
        ls: PbtxtLanguageServer, params: lsp.DocumentFormattingParams
    ) -> list[lsp.TextEdit] | None:
        config = ls.config(params.text_document.uri)
        if config is None:
            return None
        try:
            formatted = format_text(config.text)
        except FormatError as error:
            # Shown, not logged: the user asked for formatting and would otherwise see
            # nothing happen.
            message = f"pbtxt-lint: not formatted: {error}"
            ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Warning, message))
            return None
        edit = actions.minimal_edit(config.text, formatted, config.index)
        return [edit] if edit is not None else []

    @server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def on_symbols(
        ls: PbtxtLanguageServer, params: lsp.DocumentSymbolParams
    ) -> list[lsp.DocumentSymbol] | None:
        config = ls.config(params.text_document.uri)
        if config is None:
            return None
        return symbols.document_symbols(config.parsed, config.index)

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def on_definition(ls: PbtxtLanguageServer, params: lsp.DefinitionParams) -> lsp.Location | None:
        config = ls.config(params.text_document.uri)
        if config is None:
            return None
        offset = config.index.offset(Position(params.position.line, params.position.character))
        published = ls.published.get(config.uri)
        settings = published.settings if published else None
        return symbols.definition(
            config.parsed,
            offset,
            config.repository,
            settings.model_config_name if settings else None,
        )

    return server


def _covers(placed: Placed, offset: int) -> bool:
    if placed.offsets is None:
        return False
    start, end = placed.offsets
    return start <= offset <= end


def steps_use(config: OpenConfig, path: Path) -> bool:
    """Does open config `config` name the model of config file `path` in a step?"""
    folder = path.parent.parent if path.parent.name == "configs" else path.parent
    return folder.parent == config.repository and folder.name in ensemble_steps(config.parsed)


async def _pull_configuration(ls: PbtxtLanguageServer) -> None:
    """Ask the client for the `pbtxt-lint` section, where it supports that."""
    workspace = ls.client_capabilities.workspace
    if not (workspace and workspace.configuration):
        return
    try:
        values = await ls.workspace_configuration_async(
            lsp.ConfigurationParams([lsp.ConfigurationItem(section=SECTION)])
        )
    except Exception as error:  # a client that fails the request keeps the defaults
        logger.warning("workspace/configuration failed: %s", error)
        return
    if values and isinstance(values[0], dict):
        ls.apply_client_settings(values[0])


def run() -> None:
    """Serve on standard input and output until the client says exit."""
    logging.basicConfig(level=logging.WARNING, format="pbtxt-lint lsp: %(message)s")
    serve_stdio(create_server())
