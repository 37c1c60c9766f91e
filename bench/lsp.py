#!/usr/bin/env python3
"""Benchmark: how long after a keystroke the editor shows the new diagnostics.

Not a timed test: run `python bench/lsp.py` (add `--write bench/RESULTS.md` to record the
figures there). It starts `pbtxt-lint lsp` as an editor does (stdio, pygls' client),
opens one model's config in a repository of 200 models and an ensemble that uses it,
waits until the server is warm, then edits the buffer again and again, alternating a
data_type between a wrong and a right value, and measures the time from sending
`textDocument/didChange` to receiving `textDocument/publishDiagnostics` for that
version. Cases: the default pause after typing (debounce 100 ms, what a user gets),
no pause (the cost of the lint itself and the round trip), and the open ensemble that
uses the model, re-checked after each edit. Hover round trips are measured while
those lints run, to show that typing is not held up by them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient

MARK_START = "<!-- lsp:start (bench/lsp.py) -->"
MARK_END = "<!-- lsp:end -->"
MODELS = 200
MODEL_PY = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"
CONFIG = """\
name: "{name}"
backend: "python"
max_batch_size: 8
input [ {{ name: "IN" data_type: TYPE_FP32 dims: [ -1 ] }} ]
output [ {{ name: "OUT" data_type: {data_type} dims: [ -1 ] }} ]
instance_group [ {{ kind: KIND_CPU }} ]
dynamic_batching {{ }}
"""
ENSEMBLE = """\
name: "pipeline"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ -1 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ -1 ] } ]
ensemble_scheduling {
  step [
    { model_name: "model_000" model_version: -1
      input_map { key: "IN" value: "IN" } output_map { key: "OUT" value: "mid" } },
    { model_name: "model_001" model_version: -1
      input_map { key: "IN" value: "mid" } output_map { key: "OUT" value: "OUT" } }
  ]
}
"""


def make_repository(root: Path) -> Path:
    repository = root / "models"
    for number in range(MODELS):
        name = f"model_{number:03d}"
        (repository / name / "1").mkdir(parents=True)
        (repository / name / "1" / "model.py").write_text(MODEL_PY)
        text = CONFIG.format(name=name, data_type="TYPE_FP32")
        (repository / name / "config.pbtxt").write_text(text)
    (repository / "pipeline" / "1").mkdir(parents=True)
    (repository / "pipeline" / "config.pbtxt").write_text(ENSEMBLE)
    (root / ".git").mkdir()
    return repository


class Probe:
    """A client that timestamps every publishDiagnostics by (uri, version)."""

    def __init__(self) -> None:
        self.client = LanguageClient("pbtxt-lint-bench", "1")
        self.published: dict[tuple[str, int | None], float] = {}
        self.latest: dict[str, float] = {}
        self.event = asyncio.Event()

        @self.client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(client: LanguageClient, params: lsp.PublishDiagnosticsParams) -> None:
            now = time.perf_counter()
            self.published[(params.uri, params.version)] = now
            self.latest[params.uri] = now
            self.event.set()

    async def wait(self, key: tuple[str, int | None], timeout: float = 30) -> float:
        deadline = time.perf_counter() + timeout
        while key not in self.published:
            self.event.clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(f"no diagnostics for {key}")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.event.wait(), remaining)
        return self.published[key]

    async def wait_after(self, uri: str, since: float, timeout: float = 30) -> float:
        deadline = time.perf_counter() + timeout
        while self.latest.get(uri, 0) <= since:
            self.event.clear()
            try:
                await asyncio.wait_for(self.event.wait(), max(deadline - time.perf_counter(), 0))
            except asyncio.TimeoutError as error:
                raise TimeoutError(f"no new diagnostics for {uri}") from error
        return self.latest[uri]


async def start(root: Path, debounce_ms: int) -> Probe:
    probe = Probe()
    await probe.client.start_io(sys.executable, "-m", "pbtxt_lint", "lsp")
    await probe.client.initialize_async(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=root.as_uri(),
            initialization_options={"debounce-ms": debounce_ms},
        )
    )
    probe.client.initialized(lsp.InitializedParams())
    return probe


async def stop(probe: Probe) -> None:
    await probe.client.shutdown_async(None)
    probe.client.exit(None)
    await probe.client.stop()


def open_document(probe: Probe, path: Path) -> str:
    uri = path.as_uri()
    probe.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri, "pbtxt", 1, path.read_text()))
    )
    return uri


async def edits(
    probe: Probe, uri: str, runs: int, watch: str | None = None
) -> tuple[list[float], list[float], list[float]]:
    """Edit `uri` `runs` times; seconds until its diagnostics (and `watch`'s), and hover
    round trips sent right after each edit."""
    own, other, hovers = [], [], []
    version = 1
    for number in range(runs + 3):  # the first three warm the worker up
        version += 1
        data_type = "TYPE_FLOAT32" if number % 2 == 0 else "TYPE_FP32"
        text = CONFIG.format(name="model_000", data_type=data_type)
        sent = time.perf_counter()
        probe.client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                [lsp.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        asked = time.perf_counter()
        await probe.client.text_document_hover_async(
            lsp.HoverParams(lsp.TextDocumentIdentifier(uri), lsp.Position(2, 3))
        )
        answered = time.perf_counter()
        arrived = await probe.wait((uri, version))
        other_arrived = await probe.wait_after(watch, sent) if watch else arrived
        if number >= 3:
            own.append(arrived - sent)
            other.append(other_arrived - sent)
            hovers.append(answered - asked)
        await asyncio.sleep(0.05)
    return own, other, hovers


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
    return (
        f"{statistics.median(ordered) * 1000:.0f} ms | {p90 * 1000:.0f} ms | "
        f"{ordered[-1] * 1000:.0f} ms"
    )


async def measure(runs: int) -> list[tuple[str, list[float]]]:
    rows: list[tuple[str, list[float]]] = []
    with tempfile.TemporaryDirectory() as temporary:
        root = Path(temporary)
        repository = make_repository(root)
        config = repository / "model_000" / "config.pbtxt"
        for debounce in (100, 0):
            probe = await start(root, debounce)
            uri = open_document(probe, config)
            await probe.wait((uri, 1))
            own, _, hovers = await edits(probe, uri, runs)
            rows.append((f"didChange -> publishDiagnostics, debounce {debounce} ms", own))
            if debounce == 100:
                rows.append(("hover round trip right after a didChange", hovers))
            await stop(probe)
        probe = await start(root, 100)
        ensemble = open_document(probe, repository / "pipeline" / "config.pbtxt")
        await probe.wait((ensemble, 1))
        uri = open_document(probe, config)
        await probe.wait((uri, 1))
        _, other, _ = await edits(probe, uri, runs, watch=ensemble)
        rows.append(("... and the open ensemble using it, re-checked", other))
        await stop(probe)
    return rows


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return f"{cpu}, {cores} cores, {platform.system()}; Python {platform.python_version()}"


def render(rows: list[tuple[str, list[float]]], runs: int) -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        MARK_START,
        "## Language server (`pbtxt-lint lsp`)",
        "",
        f"Measured on {machine()} with `python bench/lsp.py --runs {runs}`: a warm server, "
        f"one model's config edited {runs} times in a repository of {MODELS} models (a "
        "data_type alternately wrong and right, so every edit changes the diagnostics); "
        "time from sending didChange to receiving publishDiagnostics for that version. "
        "The ensemble row waits for the ensemble's diagnostics too; its own lint reads the "
        "config of every model of the repository (the dependency checks between models), "
        f"which is most of that time with {MODELS} models. Hover answers while lints run. "
        f"The machine is shared (load average {load:.2f} at the end).",
        "",
        "| what | median | p90 | max |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {name} | {summary(values)} |" for name, values in rows]
    lines.append(MARK_END)
    return "\n".join(lines) + "\n"


def write(path: Path, section: str) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if MARK_START in text and MARK_END in text:
        before = text[: text.index(MARK_START)]
        after = text[text.index(MARK_END) + len(MARK_END) :].lstrip("\n")
        text = before + section + after
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--write", type=Path, help="record the table in this file")
    args = parser.parse_args()
    rows = asyncio.run(measure(args.runs))
    section = render(rows, args.runs)
    print(section)
    if args.write:
        write(args.write, section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
