"""scripts/first_run.py, the README's first-run measurement: its manifest names at least
20 public repositories, every finding its review calls wrong belongs to one of them, and
it counts what `check` prints the way the README's table says (lines, findings by
severity, lines that belong to info findings, wrong findings)."""

from __future__ import annotations

import sys
from pathlib import Path

from script_modules import load_script

MODEL_PY = "class TritonPythonModel:\n    def execute(self, requests):\n        return []\n"


def test_the_manifest_and_the_review_agree() -> None:
    first_run = load_script("first_run")
    sources = first_run.read_manifest(first_run.MANIFEST)
    assert len({s.repository for s in sources}) >= 20
    assert all(len(s.commit) == 40 for s in sources)
    locals_ = [s.local for s in sources]
    for path, code in first_run.read_wrong(first_run.WRONG):
        assert any(path.startswith(local + "/") for local in locals_), path
        assert code.startswith("PL")


def test_measure_counts_what_check_prints(tmp_path: Path) -> None:
    first_run = load_script("first_run")
    folder = tmp_path / "owner__name" / "models"
    for name, config in (("a", 'backend: "python"\nmax_batch: 8\n'), ("b", "max_batch_size: 8\n")):
        (folder / name / "1").mkdir(parents=True)
        (folder / name / "1" / "model.py").write_text(MODEL_PY)
        (folder / name / "config.pbtxt").write_text(config)
    command = [sys.executable, "-m", "pbtxt_lint"]
    wrong = {("owner__name/models/a/config.pbtxt:2", "PL002")}
    shown = first_run.measure(command, folder, tmp_path, wrong, ["--min-severity", "info"])
    assert shown.findings == {"error": 1, "warning": 0, "info": 3}  # PL219 x2, PL319
    assert shown.wrong == 1
    assert 0 < shown.info_lines < shown.lines
    folded = first_run.measure(command, folder, tmp_path, wrong, [])
    assert folded.findings == {"error": 1, "warning": 0, "info": 0} and folded.info_lines == 0
