"""pygls is optional: the linter never imports it, and `pbtxt-lint lsp` without it says
which extra to install instead of a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "model_repository"
HIDE_PYGLS = "import sys; sys.modules['pygls'] = None\n"


def run(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )


def test_core_does_not_import_pygls() -> None:
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "import pbtxt_lint.cli.check, pbtxt_lint.linter, pbtxt_lint.textproto.format\n"
        "from pbtxt_lint.linter import lint\n"
        "from pbtxt_lint.settings import Settings\n"
        "lint([Path(sys.argv[1])], Settings())\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pygls', 'lsprotocol'))))\n"
    )
    result = run(code, str(EXAMPLES))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_lsp_without_pygls_names_the_extra() -> None:
    code = (
        HIDE_PYGLS + "from pbtxt_lint.cli import main\nsys.argv = ['pbtxt-lint', 'lsp']\nmain()\n"
    )
    result = run(code)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "pbtxt-lint: error: the language server needs pygls, which the 'lsp' extra installs: "
        "pip install 'pbtxt-lint[lsp]'"
    )
    assert "Traceback" not in result.stderr


def test_other_commands_work_without_pygls() -> None:
    code = (
        HIDE_PYGLS + "from pbtxt_lint.cli import main\nsys.argv = ['pbtxt-lint', 'rules']\nmain()\n"
    )
    result = run(code)
    assert result.returncode == 0, result.stderr
    assert "PL003" in result.stdout
