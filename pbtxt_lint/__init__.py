"""pbtxt-lint: catch Triton Inference Server model-repository mistakes before deployment.

The Python API is `check(paths, CheckOptions(...)) -> LintResult` (`pbtxt_lint.linter`),
imported on first use so that importing any module of the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from pbtxt_lint.linter import CheckOptions, LintResult, check

__all__ = ["CheckOptions", "LintResult", "__version__", "check"]


def __getattr__(name: str) -> Any:
    if name in ("CheckOptions", "LintResult", "check"):
        from pbtxt_lint import linter  # deferred: the API loads the engine's layers

        return getattr(linter, name)
    raise AttributeError(f"module 'pbtxt_lint' has no attribute {name!r}")
