"""The imports of model.py and of the modules beside it, read with ast, never run."""

from __future__ import annotations

import sys
import tempfile
import textwrap
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pbtxt_lint.artifacts.python_imports import MAX_FILES, local_modules, scan_imports


def model(tmp_path: Path, source: str, **files: str) -> Path:
    """`<tmp>/m/1/model.py` with `source`; `files` are paths relative to `m/`."""
    version = tmp_path / "m" / "1"
    version.mkdir(parents=True)
    (version / "model.py").write_text(textwrap.dedent(source).lstrip())
    for name, text in files.items():
        path = tmp_path / "m" / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return version / "model.py"


def uses(tmp_path: Path, source: str, **files: str) -> list[tuple[str, int, str, str, bool]]:
    scan = scan_imports(model(tmp_path, source, **files), tmp_path)
    return [(u.module, u.level, u.where, u.when, u.guarded) for u in scan.imports]


def test_where_and_when(tmp_path: Path) -> None:
    found = uses(
        tmp_path,
        """
        import numpy as np, os.path
        from PIL import Image

        class TritonPythonModel:
            import json

            def initialize(self, args):
                import torch

            @staticmethod
            def auto_complete_config(config):
                import yaml
                return config

            def execute(self, requests):
                from transformers import AutoTokenizer
                return []

            def finalize(self):
                import gc

            def helper(self):
                import scipy

        def build():
            import onnx
        """,
    )
    assert found == [
        ("numpy", 0, "module level", "load", False),
        ("os.path", 0, "module level", "load", False),
        ("PIL", 0, "module level", "load", False),
        ("json", 0, "module level", "load", False),
        ("torch", 0, "initialize", "load", False),
        ("yaml", 0, "auto_complete_config", "load", False),
        ("transformers", 0, "execute", "request", False),
        ("gc", 0, "finalize", "unload", False),
        ("scipy", 0, "function helper", "call", False),
        ("onnx", 0, "function build", "call", False),
    ]


def test_guards(tmp_path: Path) -> None:
    found = uses(
        tmp_path,
        """
        import contextlib, sys
        from typing import TYPE_CHECKING
        try:
            import orjson
        except ImportError:
            orjson = None
        try:
            import ujson
        except (ValueError, ModuleNotFoundError):
            pass
        with contextlib.suppress(ImportError):
            import simplejson
        if sys.version_info >= (3, 11):
            import tomllib
        else:
            import tomli as tomllib
        if TYPE_CHECKING:
            import numpy.typing
        try:
            import requests
        except KeyError:
            pass
        """,
    )
    guarded = {module for module, _, _, _, flag in found if flag}
    assert guarded == {"orjson", "ujson", "simplejson", "tomllib", "tomli", "numpy.typing"}
    assert ("requests", 0, "module level", "load", False) in found


def test_dynamic_imports_with_literals(tmp_path: Path) -> None:
    found = uses(
        tmp_path,
        """
        import importlib
        from importlib import import_module
        mod = importlib.import_module("transformers")
        other = import_module(".helper", __package__)
        legacy = __import__("yaml")
        name = "x"
        skipped = importlib.import_module(name)
        """,
    )
    assert ("transformers", 0, "module level", "load", False) in found
    assert ("helper", 1, "module level", "load", False) in found
    assert ("yaml", 0, "module level", "load", False) in found
    assert len([f for f in found if f[0] not in ("importlib",)]) == 3


def test_local_modules_are_followed(tmp_path: Path) -> None:
    path = model(
        tmp_path,
        """
        import helper
        from . import scaling

        class TritonPythonModel:
            def execute(self, requests):
                import lazy
                return []
        """,
        **{
            "1/helper.py": "import pandas\n\ndef f():\n    import scipy\n",
            "1/scaling.py": "from . import helper\nimport einops\n",
            "1/lazy.py": "import sklearn\n",
            "common.py": "import yaml\n",
        },
    )
    scan = scan_imports(path, tmp_path)
    found = {(u.module, u.file.name, u.when, u.via) for u in scan.imports}
    assert ("pandas", "helper.py", "load", ("helper",)) in found
    assert ("scipy", "helper.py", "call", ("helper",)) in found
    assert ("einops", "scaling.py", "load", (".",)) in found
    assert ("sklearn", "lazy.py", "request", ("lazy",)) in found
    assert not any(u.module == "yaml" for u in scan.imports)  # common.py is not imported
    assert scan.version_local == {"model", "helper", "scaling", "lazy"}
    assert scan.model_local == {"common"}


def test_bounded_and_unreadable_files(tmp_path: Path) -> None:
    chain = {f"1/mod{i}.py": f"import mod{i + 1}\n" for i in range(MAX_FILES + 10)}
    chain["1/broken.py"] = "def (:\n"
    path = model(tmp_path, "import mod0\nimport broken\n", **chain)
    outside = tmp_path / "outside.py"
    outside.write_text("import secret\n")
    (path.parent / "linked.py").symlink_to(outside)
    (path.parent / "model.py").write_text("import mod0\nimport broken\nimport linked\n")
    scan = scan_imports(path, tmp_path / "m")
    files = {u.file.name for u in scan.imports}
    assert len(files) <= MAX_FILES
    reasons = {p.name: why for p, why in scan.unread}
    assert reasons["broken.py"] == "it does not parse"
    assert "outside the repository" in reasons["linked.py"]
    assert not any(u.module == "secret" for u in scan.imports)


def test_nothing_is_imported(tmp_path: Path) -> None:
    path = model(tmp_path, "import sys\nsys.exit('imported!')\nimport pbtxt_never_here\n")
    before = set(sys.modules)
    scan = scan_imports(path, tmp_path)
    assert {u.module for u in scan.imports} == {"sys", "pbtxt_never_here"}
    assert set(sys.modules) - before <= {"pbtxt_lint.artifacts.python_imports"}


def test_local_module_names(tmp_path: Path) -> None:
    for name in ("a.py", "b.pyc", "ext.cpython-312-x86_64-linux-gnu.so", "not-a-module.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "1").mkdir()
    assert local_modules(tmp_path) == {"a", "b", "ext", "pkg"}


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text(max_size=300), st.binary(max_size=100))
def test_any_source_is_scanned_without_raising(text: str, raw: bytes) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        version = root / "m" / "1"
        version.mkdir(parents=True)
        (version / "model.py").write_text("import helper\n" + text, errors="surrogateescape")
        (version / "helper.py").write_bytes(raw)
        scan = scan_imports(version / "model.py", root)
    assert all(isinstance(use.module, str) and use.line >= 1 for use in scan.imports)
